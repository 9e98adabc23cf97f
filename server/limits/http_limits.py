"""Limits at the HTTP layer, below the routes: how long a connection may take to send its
request headers, how many idle connections one address may hold, how big a request body,
a path segment and a websocket frame may be.

uvicorn alone closes an idle keep-alive connection only after a response, so a connection
that never finishes its headers (a slow-loris client) is held for ever and a few hundred of
them use up the server's file descriptors. ``GuardedHttp`` (the HTTP protocol uvicorn runs,
chosen by ``uvicorn_options``) closes a connection whose headers are not complete within
``header_timeout`` seconds, and lets one address hold at most
``idle_connections_per_address`` connections waiting for a request (a new one closes the
oldest). ``RequestLimits`` (ASGI middleware in the app, so the Data Connector's port and any
proxy setup get it too) refuses an oversized body with 413 before reading it, from its
Content-Length, or as soon as a streamed body passes the limit, and a body that stalls with
408.

A header timeout needs the connection before its request exists, which ASGI never shows, so
``GuardedHttp`` subclasses uvicorn's HTTP protocols, a private API: pyproject.toml pins uvicorn to
the range tests/security/test_uvicorn_fence.py was run with, and that test names what changed
when an uvicorn no longer has what this module uses.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from protocol.messages import Error
from server.core.config import Settings

#: The longest path segment (a section id, a pair key, a file name) any route takes; longer
#: ones are refused before routing (414), so no route ever sees a 5000-character key.
MAX_SEGMENT_CHARS = 200


@dataclass(frozen=True)
class HttpLimits:
    """What ``GuardedHttp`` enforces (from Settings: TRAVELLER_HEADER_TIMEOUT, ...)."""

    header_timeout: float = 10.0
    idle_per_address: int = 32
    max_header_bytes: int = 32_768

    @classmethod
    def of(cls, settings: Settings) -> HttpLimits:
        return cls(
            header_timeout=settings.header_timeout,
            idle_per_address=settings.idle_connections_per_address,
            max_header_bytes=settings.max_header_bytes,
        )


_limits: HttpLimits | None = None


def current_limits() -> HttpLimits:
    """The limits ``uvicorn_options`` set in this process; a worker process started by
    uvicorn reads them from the TRAVELLER_* environment, as its app does."""
    global _limits
    if _limits is None:
        _limits = HttpLimits.of(Settings())
    return _limits


def ws_max_size(settings: Settings) -> int:
    """uvicorn's websocket frame limit: room for the largest table message the app accepts
    (``max_message_bytes`` characters, up to 4 bytes each in UTF-8), so the app's own check
    still answers ``message_too_large``, while a 16 MB frame is refused unread."""
    return 4 * settings.max_message_bytes + 1024


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """Keyword arguments for ``uvicorn.run``/``uvicorn.Config`` (`traveller serve`, the demo
    and the Data Connector's port): the guarded protocol, keep-alive and frame limits."""
    global _limits
    _limits = HttpLimits.of(settings)
    return {
        "http": GuardedHttp,
        "timeout_keep_alive": settings.keep_alive_timeout,
        "h11_max_incomplete_event_size": settings.max_header_bytes,
        "ws_max_size": ws_max_size(settings),
        # A table's messages are a few hundred bytes: compressing each cost about 4 % of the
        # server's CPU under load (benchmarks/RESULTS.md) and saves nothing that matters on
        # a club's network.
        "ws_per_message_deflate": False,
    }


class IdleConnections:
    """The connections of one server waiting for a request, by client address, oldest first."""

    def __init__(self) -> None:
        self.waiting: dict[str, dict[GuardedHttp, None]] = {}

    def admit(self, address: str, connection: GuardedHttp, cap: int) -> list[GuardedHttp]:
        """Count ``connection`` as waiting; returns the oldest of ``address``'s waiting
        connections beyond ``cap`` (0: none), which the caller closes. Evicting the oldest
        rather than refusing the newest: a browser's (or a reverse proxy's) spare keep-alive
        connection is the one that goes, never a request about to be sent."""
        waiting = self.waiting.setdefault(address, {})
        waiting[connection] = None
        excess = len(waiting) - cap if cap else 0
        return list(waiting)[:excess] if excess > 0 else []

    def leave(self, address: str, connection: GuardedHttp) -> None:
        waiting = self.waiting.get(address)
        if waiting is not None:
            waiting.pop(connection, None)
            if not waiting:
                del self.waiting[address]

    def total(self) -> int:
        return sum(len(w) for w in self.waiting.values())


#: One ledger per running uvicorn server (its ServerState), so a test's servers stay apart.
_ledgers: weakref.WeakKeyDictionary[object, IdleConnections] = weakref.WeakKeyDictionary()


def ledger(server_state: object) -> IdleConnections:
    found = _ledgers.get(server_state)
    if found is None:
        found = _ledgers[server_state] = IdleConnections()
    return found


def trusted_proxy(address: str, allowed: list[str] | str) -> bool:
    """Whether ``address`` is one of uvicorn's ``forwarded_allow_ips`` (addresses, networks
    or "*"): a reverse proxy, whose one address stands for many clients."""
    entries = allowed.split(",") if isinstance(allowed, str) else allowed
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    for entry in (e.strip() for e in entries):
        if entry == "*":
            return True
        try:
            if ip in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False


def _base() -> type[asyncio.Protocol]:
    """httptools' protocol when installed (faster, uvicorn's own choice), else h11's."""
    try:
        # Optional: httptools comes with uvicorn[standard], else h11 serves.
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol  # noqa: PLC0415
    except ImportError:  # pragma: no cover - httptools is in uvicorn[standard]
        return H11Protocol
    return HttpToolsProtocol


# Both uvicorn protocols have what GuardedHttp uses; mypy checks it against h11's.
if TYPE_CHECKING:
    _Base = H11Protocol
else:
    _Base = _base()


class GuardedHttp(_Base):
    """uvicorn's HTTP protocol with a header timeout and an idle cap per address.

    A connection is *waiting* from the moment it opens, and again after each response, until
    its next request's headers are complete (the request then runs, or the connection turns
    into a websocket). While waiting it has ``header_timeout`` seconds and
    ``max_header_bytes`` bytes; at most ``idle_per_address`` connections of one address wait
    at a time (a new one closes the oldest), unless that address is a trusted reverse proxy."""

    # uvicorn narrows the transport the same way (its own `type: ignore[override]`).
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._limits = current_limits()
        self._idle = ledger(self.server_state)
        self._address = self.client[0] if self.client else "unknown"
        # Behind a trusted proxy (`traveller serve` reads X-Forwarded-For from it) the cap per
        # address would count every client of the proxy as one: the header timeout still holds.
        proxy = self.config.proxy_headers and trusted_proxy(
            self._address, self.config.forwarded_allow_ips
        )
        self._cap = 0 if proxy else self._limits.idle_per_address
        self._timer: asyncio.TimerHandle | None = None
        self._wait_for_request()

    def _wait_for_request(self) -> None:
        self._cycle_before = self.cycle
        self._header_bytes = 0
        self._timer = self.loop.call_later(self._limits.header_timeout, self._drop)
        for oldest in self._idle.admit(self._address, self, self._cap):
            oldest._drop()

    def _request_started(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._idle.leave(self._address, self)

    def _drop(self) -> None:
        """Close a waiting connection: its headers did not arrive in time (nginx answers 408;
        a client this slow is not reading anyway), or its address holds too many."""
        self._request_started()
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        waiting = self._timer is not None
        if waiting:
            self._header_bytes += len(data)
        super().data_received(data)
        if not waiting:
            return
        if (
            self.cycle is not self._cycle_before
            or self.transport.get_protocol() is not self
            or self.transport.is_closing()
        ):
            self._request_started()
        elif self._header_bytes > self._limits.max_header_bytes:
            self._request_started()
            self.transport.write(
                b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
                b"content-length: 0\r\nconnection: close\r\n\r\n"
            )
            self.transport.close()

    def on_response_complete(self) -> None:
        before = self.cycle
        super().on_response_complete()
        if self.transport.is_closing() or self.cycle is not before or self._timer is not None:
            return  # closed, or a pipelined request already runs
        self._wait_for_request()

    def connection_lost(self, exc: Exception | None) -> None:
        self._request_started()
        super().connection_lost(exc)


class BodyRefusedError(Exception):
    """The request body passed the size limit, or paused too long, while the app read it."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _error(status: int, code: str, message: str) -> tuple[Message, Message]:
    body = json.dumps(Error(code=code, message=message).model_dump(mode="json")).encode()
    start: Message = {
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ],
    }
    return start, {"type": "http.response.body", "body": body}


def long_segment(path: str) -> bool:
    """A path with a segment no route takes (``MAX_SEGMENT_CHARS``)."""
    return any(len(part) > MAX_SEGMENT_CHARS for part in path.split("/"))


class RequestLimits:
    """Pure ASGI middleware: bodies above ``max_body_bytes`` get 413 ``body_too_large``
    (nothing is buffered here: a body is counted as the app reads it), a body that pauses
    for more than ``body_timeout`` seconds gets 408 ``body_timeout`` (a slow-loris body holds
    no task for ever), and paths with an over-long segment get 414 ``path_too_long`` (a
    websocket is refused at the handshake)."""

    def __init__(self, app: ASGIApp, max_body_bytes: int, body_timeout: float = 30.0) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if long_segment(scope.get("path", "")):
            await self._refuse_path(scope, send)
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if self.max_body_bytes and declared is not None and declared > self.max_body_bytes:
            await self._send(send, *_error(413, "body_too_large", self._too_large()))
            return
        await self._guarded(scope, receive, send)

    async def _guarded(self, scope: Scope, receive: Receive, send: Send) -> None:
        received = 0
        complete = started = False
        refused: BodyRefusedError | None = None

        async def counted() -> Message:
            nonlocal received, complete, refused
            if refused is not None:
                raise refused
            if complete:  # the body is read: the app waits for a disconnect, unbounded
                return await receive()
            try:
                async with asyncio.timeout(self.body_timeout):
                    message = await receive()
            except TimeoutError:
                seconds = f"{self.body_timeout:g}"
                refused = BodyRefusedError(
                    408, "body_timeout", f"The request body paused for more than {seconds} s."
                )
                raise refused from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                complete = not message.get("more_body", False)
                if self.max_body_bytes and received > self.max_body_bytes:
                    refused = BodyRefusedError(413, "body_too_large", self._too_large())
                    raise refused
            return message

        async def answer(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                if started:
                    return
                started = True
                if refused is not None:  # the app answered the failed read: ours goes out
                    await self._send(send, *_error(refused.status, refused.code, refused.message))
                    return
            elif refused is not None:
                return
            await send(message)

        try:
            await self.app(scope, counted, answer)
        except BodyRefusedError as exc:
            if started:
                raise
            await self._send(send, *_error(exc.status, exc.code, exc.message))
        else:
            if refused is not None and not started:
                await self._send(send, *_error(refused.status, refused.code, refused.message))

    def _too_large(self) -> str:
        return f"Request bodies are limited to {self.max_body_bytes} bytes."

    @staticmethod
    async def _send(send: Send, start: Message, body: Message) -> None:
        await send(start)
        await send(body)

    async def _refuse_path(self, scope: Scope, send: Send) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        message = f"A part of this address is longer than {MAX_SEGMENT_CHARS} characters."
        await self._send(send, *_error(414, "path_too_long", message))


def _content_length(scope: Scope) -> int | None:
    """The declared body length; a malformed one counts as unknown (the count still holds)."""
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            text = value.decode("latin-1").strip()
            return int(text) if text.isascii() and text.isdigit() else None
    return None
