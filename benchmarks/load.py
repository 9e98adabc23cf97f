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
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import httpx

from protocol.messages import GetRound, NextRound, RoundInfo

from benchmarks import tdapi
from benchmarks.procs import ServerProcess, TreeSampler, free_port, repo_env
from benchmarks.session import Player, Samples, Table
from benchmarks.stats import Latency, fmt, markdown
from benchmarks.wsclient import TableLink

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
    deadline: float = 1800.0  # the whole run stops by itself after this many seconds
    work_dir: Path | None = None


@dataclass
class LoadReport:
    """The figures of one run (latencies in milliseconds)."""

    database: str
    workers: int
    tables: int
    ack_all: Latency
    ack_burst: Latency
    push_all: Latency
    push_burst: Latency
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
    watch_polls: int = 0
    watch_latency: Latency | None = None
    baseline_ack_all: Latency | None = None
    baseline_ack_burst: Latency | None = None

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
    import psycopg

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
    from server.db import make_engine, migrate

    engine = make_engine(url)
    try:
        migrate(engine)
    finally:
        engine.dispose()


# ------------------------------------------------------------------------------ watchers


async def _poll(
    http: httpx.AsyncClient,
    url: str,
    headers: dict[str, str],
    interval: float,
    stop: asyncio.Event,
    latencies: list[float],
    samples: Samples,
) -> None:
    """One TD dashboard or public ranking page: GET every ``interval`` seconds."""
    while not stop.is_set():
        sent = time.perf_counter()
        try:
            response = await http.get(url, headers=headers)
            latencies.append(time.perf_counter() - sent)
            if response.status_code != 200:
                samples.error(f"GET {url}: {response.status_code} {response.text[:200]}")
        except httpx.HTTPError as exc:
            samples.error(f"GET {url}: {type(exc).__name__}: {exc}")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), interval)


def _watchers(
    http: httpx.AsyncClient,
    plan: tdapi.EventPlan,
    cfg: LoadConfig,
    stop: asyncio.Event,
    latencies: list[float],
    samples: Samples,
) -> list[asyncio.Task[None]]:
    """Stand-ins until server/web/ has the TD live websocket and public pages: dashboards poll
    GET /sections/{id}/tables every 2 s, ranking pages GET /sections/{id}/results every 5 s."""
    tasks = []
    ids = [s["id"] for s in plan.sections]
    for i in range(cfg.dashboards):
        url = f"{plan.base_url}/api/v1/sections/{ids[i % len(ids)]}/tables"
        tasks.append(
            asyncio.create_task(_poll(http, url, plan.headers, 2.0, stop, latencies, samples))
        )
    for i in range(cfg.public):
        url = f"{plan.base_url}/api/v1/sections/{ids[i % len(ids)]}/results"
        tasks.append(
            asyncio.create_task(_poll(http, url, plan.headers, 5.0, stop, latencies, samples))
        )
    return tasks


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
        return Table(link, [b.board for b in info.boards], f"section {key[0]} table {key[1]}")

    return list(await asyncio.gather(*(one(k, t) for k, t in sorted(tokens.items()))))


async def _run_ours(cfg: LoadConfig, work: Path) -> LoadReport:
    with database(cfg.database, work) as url:
        premigrate(url)
        server = ServerProcess(url, workers=cfg.workers, log_path=work / "server.log")
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

                stop = asyncio.Event()
                watch: list[float] = []
                watchers = _watchers(http, plan, cfg, stop, watch, samples)
                cpu0 = time.process_time()
                player = Player(
                    tables, rounds=cfg.rounds, spread=cfg.spread, samples=samples, advance=advance
                )
                await player.play()
                client_cpu = time.process_time() - cpu0
                stop.set()
                await asyncio.gather(*watchers)
        finally:
            for table in tables:
                samples.errors.extend(table.link.errors)
            await asyncio.gather(*(t.link.close() for t in tables))
            sampler.stop()
            server.stop()
        return _report(cfg, samples, sampler, client_cpu, watch)


def _report(
    cfg: LoadConfig, samples: Samples, sampler: TreeSampler, client_cpu: float, watch: list[float]
) -> LoadReport:
    play = max(1e-9, samples.ended - samples.started)
    burst_time = sum(end - start for start, end in samples.bursts) or 1e-9
    cpu = sampler.cpu_between(samples.started, samples.ended)
    burst_cpu = sum(sampler.cpu_between(s, e) for s, e in samples.bursts)
    confirmed = samples.confirmed["steady"] + samples.confirmed["burst"]
    return LoadReport(
        database="SQLite" if cfg.database == "sqlite" else "PostgreSQL",
        workers=cfg.workers,
        tables=cfg.tables,
        ack_all=Latency.of(samples.ack["steady"] + samples.ack["burst"]),
        ack_burst=Latency.of(samples.ack["burst"]),
        push_all=Latency.of(samples.push["steady"] + samples.push["burst"]),
        push_burst=Latency.of(samples.push["burst"]),
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
        watch_polls=len(watch),
        watch_latency=Latency.of(watch),
    )


# ------------------------------------------------------------------------------ baseline


async def _run_baseline(cfg: LoadConfig, work: Path) -> Samples:
    """The same tables and messages against the echo-with-SQLite server."""
    port = free_port()
    db = work / "echo.db"
    proc = subprocess.Popen(
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
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvicorn[standard] brings it
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
            "push p50",
            "push p99",
            "burst push p50",
            "burst push p99",
        ],
        [
            [
                r.database,
                r.workers,
                r.tables,
                fmt(r.ack_all.p50),
                fmt(r.ack_all.p99),
                fmt(r.ack_all.max),
                fmt(r.ack_burst.p50),
                fmt(r.ack_burst.p99),
                fmt(r.ack_burst.max),
                fmt(r.push_all.p50),
                fmt(r.push_all.p99),
                fmt(r.push_burst.p50),
                fmt(r.push_burst.p99),
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
            "burst CPU %",
            "client CPU s",
            "peak RSS MB",
            "watch polls (p99 ms)",
            "errors",
            "baseline p50 (burst)",
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
                fmt(r.burst_cpu_pct, 0),
                fmt(r.client_cpu_s),
                fmt(r.peak_rss_mb, 0),
                f"{r.watch_polls} ({fmt(r.watch_latency.p99) if r.watch_latency else '-'})",
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
