"""The gateway core driven synchronously, service calls inline: for simulations in virtual time.

Used by the fault tests and the latency benchmark: its ports are the core's SerialLine objects,
wired to simulated keypads by firmware_sim's NullModem / SharedBus, and ``pump`` is the simulation's
hook. With ``service_time`` the real time each database call took is added on the virtual clock,
the calls queued one after another as SQLite serialises its writers.
"""

from __future__ import annotations

import heapq
import logging
import time
from collections.abc import Callable, Iterable, Sequence

from sqlalchemy import Engine

from protocol.link import Clock, LinkConfig
from server.core.errors import UnavailableError
from server.live.bus import Delivery
from server.live.table_desk import TableDesk

from .core import GatewayCore
from .jobs import Handled, KeypadJob
from .line import SerialLine
from .service import handle, load_bindings

log = logging.getLogger(__name__)

#: How long a job waits when the database stored nothing, before it is tried again.
RETRY_DELAY = 1.0


class InlineGateway:
    """A gateway whose database calls run inside ``pump`` (no threads, no real ports)."""

    def __init__(
        self,
        engine: Engine,
        clock: Clock,
        *,
        config: LinkConfig | None = None,
        service_time: bool = False,
        publish: Callable[[list[Delivery]], object] | None = None,
    ) -> None:
        self.engine = engine
        self.desk = TableDesk(engine)  # one command at a time: nothing to group
        self.clock = clock
        self.core = GatewayCore(clock, config=config)
        self.service_time = service_time
        self.publish = publish
        self.service_seconds: list[float] = []
        self._held: list[tuple[float, int, KeypadJob, Handled]] = []
        self._db_free = 0.0
        for station, binding in load_bindings(engine).items():
            self.core.bind(station, binding)

    def attach(self, name: str, *, bus: Sequence[int] | None = None) -> SerialLine:
        """The line of a port, to wire to simulated keypads."""
        return self.core.attach(name, bus=bus)

    def push(self, deliveries: Iterable[Delivery]) -> None:
        """Server pushes (the TD started a round, say), as the bus would hand them over."""
        for delivery in deliveries:
            self.core.push(delivery)

    def pump(self) -> float | None:
        """The simulation hook: run the jobs, queue their replies; when to be called again."""
        now = self.clock()
        while self._held and self._held[0][0] <= now:
            _, _, job, handled = heapq.heappop(self._held)
            self._finish(job, handled)
        for job in self.core.take_jobs():
            started = time.perf_counter()
            try:
                handled = handle(self.desk, job.station, job.command, retry=job.retry)
            except UnavailableError as exc:
                log.warning("%s: %s; trying again", job.station, exc.code)
                self.core.postpone(job, RETRY_DELAY)
                continue
            elapsed = time.perf_counter() - started
            self.service_seconds.append(elapsed)
            if self.service_time:
                self._db_free = max(now, self._db_free) + elapsed
                heapq.heappush(self._held, (self._db_free, job.number, job, handled))
            else:
                self._finish(job, handled)
        wake = [self._held[0][0]] if self._held else []
        jobs = self.core.jobs_deadline()
        wake += [] if jobs is None else [jobs]
        return min(wake) if wake else None

    def _finish(self, job: KeypadJob, handled: Handled) -> None:
        self.core.finish(job, handled)
        if handled.pushes:
            if self.publish is not None:
                self.publish(handled.pushes)
            self.push(handled.pushes)  # as the bus hands a gateway its own pushes back
