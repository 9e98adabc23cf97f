"""`traveller bench attack`: the longer floods against a real `traveller serve` on loopback.

Three measurements, each bounded in time and stopping by itself:

* **Pairing guesses**: wrong codes POSTed to /api/v1/table/pair from several source addresses
  (127.0.0.2, 127.0.0.3, ...: all of 127.0.0.0/8 is loopback); counted are the guesses that
  reached the pairing check (answered 404, not refused with 429), per hour.
* **Oversized bodies**: several large bodies at once, with a Content-Length and chunked; the
  server's peak RSS against its RSS before, and what each body was answered.
* **Idle connections**: raw TCP connections that send half a request head and then nothing,
  from several addresses; how many the server still holds (its open sockets, from /proc) once
  the header timeout has passed, and whether a normal request is answered meanwhile.

Throughout, a playing table on 127.0.0.1 asks for its round over its websocket in a loop: its
round trips, quiet and during the floods, are the "other tables keep their answers" figure.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from websockets.asyncio.client import ClientConnection, connect

from benchmarks import tdapi
from benchmarks.procs import ServerProcess, TreeSampler, _status_kb
from benchmarks.stats import Latency, fmt, markdown

#: The first attacker address; the playing tables and the TD stay on 127.0.0.1.
FIRST_SOURCE = 2


def sources(count: int) -> list[str]:
    """``count`` loopback source addresses other than 127.0.0.1."""
    return [f"127.0.0.{FIRST_SOURCE + i}" for i in range(count)]


@dataclass
class ServeProcess(ServerProcess):
    """The server as `traveller serve` runs it (its uvicorn options: timeouts, the guarded
    HTTP protocol, frame limits), on 127.0.0.1, configured from the TRAVELLER_* environment."""

    def command(self) -> list[str]:
        serve = ["serve", "--host", "127.0.0.1", "--port", str(self.port)]
        return [sys.executable, "-m", "server.ops.cli", *serve]


def open_sockets(pid: int) -> int:
    """TCP and other sockets the process holds open (listening ones included)."""
    count = 0
    with contextlib.suppress(OSError):
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:"):
                    count += 1
    return count


Stream = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def slow_headers(port: int, source: str, count: int) -> list[Stream]:
    """``count`` connections from ``source`` that start a request head and never finish it."""
    out = []
    for _ in range(count):
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        writer.write(b"GET /api/v1/health HTTP/1.1\r\nHost: traveller\r\n")
        out.append((reader, writer))
    return out


async def idle(port: int, source: str, count: int) -> list[Stream]:
    """``count`` connections from ``source`` that send nothing at all."""
    return [
        await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        for _ in range(count)
    ]


async def still_open(streams: list[Stream], wait: float = 0.05) -> int:
    """How many of these connections the server has not closed (EOF within ``wait`` s)."""

    async def alive(reader: asyncio.StreamReader) -> bool:
        try:
            data = await asyncio.wait_for(reader.read(1024), wait)
        except TimeoutError:
            return True
        except OSError:
            return False
        return bool(data) and not reader.at_eof()

    return sum(await asyncio.gather(*(alive(r) for r, _ in streams)))


def close_all(streams: list[Stream]) -> None:
    for _, writer in streams:
        writer.close()


async def health(base_url: str, timeout: float = 10.0) -> int:
    """The status of one normal request from 127.0.0.1 (the club's own tables and TD)."""
    async with httpx.AsyncClient(timeout=timeout) as http:
        return (await http.get(f"{base_url}/api/v1/health")).status_code


# ------------------------------------------------------------------------------ the three runs


@dataclass
class Guesses:
    sources: int
    seconds: float
    statuses: Counter[int] = field(default_factory=Counter)

    @property
    def checked(self) -> int:
        """Guesses that reached the pairing check (an unknown code answers 404)."""
        return self.statuses[404]

    @property
    def per_hour(self) -> float:
        return self.checked / self.seconds * 3600 if self.seconds else 0.0


async def pairing_guesses(base_url: str, count: int, seconds: float) -> Guesses:
    """Wrong six-digit codes from ``count`` addresses as fast as each gets answers."""
    result = Guesses(count, seconds)
    deadline = time.monotonic() + seconds

    async def guesser(source: str) -> None:
        transport = httpx.AsyncHTTPTransport(local_address=source)
        async with httpx.AsyncClient(transport=transport, timeout=10) as http:
            while time.monotonic() < deadline:
                code = f"{secrets.randbelow(10**6):06d}"
                r = await http.post(
                    f"{base_url}/api/v1/table/pair", json={"code": code, "device": "guess"}
                )
                result.statuses[r.status_code] += 1
                if r.status_code == 429:  # refused: wait as a patient attacker would
                    await asyncio.sleep(min(1.0, max(0.0, deadline - time.monotonic())))

    started = time.monotonic()
    await asyncio.gather(*(guesser(s) for s in sources(count)))
    result.seconds = time.monotonic() - started
    return result


@dataclass
class Bodies:
    count: int
    megabytes: int
    rss_before_mb: float
    rss_peak_mb: float
    statuses: Counter[str] = field(default_factory=Counter)


async def _chunks(megabytes: int) -> AsyncIterator[bytes]:
    block = b"x" * 2**20
    for _ in range(megabytes):
        yield block


async def oversized_bodies(server: ServerProcess, count: int, megabytes: int) -> Bodies:
    """``count`` bodies of ``megabytes`` MB at once (half declared, half chunked) to the TD
    login and the pairing route (no authentication needed), sampling the server's RSS."""
    rss_before = _status_kb(server.pid, "VmRSS") / 1024
    sampler = TreeSampler(server.pid, interval=0.05).start()
    result = Bodies(count, megabytes, rss_before, rss_before)

    async def send(i: int) -> None:
        path = ("/api/v1/td/login", "/api/v1/table/pair")[i % 2]
        source = sources(count)[i]
        transport = httpx.AsyncHTTPTransport(local_address=source)
        async with httpx.AsyncClient(transport=transport, timeout=60) as http:
            headers = {"content-type": "application/json"}
            try:
                if i % 2 == 0:  # declared: refused from its Content-Length
                    headers["content-length"] = str(megabytes * 2**20)
                # else chunked: no Content-Length, the server must count
                r = await http.post(
                    server.base_url + path, content=_chunks(megabytes), headers=headers
                )
                result.statuses[str(r.status_code)] += 1
            except httpx.HTTPError as exc:  # the server closed the connection mid-body
                result.statuses[f"closed mid-body ({type(exc).__name__})"] += 1

    await asyncio.gather(*(send(i) for i in range(count)))
    sampler.stop()
    result.rss_peak_mb = sampler.peak_rss_kb / 1024
    return result


@dataclass
class Held:
    opened: int
    sources: int
    sockets_before: int
    sockets_during: int
    sockets_after: int
    still_open: int
    waited: float
    health_status: int


async def idle_connections(
    server: ServerProcess, count: int, per_source: int, header_timeout: float
) -> Held:
    """``count`` slow-header and silent connections from ``count / per_source`` addresses;
    what the server holds right after and once ``header_timeout`` (+ 2 s) has passed."""
    before = open_sockets(server.pid)
    streams: list[Stream] = []
    addresses = sources(max(1, count // per_source))
    for n, source in enumerate(addresses):
        opener = slow_headers if n % 2 else idle
        streams += await opener(server.port, source, per_source)
    await asyncio.sleep(0.2)
    during = open_sockets(server.pid)
    status = await health(server.base_url)
    waited = header_timeout + 2.0
    await asyncio.sleep(waited)
    held = Held(
        opened=len(streams),
        sources=len(addresses),
        sockets_before=before,
        sockets_during=during,
        sockets_after=open_sockets(server.pid),
        still_open=await still_open(streams),
        waited=waited,
        health_status=status,
    )
    close_all(streams)
    return held


class PlayingTable:
    """One table of a fresh event, asking for its round (get_round) over its websocket."""

    def __init__(self, server: ServerProcess) -> None:
        self.server = server
        self.samples: list[float] = []
        self.now = "quiet"  # the flood running, for the figures by phase
        self.by_phase: dict[str, list[float]] = {}
        self.failures = 0

    async def open(self) -> str:
        async with httpx.AsyncClient(timeout=30) as http:
            plan = await tdapi.create_event(
                http, self.server.base_url, tables=2, rounds=1, boards_per_round=2
            )
            await tdapi.start_round(http, plan, 1)
            tokens = await tdapi.pair_all(http, plan)
        return next(iter(tokens.values()))

    async def play(self, ws: ClientConnection, stop: asyncio.Event, pause: float = 0.05) -> None:
        """Round trips until ``stop``; a reply slower than 10 s counts as a failure."""
        while not stop.is_set():
            sent = time.perf_counter()
            await ws.send('{"type": "get_round"}')
            try:
                while json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] != "round_info":
                    pass
            except TimeoutError:
                self.failures += 1
                continue
            took = time.perf_counter() - sent
            self.samples.append(took)
            self.by_phase.setdefault(self.now, []).append(took)
            await asyncio.sleep(pause)

    async def phase(self, ws: ClientConnection, seconds: float) -> list[float]:
        """Play for ``seconds`` alone (the quiet figure)."""
        stop = asyncio.Event()
        task = asyncio.create_task(self.play(ws, stop))
        await asyncio.sleep(seconds)
        stop.set()
        await task
        samples, self.samples = self.samples, []
        return samples


# ------------------------------------------------------------------------------------ report


@dataclass
class AttackConfig:
    guess_sources: int = 50
    guess_seconds: float = 120.0
    bodies: int = 4
    body_mb: int = 200
    connections: int = 600
    per_source: int = 50
    header_timeout: float = 5.0


@dataclass
class AttackReport:
    config: AttackConfig
    guesses: Guesses
    bodies: Bodies
    held: Held
    quiet: Latency
    flooded: Latency
    failures: int
    phases: dict[str, Latency] = field(default_factory=dict)


async def run_attack(cfg: AttackConfig, work: Path) -> AttackReport:
    env = {"TRAVELLER_HEADER_TIMEOUT": str(cfg.header_timeout)}
    server = ServeProcess(f"sqlite:///{work / 'traveller.db'}", env=env, log_path=work / "log")
    await asyncio.to_thread(server.start)
    try:
        table = PlayingTable(server)
        token = await table.open()
        async with connect(f"ws://127.0.0.1:{server.port}/api/v1/table/ws") as ws:
            await ws.send(json.dumps({"type": "hello", "token": token}))
            await asyncio.wait_for(ws.recv(), 10)
            quiet = await table.phase(ws, 3.0)
            stop = asyncio.Event()
            playing = asyncio.create_task(table.play(ws, stop))
            try:
                table.now = "guesses"
                guesses = await pairing_guesses(
                    server.base_url, cfg.guess_sources, cfg.guess_seconds
                )
                table.now = "bodies"
                bodies = await oversized_bodies(server, cfg.bodies, cfg.body_mb)
                table.now = "connections"
                held = await idle_connections(
                    server, cfg.connections, cfg.per_source, cfg.header_timeout
                )
            finally:
                stop.set()
                await playing
    finally:
        await asyncio.to_thread(server.stop)
    flooded = Latency.of(table.samples)
    phases = {name: Latency.of(v) for name, v in table.by_phase.items() if name != "quiet"}
    return AttackReport(
        cfg, guesses, bodies, held, Latency.of(quiet), flooded, table.failures, phases
    )


def run(cfg: AttackConfig) -> AttackReport:
    with tempfile.TemporaryDirectory(prefix="traveller-attack-") as tmp:
        return asyncio.run(run_attack(cfg, Path(tmp)))


def render(report: AttackReport) -> str:
    g, b, h = report.guesses, report.bodies, report.held
    refused = ", ".join(f"{k}: {v}" for k, v in sorted(g.statuses.items()))
    answers = ", ".join(f"{k}: {v}" for k, v in sorted(b.statuses.items()))
    rows = [
        [
            "pairing guesses reaching the check",
            f"{g.per_hour:,.0f} an hour",
            f"{g.sources} addresses for {g.seconds:.0f} s; answers {refused}",
        ],
        [
            "server RSS under oversized bodies",
            f"{b.rss_before_mb:.0f} MB -> peak {b.rss_peak_mb:.0f} MB",
            f"{b.count} x {b.megabytes} MB at once; answers {answers}",
        ],
        [
            "idle connections held",
            f"{h.still_open} of {h.opened}",
            f"{h.sources} addresses; server sockets {h.sockets_before} before, "
            f"{h.sockets_during} during, {h.sockets_after} after {h.waited:.0f} s; "
            f"health meanwhile {h.health_status}",
        ],
    ]
    q, f = report.quiet, report.flooded
    rows.append(
        [
            "a playing table's get_round (ms)",
            f"p50 {fmt(f.p50)}, p99 {fmt(f.p99)}, max {fmt(f.max)}",
            f"{f.count} round trips during the floods, {report.failures} over 10 s; "
            f"quiet before: p50 {fmt(q.p50)}, p99 {fmt(q.p99)} ({q.count})",
        ]
    )
    for name, lat in report.phases.items():
        rows.append(
            [
                f"... during the {name}",
                f"p50 {fmt(lat.p50)}, p99 {fmt(lat.p99)}, max {fmt(lat.max)}",
                f"{lat.count} round trips",
            ]
        )
    return markdown(["attack", "figure", "how"], rows)
