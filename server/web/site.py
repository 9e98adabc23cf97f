"""Wire the web layer into the app: routers, security headers, HTML error pages, state."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import RedirectResponse, Response

from server.api.routing import add_routes
from server.core.errors import TravellerError
from server.i18n import error_words
from server.i18n.notice_words import said
from server.limits.ratelimit import login_limiter
from server.web import static
from server.web.auth import LoginRequiredError
from server.web.render import make_templates
from server.web.respond import language, page, redirect, refuse
from server.web.routes import (
    audit,
    boards,
    changes,
    dashboard,
    end_of_session,
    glance,
    keyed_deals,
    login,
    movement_pages,
    pairing,
    penalties,
    players,
    public,
    publish,
    setup_wizard,
    table_cards,
    team_table,
)
from server.web.security import SecurityHeaders, is_web_path
from server.web.state import WebState

Handler = Callable[[Request, Exception], Awaitable[Response]]

#: The web's routers, in the order their routes are matched (the public pages last).
ROUTERS: tuple[APIRouter, ...] = tuple(
    module.router
    for module in (
        static,
        login,
        dashboard,
        boards,
        pairing,
        players,
        penalties,
        keyed_deals,
        audit,
        publish,
        movement_pages,
        table_cards,
        setup_wizard,
        changes,
        end_of_session,
        glance,
        team_table,
        public,
    )
)


def _login_redirect(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, LoginRequiredError)
    return RedirectResponse(f"/td/login?next={exc.next_path}", status_code=303)


def _wrap_errors(app: FastAPI) -> None:
    """Web pages answer errors with a page (or, after a form, a notice); the API keeps JSON."""
    api_error: Handler | None = app.exception_handlers.get(TravellerError)  # type: ignore[assignment]
    api_invalid: Handler | None = app.exception_handlers.get(RequestValidationError)  # type: ignore[assignment]

    async def traveller_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, TravellerError)
        if not is_web_path(request.url.path) or api_error is None:
            if api_error is not None:
                return await api_error(request, exc)
            raise exc
        if request.method == "POST" and exc.status != 403:
            return refuse(_referer(request), exc)
        message = error_words.translate(language(request), exc)
        return page(request, "error.html", status_code=exc.status, message=message)

    async def invalid(request: Request, exc: Exception) -> Response:
        if is_web_path(request.url.path) and request.method == "POST":
            return redirect(
                _referer(request),
                said("notice", "Please check the form: a value is missing or out of range."),
                "error",
            )
        if api_invalid is not None:
            return await api_invalid(request, exc)
        raise exc

    app.add_exception_handler(TravellerError, traveller_error)
    app.add_exception_handler(RequestValidationError, invalid)


def _referer(request: Request) -> str:
    """Back to the page the form was on (same origin only), else the TD home."""
    referer = request.headers.get("referer", "")
    base = str(request.base_url)
    if referer.startswith(base):
        path = "/" + referer[len(base) :]
        if path.startswith(("/td", "/results")):
            return path
    return "/td"


def install(app: FastAPI) -> None:
    """Add the TD dashboard and public pages to ``app`` (call once, before it starts)."""
    app.state.web = WebState(templates=make_templates(), limiter=login_limiter(app))
    add_routes(app, *ROUTERS)
    app.add_exception_handler(LoginRequiredError, _login_redirect)
    _wrap_errors(app)
    app.add_middleware(SecurityHeaders)
