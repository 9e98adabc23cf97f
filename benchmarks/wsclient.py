"""A table terminal on the websocket for the load test: commands matched to replies by entry id,
pushes timestamped as they arrive."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import deque
from typing import Any

from pydantic import ValidationError
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol.messages import (
    Ack,
    Error,
    Hello,
    Message,
    ResultAck,
    ResultChanged,
    RoundInfo,
    parse_server_message,
)


class LinkError(RuntimeError):
    """The server refused a command, sent nonsense or dropped the connection."""


class TableLink:
    """One websocket of one table. ``echo=True`` talks to the baseline echo server instead."""

    def __init__(self, url: str, token: str, *, echo: bool = False) -> None:
        self.url = url
        self.token = token
        self.echo = echo
        self.ws: ClientConnection | None = None
        self.errors: list[str] = []
        self.pushes: dict[tuple[int, int], float] = {}  # (board, version) -> arrival time
        self._pending: dict[str, asyncio.Future[tuple[Any, float]]] = {}
        self._round_waiters: deque[asyncio.Future[Any]] = deque()
        self._push_waiters: dict[tuple[int, int], asyncio.Future[float]] = {}
        self._reader: asyncio.Task[None] | None = None

    async def open(self, timeout: float = 30.0) -> Any:
        """Connect and say hello; returns the round_info (or the echo)."""
        self.ws = await connect(
            self.url, open_timeout=timeout, ping_interval=15, ping_timeout=60, max_size=2**20
        )
        await self.ws.send(Hello(token=self.token).model_dump_json())
        first = await asyncio.wait_for(self.ws.recv(), timeout)
        reply = json.loads(first) if self.echo else parse_server_message(first)
        if not self.echo and not isinstance(reply, RoundInfo):
            raise LinkError(f"hello refused: {first[:200]!r}")
        self._reader = asyncio.create_task(self._read())
        return reply

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            async for raw in self.ws:
                now = time.perf_counter()
                if self.echo:
                    self._resolve(json.loads(raw).get("entry_id"), raw, now)
                    continue
                try:
                    message = parse_server_message(raw)
                except ValidationError:
                    self.errors.append(f"unparsable: {raw[:200]!r}")
                    continue
                self._dispatch(message, now)
        except ConnectionClosed as exc:
            if self._pending or self._round_waiters:
                self.errors.append(f"connection closed: {exc}")
        finally:
            self._fail_all(LinkError("connection closed"))

    def _dispatch(self, message: Message, now: float) -> None:
        if isinstance(message, ResultChanged):
            key = (message.result.board, message.result.version)
            self.pushes[key] = now
            pushed = self._push_waiters.pop(key, None)
            if pushed is not None and not pushed.done():
                pushed.set_result(now)
        elif isinstance(message, ResultAck | Ack | Error) and message.entry_id in self._pending:
            self._resolve(message.entry_id, message, now)
        elif isinstance(message, RoundInfo | Error) and self._round_waiters:
            waiter = self._round_waiters.popleft()
            if not waiter.done():
                waiter.set_result(message)
        elif isinstance(message, Error):
            self.errors.append(f"unexpected error: {message.code}: {message.message}")

    def _resolve(self, entry_id: str | None, message: Any, now: float) -> None:
        future = self._pending.pop(entry_id or "", None)
        if future is not None and not future.done():
            future.set_result((message, now))

    def _fail_all(self, exc: Exception) -> None:
        for future in [*self._pending.values(), *self._round_waiters]:
            if not future.done():
                future.set_exception(exc)
        self._pending.clear()
        self._round_waiters.clear()

    async def call(self, command: Message, timeout: float = 600.0) -> tuple[Any, float]:
        """Send a command with an entry id; returns (reply, latency in seconds)."""
        assert self.ws is not None
        entry_id: str = getattr(command, "entry_id")  # noqa: B009
        future: asyncio.Future[tuple[Any, float]] = asyncio.get_running_loop().create_future()
        self._pending[entry_id] = future
        sent = time.perf_counter()
        await self.ws.send(command.model_dump_json())
        reply, arrived = await asyncio.wait_for(future, timeout)
        return reply, arrived - sent

    async def ask(self, command: Message, timeout: float = 600.0) -> Any:
        """Send get_round / next_round; returns the round_info or error that answers it."""
        assert self.ws is not None
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._round_waiters.append(future)
        await self.ws.send(command.model_dump_json())
        return await asyncio.wait_for(future, timeout)

    async def push_arrival(self, board: int, version: int, timeout: float = 10.0) -> float | None:
        """When the result_changed push for (board, version) arrived (waits for it)."""
        key = (board, version)
        if key in self.pushes:
            return self.pushes[key]
        future = self._push_waiters.setdefault(key, asyncio.get_running_loop().create_future())
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            return None

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
