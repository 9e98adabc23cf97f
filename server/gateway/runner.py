"""The gateway at work on real ports: a thread reads each port, the core runs on the event loop,
service calls run in worker threads, and pushes come from the bus (and, in a process of its own,
from the database watcher).

Two ways to run it, one code path:

* inside the server (``in_server``, from the app's lifespan when TRAVELLER_GATEWAY_PORTS is set):
  the server's own bus brings every push at once, and the keypads' changes reach the TD's pages
  and the websocket terminals the same way;
* as its own process (``run_standalone``, ``traveller gateway --port ...``), sharing only the
  database: a Watcher looks at the watched tables every ``watch`` seconds, and on PostgreSQL
  the process also joins the NOTIFY fan-out, so its pushes reach the server's pages and the
  server's reach the keypads at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine

from protocol.link import LinkConfig
from protocol.messages import Error
from server.core.db import make_engine, migrate
from server.core.errors import UnavailableError
from server.live.bus import Bus, Subscription
from server.live.notify import fanout
from server.live.table_desk import TableDesk

from .core import GatewayCore
from .jobs import Handled, KeypadJob
from .ports import PortSpec, parse_ports
from .serial_io import PortWorker, SerialLike, check_pyserial, open_port
from .service import handle, load_bindings
from .watch import Table, Watcher

#: The most keypad commands one group commit takes (the server's default).
GROUP_COMMIT = 64

if TYPE_CHECKING:
    from server.live.runtime import Runtime

log = logging.getLogger(__name__)

#: Unexpected failures of one job before the keypad is told (a database away is waited out).
MAX_FAILURES = 3


class Gateway:
    """Keypads on serial ports, served from the database; use as an async context manager."""

    def __init__(
        self,
        engine: Engine,
        specs: Sequence[PortSpec],
        *,
        bus: Bus,
        baud: int = 9600,
        config: LinkConfig | None = None,
        watch: float | None = None,
        opener: Callable[[str, int], SerialLike] = open_port,
        desk: TableDesk | None = None,
    ) -> None:
        self.engine = engine
        # The one way in (group commit, table locks in table order): the server's desk when
        # the gateway runs inside it, else one of its own.
        self.desk = desk or TableDesk(engine, bus=bus, batch=GROUP_COMMIT)
        self.specs = list(specs)
        self.bus = bus
        self.baud = baud
        self.config = config or LinkConfig(baud=baud)
        self.watch = watch
        self.opener = opener
        self.core = GatewayCore(time.monotonic, config=self.config)
        self.workers: dict[str, PortWorker] = {}
        self.watcher = Watcher(engine)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._soon = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._subs: dict[Table, tuple[Subscription, asyncio.Task[None]]] = {}
        self._failures: dict[int, int] = {}
        self._quiet_until: dict[str, float] = {}  # a bus line's last write still on the wire

    async def __aenter__(self) -> Gateway:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def start(self) -> None:
        """Load the bindings, open the ports, start serving."""
        self._loop = asyncio.get_running_loop()
        if self.opener is open_port:
            check_pyserial([spec.url for spec in self.specs])
        for station, binding in (await asyncio.to_thread(load_bindings, self.engine)).items():
            self.core.bind(station, binding)
        for spec in self.specs:
            self.core.attach(spec.url, bus=spec.bus)
            worker = PortWorker(
                spec.url, self._reader(spec.url), baud=self.baud, opener=self.opener
            )
            self.workers[spec.url] = worker
            worker.start()
            log.info("gateway: %s (%s)", spec, "RS-485 bus" if spec.bus else "point to point")
        if self.watch:
            self._spawn(self._watch_loop(self.watch))
        self._kick()

    async def stop(self) -> None:
        """Close the ports and stop; work in flight is committed or not, never half done."""
        if self._timer is not None:
            self._timer.cancel()
        for task in list(self._tasks):
            task.cancel()
        for _, task in self._subs.values():
            task.cancel()
        for table in list(self._subs):
            self._unsubscribe(table)
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await asyncio.gather(*(asyncio.to_thread(w.stop) for w in self.workers.values()))

    def status(self) -> list[dict[str, object]]:
        """Each keypad, and whether its port is open."""
        rows = self.core.status()
        for row in rows:
            worker = self.workers.get(str(row["port"]))
            row["port_open"] = worker is not None and worker.is_open
        return rows

    # ------------------------------------------------------------------ the loop

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _reader(self, name: str) -> Callable[[bytes], None]:
        """What a port's thread calls with the bytes it read: hands them to the loop."""
        loop = self._loop
        assert loop is not None

        def read(data: bytes) -> None:
            loop.call_soon_threadsafe(self._received, name, data)

        return read

    def _received(self, name: str, data: bytes) -> None:
        self.core.lines[name].receive_bytes(data)
        self._kick()

    def _kick(self) -> None:
        """Step as soon as the loop is free (once, however many kicks)."""
        if not self._soon and self._loop is not None:
            self._soon = True
            self._loop.call_soon(self._step)

    def _step(self) -> None:
        self._soon = False
        for job in self.core.take_jobs():
            self._spawn(self._run(job))
        now = time.monotonic()
        for name, line in self.core.lines.items():
            if now < self._quiet_until.get(name, 0.0):
                continue
            out = line.poll(now)
            if not out:
                continue
            self.workers[name].write(out)  # a closed port loses them, like a pulled cable
            if line.is_bus:
                self._quiet_until[name] = now + self.config.wire_time(len(out))
        self._sync_subscriptions()
        self._schedule(now)

    def _schedule(self, now: float) -> None:
        deadline = self.core.next_deadline()
        quiet = [t for t in self._quiet_until.values() if t > now]
        if deadline is not None and quiet:
            deadline = max(deadline, min(quiet))
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if deadline is None or self._loop is None:
            return
        self._timer = self._loop.call_later(max(0.0, deadline - now), self._kick)

    async def _run(self, job: KeypadJob) -> None:
        try:
            handled = await asyncio.to_thread(
                handle, self.desk, job.station, job.command, retry=job.retry
            )
        except UnavailableError as exc:
            tries = self._failures.get(job.number, 0) + 1
            self._failures[job.number] = tries
            delay = min(2.0 ** (tries - 1), 10.0)
            log.warning("%s: %s; trying again in %.0f s", job.station, exc.code, delay)
            self.core.postpone(job, delay)
            self._kick()
            return
        except Exception:
            log.exception("%s: %s failed", job.station, job.command.type)
            tries = self._failures.get(job.number, 0) + 1
            self._failures[job.number] = tries
            if tries < MAX_FAILURES:
                self.core.postpone(job, 1.0)
                self._kick()
                return
            entry_id = getattr(job.command, "entry_id", None)
            text = "The server could not do this: call the TD."
            handled = Handled(Error(code="server_error", message=text, entry_id=entry_id))
        self._failures.pop(job.number, None)
        self.core.finish(job, handled)
        if handled.pushes:
            self.bus.publish(handled.pushes)  # the TD's pages, terminals, other workers
        self._kick()

    # ------------------------------------------------------------------ pushes

    def _sync_subscriptions(self) -> None:
        """Listen on the bus for the tables of keypads whose link is up (so the TD's pages
        count them as connected terminals)."""
        wanted = self.core.watched()
        for table in set(self._subs) - wanted:
            self._unsubscribe(table)
        for table in wanted - set(self._subs):
            sub = self.bus.subscribe(*table)
            task = asyncio.ensure_future(self._forward(sub))
            self._subs[table] = (sub, task)

    def _unsubscribe(self, table: Table) -> None:
        sub, task = self._subs.pop(table)
        task.cancel()
        self.bus.unsubscribe(sub)

    async def _forward(self, sub: Subscription) -> None:
        while True:
            message = await sub.queue.get()
            self.core.push((sub.section_id, sub.table, message))
            self._kick()

    async def _watch_loop(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                pushes = await asyncio.to_thread(self.watcher.scan, self.core.watched())
            except Exception as exc:
                log.warning("gateway: cannot look at the database: %s", exc)
                continue
            for delivery in pushes:
                self.core.push(delivery)
            if pushes:
                self._kick()


@asynccontextmanager
async def in_server(runtime: Runtime) -> AsyncIterator[Gateway | None]:
    """The gateway inside the server process (the lifespan), when TRAVELLER_GATEWAY_PORTS is
    set: it shares the server's engine and bus."""
    ports = runtime.settings.gateway_ports
    if not ports:
        yield None
        return
    gateway = Gateway(runtime.engine, parse_ports(ports), bus=runtime.bus, desk=runtime.desk)
    async with gateway:
        yield gateway


async def run_standalone(
    specs: Sequence[PortSpec],
    database_url: str,
    *,
    baud: int = 9600,
    watch: float = 1.0,
    stop: asyncio.Event | None = None,
) -> None:
    """The gateway as its own process, sharing the server's database, until ``stop`` is set."""
    engine = make_engine(database_url)
    try:
        await asyncio.to_thread(migrate, engine)
        bus = Bus()
        async with fanout(bus, engine), Gateway(engine, specs, bus=bus, baud=baud, watch=watch):
            await (stop or asyncio.Event()).wait()
    finally:
        with contextlib.suppress(Exception):
            engine.dispose()
