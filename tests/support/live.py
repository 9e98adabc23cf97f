"""An ASGI app served by uvicorn in a background thread of the test process, on a loopback
socket bound before the thread starts."""

from __future__ import annotations

import socket
import threading
from types import TracebackType
from typing import Any

import uvicorn

from tests.support.net import loopback_socket


class _Server(uvicorn.Server):
    """uvicorn's server, telling a waiting test the moment its start-up is over."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = threading.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().startup(sockets=sockets)
        finally:
            self.ready.set()


class ThreadServer:
    """``app`` under uvicorn in a daemon thread; `start` returns once it serves (or fails the
    test if it stops or does not start in time). It can be stopped and started again, on the
    same port."""

    def __init__(self, app: Any, *, port: int = 0, **config: Any) -> None:
        self.app = app
        self.config = {"log_level": "warning", **config}
        self.port = port
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 20.0) -> ThreadServer:
        sock = loopback_socket(self.port)
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, **self.config)
        self._server = server = _Server(config)

        def run() -> None:
            try:
                server.run(sockets=[sock])
            finally:
                server.ready.set()  # a server that stopped early wakes the waiting test too
                sock.close()

        self._thread = threading.Thread(target=run, name="uvicorn", daemon=True)
        self._thread.start()
        if not server.ready.wait(timeout):
            raise AssertionError(f"the test server did not start in {timeout} s")
        if not server.started or not self._thread.is_alive():
            raise AssertionError("the test server stopped while starting")
        return self

    def stop(self, timeout: float = 15.0) -> None:
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout)
        self._server = self._thread = None

    def __enter__(self) -> ThreadServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
