"""`traveller terminal --serve`: the same app in phone and tablet browsers, via textual-serve.

Each browser gets a cookie naming its own state folder (table token and outbox), so a page that
is reloaded, or a phone that slept, comes back as the same table without pairing again; every
browser session runs its own terminal process (one table per browser).
"""

from __future__ import annotations

import contextvars
import re
import secrets
import shlex
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from aiohttp import web
from textual_serve.server import Server

COOKIE = "traveller_table"
COOKIE_DAYS = 30
_SESSION_ID = re.compile(r"^[0-9a-f]{32}$")
_session: contextvars.ContextVar[str] = contextvars.ContextVar("traveller_browser_session")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def session_command(arguments: list[str], state_root: Path, session: str) -> str:
    """The shell command that runs one browser session's terminal in its own state folder."""
    folder = state_root / "browser" / session
    command = [sys.executable, "-m", "terminal", *arguments]
    command += ["--state-dir", str(folder), "--device", f"browser-{session[:8]}"]
    return shlex.join(command)


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


class TableServer(Server):
    """textual-serve, with one terminal process and state folder per browser session."""

    def __init__(self, arguments: list[str], state_root: Path, *, host: str, port: int) -> None:
        self.arguments = arguments
        self.state_root = state_root
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
        return app


def serve(arguments: list[str], state_root: Path, *, host: str, port: int) -> None:
    """Serve the terminal app on ``host:port`` until Ctrl-C."""
    TableServer(arguments, state_root, host=host, port=port).serve()
