"""`traveller terminal --serve`: the same app in phone and tablet browsers, via textual-serve.

Each browser gets a cookie naming its own state folder (table token and outbox), so a page that
is reloaded, or a phone that slept, comes back as the same table without pairing again; every
browser session runs its own terminal process (one table per browser).

A terminal process holds about 50-70 MB, and anyone on the club's Wi-Fi can open the page, so
the processes are capped (:class:`SessionCaps`): so many in all and so many from one address,
with a page that says so when the cap is reached, and none started for a refused socket. A
browser has one terminal: a new socket from the same browser ends the one it had. A terminal
ends when its browser has gone (the socket closed, or its heartbeat unanswered for
:data:`HEARTBEAT` seconds), killed if it does not quit within :data:`STOP_SECONDS`.
"""

from __future__ import annotations

import asyncio
import contextvars
import html
import logging
import re
import secrets
import shlex
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from protocol.languages import LANGUAGES
from terminal.i18n import N_, translations

log = logging.getLogger("traveller.serve")

COOKIE = "traveller_table"
COOKIE_DAYS = 30
_SESSION_ID = re.compile(r"^[0-9a-f]{32}$")
_session: contextvars.ContextVar[str] = contextvars.ContextVar("traveller_browser_session")

#: Seconds between the socket's pings: a browser that does not answer one within half of it
#: has gone (a phone put away), and its terminal ends.
HEARTBEAT = 15.0
#: Seconds a terminal has to quit once its browser has gone, before it is killed.
STOP_SECONDS = 5.0

FULL = N_(
    "All {count} table terminals of this server are in use. Close one on another phone or "
    "tablet, or ask the TD to start the browser terminal with more (--max-sessions)."
)
ADDRESS_FULL = N_(
    "This device already has {count} table terminals open. Close one (another tab or "
    "browser), then reload this page."
)
RELOAD = N_("Reload")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def session_command(arguments: list[str], state_root: Path, session: str) -> str:
    """The shell command that runs one browser session's terminal in its own state folder
    (``exec``: the shell becomes the terminal, one process a browser)."""
    folder = state_root / "browser" / session
    command = [sys.executable, "-m", "terminal", *arguments]
    command += ["--state-dir", str(folder), "--device", f"browser-{session[:8]}"]
    return "exec " + shlex.join(command)


@web.middleware
async def browser_session(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Read (or give) the browser's session cookie; the websocket handler sees it."""
    session = request.cookies.get(COOKIE, "")
    fresh = not _SESSION_ID.match(session)
    if fresh:
        session = secrets.token_hex(16)
    token = _session.set(session)
    try:
        response = await handler(request)
    finally:
        _session.reset(token)
    if fresh and not response.prepared:
        response.set_cookie(
            COOKIE, session, max_age=COOKIE_DAYS * 86400, httponly=True, samesite="Strict"
        )
    return response


@dataclass(eq=False)
class BrowserTerminal:
    """One browser's terminal: its session, address, socket and process."""

    session: str
    address: str
    websocket: web.WebSocketResponse | None = None
    service: AppService | None = None


@dataclass
class SessionCaps:
    """The terminals running, and whether another may start (in all, and from one address)."""

    max_sessions: int
    max_per_address: int
    seats: list[BrowserTerminal] = field(default_factory=list)

    def refusal(self, address: str, session: str) -> str | None:
        """Why a terminal for this browser may not start now (untranslated), or None. The
        browser's own terminal does not count: a new socket replaces it."""
        others = [s for s in self.seats if s.session != session]
        if sum(s.address == address for s in others) >= self.max_per_address:
            return ADDRESS_FULL
        if len(others) >= self.max_sessions:
            return FULL
        return None

    def count_for(self, refusal: str) -> int:
        return self.max_per_address if refusal == ADDRESS_FULL else self.max_sessions

    def take(self, address: str, session: str) -> tuple[BrowserTerminal, list[BrowserTerminal]]:
        """A seat for this browser, and its earlier seats (to end)."""
        earlier = [s for s in self.seats if s.session == session]
        seat = BrowserTerminal(session, address)
        self.seats.append(seat)
        return seat, earlier

    def leave(self, seat: BrowserTerminal) -> None:
        if seat in self.seats:
            self.seats.remove(seat)


def page_language(request: web.Request) -> str:
    """The browser's first language that the terminal speaks (Accept-Language), else English."""
    for part in request.headers.get("Accept-Language", "").split(","):
        code = part.split(";")[0].strip().lower()[:2]
        if code in LANGUAGES:
            return code
    return "en"


def full_page(request: web.Request, refusal: str, count: int) -> web.HTTPServiceUnavailable:
    """The page a browser gets when no terminal may start: what happened and what to do."""
    lang = page_language(request)
    words = translations(lang)
    text = html.escape(words.gettext(refusal).format(count=count))
    reload = html.escape(words.gettext(RELOAD))
    body = (
        f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        "<title>Traveller</title></head>"
        "<body style='font-family:sans-serif;font-size:1.2rem;max-width:36rem;margin:2rem auto;"
        "padding:0 1rem;line-height:1.5'>"
        f"<h1>Traveller</h1><p role='alert'>{text}</p>"
        f"<p><a href='/'>{reload}</a></p></body></html>"
    )
    return web.HTTPServiceUnavailable(
        text=body, content_type="text/html", headers={"Retry-After": "30"}
    )


async def end_terminal(seat: BrowserTerminal) -> None:
    """Ask the seat's terminal to quit; kill it if it has not within :data:`STOP_SECONDS`."""
    service = seat.service
    if service is None:
        return
    try:
        async with asyncio.timeout(STOP_SECONDS):
            await service.stop()
    except TimeoutError:
        process = service._process  # textual-serve keeps it to itself
        if process is not None and process.returncode is None:
            log.warning("terminal of browser %s did not quit: killed", seat.session[:8])
            process.kill()
            await process.wait()


class TableServer(Server):
    """textual-serve, with one terminal process and state folder per browser session, capped."""

    def __init__(
        self,
        arguments: list[str],
        state_root: Path,
        *,
        host: str,
        port: int,
        caps: SessionCaps,
    ) -> None:
        self.arguments = arguments
        self.state_root = state_root
        self.caps = caps
        super().__init__(
            session_command(arguments, state_root, "0" * 32),
            host=host,
            port=port,
            title="Traveller",
        )

    @property
    def command(self) -> str:
        """The command for the browser session being served."""
        session = _session.get(secrets.token_hex(16))
        return session_command(self.arguments, self.state_root, session)

    @command.setter
    def command(self, value: str) -> None:
        """textual-serve sets it once; the command is built per session instead."""

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(browser_session)
        app.on_shutdown.append(self._end_all)
        return app

    async def _end_all(self, _app: web.Application) -> None:
        await asyncio.gather(*(end_terminal(seat) for seat in list(self.caps.seats)))

    async def handle_index(self, request: web.Request) -> Any:
        """The page, or the page that says no terminal may start now."""
        refusal = self.caps.refusal(request.remote or "", _session.get(""))
        if refusal is not None:
            raise full_page(request, refusal, self.caps.count_for(refusal))
        return await super().handle_index(request)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """The socket that drives this browser's terminal: refused with no process started
        when the caps are reached; the browser's earlier terminal ended first."""
        address, session = request.remote or "", _session.get("")
        refusal = self.caps.refusal(address, session)
        if refusal is not None:
            raise full_page(request, refusal, self.caps.count_for(refusal))
        seat, earlier = self.caps.take(address, session)
        try:
            for old in earlier:
                if old.websocket is not None:
                    await old.websocket.close()
                await end_terminal(old)
            return await self._run(request, seat)
        finally:
            await end_terminal(seat)
            self.caps.leave(seat)

    async def _run(self, request: web.Request, seat: BrowserTerminal) -> web.WebSocketResponse:
        websocket = seat.websocket = web.WebSocketResponse(heartbeat=HEARTBEAT)
        await websocket.prepare(request)
        width = to_int(request.query.get("width", "80"), 80)
        height = to_int(request.query.get("height", "24"), 24)

        async def close() -> None:
            await websocket.close()

        seat.service = AppService(
            self.command,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=close,
            download_manager=self.download_manager,
            debug=self.debug,
        )
        try:
            await seat.service.start(width, height)
            await self._process_messages(websocket, seat.service)
        except (ValueError, AssertionError, TypeError, KeyError, IndexError) as exc:
            # a frame that is not textual-serve's: this browser's terminal ends, no other's
            log.warning("browser %s sent a bad frame: %r", seat.session[:8], exc)
        finally:
            await websocket.close()
        return websocket


def serve(
    arguments: list[str],
    state_root: Path,
    *,
    host: str,
    port: int,
    caps: SessionCaps,
) -> None:
    """Serve the terminal app on ``host:port`` until Ctrl-C."""
    TableServer(arguments, state_root, host=host, port=port, caps=caps).serve()
