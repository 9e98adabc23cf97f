"""`traveller bench ...`: the load benchmark, the chaos run and the scoring/keypad benchmarks.

The `benchmarks` package is not pip-installed: it is imported from the repository root, so the
commands work from a clone (`./traveller bench load`) and say so clearly anywhere else.
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

import typer

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
    deadline: float = typer.Option(1800, help="Stop a run after this many seconds."),
    json_out: Path | None = typer.Option(None, "--json", help="Also write the figures here."),
) -> None:
    """N tables as protocol clients over the websocket, with a round-end burst."""
    from benchmarks.load import LoadConfig, render, run, to_json

    if database not in ("sqlite", "postgres"):
        raise typer.BadParameter("--database is sqlite or postgres")
    reports = []
    for count in _ints(tables):
        for worker_count in _ints(workers):
            cfg = LoadConfig(
                tables=count,
                database=database,
                workers=worker_count,
                rounds=rounds,
                boards_per_round=boards_per_round,
                dashboards=dashboards,
                public=public,
                spread=spread,
                baseline=baseline,
                deadline=deadline,
            )
            typer.echo(f"running {count} tables on {database}, {worker_count} worker(s)...")
            reports.append(run(cfg))
            typer.echo(render(reports[-1:]))
    typer.echo(render(reports))
    if json_out is not None:
        json_out.write_text(to_json(reports))
    if any(r.errors for r in reports):
        for r in reports:
            for line in r.error_samples:
                typer.echo(f"error: {line}", err=True)
        raise typer.Exit(1)


def _wrap(module: str, name: str) -> None:
    """Register `bench <name>` for benchmarks/<module>.py's run(), if that file exists."""
    if importlib.util.find_spec(f"benchmarks.{module}") is None:
        return

    def command() -> None:
        runner = importlib.import_module(f"benchmarks.{module}").run
        result = runner()
        if isinstance(result, dict):
            for key, value in result.items():
                typer.echo(f"{key}: {value}")
        elif result is not None:
            typer.echo(str(result))

    command.__doc__ = f"The {name} benchmark (benchmarks/{module}.py)."
    app.command(name=name)(command)


_wrap("bench_scoring", "scoring")
_wrap("bench_keypad", "keypad")
