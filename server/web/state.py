"""What the web layer keeps on the app: templates, the login limiter and the live hub."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends
from fastapi.templating import Jinja2Templates
from starlette.requests import HTTPConnection

from server.limits.ratelimit import LoginLimiter
from server.live.runtime import Runtime
from server.web.live import Hub


@dataclass
class WebState:
    """Created by ``install``; one per app."""

    templates: Jinja2Templates
    limiter: LoginLimiter
    hub: Hub | None = None

    def hub_for(self, runtime: Runtime) -> Hub:
        """The live hub on the runtime's bus (made on first use, once the app runs)."""
        if self.hub is None or self.hub.bus is not runtime.bus:
            self.hub = Hub(runtime.bus)
        return self.hub


def get_web(conn: HTTPConnection) -> WebState:
    web: WebState = conn.app.state.web
    return web


def get_runtime(conn: HTTPConnection) -> Runtime:
    runtime: Runtime = conn.app.state.runtime
    return runtime


WebDep = Annotated[WebState, Depends(get_web)]
RuntimeDep = Annotated[Runtime, Depends(get_runtime)]
