"""`traveller bench ...`: the load benchmark, the chaos run, the attack floods and the
scoring/keypad benchmarks.

The `benchmarks` package is not pip-installed: it is imported from the repository root, so the
commands work from a clone (`./traveller bench load`) and say so clearly anywhere else.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
from pathlib import Path

import typer

from benchmarks import attack as attack_bench
from benchmarks import chaos as chaos_bench
from benchmarks import load as load_bench

app = typer.Typer(
    name="bench",
    help="Benchmarks and fault runs (loopback only; each stops by itself).",
    no_args_is_help=True,
    add_completion=False,
)


def _ints(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError as exc:
        raise typer.BadParameter(f"{text!r}: give numbers separated by commas") from exc


@app.command()
def load(
    tables: str = typer.Option("50", help="Table counts, comma separated: 50,200,500,1000."),
    database: str = typer.Option("sqlite", help="sqlite or postgres (TRAVELLER_TEST_PG)."),
    workers: str = typer.Option("1", help="Server worker counts, comma separated: 1,4."),
    dashboards: int = typer.Option(5, help="TD dashboards watching during the run (M)."),
    public: int = typer.Option(20, help="Public ranking clients during the run (P)."),
    spread: float = typer.Option(1.0, help="The round-end burst lasts this many seconds."),
    rounds: int = typer.Option(3, min=1, help="Rounds of the Mitchell."),
    boards_per_round: int = typer.Option(3, min=2, max=8, help="Boards a round."),
    baseline: bool = typer.Option(True, help="Also run the echo+SQLite baseline."),
    pg_pool: str = typer.Option(
        "", help='What-if: PostgreSQL pool per worker as "size,overflow" (shipped: 5,5).'
    ),
    deadline: float = typer.Option(1800, help="Stop a run after this many seconds."),
    json_out: Path | None = typer.Option(None, "--json", help="Also write the figures here."),
    py_spy: Path | None = typer.Option(
        None, "--py-spy", help="Record the server with py-spy during the play: FILE prefix."
    ),
) -> None:
    """N tables as protocol clients over the websocket, with a round-end burst."""
    if database not in ("sqlite", "postgres"):
        raise typer.BadParameter("--database is sqlite or postgres")
    reports = []
    failed: list[str] = []
    for count in _ints(tables):
        for worker_count in _ints(workers):
            cfg = load_bench.LoadConfig(
                tables=count,
                database=database,
                workers=worker_count,
                rounds=rounds,
                boards_per_round=boards_per_round,
                dashboards=dashboards,
                public=public,
                spread=spread,
                baseline=baseline,
                pg_pool=pg_pool or None,
                deadline=deadline,
                profile=None
                if py_spy is None
                else py_spy.with_name(f"{py_spy.name}-{count}t-{worker_count}w.txt"),
            )
            typer.echo(f"running {count} tables on {database}, {worker_count} worker(s)...")
            try:
                report = load_bench.run(cfg)
            except Exception as exc:  # one failed size does not stop the others
                failed.append(f"{count} tables, {worker_count} worker(s): {exc}")
                typer.echo(f"failed: {failed[-1]}", err=True)
                continue
            reports.append(report)
            typer.echo(load_bench.render([report]))
            for line in report.error_samples[:5]:
                typer.echo(f"error: {line}", err=True)
            if report.server_log:
                typer.echo(f"server log kept: {report.server_log}", err=True)
            if json_out is not None:
                json_out.write_text(load_bench.to_json(reports))
    typer.echo(load_bench.render(reports))
    for line in failed:
        typer.echo(f"failed: {line}", err=True)
    if failed or any(r.errors for r in reports):
        raise typer.Exit(1)


@app.command()
def chaos(
    tables: int = typer.Option(20, min=2, max=50, help="Tables (one Mitchell section)."),
    rounds: int = typer.Option(3, min=1, help="Rounds."),
    boards_per_round: int = typer.Option(4, min=2, max=8, help="Boards a round."),
    duration: float = typer.Option(180, min=20, help="Roughly how long the session lasts (s)."),
    cut: float = typer.Option(30, min=1, help="Length of the network cut (s)."),
    database: str = typer.Option("sqlite", help="sqlite or postgres (TRAVELLER_TEST_PG)."),
    disk_full: bool = typer.Option(False, help="Also fill the disk for 10 s (root: tmpfs)."),
) -> None:
    """A session under faults: kill -9, terminal crashes, a network cut; then the DB check."""
    cfg = chaos_bench.ChaosConfig(
        tables=tables,
        rounds=rounds,
        boards_per_round=boards_per_round,
        duration=duration,
        cut_seconds=cut,
        database=database,
        disk_full=disk_full,
    )
    report = chaos_bench.run(cfg)
    typer.echo(chaos_bench.render(report))
    if not report.ok:
        raise typer.Exit(1)


@app.command()
def attack(
    guess_sources: int = typer.Option(50, min=1, max=250, help="Addresses guessing codes."),
    guess_seconds: float = typer.Option(
        120, min=1, max=900, help="How long they guess (s; the per-address window is 60 s)."
    ),
    bodies: int = typer.Option(4, min=1, max=16, help="Oversized bodies sent at once."),
    body_mb: int = typer.Option(200, min=1, max=1024, help="Size of each body (MB)."),
    connections: int = typer.Option(600, min=1, max=5000, help="Idle and slow connections."),
    per_source: int = typer.Option(50, min=1, help="Connections per source address."),
    header_timeout: float = typer.Option(5, min=0.5, max=60, help="The server's timeout (s)."),
) -> None:
    """Floods against `traveller serve` on 127.0.0.1 (from 127.0.0.2 and up): pairing guesses
    per hour reaching the check, RSS under oversized bodies, idle connections held."""
    cfg = attack_bench.AttackConfig(
        guess_sources=guess_sources,
        guess_seconds=guess_seconds,
        bodies=bodies,
        body_mb=body_mb,
        connections=connections,
        per_source=per_source,
        header_timeout=header_timeout,
    )
    typer.echo(attack_bench.render(attack_bench.run(cfg)))


def _wrap(module: str, name: str) -> None:
    """Register `bench <name>` for benchmarks/<module>.py's run(), if that file exists."""
    if importlib.util.find_spec(f"benchmarks.{module}") is None:
        return

    def command() -> None:
        runner = importlib.import_module(f"benchmarks.{module}").run
        typer.echo(json.dumps(runner(), indent=2, default=str))

    command.__doc__ = f"The {name} benchmark (benchmarks/{module}.py)."
    app.command(name=name)(command)


_wrap("bench_scoring", "scoring")
_wrap("bench_keypad", "keypad")
