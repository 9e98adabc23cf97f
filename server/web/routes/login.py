"""The TD's login and logout pages."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from server.core.errors import TravellerError
from server.i18n import notice_words
from server.i18n.notice_words import Notice, said
from server.services import tokens
from server.web.auth import (
    LOGIN_COOKIE,
    TDForm,
    clear_session_cookie,
    client_address,
    current_td,
    new_login_nonce,
    same_origin,
    set_session_cookie,
)
from server.web.respond import language, page, redirect
from server.web.state import RuntimeDep, WebDep

router = APIRouter(include_in_schema=False)


def _safe_next(value: str | None) -> str:
    """Only a local TD path; never an open redirect."""
    if value and value.startswith("/td") and not value.startswith("//") and "\\" not in value:
        return value
    return "/td"


def _login_page(request: Request, next_path: str, error: Notice | None, status: int) -> Response:
    nonce = new_login_nonce()
    # in the page's language (the sentences are in the catalogue as notices)
    shown = notice_words.text(language(request), error) if error is not None else None
    response = page(
        request, "login.html", nonce=nonce, next=next_path, error=shown, status_code=status
    )
    response.set_cookie(
        LOGIN_COOKIE,
        nonce,
        max_age=3600,
        path="/td/login",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


@router.get("/td/login", response_class=HTMLResponse)
async def login_form(request: Request, next: str | None = None) -> Response:
    if await current_td(request) is not None:
        return RedirectResponse(_safe_next(next), status_code=303)
    return _login_page(request, _safe_next(next), None, 200)


@router.post("/td/login")
async def login(
    request: Request,
    runtime: RuntimeDep,
    web: WebDep,
    password: Annotated[str, Form(max_length=200)] = "",
    csrf: Annotated[str, Form(max_length=100)] = "",
    next: Annotated[str, Form(max_length=400)] = "/td",
) -> Response:
    target = _safe_next(next)
    nonce = request.cookies.get(LOGIN_COOKIE, "")
    if not same_origin(request) or not nonce or not hmac.compare_digest(nonce, csrf):
        return _login_page(
            request, target, said("notice", "The login form expired: please try again."), 403
        )
    client = client_address(request)
    wait = web.limiter.retry_after(client)
    if wait:
        response = _login_page(
            request,
            target,
            said(
                "notice", "Too many wrong passwords: wait {wait} seconds and try again.", wait=wait
            ),
            429,
        )
        response.headers["retry-after"] = str(wait)
        return response
    settings = runtime.settings
    try:
        token = await runtime.run(
            lambda s: tokens.td_login(
                s, password=password, expected=settings.td_password, hours=settings.td_session_hours
            )
        )
    except TravellerError:
        web.limiter.failed(client)
        return _login_page(request, target, said("notice", "Wrong TD password."), 401)
    web.limiter.succeeded(client)
    response = RedirectResponse(target, status_code=303)
    secure = request.url.scheme == "https"
    set_session_cookie(response, token, secure=secure, hours=settings.td_session_hours)
    response.delete_cookie(LOGIN_COOKIE, path="/td/login")
    return response


@router.post("/td/logout")
async def logout(request: Request, runtime: RuntimeDep, td: TDForm) -> Response:
    await runtime.run(lambda s: tokens.td_logout(s, td.token))
    response = redirect("/td/login", said("notice", "You are logged out."))
    clear_session_cookie(response, secure=request.url.scheme == "https")
    return response
