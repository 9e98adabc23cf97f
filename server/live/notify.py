"""PostgreSQL LISTEN/NOTIFY fan-out: a push published by any worker reaches every worker's bus.

Each worker delivers its own pushes locally at once (as on SQLite) and also sends them with
``pg_notify``; each worker listens on the channel and delivers what the *other* workers sent.
NOTIFY is best-effort live news: what matters is already committed, and a terminal that missed a
push re-reads its round. On SQLite (one process) nothing here runs.

The same way, a round control that one worker's table desk carried over to the tables it
remembers (``table_memory.SectionRowChange``) is sent on ``traveller_section``, and the other
workers' memories carry it over too instead of reading each of their tables again; a notice
lost or late costs only those reads (the counters decide, never the notice).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import os
import uuid
import zlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

import psycopg
from pydantic import ValidationError
from sqlalchemy import Engine

from protocol.messages import parse_server_message
from server.live.bus import Bus, Delivery
from server.live.live_tokens import LiveTokens
from server.services.table.table_memory import SectionRowChange, TableMemory

log = logging.getLogger(__name__)

CHANNEL = "traveller_push"
#: A table token changed (sent by the database's trigger, migration 0016): its hash.
TOKEN_CHANNEL = "traveller_token"
#: A round control a worker's table desk carried over (started, closed or reopened).
SECTION_CHANNEL = "traveller_section"
#: PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; bigger ones are compressed.
MAX_PAYLOAD = 7900
#: TCP keepalives so a listener notices a vanished database host within about half a minute.
KEEPALIVES: dict[str, Any] = {
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
    "connect_timeout": 5,
}


def connect_params(engine: Engine) -> dict[str, Any]:
    """psycopg.connect() keywords for the engine's database, as SQLAlchemy itself builds them
    (so a multi-host URL, ``?host=db1:5432&host=db2:5432&target_session_attrs=read-write``,
    follows a failover here too)."""
    _args, params = engine.dialect.create_connect_args(engine.url)
    return {k: v for k, v in params.items() if k != "context"}


def encode(origin: str, delivery: Delivery) -> str | None:
    """One push as a NOTIFY payload, compressed when large; None when it cannot fit."""
    section_id, table, message = delivery
    text = json.dumps(
        {"o": origin, "s": section_id, "t": table, "m": message.model_dump(mode="json")},
        separators=(",", ":"),
    )
    if len(text.encode()) <= MAX_PAYLOAD:
        return text
    packed = "z:" + base64.b64encode(zlib.compress(text.encode(), 9)).decode("ascii")
    return packed if len(packed) <= MAX_PAYLOAD else None


def decode(payload: str) -> tuple[str, Delivery]:
    """The origin and push of a payload made by :func:`encode` (ValueError if it is not one)."""
    if payload.startswith("z:"):
        payload = zlib.decompress(base64.b64decode(payload[2:])).decode()
    data = json.loads(payload)
    try:
        message = parse_server_message(json.dumps(data["m"]))
    except ValidationError as exc:
        raise ValueError(f"not a server message: {exc}") from exc
    table = data["t"]
    return str(data["o"]), (int(data["s"]), None if table is None else int(table), message)


def encode_change(origin: str, change: SectionRowChange) -> str | None:
    """A round control carried over, as a NOTIFY payload (the row's times tagged); None when
    it cannot be sent (too big, or a value JSON cannot carry): the other workers then read
    their tables again, as without it."""
    row = {
        k: {"at": v.isoformat()} if isinstance(v, datetime) else v for k, v in change.row.items()
    }
    try:
        text = json.dumps({"o": origin, "c": {**asdict(change), "row": row}}, separators=(",", ":"))
    except (TypeError, ValueError):  # a column JSON cannot carry: the counters will do
        return None
    return text if len(text.encode()) <= MAX_PAYLOAD else None


def decode_change(payload: str) -> tuple[str, SectionRowChange]:
    """The origin and change of a payload made by :func:`encode_change` (ValueError, KeyError
    or TypeError if it is not one)."""
    data = json.loads(payload)
    c = data["c"]
    row = {
        k: datetime.fromisoformat(v["at"]) if isinstance(v, dict) else v
        for k, v in c["row"].items()
    }
    gens = {int(t): int(g) for t, g in c["table_gens"].items()}
    change = SectionRowChange(int(c["section_id"]), int(c["before"]), int(c["after"]), gens, row)
    return str(data["o"]), change


@dataclass
class FanoutStats:
    """Counters for the health endpoint and the tests."""

    sent: int = 0
    relayed: int = 0
    dropped: int = 0
    reconnects: int = 0
    #: Other workers' round controls handed to this worker's table memory.
    changes_heard: int = 0


class PgFanout:
    """One worker's NOTIFY sender and LISTEN relay, reconnecting after a database restart."""

    def __init__(
        self,
        bus: Bus,
        params: dict[str, Any],
        *,
        retry_max: float = 5.0,
        tokens: LiveTokens | None = None,
        memory: TableMemory | None = None,
    ) -> None:
        self.bus = bus
        #: The process's live tokens, told of every token another worker (or tool) changed.
        self.tokens = tokens
        #: The process's table desk memory: its round controls are sent, the others' heard.
        self.memory = memory
        self.params = {**params, **KEEPALIVES}
        self.origin = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.stats = FanoutStats()
        self.listening = asyncio.Event()
        self._retry_max = retry_max
        self._queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue(maxsize=10_000)
        self._tasks: list[asyncio.Task[None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._detach: Any = None

    async def start(self, ready_timeout: float = 10.0) -> None:
        """Start listening and sending; wait (bounded) until LISTEN is in place."""
        self._loop = asyncio.get_running_loop()
        self._tasks = [
            asyncio.create_task(self._listen(), name="traveller-listen"),
            asyncio.create_task(self._send(), name="traveller-notify"),
        ]
        self._detach = self.bus.observe(self._observe)
        if self.memory is not None:
            self.memory.observers.append(self._observe_change)
        try:
            async with asyncio.timeout(ready_timeout):
                await self.listening.wait()
        except TimeoutError:
            log.warning("fan-out: no LISTEN after %.0f s; retrying in background", ready_timeout)

    async def stop(self) -> None:
        if self._detach is not None:
            self._detach()
            self._detach = None
        if self.memory is not None and self._observe_change in self.memory.observers:
            self.memory.observers.remove(self._observe_change)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []

    def _observe(self, batch: list[Delivery]) -> None:
        payloads = []
        for delivery in batch:
            payload = encode(self.origin, delivery)
            if payload is None:
                self.stats.dropped += 1
                log.warning("fan-out: a %s is too large for NOTIFY", type(delivery[2]).__name__)
            else:
                payloads.append((CHANNEL, payload))
        self._hand_over(payloads)

    def _observe_change(self, change: SectionRowChange) -> None:
        """This worker carried a round control over (its writer's thread): tell the others."""
        payload = encode_change(self.origin, change)
        if payload is None:
            self.stats.dropped += 1
            log.warning("fan-out: a round control of section %d not sent", change.section_id)
            return
        self._hand_over([(SECTION_CHANNEL, payload)])

    def _hand_over(self, payloads: list[tuple[str, str]]) -> None:
        """Queue payloads for sending, from the event loop or any other thread."""
        loop = self._loop
        if loop is None or not payloads:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._enqueue(payloads)
        else:
            loop.call_soon_threadsafe(self._enqueue, payloads)

    def _enqueue(self, payloads: list[tuple[str, str]]) -> None:
        for payload in payloads:
            if self._queue.full():
                self._queue.get_nowait()
                self.stats.dropped += 1
            self._queue.put_nowait(payload)

    async def _connect(self) -> psycopg.AsyncConnection[Any]:
        return await psycopg.AsyncConnection.connect(autocommit=True, **self.params)

    async def _listen(self) -> None:
        delay = 0.2
        while True:
            try:
                async with await self._connect() as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    if self.memory is not None:
                        await conn.execute(f"LISTEN {SECTION_CHANNEL}")
                    if self.tokens is not None:
                        await conn.execute(f"LISTEN {TOKEN_CHANNEL}")
                        self.tokens.changed_all()  # what changed while no one listened
                    self.listening.set()
                    delay = 0.2
                    async for note in conn.notifies():
                        if note.channel == TOKEN_CHANNEL and self.tokens is not None:
                            self.tokens.changed(note.payload)
                        elif note.channel == SECTION_CHANNEL:
                            self._heard_change(note.payload)
                        else:
                            self._relay(note.payload)
            except Exception as exc:  # psycopg.Error mostly; the listener must not die
                self.listening.clear()
                self.stats.reconnects += 1
                log.warning("fan-out: listener lost the database (%s); retry in %.1fs", exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, self._retry_max)

    def _relay(self, payload: str) -> None:
        try:
            origin, delivery = decode(payload)
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("fan-out: ignored a bad payload: %s", exc)
            return
        if origin != self.origin:
            self.bus.deliver([delivery])
            self.stats.relayed += 1

    def _heard_change(self, payload: str) -> None:
        try:
            origin, change = decode_change(payload)
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("fan-out: ignored a bad round control: %s", exc)
            return
        if origin != self.origin and self.memory is not None:
            self.memory.heard(change)
            self.stats.changes_heard += 1

    async def _send(self) -> None:
        conn: psycopg.AsyncConnection[Any] | None = None
        try:
            while True:
                channel, payload = await self._queue.get()
                conn = await self._send_one(conn, channel, payload)
        finally:
            if conn is not None:
                await conn.close()

    async def _send_one(
        self, conn: psycopg.AsyncConnection[Any] | None, channel: str, payload: str
    ) -> psycopg.AsyncConnection[Any] | None:
        """Send one payload, reconnecting for up to about 30 s; then drop it."""
        delay = 0.2
        for _ in range(12):
            try:
                if conn is None or conn.closed:
                    conn = await self._connect()
                await conn.execute("SELECT pg_notify(%s, %s)", (channel, payload))
                self.stats.sent += 1
                return conn
            except psycopg.Error as exc:
                log.warning("fan-out: NOTIFY failed (%s); retry in %.1fs", exc, delay)
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await conn.close()
                conn = None
                await asyncio.sleep(delay)
                delay = min(delay * 2, self._retry_max)
        self.stats.dropped += 1
        return conn


@asynccontextmanager
async def fanout(
    bus: Bus,
    engine: Engine,
    tokens: LiveTokens | None = None,
    memory: TableMemory | None = None,
) -> AsyncIterator[PgFanout | None]:
    """Run the fan-out for a PostgreSQL engine (yields None and does nothing on SQLite);
    ``tokens`` hears of every table token changed by any writer, ``memory`` of every round
    control another worker carried over (and its own are sent)."""
    if engine.dialect.name != "postgresql":
        yield None
        return
    relay = PgFanout(bus, connect_params(engine), tokens=tokens, memory=memory)
    await relay.start()
    try:
        yield relay
    finally:
        await relay.stop()
