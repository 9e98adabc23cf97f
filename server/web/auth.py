"""TD sessions for the web: a server-side session behind an HttpOnly cookie, CSRF tokens for
every form (the limit on wrong passwords is ``server.limits.ratelimit.LoginLimiter``)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import Depends, Request
from fastapi.responses import Response
from starlette.requests import HTTPConnection

from server.core.errors import ForbiddenError, TravellerError
from server.limits import ratelimit
from server.live.runtime import Runtime
from server.services import tokens

COOKIE = "traveller_td"
LOGIN_COOKIE = "traveller_login"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"


class LoginRequiredError(Exception):
    """A TD page was asked for without a live TD session: send the browser to the login."""

    def __init__(self, next_path: str) -> None:
        super().__init__(next_path)
        self.next_path = next_path


def csrf_for(session_token: str) -> str:
    """The CSRF token of a TD session: derived from its secret, so nothing more is stored."""
    return hashlib.sha256(f"traveller-csrf:{session_token}".encode()).hexdigest()[:43]


def new_login_nonce() -> str:
    return secrets.token_urlsafe(24)


@dataclass(frozen=True)
class TD:
    """The logged-in TD of a request."""

    token: str

    @property
    def csrf(self) -> str:
        return csrf_for(self.token)


def client_address(conn: HTTPConnection) -> str:
    """Who is logging in, as the login limiter counts them (an IPv6 /64 counts as one)."""
    return ratelimit.guesser(conn)


def same_origin(conn: HTTPConnection) -> bool:
    """A browser's Origin (when it sends one) must be this server."""
    origin = conn.headers.get("origin")
    if origin is None or origin == "null":
        return origin is None
    # Hosts, not ports: a reverse proxy may pass Host without the port the browser used.
    host = urlsplit("//" + conn.headers.get("host", "")).hostname
    return host is not None and urlsplit(origin).hostname == host


async def current_td(conn: HTTPConnection) -> TD | None:
    """The TD session of the cookie, if it is live; table tokens are never TD sessions."""
    token = conn.cookies.get(COOKIE)
    if not token or len(token) > 200:
        return None
    runtime: Runtime = conn.app.state.runtime
    try:
        await runtime.read(lambda s: tokens.td_check(s, token))
    except TravellerError:
        return None
    return TD(token)


async def require_td(request: Request) -> TD:
    """Dependency of every TD page: the live session, or off to the login page."""
    td = await current_td(request)
    if td is None:
        target = request.url.path if request.method == "GET" else "/td"
        raise LoginRequiredError(target)
    return td


TDPage = Annotated[TD, Depends(require_td)]


async def require_csrf(request: Request, td: TDPage) -> TD:
    """Dependency of every TD form: same origin and the session's CSRF token."""
    if not same_origin(request):
        raise ForbiddenError("cross_origin", "This form must be sent from the Traveller pages.")
    sent = request.headers.get(CSRF_HEADER)
    if sent is None:
        form = await request.form()
        value = form.get(CSRF_FIELD)
        sent = value if isinstance(value, str) else None
    if not sent or not hmac.compare_digest(sent, td.csrf):
        raise ForbiddenError(
            "csrf_failed", "The form has expired or did not come from this page: reload it."
        )
    return td


TDForm = Annotated[TD, Depends(require_csrf)]


def set_session_cookie(response: Response, token: str, *, secure: bool, hours: int) -> None:
    response.set_cookie(
        COOKIE,
        token,
        max_age=hours * 3600,
        path="/",
        httponly=True,
        samesite="strict",
        secure=secure,
    )


def clear_session_cookie(response: Response, *, secure: bool) -> None:
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict", secure=secure)
