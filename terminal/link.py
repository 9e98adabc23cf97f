"""The real link to the server: pairing over HTTP, then one websocket per session."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from pathlib import Path

from pydantic import ValidationError
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from protocol.messages import (
    ConflictRaised,
    Error,
    Hello,
    Paired,
    PairTerminal,
    ResultChanged,
    RoundChanged,
    RoundInfo,
    ServerMessage,
    SettingsChanged,
    TableCommand,
    parse_server_message,
)

from . import i18n
from .client import Link, PushHandler, SyncingClient
from .config import OUTBOX_NAME, ConfigStore
from .errors import ClientError, LinkDownError
from .i18n import _
from .outbox import Outbox

log = logging.getLogger(__name__)

PAIR_PATH = "/api/v1/table/pair"
WS_PATH = "/api/v1/table/ws"
PUSHES = (ResultChanged, RoundChanged, ConflictRaised, SettingsChanged)


def websocket_url(server: str) -> str:
    """The table websocket URL for a server base URL (http -> ws, https -> wss)."""
    base = server.rstrip("/")
    if base.startswith("https://"):
        base = "wss://" + base.removeprefix("https://")
    elif base.startswith("http://"):
        base = "ws://" + base.removeprefix("http://")
    elif not base.startswith(("ws://", "wss://")):
        base = "ws://" + base
    return base + WS_PATH


def language_headers() -> dict[str, str]:
    """Accept-Language for the server's refusals: the language shown, once it is the players'
    choice or the event's (English included); before that the server uses the event's."""
    return {"Accept-Language": i18n.language()} if i18n.settled() else {}


def http_url(server: str) -> str:
    """The server base URL with a scheme (http:// when none is given)."""
    base = server.rstrip("/")
    return base if "://" in base else "http://" + base


class WebsocketLink(Link):
    """Pairing by HTTP POST, then Hello, RoundInfo and in-order answers on one websocket."""

    def __init__(self, server: str, *, timeout: float = 10.0) -> None:
        self.server = http_url(server)
        self.timeout = timeout
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._waiters: deque[asyncio.Future[ServerMessage]] = deque()
        self._send_lock = asyncio.Lock()
        self._closed = asyncio.Event()
        self._closed.set()

    async def pair(self, code: str, device: str) -> Paired:
        """POST the pairing code; the answer is Paired or an Error message."""
        try:
            body = PairTerminal(code=code, device=device[:64] or "terminal")
        except ValidationError:
            raise ClientError(
                "pairing_code_invalid", _("A pairing code has 4 to 12 characters.")
            ) from None
        import httpx  # noqa: PLC0415 (only needed once, for pairing: off the start-up path)

        try:
            async with httpx.AsyncClient(timeout=self.timeout) as http:
                response = await http.post(
                    self.server + PAIR_PATH,
                    json=body.model_dump(mode="json"),
                    headers=language_headers(),
                )
        except httpx.HTTPError as error:
            log.info("pairing failed: %s", error)
            raise LinkDownError from None
        try:
            message = parse_server_message(response.content)
        except ValidationError:
            raise ClientError(
                "pairing_failed",
                _("The server did not accept the code (HTTP {status}).").format(
                    status=response.status_code
                ),
            ) from None
        if isinstance(message, Error):
            raise ClientError(message.code, message.message)
        if not isinstance(message, Paired):
            raise ClientError("pairing_failed", _("The server gave an unexpected answer."))
        return message

    async def open(self, token: str, on_push: PushHandler) -> RoundInfo:
        """Connect, say Hello, and read the RoundInfo (or the Error) that answers it."""
        await self.close()
        try:
            ws = await connect(
                websocket_url(self.server),
                open_timeout=self.timeout,
                ping_interval=15,
                ping_timeout=15,
                max_size=2**20,
                additional_headers=language_headers(),
            )
        except (OSError, TimeoutError, WebSocketException) as error:
            log.info("cannot connect: %s", error)
            raise LinkDownError from None
        try:
            await ws.send(Hello(token=token).model_dump_json())
            async with asyncio.timeout(self.timeout):
                raw = await ws.recv()
            first = parse_server_message(raw)
        except (OSError, TimeoutError, WebSocketException, ValidationError) as error:
            log.info("no answer to hello: %s", error)
            await ws.close()
            raise LinkDownError from None
        if isinstance(first, Error):
            await ws.close()
            raise ClientError(first.code, first.message)
        if not isinstance(first, RoundInfo):
            await ws.close()
            raise LinkDownError
        self._ws = ws
        self._closed.clear()
        self._reader = asyncio.create_task(self._read(ws, on_push), name="traveller-ws-reader")
        return first

    async def _read(self, ws: ClientConnection, on_push: PushHandler) -> None:
        try:
            async for raw in ws:
                try:
                    message = parse_server_message(raw)
                except ValidationError:
                    log.warning("unreadable message from the server: %.200r", raw)
                    continue
                if isinstance(message, PUSHES):
                    on_push(message)
                elif self._waiters:
                    waiter = self._waiters.popleft()
                    if not waiter.done():
                        waiter.set_result(message)
                else:
                    on_push(message)
        except (ConnectionClosed, OSError) as error:
            log.info("connection closed: %s", error)
        finally:
            self._fail_waiters()
            self._closed.set()

    def _fail_waiters(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_exception(LinkDownError())

    async def request(self, command: TableCommand) -> ServerMessage:
        """Send a command; answers come back in the order the commands were sent."""
        ws = self._ws
        if ws is None or self._closed.is_set():
            raise LinkDownError
        waiter: asyncio.Future[ServerMessage] = asyncio.get_running_loop().create_future()
        async with self._send_lock:
            self._waiters.append(waiter)
            try:
                await ws.send(command.model_dump_json())
            except (ConnectionClosed, OSError):
                raise LinkDownError from None
        try:
            async with asyncio.timeout(self.timeout):
                return await waiter
        except TimeoutError:
            log.info("no answer to %s in %.0f s", command.type, self.timeout)
            await self.close()
            raise LinkDownError from None

    async def wait_closed(self) -> None:
        """Return once the websocket has closed."""
        await self._closed.wait()

    async def close(self) -> None:
        """Close the websocket and stop the reader."""
        ws, reader = self._ws, self._reader
        self._ws = self._reader = None
        if ws is not None:
            with contextlib.suppress(Exception):
                await ws.close()
        if reader is not None:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
        self._fail_waiters()
        self._closed.set()


class WebsocketClient(SyncingClient):
    """The production client: websocket link, outbox and config in ``state_dir``."""

    def __init__(self, server: str | None, state_dir: Path) -> None:
        store = ConfigStore(state_dir)
        config = store.load()
        if server:
            config = config.with_server(server)
            store.save(config)
        if not config.server:
            raise ClientError("no_server", _("No server address: start with --server URL."))
        super().__init__(
            WebsocketLink(config.server),
            Outbox(state_dir / OUTBOX_NAME),
            store=store,
            config=config,
        )
