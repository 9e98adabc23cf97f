"""Responses the pages share: render a template with the TD's context, redirect with a notice."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, unquote

from fastapi import Request, WebSocket
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlmodel import Session

from server import i18n
from server.core.errors import TravellerError
from server.i18n import error_words, notice_words
from server.i18n.notice_words import Notice
from server.live.runtime import Runtime
from server.services.outcomes import Push
from server.web.auth import TD
from server.web.state import WebState, get_web

FLASH_COOKIE = "traveller_flash"
LANG_COOKIE = "traveller_lang"
#: The query parameter of the language switcher (``?lang=da``; remembered in a cookie).
LANG_PARAM = "lang"
#: The templates translated (all of them now: the public results, the TD's pages, the login).
TRANSLATED = ("public/", "error.html", "td/", "login.html")


def language(request: Request | WebSocket, default: str | None = None) -> str:
    """The language to show a page in: the switcher's choice, the remembered one, the
    browser's (Accept-Language), ``default`` (the event's), else English."""
    return i18n.choose(
        request.query_params.get(LANG_PARAM),
        request.cookies.get(LANG_COOKIE),
        request.headers.get("accept-language"),
        default,
    )


def _flash(request: Request, lang: str) -> dict[str, str] | None:
    """The notice of the last action in ``lang``: a route's notice by its template and
    parameters (:func:`redirect`), or a refusal by its code, template and parameters
    (:func:`refuse`); its English text when the catalogue has no translation."""
    raw = request.cookies.get(FLASH_COOKIE)
    if not raw:
        return None
    try:
        data = json.loads(unquote(raw))
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    text = str(data.get("text", ""))[:400]
    refused = data.get("refused")
    if isinstance(refused, dict) and isinstance(refused.get("params"), dict):
        code, template = str(refused.get("code")), str(refused.get("template"))
        params = {str(k): str(v) for k, v in refused["params"].items()}
        text = error_words.translated(lang, code, template, params) or text
    else:
        text = notice_words.translated(lang, data.get("notice")) or text
    return {"kind": str(data.get("kind", "info")), "text": text}


def page(
    request: Request,
    template: str,
    td: TD | None = None,
    *,
    status_code: int = 200,
    **context: Any,
) -> HTMLResponse:
    """Render a full page (with the TD's CSRF token and any notice from the last action)."""
    web = get_web(request)
    translated = template.startswith(TRANSLATED)
    # Live fragments are rendered once per channel, and there is one channel per language.
    lang = (context.pop("lang", None) or language(request)) if translated else i18n.SOURCE
    flash = _flash(request, lang)  # a route's notice, or a refusal, in the page's language
    response = web.templates.TemplateResponse(
        request,
        template,
        {
            "td": td,
            "csrf": td.csrf if td else "",
            "flash": flash,
            "lang": lang,
            "switcher": translated,
            **context,
        },
        status_code=status_code,
    )
    if flash is not None:
        response.delete_cookie(FLASH_COOKIE, path="/")
    if translated and i18n.normalise(request.query_params.get(LANG_PARAM)):
        response.set_cookie(
            LANG_COOKIE, lang, max_age=365 * 24 * 3600, path="/", samesite="lax", httponly=True
        )
    return response


def fragment(web: WebState, template: str, **context: Any) -> str:
    """Render a partial template to a string (for the live websocket)."""
    return web.templates.get_template(template).render(**context)


async def act(
    runtime: Runtime,
    work: Callable[[Session], object],
    back: str,
    done: Notice | Callable[[Any], Notice],
    *,
    rounds_of: int | None = None,
) -> RedirectResponse:
    """Run a TD action in one transaction, publish its pushes, and go back with a notice
    (``done``, or ``done`` of the outcome), or with the refusal. ``rounds_of``: the section
    whose round the action starts, closes or reopens (Runtime.run)."""
    try:
        outcome = await runtime.run(work, rounds_of=rounds_of)
    except TravellerError as exc:
        return refuse(back, exc)
    if isinstance(outcome, list) and all(isinstance(p, Push) for p in outcome):
        runtime.publish(outcome)
    return redirect(back, done(outcome) if callable(done) else done)


def redirect(url: str, notice: Notice | None = None, kind: str = "ok") -> RedirectResponse:
    """See-other to ``url`` (after a form), with a one-time notice shown there (its template
    and parameters, put into the page's language there)."""
    response = RedirectResponse(url, status_code=303)
    if notice is not None:
        _set_flash(response, {"kind": kind, "text": str(notice), "notice": notice.data()})
    return response


def refuse(url: str, error: TravellerError) -> RedirectResponse:
    """See-other to ``url`` with a refusal as its notice, put into the page's language there."""
    response = RedirectResponse(url, status_code=303)
    params = {name: str(value) for name, value in error.params.items()}
    refused = {"code": error.code, "template": error.template, "params": params}
    _set_flash(response, {"kind": "error", "text": error.message, "refused": refused})
    return response


def _set_flash(response: RedirectResponse, flash: dict[str, object]) -> None:
    value = quote(json.dumps(flash))
    response.set_cookie(FLASH_COOKIE, value, max_age=60, path="/", samesite="strict")
