"""A TCP proxy between the terminals and the server that can cut the network: it drops every
open connection and refuses new ones for a while, then lets them through again."""

from __future__ import annotations

import asyncio
import contextlib

from benchmarks.procs import free_port


class CutProxy:
    """127.0.0.1:``port`` -> 127.0.0.1:``target``; ``await cut(seconds)`` is the outage."""

    def __init__(self, target: int, port: int | None = None) -> None:
        self.target = target
        self.port = port or free_port()
        self.cuts = 0
        self.connections = 0
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/api/v1/table/ws"

    async def start(self) -> None:
        self._server = await asyncio.start_server(
            self._accept, "127.0.0.1", self.port, reuse_address=True
        )

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, up_writer}
        tasks = [
            asyncio.create_task(self._pipe(reader, up_writer)),
            asyncio.create_task(self._pipe(up_reader, writer)),
        ]
        self._tasks.update(tasks)
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks.difference_update(tasks)
        for w in (writer, up_writer):
            self._writers.discard(w)
            w.transport.abort()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.CancelledError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.transport.abort()

    def drop_all(self) -> None:
        """Reset every open connection (both sides see it closed at once)."""
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    def go_down(self) -> None:
        """The outage begins: stop listening (connections are refused) and drop all."""
        self.cuts += 1
        if self._server is not None:
            self._server.close()
            self._server = None
        self.drop_all()

    async def come_up(self) -> None:
        """The outage ends: listen again."""
        await self.start()

    async def cut(self, seconds: float) -> None:
        """An outage of ``seconds``."""
        self.go_down()
        await asyncio.sleep(seconds)
        await self.come_up()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        self.drop_all()
        for task in list(self._tasks):
            task.cancel()
