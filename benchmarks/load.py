"""`traveller bench load`: N tables as real protocol clients against a real uvicorn server.

Set-up goes through the TD API (an event of Mitchell sections, 3 rounds x 3 boards); every table
pairs, opens the table websocket, checks its seat (get_round), then enters and confirms every
board. The last board of each round is a burst: all tables send it within the same second while
TD dashboards and public ranking clients poll. The same client then drives a bare websocket
echo that stores each message in SQLite (the limit), for the p50 ratio.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import httpx
import psycopg

try:
    import uvloop
except ImportError:  # pragma: no cover - uvicorn[standard] brings it
    uvloop = None  # type: ignore[assignment]

from benchmarks import tdapi
from benchmarks.procs import ServerProcess, TreeSampler, free_port, repo_env
from benchmarks.serverapp import POOL_ENV
from benchmarks.session import Player, Samples, Table
from benchmarks.stats import Latency, fmt, markdown
from benchmarks.watchers import Watchers
from benchmarks.wsclient import TableLink
from protocol.messages import GetRound, NextRound, RoundInfo
from server.core.db import make_engine, migrate

PG_ADMIN_URL = os.environ.get("TRAVELLER_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


@dataclass
class LoadConfig:
    """What to run: table count, database, workers, how many watchers, how hard the burst."""

    tables: int = 50
    database: str = "sqlite"  # "sqlite" or "postgres"
    workers: int = 1
    rounds: int = 3
    boards_per_round: int = 3
    dashboards: int = 5
    public: int = 20
    spread: float = 1.0  # the burst: every table sends within this many seconds
    baseline: bool = True
    pg_pool: str | None = None  # "5,5": a what-if pool per worker instead of the shipped one
    deadline: float = 1800.0  # the whole run stops by itself after this many seconds
    work_dir: Path | None = None
    #: Record the server with py-spy during the play (raw collapsed stacks written here).
    profile: Path | None = None


@dataclass
class LoadReport:
    """The figures of one run (latencies in milliseconds)."""

    database: str
    workers: int
    tables: int
    ack_all: Latency
    ack_burst: Latency
    push_all: Latency  # to the table's own websocket (result_changed)
    push_burst: Latency
    dash_all: Latency  # to a TD dashboard watching the section
    dash_burst: Latency
    dash_missing: int
    public_updates: int
    confirmed: int
    play_seconds: float
    results_per_s: float
    burst_results_per_s: float
    server_cpu_s: float
    server_cpu_pct: float
    burst_cpu_pct: float
    client_cpu_s: float
    peak_rss_mb: float
    errors: int
    error_samples: list[str] = field(default_factory=list)
    server_log: str | None = None  # kept when anything went wrong
    baseline_ack_all: Latency | None = None
    baseline_ack_burst: Latency | None = None
    #: Table commands during the play: enter and confirm (acknowledged) and next_round.
    commands: int = 0

    @property
    def cpu_per_command_ms(self) -> float:
        return 1000 * self.server_cpu_s / self.commands if self.commands else math.nan

    @property
    def cpu_per_result_ms(self) -> float:
        return 1000 * self.server_cpu_s / self.confirmed if self.confirmed else math.nan

    @property
    def ratio(self) -> float:
        """Our p50 ack latency over the echo-with-SQLite baseline's (whole session)."""
        if self.baseline_ack_all is None or not self.baseline_ack_all.p50:
            return math.nan
        return self.ack_all.p50 / self.baseline_ack_all.p50

    @property
    def burst_ratio(self) -> float:
        if self.baseline_ack_burst is None or not self.baseline_ack_burst.p50:
            return math.nan
        return self.ack_burst.p50 / self.baseline_ack_burst.p50


# ------------------------------------------------------------------------------ databases


@contextlib.contextmanager
def database(kind: str, work: Path) -> Iterator[str]:
    """A fresh, empty database: a SQLite file in ``work`` or a new PostgreSQL database."""
    if kind == "sqlite":
        yield f"sqlite:///{work / 'traveller-load.db'}"
        return
    name = f"traveller_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN_URL.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1)
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def premigrate(url: str) -> None:
    """Create the schema before the workers start, so they do not race to migrate."""
    engine = make_engine(url)
    try:
        migrate(engine)
    finally:
        engine.dispose()


# ------------------------------------------------------------------------------ our server


async def _connect(
    server: ServerProcess, tokens: dict[tuple[int, int], str], samples: Samples
) -> list[Table]:
    """Open every table's websocket, say hello and check the seat with get_round."""
    gate = asyncio.Semaphore(50)

    async def one(key: tuple[int, int], token: str) -> Table:
        async with gate:
            link = TableLink(server.ws_url, token)
            await link.open()
            info = await link.ask(GetRound())
        if not isinstance(info, RoundInfo) or info.round != 1:
            samples.error(f"table {key}: get_round answered {info!r}"[:300])
            return Table(link, [], f"{key}")
        label = f"section {key[0]} table {key[1]}"
        return Table(link, [b.board for b in info.boards], label, section=key[0])

    return list(await asyncio.gather(*(one(k, t) for k, t in sorted(tokens.items()))))


async def _run_ours(cfg: LoadConfig, work: Path) -> LoadReport:
    with database(cfg.database, work) as url:
        premigrate(url)
        server = ServerProcess(
            url,
            workers=cfg.workers,
            log_path=work / "server.log",
            env={
                "TRAVELLER_MAX_SOCKETS_PER_ADDRESS": "0",  # every table is on 127.0.0.1
                **({POOL_ENV: cfg.pg_pool} if cfg.pg_pool else {}),
            },
        )
        await asyncio.to_thread(server.start)
        sampler = TreeSampler(server.pid).start()
        samples = Samples()
        tables: list[Table] = []
        limits = httpx.Limits(max_connections=100, max_keepalive_connections=100)
        try:
            async with httpx.AsyncClient(timeout=60, limits=limits) as http:
                plan = await tdapi.create_event(
                    http,
                    server.base_url,
                    tables=cfg.tables,
                    rounds=cfg.rounds,
                    boards_per_round=cfg.boards_per_round,
                )
                await tdapi.start_round(http, plan, 1)
                tokens = await tdapi.pair_all(http, plan)
                tables = await _connect(server, tokens, samples)

                async def advance(round_: int) -> None:
                    await tdapi.start_round(http, plan, round_ + 1)

                    async def move(table: Table) -> None:
                        info = await table.link.ask(NextRound())
                        if isinstance(info, RoundInfo) and info.round == round_ + 1:
                            table.boards = [b.board for b in info.boards]
                        else:
                            table.boards = []
                            samples.error(f"{table.label}: next_round answered {info!r}"[:300])

                    await asyncio.gather(*(move(t) for t in tables))

                watchers = Watchers(
                    server.base_url, plan.td_token, [s["id"] for s in plan.sections], samples
                )
                await watchers.start(cfg.dashboards, cfg.public, http)
                cpu0 = time.process_time()
                spy = _py_spy(server.pid, cfg.profile)
                player = Player(
                    tables, rounds=cfg.rounds, spread=cfg.spread, samples=samples, advance=advance
                )
                await player.play()
                client_cpu = time.process_time() - cpu0
                await asyncio.sleep(1.0)  # the last dashboard updates
                _stop_py_spy(spy)
                await watchers.stop()
        except Exception as exc:
            raise RuntimeError(f"{exc} (server log: {_keep_log(cfg, server)})") from exc
        finally:
            for table in tables:
                samples.errors.extend(table.link.errors)
            await asyncio.gather(*(t.link.close() for t in tables))
            sampler.stop()
            server.stop()
        report = _report(cfg, samples, sampler, client_cpu, watchers)
        if report.errors:
            report.server_log = _keep_log(cfg, server)
        return report


def _py_spy(pid: int, out: Path | None) -> subprocess.Popen[bytes] | None:
    """py-spy recording the server's process tree into ``out`` (collapsed stacks), if asked."""
    if out is None:
        return None
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    cmd = [spy, "record", "--pid", str(pid), "--subprocesses", "--rate", "200"]
    cmd += ["--format", "raw", "--output", str(out), "--nonblocking"]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _stop_py_spy(spy: subprocess.Popen[bytes] | None) -> None:
    """End a recording (py-spy writes its file on SIGINT)."""
    if spy is None:
        return
    spy.send_signal(signal.SIGINT)
    try:
        spy.wait(timeout=60)
    except subprocess.TimeoutExpired:
        spy.kill()
        spy.wait()


def _keep_log(cfg: LoadConfig, server: ServerProcess) -> str | None:
    """Copy the server's log out of the temporary directory, for the post-mortem."""
    if server.log_path is None or not server.log_path.exists():
        return None
    name = f"traveller-load-{cfg.database}-{cfg.workers}w-{cfg.tables}t-{int(time.time())}.log"
    kept = Path(tempfile.gettempdir()) / name
    shutil.copyfile(server.log_path, kept)
    return str(kept)


def _dashboard(samples: Samples, watchers: Watchers, watched: set[int]) -> dict[str, list[float]]:
    """Entry -> dashboard latencies by phase, for commands in sections a dashboard watched."""
    out: dict[str, list[float]] = {"steady": [], "burst": [], "missing": []}
    for section, phase, sent, acked in samples.commands:
        if section in watched:
            latency = watchers.latency(section, sent, acked)
            out[phase if latency is not None else "missing"].append(latency or 0.0)
    return out


def _report(
    cfg: LoadConfig, samples: Samples, sampler: TreeSampler, client_cpu: float, watchers: Watchers
) -> LoadReport:
    play = max(1e-9, samples.ended - samples.started)
    burst_time = sum(end - start for start, end in samples.bursts) or 1e-9
    cpu = sampler.cpu_between(samples.started, samples.ended)
    burst_cpu = sum(sampler.cpu_between(s, e) for s, e in samples.bursts)
    confirmed = samples.confirmed["steady"] + samples.confirmed["burst"]
    watched = set(watchers.sections[: cfg.dashboards])
    dash = _dashboard(samples, watchers, watched)
    return LoadReport(
        database=(
            "SQLite"
            if cfg.database == "sqlite"
            else f"PostgreSQL{f' (pool {cfg.pg_pool})' if cfg.pg_pool else ''}"
        ),
        workers=cfg.workers,
        tables=cfg.tables,
        ack_all=Latency.of(samples.ack["steady"] + samples.ack["burst"]),
        ack_burst=Latency.of(samples.ack["burst"]),
        push_all=Latency.of(samples.push["steady"] + samples.push["burst"]),
        push_burst=Latency.of(samples.push["burst"]),
        dash_all=Latency.of(dash["steady"] + dash["burst"]),
        dash_burst=Latency.of(dash["burst"]),
        dash_missing=len(dash["missing"]),
        public_updates=watchers.public_updates,
        confirmed=confirmed,
        play_seconds=play,
        results_per_s=confirmed / play,
        burst_results_per_s=samples.confirmed["burst"] / burst_time,
        server_cpu_s=cpu,
        server_cpu_pct=100 * cpu / play,
        burst_cpu_pct=100 * burst_cpu / burst_time,
        client_cpu_s=client_cpu,
        peak_rss_mb=sampler.peak_hwm_kb / 1024,
        errors=len(samples.errors),
        error_samples=samples.errors[:10],
        commands=len(samples.ack["steady"])
        + len(samples.ack["burst"])
        + cfg.tables * (cfg.rounds - 1),
    )


# ------------------------------------------------------------------------------ baseline


async def _run_baseline(cfg: LoadConfig, work: Path) -> Samples:
    """The same tables and messages against the echo-with-SQLite server."""
    port = free_port()
    db = work / "echo.db"
    proc = subprocess.Popen(  # noqa: ASYNC220 - returns at once; the server runs beside the loop
        [sys.executable, "-m", "benchmarks.baseline", "--port", str(port), "--db", str(db)],
        env=repo_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    samples = Samples()
    tables: list[Table] = []
    try:
        assert proc.stdout is not None
        await asyncio.to_thread(proc.stdout.readline)  # "echo on ws://..."
        gate = asyncio.Semaphore(50)

        async def one(i: int) -> Table:
            async with gate:
                link = TableLink(f"ws://127.0.0.1:{port}", f"token-{i}", echo=True)
                await link.open()
            return Table(link, list(range(1, cfg.boards_per_round + 1)), f"echo {i}")

        tables = list(await asyncio.gather(*(one(i) for i in range(cfg.tables))))
        player = Player(
            tables, rounds=cfg.rounds, spread=cfg.spread, samples=samples, measure_push=False
        )
        await player.play()
    finally:
        await asyncio.gather(*(t.link.close() for t in tables))
        proc.terminate()
        proc.wait(timeout=10)
    return samples


# ------------------------------------------------------------------------------ entry point


async def run_load(cfg: LoadConfig) -> LoadReport:
    """One full run (ours, then the baseline), bounded by ``cfg.deadline``."""
    with tempfile.TemporaryDirectory(prefix="traveller-load-", dir=cfg.work_dir) as tmp:
        work = Path(tmp)
        report = await asyncio.wait_for(_run_ours(cfg, work), cfg.deadline)
        if cfg.baseline:
            base = await asyncio.wait_for(_run_baseline(cfg, work), cfg.deadline)
            report.baseline_ack_all = Latency.of(base.ack["steady"] + base.ack["burst"])
            report.baseline_ack_burst = Latency.of(base.ack["burst"])
            report.errors += len(base.errors)
            report.error_samples += base.errors[:5]
        return report


def run(cfg: LoadConfig) -> LoadReport:
    """Run synchronously (uvloop when installed, like uvicorn)."""
    if uvloop is None:  # pragma: no cover - uvicorn[standard] brings it
        return asyncio.run(run_load(cfg))
    return uvloop.run(run_load(cfg))


def render(reports: list[LoadReport]) -> str:
    """The latency table and the throughput/resources table, in Markdown."""
    lat = markdown(
        [
            "DB",
            "workers",
            "tables",
            "ack p50",
            "ack p99",
            "ack max",
            "burst ack p50",
            "burst ack p99",
            "burst ack max",
            "dashboard p50",
            "dashboard p99",
            "burst dashboard p50",
            "burst dashboard p99",
            "terminal push p50 / p99 (burst)",
        ],
        [
            [
                r.database,
                r.workers,
                r.tables,
                *(fmt(x) for x in (r.ack_all.p50, r.ack_all.p99, r.ack_all.max)),
                *(fmt(x) for x in (r.ack_burst.p50, r.ack_burst.p99, r.ack_burst.max)),
                *(fmt(x) for x in (r.dash_all.p50, r.dash_all.p99)),
                *(fmt(x) for x in (r.dash_burst.p50, r.dash_burst.p99)),
                f"{fmt(r.push_burst.p50)} / {fmt(r.push_burst.p99)}",
            ]
            for r in reports
        ],
    )
    res = markdown(
        [
            "DB",
            "workers",
            "tables",
            "confirmed",
            "results/s",
            "burst results/s",
            "server CPU s (% of 1 core)",
            "server CPU ms a command / a result",
            "burst CPU %",
            "client CPU s",
            "peak RSS MB",
            "dashboard misses / public updates",
            "errors",
            "baseline p50 (burst) ms",
            "ours / baseline p50 (burst)",
        ],
        [
            [
                r.database,
                r.workers,
                r.tables,
                r.confirmed,
                fmt(r.results_per_s),
                fmt(r.burst_results_per_s),
                f"{fmt(r.server_cpu_s)} ({fmt(r.server_cpu_pct, 0)}%)",
                f"{fmt(r.cpu_per_command_ms, 2)} / {fmt(r.cpu_per_result_ms, 2)}",
                fmt(r.burst_cpu_pct, 0),
                fmt(r.client_cpu_s),
                fmt(r.peak_rss_mb, 0),
                f"{r.dash_missing} / {r.public_updates}",
                r.errors,
                (
                    f"{fmt(r.baseline_ack_all.p50, 2)} ({fmt(r.baseline_ack_burst.p50, 2)})"
                    if r.baseline_ack_all and r.baseline_ack_burst
                    else "-"
                ),
                f"{fmt(r.ratio)}x ({fmt(r.burst_ratio)}x)",
            ]
            for r in reports
        ],
    )
    return f"Latencies in ms.\n\n{lat}\n\n{res}\n"


def to_json(reports: list[LoadReport]) -> str:
    return json.dumps([asdict(r) for r in reports], indent=2, default=str)
