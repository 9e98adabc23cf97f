"""create_app(settings) -> FastAPI. The lifespan opens the engine and migrates the schema."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import UTC, datetime

from fastapi import APIRouter, FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy import Engine
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import HTTPConnection

from protocol.messages import PROTOCOL_VERSION, Error
from server import dataconnector
from server.api import deals, movements, penalties, players, publishing, results, room, table, td
from server.api.openapi import ERRORS, operation_id
from server.api.routing import add_routes
from server.core.config import Settings, check
from server.core.db import make_engine, migrate_when_ready
from server.core.errors import TravellerError
from server.gateway.runner import in_server
from server.i18n import error_words
from server.limits.http_limits import RequestLimits
from server.live.notify import PgFanout, fanout
from server.live.runtime import Runtime, settle_heap, tune_interpreter
from server.site.backup import scheduled_backups
from server.web import install as install_web

#: The JSON and websocket API's routers, in the order their routes are matched.
API_ROUTERS: tuple[APIRouter, ...] = (
    td.router,
    td.guarded,
    publishing.router,
    room.router,
    penalties.router,
    deals.router,
    players.router,
    results.public,  # ranking, travellers, score cards as JSON
    results.guarded,
    table.router,
    movements.router,
)

DESCRIPTION = """Table-side score entry for duplicate bridge.

* **Table side** (`/api/v1/table/...`): a terminal pairs with the table's code, then enters and
  confirms results (§ 262). Payloads are the versioned models of `protocol/messages.py`; the same
  messages flow over the websocket `/api/v1/table/ws`.
* **TD side** (`/api/v1/...`): log in with the TD password, create events and sections, start and
  close rounds, watch the tables, settle results, and every other action of the TD console
  (publishing, exports, backup, hand records, members, penalties, terminals). Every change to a
  result is audited.

Errors are JSON `{"type": "error", "code": "...", "message": "..."}` with a 4xx status.
"""


def create_app(settings: Settings, *, engine: Engine | None = None) -> FastAPI:
    """A server for ``settings``; pass ``engine`` to share one (tests, the demo)."""
    check(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        own = engine is None
        eng = (
            engine
            if engine is not None
            else make_engine(
                settings.database_url,
                pool_size=settings.db_pool_size,
                max_overflow=settings.db_max_overflow,
            )
        )
        migrate_when_ready(eng)
        runtime = Runtime(settings, eng)
        app.state.runtime = runtime
        try:
            async with AsyncExitStack() as stack:
                # PostgreSQL: share pushes between workers; SQLite: timed and round-end backups.
                runtime.tokens.attach()
                stack.callback(runtime.tokens.detach)
                app.state.fanout = await stack.enter_async_context(
                    fanout(runtime.bus, eng, runtime.tokens, runtime.desk.memory)
                )
                await stack.enter_async_context(scheduled_backups(runtime.bus, eng))
                if settings.gateway_ports:  # serial keypads (server/gateway)
                    app.state.gateway = await stack.enter_async_context(in_server(runtime))
                yield
        finally:
            await asyncio.to_thread(runtime.desk.close)
            if own:
                eng.dispose()

    app = FastAPI(
        title="Traveller",
        version=f"0.1.0 (protocol {PROTOCOL_VERSION})",
        description=DESCRIPTION,
        lifespan=lifespan,
        generate_unique_id_function=operation_id,
    )

    @app.exception_handler(TravellerError)
    async def traveller_error(request: HTTPConnection, exc: TravellerError) -> JSONResponse:
        message = error_words.for_request(exc, request.headers.get("accept-language"))
        body = Error(code=exc.code, message=message).model_dump(mode="json")
        return JSONResponse(body, status_code=exc.status)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        """Unknown paths and methods under /api/ answer in the API's error format too."""
        if not request.url.path.startswith("/api/"):
            return await http_exception_handler(request, exc)
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        body = Error(code=code, message=str(exc.detail)).model_dump(mode="json")
        return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        first = errors[0] if errors else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        body = Error(
            code="invalid_request", message=f"{where}: {first.get('msg', 'invalid request')}"
        ).model_dump(mode="json")
        body["detail"] = [{"loc": list(e.get("loc", ())), "msg": e.get("msg")} for e in errors]
        return JSONResponse(body, status_code=422)

    @app.get("/api/v1/health", tags=["meta"], responses=ERRORS)
    async def health() -> dict[str, object]:
        # pid: which worker answered; time: for `traveller doctor`'s clock-skew check.
        return {
            "status": "ok",
            "protocol": PROTOCOL_VERSION,
            "pid": os.getpid(),
            "time": datetime.now(UTC).isoformat(),
            "fanout": _fanout_state(getattr(app.state, "fanout", None)),
        }

    add_routes(app, *API_ROUTERS)
    app.include_router(dataconnector.router)  # Bridgemate Data Connector: /dc and :5079
    # Inside the security headers: a refused body or path still gets them.
    app.add_middleware(
        RequestLimits, max_body_bytes=settings.max_body_bytes, body_timeout=settings.body_timeout
    )
    install_web(app)  # TD dashboard and public results pages, with security headers
    _refuse_websockets_at_the_handshake(app, traveller_error)
    return app


def _refuse_websockets_at_the_handshake(
    app: FastAPI, api_error: Callable[[HTTPConnection, TravellerError], Awaitable[Response]]
) -> None:
    """A websocket refused before it is accepted (an unknown section of a live page) gets the
    API's JSON error as the handshake's HTTP answer; the web's handler (pages, form redirects)
    keeps every HTTP request."""
    web_error: Callable[[HTTPConnection, Exception], Awaitable[Response]]
    web_error = app.exception_handlers[TravellerError]  # type: ignore[assignment]

    async def traveller_error(conn: HTTPConnection, exc: Exception) -> Response:
        assert isinstance(exc, TravellerError)
        if conn.scope["type"] == "websocket":
            return await api_error(conn, exc)
        response: Response = await web_error(conn, exc)
        return response

    app.add_exception_handler(TravellerError, traveller_error)


def _fanout_state(relay: PgFanout | None) -> str:
    """local (one process), postgres (LISTEN in place) or reconnecting (database away)."""
    if relay is None:
        return "local"
    return "postgres" if relay.listening.is_set() else "reconnecting"


def server_app(settings: Settings, *, engine: Engine | None = None) -> FastAPI:
    """The app of a server process (`traveller serve`'s workers, the demo, the load bench's
    server): the interpreter set for a server around :func:`create_app` (a short switch
    interval; once the app is built, its heap frozen and full collections rarer:
    server.live.runtime). A library caller (a test, a tool) calls ``create_app`` instead."""
    tune_interpreter()
    app = create_app(settings, engine=engine)
    settle_heap()
    return app


def app_from_env() -> FastAPI:
    """uvicorn's factory for several workers (`server.app:app_from_env`, factory=True): each
    worker process builds its app from the TRAVELLER_* environment."""
    return server_app(Settings())
