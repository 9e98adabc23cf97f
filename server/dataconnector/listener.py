"""A second HTTP listener in the main server's event loop: the Data Connector's own port."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Iterator

import uvicorn
from fastapi import FastAPI

from server.core.config import Settings
from server.limits.http_limits import uvicorn_options

log = logging.getLogger(__name__)


class _Server(uvicorn.Server):
    """A uvicorn server that leaves the signals to the main server."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        """Nothing to capture: the main server handles Ctrl-C and SIGTERM."""
        yield


class Listener:
    """The app served on one more port until stopped."""

    def __init__(self, server: _Server, task: asyncio.Task[None]) -> None:
        self.server = server
        self.task = task

    @classmethod
    async def start(cls, app: FastAPI, host: str, port: int) -> Listener | None:
        """Listen on host:port; None (and a warning) when the port is taken, e.g. by another
        worker of the same server, which then answers instead."""
        try:
            sock = socket.create_server((host, port), reuse_port=False)
        except OSError as exc:
            log.warning("Data Connector port %s:%s not opened: %s", host, port, exc)
            return None
        # Logging stays as the main server configured it, for the whole process: uvicorn's
        # log_level and access_log=False act on the process-wide "uvicorn.*" loggers, and
        # would silence the main server's access log.
        settings: Settings = getattr(getattr(app.state, "runtime", None), "settings", Settings())
        config = uvicorn.Config(
            app, lifespan="off", log_config=None, log_level=None, **uvicorn_options(settings)
        )
        server = _Server(config)
        task = asyncio.create_task(server.serve(sockets=[sock]))
        for _ in range(200):
            if server.started or task.done():
                break
            await asyncio.sleep(0.025)
        if not server.started:
            log.warning("Data Connector listener on %s:%s did not start", host, port)
        else:
            log.info("Data Connector listening on http://%s:%s", host, port)
        return cls(server, task)

    async def stop(self) -> None:
        """Stop listening and wait for the open requests to finish."""
        self.server.should_exit = True
        with contextlib.suppress(Exception):
            async with asyncio.timeout(10):
                await self.task
