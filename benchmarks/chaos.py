"""`traveller bench chaos`: a whole session of outbox terminals playing through a TCP proxy while
faults are injected on a schedule: the server killed (-9) and restarted, terminals crashing, a
30-second network cut, optionally the disk filling up. It ends with the exactly-once check."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from benchmarks import tdapi
from benchmarks.load import database, premigrate
from benchmarks.outbox import Terminal
from benchmarks.procs import ServerProcess
from benchmarks.proxy import CutProxy
from benchmarks.stats import markdown
from benchmarks.verify import verify


@dataclass
class ChaosConfig:
    """The session (tables x rounds x boards), how long it lasts and which faults to inject."""

    tables: int = 20
    rounds: int = 3
    boards_per_round: int = 4
    duration: float = 180.0
    cut_seconds: float = 30.0
    database: str = "sqlite"
    disk_full: bool = False
    work_dir: Path | None = None


@dataclass
class Fault:
    """One injected fault: when (s from the start), how long, and how soon acks flowed again."""

    name: str
    at: float
    lasted: float
    recovered_after: float | None = None


@dataclass
class ChaosReport:
    config: ChaosConfig
    faults: list[Fault] = field(default_factory=list)
    seconds: float = 0.0
    commands: int = 0
    acks: int = 0
    duplicates: int = 0
    retries: int = 0
    reconnects: int = 0
    refused: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and not self.refused


class Session:
    """The running session: server, proxy, terminals and the TD moving the rounds on."""

    def __init__(self, cfg: ChaosConfig, server: ServerProcess, proxy: CutProxy, work: Path):
        self.cfg = cfg
        self.server = server
        self.proxy = proxy
        self.work = work
        self.terminals: dict[int, Terminal] = {}
        self.tasks: dict[int, asyncio.Task[None]] = {}
        self.plan: tdapi.EventPlan | None = None
        self.started = time.monotonic()

    @property
    def pace(self) -> float:
        commands = self.cfg.rounds * self.cfg.boards_per_round * 2
        return 0.85 * self.cfg.duration / commands

    def launch(self, number: int, token: str) -> None:
        terminal = Terminal(
            self.proxy.ws_url,
            token,
            number,
            self.work / f"table-{number}",
            rounds=self.cfg.rounds,
            pace=self.pace,
        )
        self.terminals[number] = terminal
        self.tasks[number] = asyncio.create_task(terminal.run())

    async def finished(self) -> None:
        """Until every terminal (the restarted ones included) has played its last round."""
        while pending := [t for t in self.tasks.values() if not t.done()]:
            await asyncio.wait(pending)
        for task in self.tasks.values():
            if task.exception() is not None:
                raise task.exception()  # type: ignore[misc]

    def last_ack(self) -> float:
        return max((t.last_ack for t in self.terminals.values()), default=0.0)

    async def td_driver(self, http: httpx.AsyncClient) -> None:
        """Start the next round once every table has finished the current one."""
        assert self.plan is not None
        section = self.plan.sections[0]["id"]
        current = 1
        while current < self.cfg.rounds:
            await asyncio.sleep(1.0)
            with contextlib.suppress(httpx.HTTPError, RuntimeError):
                tables = tdapi.check(
                    await http.get(
                        f"{self.server.base_url}/api/v1/sections/{section}/tables",
                        headers=self.plan.headers,
                    )
                )
                if all(t["round"] == current and t["complete"] for t in tables):
                    await tdapi.start_round(http, self.plan, current + 1)
                    current += 1

    async def fault(self, name: str, action: Callable[[], Awaitable[None]]) -> Fault:
        """Run one fault and measure how long after it the first acknowledgement came."""
        begun = time.monotonic()
        await action()
        ended = time.monotonic()
        record = Fault(name, begun - self.started, ended - begun)
        deadline = ended + 120
        while time.monotonic() < deadline and not all(t.done() for t in self.tasks.values()):
            if self.last_ack() > ended:
                record.recovered_after = self.last_ack() - ended
                break
            await asyncio.sleep(0.05)
        return record

    async def kill_server(self) -> None:
        self.server.kill9()
        await asyncio.sleep(2.0)
        await asyncio.to_thread(self.server.start)

    async def crash_terminals(self) -> None:
        """A third of the terminals lose everything but their outbox file, then restart."""
        victims = sorted(self.terminals)[:: max(1, 3)]
        for number in victims:
            self.tasks[number].cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.tasks[number]
        await asyncio.sleep(2.0)
        for number in victims:
            self.launch(number, self.terminals[number].token)

    async def cut_network(self) -> None:
        await self.proxy.cut(self.cfg.cut_seconds)

    async def fill_disk(self) -> None:
        filler = self.work / "disk" / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
        with contextlib.suppress(OSError):
            while True:
                os.write(fd, b"\0" * 65536)
        os.close(fd)
        await asyncio.sleep(10.0)
        filler.unlink()


async def _schedule(run: Session, report: ChaosReport) -> None:
    steps: list[tuple[float, str, Callable[[], Awaitable[None]]]] = [
        (0.15, "server kill -9 + restart", run.kill_server),
        (0.30, "terminal crash (1 in 3) + restart", run.crash_terminals),
        (0.45, f"network cut {run.cfg.cut_seconds:g} s", run.cut_network),
        (0.85, "server kill -9 + restart", run.kill_server),
    ]
    if run.cfg.disk_full:
        steps.insert(3, (0.70, "disk full 10 s", run.fill_disk))
    for share, name, action in steps:
        await asyncio.sleep(max(0.0, run.started + share * run.cfg.duration - time.monotonic()))
        if all(t.done() for t in run.tasks.values()):
            break
        report.faults.append(await run.fault(name, action))


async def _until_done(run: Session, chaos: asyncio.Task[None], timeout: float) -> None:
    """Wait for the terminals to finish; a fault that fails (say the server does not come back)
    ends the run at once, with its error."""
    finished = asyncio.create_task(run.finished())
    try:
        done, _ = await asyncio.wait({finished, chaos}, timeout=timeout)
        if chaos in done and chaos.exception() is not None:
            raise RuntimeError("a fault could not be injected") from chaos.exception()
        await asyncio.wait_for(finished, timeout)
    finally:
        chaos.cancel()
        finished.cancel()
        for task in run.tasks.values():
            task.cancel()


@contextlib.contextmanager
def _disk(cfg: ChaosConfig, work: Path) -> Iterator[Path | None]:
    """A 32 MiB tmpfs for the database when the disk-full fault is on (needs root)."""
    if not cfg.disk_full:
        yield None
        return
    mount = work / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


async def run_chaos(cfg: ChaosConfig) -> ChaosReport:
    """One chaos session; returns what happened and the exactly-once verdict."""
    if cfg.tables > tdapi.MAX_SECTION:
        raise ValueError(f"chaos runs one section: at most {tdapi.MAX_SECTION} tables")
    report = ChaosReport(cfg)
    with (
        tempfile.TemporaryDirectory(prefix="traveller-chaos-", dir=cfg.work_dir) as tmp,
        _disk(cfg, Path(tmp)) as disk,
    ):
        work = Path(tmp)
        kind = cfg.database
        with database(kind, disk or work) as url:
            premigrate(url)
            env = {"TRAVELLER_MAX_SOCKETS_PER_ADDRESS": "0"}
            server = ServerProcess(url, env=env, log_path=work / "server.log")
            await asyncio.to_thread(server.start)
            proxy = CutProxy(server.port)
            await proxy.start()
            run = Session(cfg, server, proxy, work)
            try:
                async with httpx.AsyncClient(timeout=30) as http:
                    run.plan = await tdapi.create_event(
                        http,
                        server.base_url,
                        tables=cfg.tables,
                        rounds=cfg.rounds,
                        boards_per_round=cfg.boards_per_round,
                        name="Chaos session",
                    )
                    await tdapi.start_round(http, run.plan, 1)
                    tokens = await tdapi.pair_all(http, run.plan)
                    run.started = time.monotonic()
                    for (_, number), token in sorted(tokens.items()):
                        run.launch(number, token)
                    driver = asyncio.create_task(run.td_driver(http))
                    chaos = asyncio.create_task(_schedule(run, report))
                    await _until_done(run, chaos, cfg.duration + 300)
                    report.seconds = time.monotonic() - run.started
                    driver.cancel()
            finally:
                await proxy.close()
                server.stop()
            acks = [a for t in run.terminals.values() for a in t.acks.read()]
            report.commands = len({a["entry_id"] for a in acks})
            report.acks = len(acks)
            report.duplicates = sum(1 for a in acks if a["duplicate"])
            report.retries = sum(t.retries for t in run.terminals.values())
            report.reconnects = sum(t.reconnects for t in run.terminals.values())
            report.refused = [r for t in run.terminals.values() for r in t.refused]
            section_id = int(run.plan.sections[0]["id"]) if run.plan else 0
            verdict = verify(url, section_id, acks)
            report.problems = verdict.problems
            expected = cfg.tables * cfg.rounds * cfg.boards_per_round
            if verdict.results != expected:
                report.problems.append(f"{verdict.results} results stored, {expected} played")
    return report


def render(report: ChaosReport) -> str:
    cfg = report.config
    faults = markdown(
        ["fault", "at (s)", "lasted (s)", "first ack after (s)"],
        [
            [
                f.name,
                f"{f.at:.1f}",
                f"{f.lasted:.1f}",
                "-" if f.recovered_after is None else f"{f.recovered_after:.2f}",
            ]
            for f in report.faults
        ],
    )
    verdict = "every acknowledged result stored exactly once" if report.ok else "FAILED"
    lines = [
        f"Chaos: {cfg.tables} tables x {cfg.rounds} rounds x {cfg.boards_per_round} boards on "
        f"{cfg.database}, {report.seconds:.0f} s.",
        "",
        faults,
        "",
        f"Commands acknowledged: {report.commands} (acks {report.acks}, of which duplicates "
        f"{report.duplicates}); retries {report.retries}; reconnects {report.reconnects}.",
        f"Verdict: {verdict}.",
    ]
    lines += [f"- problem: {p}" for p in report.problems[:20]]
    lines += [f"- refused: {r}" for r in report.refused[:20]]
    return "\n".join(lines) + "\n"


def run(cfg: ChaosConfig) -> ChaosReport:
    return asyncio.run(run_chaos(cfg))
