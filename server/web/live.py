"""Live pages: one channel per section and audience renders page fragments once per change and
sends them to every browser watching, over a websocket."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from fastapi import WebSocket, WebSocketDisconnect

from server.bus import Bus

log = logging.getLogger(__name__)

Fragments = dict[str, str]
Render = Callable[[], Awaitable[Fragments]]
Allowed = Callable[[], Awaitable[bool]]

#: Re-render this often even without pushes: TD calls, terminals going quiet, late tables.
POLL_SECONDS = 3.0
#: How often a watcher's right to watch is checked again (a TD session can end).
RECHECK_SECONDS = 30.0


@dataclass(eq=False)
class Channel:
    """A section seen by one audience ("td" or "public"): the latest fragments and watchers."""

    key: tuple[str, int]
    render: Render
    bus: Bus
    poll: float = POLL_SECONDS
    last: Fragments = field(default_factory=dict)
    watchers: set[asyncio.Queue[str]] = field(default_factory=set)
    task: asyncio.Task[None] | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self) -> None:
        sub = self.bus.subscribe(self.key[1], None)
        try:
            await self._refresh()
            self.ready.set()
            while True:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(sub.queue.get(), timeout=self.poll)
                while not sub.queue.empty():  # one render for a burst of pushes
                    sub.queue.get_nowait()
                await self._refresh()
        finally:
            self.bus.unsubscribe(sub)

    async def _refresh(self) -> None:
        try:
            fragments = await self.render()
        except Exception:  # a failed render must not end the channel
            log.exception("rendering %s failed", self.key)
            return
        changed = {k: v for k, v in fragments.items() if self.last.get(k) != v}
        if not changed:
            return
        self.last.update(changed)
        text = json.dumps({"type": "fragments", "fragments": changed})
        for queue in list(self.watchers):
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(text)


class Hub:
    """The running channels; a channel starts with its first watcher and ends with its last."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.channels: dict[tuple[str, int], Channel] = {}

    async def serve(
        self,
        websocket: WebSocket,
        key: tuple[str, int],
        render: Render,
        allowed: Allowed | None = None,
    ) -> None:
        """Stream a channel's fragments to an accepted websocket until it goes away, or until
        ``allowed`` (asked every RECHECK_SECONDS) says no (e.g. the TD logged out)."""
        channel = self.channels.get(key)
        if channel is None:
            channel = Channel(key, render, self.bus)
            self.channels[key] = channel
            channel.task = asyncio.create_task(channel.run())
        queue: asyncio.Queue[str] = asyncio.Queue(maxsize=50)
        channel.watchers.add(queue)
        reader = asyncio.create_task(_drain(websocket))
        try:
            await channel.ready.wait()
            await websocket.send_text(json.dumps({"type": "fragments", "fragments": channel.last}))
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


async def _drain(websocket: WebSocket) -> None:
    """Read (and ignore) what the browser sends; returns when it disconnects."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
