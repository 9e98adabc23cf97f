"""Live pages: one channel per section and audience keeps what its page shows and sends it to
every browser watching, over a websocket.

After a table command the channel's view takes the pushed results in memory (no read) and
sends a **delta**: only what changed (a grid row, the totals, a list that moved), each message
numbered (``seq``). The page applies it in place; a page that misses a number (a dropped
message, a reconnect) asks for the whole page again (``{"type": "refresh"}``), and so does one
that cannot place a delta. A change a view cannot follow (a round started, the movement or the
settings changed: anything but a result) and the poll read the section again in full; a due
poll waits for a pause in the pushes (never long), so a burst's results go out as deltas, and
a view that can tell, with a cheap read, that nothing it shows changed unannounced (the public
ranking: its section's generation counter) is read in full only every ``REREAD_SECONDS``.

Full renders are coalesced: while changes keep coming a channel renders at most once every
``min_interval`` seconds (a round-end burst of hundreds of results costs a handful of renders,
not hundreds), and it always renders once more after the last change. Deltas are gathered
over ``DELTA_INTERVAL`` (a burst's results go out together)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from fastapi import WebSocket, WebSocketDisconnect

from protocol.messages import Message
from server.limits.ratelimit import ConnectionCap, address
from server.live.bus import Bus

log = logging.getLogger(__name__)

Fragments = dict[str, str]
Render = Callable[[], Awaitable[Fragments]]
Allowed = Callable[[], Awaitable[bool]]
Delta = dict[str, Any]
"""What changed, as the page applies it: ``rows`` (a grid row's HTML by table), ``totals``
(a count by name), ``fragments`` (a fragment's HTML by name). ``{}``: nothing to show."""


@runtime_checkable
class View(Protocol):
    """What a live page shows of a section, kept by its channel."""

    async def load(self) -> None:
        """Read the section afresh (a database read)."""

    def fragments(self) -> Fragments:
        """The whole page, from what was loaded and applied (no read)."""

    def apply(self, messages: Sequence[Message]) -> Delta | None:
        """Take pushed messages in memory; the delta to send, or None when only a new
        :meth:`load` can show them."""

    async def current(self) -> bool:
        """Whether the last :meth:`load`, with the pushes taken since, still shows what a new
        one would (a cheap read; False: the view cannot tell, read it at every poll)."""


class WholePage:
    """A view that renders the whole page every time (no deltas)."""

    def __init__(self, render: Render) -> None:
        self.render = render
        self.last: Fragments = {}

    async def load(self) -> None:
        self.last = await self.render()

    def fragments(self) -> Fragments:
        return self.last

    def apply(self, messages: Sequence[Message]) -> Delta | None:
        return None

    async def current(self) -> bool:
        return False


#: Re-render this often even without pushes: TD calls, terminals going quiet, late tables.
POLL_SECONDS = 3.0
#: A due re-render waits until the channel's pushes pause this long: a round-end burst is
#: followed by its deltas, not interrupted by a whole read of the section (which would hold
#: back the burst's results on this page and, taking the CPU, every table's acknowledgement)...
QUIET_SECONDS = 0.5
#: ... but never longer than this past its time (pushes that never pause: a large room).
POLL_DEFER_SECONDS = 3.0
#: A view that can tell it is still current (:meth:`View.current`) is read in full at a due
#: poll only when it is not, or when its last full read is this old (to half as much again,
#: at random): what changes it without a push or a counter (a result written by another
#: program) shows within that time.
REREAD_SECONDS = 15.0
#: How often a watcher's right to watch is checked again (a TD session can end).
RECHECK_SECONDS = 30.0
#: Shortest time between two renders of a channel, by audience: the TD's dashboard must show a
#: result within 250 ms; the public ranking (the whole section scored again) can wait longer.
MIN_INTERVAL = {"td": 0.1}
MIN_INTERVAL_OTHER = 2.0
#: ... and at least this many times as long as the last render took times the number of
#: channels rendering: the live pages of a process (which render one at a time) then take at
#: most half of its time, and on a busy server (slow renders) they give the CPU back to the
#: results being stored.
BACKOFF = 2.0
#: ... but never longer than this, by audience (the dashboard stays live under any load).
MAX_INTERVAL = {"td": 0.5}
MAX_INTERVAL_OTHER = 5.0
#: Shortest time between two deltas of a channel, by audience: the results of a burst that
#: arrive within it go out as one message (the public pages no more often than their whole
#: renders before: each delta there is the ranking rendered again).
DELTA_INTERVAL = {"td": 0.05}
DELTA_INTERVAL_OTHER = MIN_INTERVAL_OTHER


def min_interval(audience: str) -> float:
    """The shortest time between two renders for an audience ("td:da", "public:en", ...: the
    part before the colon counts, the language after it does not)."""
    return MIN_INTERVAL.get(audience.split(":")[0], MIN_INTERVAL_OTHER)


def max_interval(audience: str) -> float:
    """The longest the back-off may stretch the time between two renders."""
    return MAX_INTERVAL.get(audience.split(":")[0], MAX_INTERVAL_OTHER)


def delta_interval(audience: str) -> float:
    """The shortest time between two deltas for an audience."""
    return DELTA_INTERVAL.get(audience.split(":")[0], DELTA_INTERVAL_OTHER)


@dataclass(eq=False)
class Channel:
    """A section seen by one audience ("td" or "public"): its view, the latest fragments and
    the watchers. Every message to the watchers is numbered (``seq``)."""

    key: tuple[str, int]
    render: Render | View
    bus: Bus
    poll: float = POLL_SECONDS
    quiet: float = QUIET_SECONDS
    defer: float = POLL_DEFER_SECONDS
    reread: float = REREAD_SECONDS
    min_interval: float = 0.0
    max_interval: float = 5.0
    delta_interval: float = 0.0
    renders: int = 0  # full reads and renders
    skipped: int = 0  # due polls that found the view current (no read)
    deltas: int = 0  # deltas sent
    took: float = 0.0  # how long the last render took (s)
    gate: asyncio.Lock | None = None  # the hub's: one render at a time per process
    peers: Callable[[], int] = lambda: 1  # how many channels are rendering
    last: Fragments = field(default_factory=dict)
    watchers: set[asyncio.Queue[str]] = field(default_factory=set)
    task: asyncio.Task[None] | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    seq: int = 0
    view: View = field(init=False)
    stale: bool = False  # ``last`` is older than the deltas sent since
    _snapshot: tuple[int, str] | None = None  # the whole page, rendered at a message number

    def __post_init__(self) -> None:
        self.view = self.render if isinstance(self.render, View) else WholePage(self.render)

    async def run(self) -> None:
        sub = self.bus.subscribe(self.key[1], None)
        try:
            clock = asyncio.get_running_loop().time
            rendered = polled = clock()  # the last whole read; the last poll (read or not)
            reread = rendered + self._reread()
            await self._refresh()
            self.ready.set()
            heard = -math.inf  # when the last push came
            while True:
                # A whole read comes every ``poll`` seconds for what no push announces (TD
                # calls, terminals going quiet, late tables), once the pushes pause; not for
                # a view that says it is still current, until ``reread`` has passed.
                wait = self._until_read(clock(), polled, heard)
                if wait <= 0 and clock() < reread and await self._current():
                    self.skipped += 1
                    polled = clock()
                    continue
                if wait > 0:
                    messages: list[Message] = []
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(wait):
                            messages.append(await sub.queue.get())
                    if not messages:
                        continue  # the read may be due now: asked again above
                    heard = clock()
                    if self.delta_interval:
                        await asyncio.sleep(self.delta_interval)  # gather the burst's results
                    while not sub.queue.empty():
                        messages.append(sub.queue.get_nowait())
                    if self._delta(messages):  # the delta shows them
                        continue
                backoff = min(self.max_interval, BACKOFF * self.took * self.peers())
                gap = max(self.min_interval, backoff)
                pause = gap - (clock() - rendered)
                if pause > 0:  # changes keep coming: gather them into the next render
                    await asyncio.sleep(pause)
                while not sub.queue.empty():  # one render for a burst of pushes
                    sub.queue.get_nowait()
                rendered = polled = clock()
                reread = rendered + self._reread()
                await self._refresh()
        finally:
            self.bus.unsubscribe(sub)

    def _reread(self) -> float:
        """Seconds until a current view is read all the same: ``reread`` and up to half as
        much again, drawn at each read, so the channels that opened together (a room's public
        pages, all ten sections' at once) do not all read at the same moment of a burst."""
        return self.reread * (1.0 + random.random() / 2)

    async def _current(self) -> bool:
        """The view's word that its last read stands (a failed check: read it again)."""
        try:
            return await self.view.current()
        except Exception:
            log.exception("checking %s failed", self.key)
            return False

    def _until_read(self, now: float, polled: float, heard: float) -> float:
        """Seconds until the periodic whole read (0: now): ``poll`` after the last poll, put
        off while pushes come less than ``quiet`` apart, at most ``defer`` past its time."""
        due = polled + self.poll
        if now < due:
            return due - now
        latest = due + self.defer
        if now - heard >= self.quiet or now >= latest:
            return 0.0
        return min(heard + self.quiet, latest) - now

    def _delta(self, messages: list[Message]) -> bool:
        """Send the view's delta for ``messages``; False when a full read must show them."""
        try:
            delta = self.view.apply(messages)
        except Exception:  # a failed delta falls back to the full read
            log.exception("a delta of %s failed", self.key)
            return False
        if delta is None:
            return False
        if delta:
            self.deltas += 1
            self.stale = True
            self._send({"type": "delta", **delta})
        return True

    async def _refresh(self) -> None:
        async with self.gate or contextlib.nullcontext():
            self.renders += 1
            started = time.monotonic()
            try:
                await self.view.load()
                fragments = self.view.fragments()
            except Exception:  # a failed render must not end the channel
                log.exception("rendering %s failed", self.key)
                return
            finally:
                self.took = time.monotonic() - started
        changed = {k: v for k, v in fragments.items() if self.stale or self.last.get(k) != v}
        self.stale = False
        if not changed:
            return
        self.last.update(changed)
        self._send({"type": "fragments", "fragments": changed})

    def _send(self, body: dict[str, Any]) -> None:
        self.seq += 1
        text = json.dumps({**body, "seq": self.seq})
        for queue in list(self.watchers):
            if queue.full():
                queue.get_nowait()  # the page sees the gap in ``seq`` and asks for the page
            queue.put_nowait(text)

    def snapshot(self) -> str:
        """The whole page as it stands (for a new watcher, or one that lost a delta).

        After deltas it is rendered from the view's memory (no read), once a message number
        however many watchers ask; ``last`` stays what every watcher was sent, and the next
        full read sends every fragment again (``stale``), so all watchers agree once more."""
        if self._snapshot is None or self._snapshot[0] != self.seq:
            fragments = self.last
            if self.stale:
                try:
                    fragments = {**self.last, **self.view.fragments()}
                except Exception:
                    log.exception("rendering %s failed", self.key)
            body = {"type": "fragments", "full": True, "fragments": fragments, "seq": self.seq}
            self._snapshot = (self.seq, json.dumps(body))
        return self._snapshot[1]


class Hub:
    """The running channels; a channel starts with its first watcher and ends with its last."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.channels: dict[tuple[str, int], Channel] = {}
        self.gate = asyncio.Lock()
        self.sockets: ConnectionCap | None = None  # per address, from the app's settings

    def _sockets(self, websocket: WebSocket) -> ConnectionCap:
        if self.sockets is None:
            settings = websocket.app.state.runtime.settings
            self.sockets = ConnectionCap(settings.max_live_sockets_per_address)
        return self.sockets

    async def serve(
        self,
        websocket: WebSocket,
        key: tuple[str, int],
        render: Render | View,
        allowed: Allowed | None = None,
    ) -> None:
        """Stream a channel's fragments to an accepted websocket until it goes away, or until
        ``allowed`` (asked every RECHECK_SECONDS) says no (e.g. the TD logged out).

        At most ``max_live_sockets_per_address`` live pages watch from one address; one more
        is closed at once with 1013 (try again later), before it costs a queue or a render."""
        sockets, where = self._sockets(websocket), address(websocket)
        if not sockets.acquire(where):
            with contextlib.suppress(WebSocketDisconnect, RuntimeError):
                await websocket.close(code=1013)
            return
        try:
            await self._watch(websocket, key, render, allowed)
        finally:
            sockets.release(where)

    async def _watch(
        self,
        websocket: WebSocket,
        key: tuple[str, int],
        render: Render | View,
        allowed: Allowed | None,
    ) -> None:
        channel = self.channels.get(key)
        if channel is None:
            audience = key[0].split(":", 1)[0]
            channel = Channel(
                key,
                render,
                self.bus,
                min_interval=min_interval(audience),
                max_interval=max_interval(audience),
                delta_interval=delta_interval(audience),
                gate=self.gate,
                peers=lambda: len(self.channels),
            )
            self.channels[key] = channel
            channel.task = asyncio.create_task(channel.run())
        queue: asyncio.Queue[str] = asyncio.Queue(maxsize=50)
        channel.watchers.add(queue)
        reader = asyncio.create_task(_drain(websocket, lambda: _resend(channel, queue)))
        try:
            await channel.ready.wait()
            await websocket.send_text(channel.snapshot())
            checked = time.monotonic()
            while True:
                getter = asyncio.create_task(queue.get())
                done, _ = await asyncio.wait(
                    {getter, reader}, timeout=RECHECK_SECONDS, return_when=asyncio.FIRST_COMPLETED
                )
                if reader in done:
                    getter.cancel()
                    break
                if getter.done():
                    await websocket.send_text(getter.result())
                else:
                    getter.cancel()
                if allowed is not None and time.monotonic() - checked >= RECHECK_SECONDS:
                    checked = time.monotonic()
                    if not await allowed():
                        await websocket.close(code=4401)
                        break
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            reader.cancel()
            channel.watchers.discard(queue)
            if not channel.watchers and self.channels.get(key) is channel:
                del self.channels[key]
                if channel.task is not None:
                    channel.task.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await channel.task


def _resend(channel: Channel, queue: asyncio.Queue[str]) -> None:
    """A watcher asked for the whole page again (it lost a delta, or could not apply one)."""
    if queue.full():
        queue.get_nowait()
    queue.put_nowait(channel.snapshot())


async def _drain(websocket: WebSocket, refresh: Callable[[], None]) -> None:
    """Read what the browser sends (only ``{"type": "refresh"}`` means anything); returns
    when it disconnects."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            if _asks_refresh(message.get("text")):
                refresh()


def _asks_refresh(text: object) -> bool:
    if not isinstance(text, str) or len(text) > 100:
        return False
    with contextlib.suppress(ValueError):
        body = json.loads(text)
        return isinstance(body, dict) and body.get("type") == "refresh"
    return False
