"""Table side: pairing, round info and § 262 commands over HTTP and a websocket."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Body, Request, WebSocket, WebSocketDisconnect
from pydantic import ValidationError
from sqlmodel import Session
from starlette.websockets import WebSocketDisconnected

from protocol.messages import (
    Ack,
    Error,
    Hello,
    Message,
    Paired,
    PairTerminal,
    RoundInfo,
    ServerMessage,
    TableCommand,
    parse_command,
)
from server.api.deps import RuntimeDep, TableTokenDep
from server.api.openapi import ERRORS as OPENAPI_ERRORS
from server.api.openapi import operation_id
from server.core.errors import TravellerError, UnauthorizedError
from server.i18n import error_words
from server.limits import ratelimit
from server.live.runtime import Runtime
from server.services import tokens

router = APIRouter(
    prefix="/api/v1/table",
    tags=["table"],
    responses=OPENAPI_ERRORS,
    generate_unique_id_function=operation_id,
)
log = logging.getLogger(__name__)

ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": Error, "description": "Token missing, unknown, revoked or expired."},
    404: {"model": Error, "description": "Unknown board or pairing code."},
    409: {"model": Error, "description": "Board not in this round, round closed, stale version."},
    422: {"model": Error, "description": "InvalidError contract, declarer, tricks or lead."},
}


@router.post(
    "/pair",
    response_model=Paired,
    responses={
        **ERRORS,
        429: {"model": Error, "description": "Too many unknown codes: wait and try again."},
    },
)
async def pair(runtime: RuntimeDep, body: PairTerminal, request: Request) -> Paired:
    """Exchange the table's pairing code (shown to the TD) for a table token. A code works
    once; after five unknown codes an address backs off exponentially, and after 100 from
    everyone so do all addresses with mistakes of their own (server.limits.ratelimit)."""

    def work(session: Session) -> Paired:
        return runtime.desk.pair(session, body.code, body.device)[0]

    with ratelimit.attempt(request, "pairing"):
        return await runtime.run(work)


@router.get("/round", response_model=RoundInfo, responses=ERRORS)
async def current_round(runtime: RuntimeDep, token: TableTokenDep) -> RoundInfo:
    """The table's current round: pairs, boards and their states."""

    def work(session: Session) -> RoundInfo:
        return runtime.desk.round_of(session, tokens.table_identity(session, token))

    return await runtime.read(work)


async def execute(runtime: Runtime, token: str, command: TableCommand) -> Message:
    """Run one command through the table desk: authenticated, committed (grouped with the
    commands waiting alongside it, table locks in table order), published, answered."""
    return await runtime.desk.command(token, command)


@router.post("/commands", response_model=ServerMessage, responses=ERRORS)
async def command(
    runtime: RuntimeDep,
    token: TableTokenDep,
    body: Annotated[
        TableCommand,
        Body(
            openapi_examples={
                "enter": {
                    "summary": "North enters 4♠ by South, made",
                    "value": {
                        "type": "enter_result",
                        "entry_id": "0b9f6f2e-5d1c-4d5e-9d2a-1f2e3d4c5b6a",
                        "board": 3,
                        "values": {"contract": "4S", "declarer": "S", "tricks": "="},
                    },
                },
                "confirm": {
                    "summary": "East confirms version 1 of board 3",
                    "value": {
                        "type": "confirm_result",
                        "entry_id": "7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f",
                        "board": 3,
                        "version": 1,
                    },
                },
            }
        ),
    ],
) -> Message:
    """Any table command (enter, confirm, reject, correct, next round, call TD); the reply is
    the same message a websocket would get."""
    return await execute(runtime, token, body)


class _Link:
    """One terminal's open socket: sends one at a time, and once it is closed sends no more."""

    def __init__(self, websocket: WebSocket, accept_language: str | None) -> None:
        self.websocket = websocket
        self.accept_language = accept_language
        self.lock = asyncio.Lock()
        self.closed = False

    async def send(self, message: Message) -> bool:
        """Send ``message``; False once the socket is closed (nothing was sent)."""
        async with self.lock:
            if self.closed:
                return False
            try:
                await self.websocket.send_text(message.model_dump_json())
            except (WebSocketDisconnect, WebSocketDisconnected):
                # The terminal went (or the socket closed) between a push and its delivery:
                # uvicorn must not log this race as a traceback.
                self.closed = True
                return False
            return True

    async def refuse(self, exc: TravellerError, entry_id: str | None = None) -> None:
        """The token is no longer good (revoked, expired): say why and close (4401)."""
        async with self.lock:
            if self.closed:
                return
            self.closed = True
            with contextlib.suppress(Exception):
                reply = _error(exc, entry_id, self.accept_language)
                await self.websocket.send_text(reply.model_dump_json())
                await self.websocket.close(code=4401)


#: Put in a socket's push queue to wake it when its token changed (never sent).
_TOKEN_CHANGED = Ack(detail="token changed")


async def _pushes(
    link: _Link,
    runtime: Runtime,
    token: str,
    section_id: int,
    table: int,
    expires_at: datetime | None = None,
    since: int | None = None,
) -> None:
    """Deliver the table's pushes while its token is live. The token's life is held in
    memory (server/live/live_tokens.py): a change to it, from this worker or another, wakes
    this task, which asks the database before the next push, so once the TD moves the table to
    a new device (or withdraws this terminal) the old socket hears nothing more and is closed.
    Unchanged, the token is read again every ``token_check_seconds`` at most. ``expires_at``:
    the hello read the token live, when the live tokens' version was ``since``."""
    sub = runtime.bus.subscribe(section_id, table)
    loop = asyncio.get_running_loop()
    key = tokens.digest(token)

    def wake() -> None:
        loop.call_soon_threadsafe(_nudge, sub.queue)

    unwatch = runtime.tokens.watch(key, wake, expires_at, since)
    every = runtime.settings.token_check_seconds
    try:
        while True:
            batch: list[Message] = []
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(every):
                    batch.append(await sub.queue.get())
                while not sub.queue.empty():
                    batch.append(sub.queue.get_nowait())
            if runtime.tokens.must_read(key):
                try:
                    expires_at = await runtime.read(lambda s: tokens.check_token(s, token))
                except UnauthorizedError as exc:
                    await link.refuse(exc)
                    return
                except Exception:  # the database is away: deliver as before, check again next time
                    log.warning("could not check a terminal's token; its pushes go out unchecked")
                else:
                    runtime.tokens.admit(key, expires_at)
            for message in batch:
                if message is not _TOKEN_CHANGED and not await link.send(message):
                    return
    except WebSocketDisconnect:
        return  # the terminal went between a push and its delivery: the reader ends the socket
    finally:
        unwatch()
        runtime.bus.unsubscribe(sub)


def _nudge(queue: asyncio.Queue[Message]) -> None:
    """Wake a socket's push task (its token changed) without dropping a push to make room."""
    if not queue.full():
        queue.put_nowait(_TOKEN_CHANGED)


def _error(
    exc: TravellerError, entry_id: str | None = None, accept_language: str | None = None
) -> Error:
    """A refusal for the table: in its Accept-Language's language, else the event's."""
    message = error_words.for_request(exc, accept_language)
    return Error(code=exc.code, message=message, entry_id=entry_id)


@router.websocket("/ws")
async def table_socket(websocket: WebSocket) -> None:
    """A terminal's live link: Hello{token} first, then commands in, replies and pushes out.

    Bounded against abuse: a capped number of sockets per address (refused at the handshake),
    a hello within ``hello_timeout`` seconds, messages of at most ``max_message_bytes``."""
    runtime: Runtime = websocket.app.state.runtime
    sockets = ratelimit.guards(websocket.app).sockets
    where = ratelimit.address(websocket)
    if not sockets.acquire(where):
        await websocket.close(code=1013)  # before accept: the handshake gets HTTP 403
        return
    try:
        await _serve(websocket, runtime)
    except _TooLargeError:
        with contextlib.suppress(Exception):
            limit = runtime.settings.max_message_bytes
            message = f"Messages are limited to {limit} bytes."
            await websocket.send_text(
                Error(code="message_too_large", message=message).model_dump_json()
            )
            await websocket.close(code=1009)
    finally:
        sockets.release(where)


class _TooLargeError(Exception):
    """A message above the size limit arrived: the socket is closed."""


async def _receive(websocket: WebSocket, runtime: Runtime) -> str | bytes:
    """The next message (text or binary frame), refusing one above the size limit."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    data: str | bytes = message.get("text") or message.get("bytes") or ""
    if len(data) > runtime.settings.max_message_bytes:
        raise _TooLargeError
    return data


async def _serve(websocket: WebSocket, runtime: Runtime) -> None:
    """Accept, authenticate the hello, then answer commands until the terminal goes."""
    await websocket.accept()
    accept = websocket.headers.get("accept-language")  # the refusals' language, if sent
    try:
        async with asyncio.timeout(runtime.settings.hello_timeout):
            raw_hello = await _receive(websocket, runtime)
    except TimeoutError:
        with contextlib.suppress(Exception):
            await websocket.send_text(
                Error(
                    code="hello_timeout", message="No hello in time: connect again."
                ).model_dump_json()
            )
            await websocket.close(code=4408)
        return
    except WebSocketDisconnect:
        return
    try:
        hello = Hello.model_validate_json(raw_hello)
    except ValidationError:
        with contextlib.suppress(Exception):
            await websocket.send_text(
                Error(
                    code="hello_expected", message="Send a hello message with the token first."
                ).model_dump_json()
            )
            await websocket.close(code=4400)
        return

    def identify(session: Session) -> tuple[RoundInfo, tokens.TableIdentity]:
        ident = tokens.table_identity(session, hello.token)
        return runtime.desk.round_of(session, ident), ident

    since = runtime.tokens.version  # a change heard of after this: read the token again
    try:
        info, ident = await runtime.read(identify)
    except TravellerError as exc:
        await websocket.send_text(_error(exc, None, accept).model_dump_json())
        await websocket.close(code=4401)
        return
    section_id, table_id = ident.section.id or 0, ident.table.id or 0
    runtime.desk.remember_order(hello.token, table_id)
    await websocket.send_text(info.model_dump_json())
    link = _Link(websocket, accept)
    pusher = asyncio.create_task(
        _pushes(link, runtime, hello.token, section_id, info.table, ident.token.expires_at, since)
    )
    try:
        while not link.closed:
            raw = await _receive(websocket, runtime)
            try:
                command = parse_command(raw)
            except ValidationError as exc:
                reply: Message = Error(code="invalid_message", message=_first_error(exc))
            else:
                entry_id = getattr(command, "entry_id", None)
                try:
                    reply = await execute(runtime, hello.token, command)
                except UnauthorizedError as exc:  # revoked or expired since the hello
                    await link.refuse(exc, entry_id)
                    break
                except TravellerError as exc:
                    reply = _error(exc, entry_id, accept)
            if not await link.send(reply):
                break
    except WebSocketDisconnect:
        pass
    finally:
        pusher.cancel()
        with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect):
            await pusher


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ()))
    return f"The message is not valid: {where}: {err.get('msg', 'invalid')}"
