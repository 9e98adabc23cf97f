"""The Data Connector over HTTP: GET ping and POST /dc-scoringprogram, at /dc and on its port."""

from __future__ import annotations

import hmac
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import ValidationError
from sqlmodel import Session

from server.core.config import Settings
from server.core.errors import TravellerError
from server.dataconnector import dispatch
from server.dataconnector.listener import Listener
from server.dataconnector.wire import (
    PING_TEXT,
    Command,
    DataType,
    DcError,
    ErrorType,
    Response,
    error,
    ok,
    parse_request,
)
from server.dataconnector.wire import (
    Request as DcRequest,
)
from server.limits import ratelimit
from server.limits.http_limits import RequestLimits
from server.limits.ratelimit import GuessLimiter
from server.live.runtime import Runtime
from server.services.table.table_commands import Push

log = logging.getLogger(__name__)

#: The two endpoints, without a prefix: the own-port server serves them at its root.
routes = APIRouter(tags=["data connector"])

ENVELOPE_EXAMPLE = {
    "Command": 19,
    "ClubId": "my-club",
    "LicenceKey": "my-licence",
    "SessionGuid": "A1B2C3D4E5F60718293A4B5C6D7E8F90",
    "SerializedData": "",
}


@routes.get("/", response_class=PlainTextResponse, summary="Data Connector ping")
async def ping() -> str:
    """Scoring-program clients call this to see that the Data Connector is there."""
    return PING_TEXT


@routes.post(
    "/dc-scoringprogram",
    summary="Data Connector scoring program endpoint",
    responses={200: {"description": "A ScoringProgramResponse (also for refused requests)."}},
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"example": ENVELOPE_EXAMPLE}},
        }
    },
)
async def scoring_program(request: Request) -> JSONResponse:
    """A ScoringProgramRequest in, a ScoringProgramResponse out, always with HTTP 200."""
    runtime: Runtime = request.app.state.runtime
    guesses = Guesses(ratelimit.guards(request.app).data_connector, ratelimit.guesser(request))
    response, pushes = await answer(runtime, await request.body(), guesses)
    if pushes:
        runtime.publish(pushes)
    return JSONResponse(response.wire())


@dataclass(frozen=True)
class Guesses:
    """The limiter of wrong credentials and who is sending this request (its address)."""

    limiter: GuessLimiter
    who: str


def check_credentials(settings: Settings, req: DcRequest, guesses: Guesses | None = None) -> None:
    """The club id and licence key must be the ones the server is configured with. With
    ``guesses``, an address that sent wrong ones backs off exponentially (after ten), and all
    such addresses do after 100 from everyone (server.limits.ratelimit.GuessLimiter): the key cannot
    be guessed at the 800 answers a second the connector gives."""
    club, licence = settings.dc_club_id, settings.dc_license
    if not club or not licence:
        raise DcError(
            ErrorType.VALIDATION,
            "The Data Connector is switched off on this Traveller server: set "
            "TRAVELLER_DC_CLUB_ID and TRAVELLER_DC_LICENSE.",
        )
    wait = guesses.limiter.retry_after(guesses.who) if guesses else 0
    if wait:
        raise DcError(
            ErrorType.VALIDATION,
            f"Too many wrong club ids or licence keys from this computer: try again in {wait} s.",
        )
    same_club = hmac.compare_digest(req.club_id.encode(), club.encode())
    same_licence = hmac.compare_digest(req.licence_key.encode(), licence.encode())
    if not (same_club and same_licence):
        if guesses:
            guesses.limiter.failed(guesses.who)
        raise DcError(ErrorType.VALIDATION, "Unknown club id or licence key.")
    if guesses:
        guesses.limiter.succeeded(guesses.who)


async def answer(
    runtime: Runtime, body: bytes, guesses: Guesses | None = None
) -> tuple[Response, list[Push]]:
    """The response to one request body, and the pushes to publish; never raises."""
    command, guid = Command.NONE, ""
    try:
        req = parse_request(body)
        command, guid = req.command, req.session_guid
        check_credentials(runtime.settings, req, guesses)
        if command in (Command.CONNECT, Command.DISCONNECT):
            return ok(command, "Connected." if command == Command.CONNECT else "Goodbye."), []
        if command == Command.PING:
            return Response(command, DataType.OK, req.data(), guid), []

        def work(session: Session) -> dispatch.DcAnswer:
            return dispatch.handle(session, req)

        outcome = await runtime.run(work)
        return outcome.response, outcome.pushes
    except DcError as exc:
        return error(command, exc, guid), []
    except TravellerError as exc:
        return error(command, dispatch.as_dc_error(exc), guid), []
    except ValidationError as exc:
        return error(command, DcError(ErrorType.VALIDATION, str(exc)), guid), []
    except Exception as exc:  # the protocol's Exception answer, never an HTTP 500
        log.exception("Data Connector request %s failed", command.name)
        return error(
            command, DcError(ErrorType.EXCEPTION, f"{type(exc).__name__}: {exc}"), guid
        ), []


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """With the main server: also listen on the Data Connector's own port when configured."""
    runtime: Runtime | None = getattr(app.state, "runtime", None)
    listener = None
    if runtime is not None:
        settings = runtime.settings
        if settings.dc_club_id and settings.dc_license and settings.dc_port:
            own = own_app(runtime, ratelimit.guards(app))
            listener = await Listener.start(own, settings.host, settings.dc_port)
    try:
        yield
    finally:
        if listener is not None:
            await listener.stop()


def own_app(runtime: Runtime, guards: ratelimit.Guards | None = None) -> FastAPI:
    """The Data Connector alone (its own port), sharing the main server's runtime and its
    guards (a guesser gains nothing from trying both ports), with the main server's limits
    on request bodies (413 ``body_too_large``, 408 ``body_timeout``)."""
    app = FastAPI(title="Traveller Data Connector", openapi_url=None, docs_url=None, redoc_url=None)
    settings = runtime.settings
    app.add_middleware(
        RequestLimits, max_body_bytes=settings.max_body_bytes, body_timeout=settings.body_timeout
    )  # bodies bounded as on the main port
    app.state.runtime = runtime
    if guards is not None:
        app.state.traveller_guards = guards
    app.include_router(routes)
    return app


#: Include this in the main app: the endpoints under /dc, and the own-port listener.
router = APIRouter(prefix="/dc", lifespan=lifespan)
router.include_router(routes)
