"""What the TD sees at a glance: the open-calls alert on every TD page and the room view."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from sqlmodel import Session

from server.services.event import setup
from server.services.glance import dashboard, room
from server.services.td import actions as td
from server.web.auth import TDPage
from server.web.respond import fragment, language, page
from server.web.state import RuntimeDep, WebDep

router = APIRouter(prefix="/td", include_in_schema=False)


@router.get("/calls.json")
async def calls_waiting(
    request: Request, runtime: RuntimeDep, web: WebDep, _td: TDPage
) -> Response:
    """The open TD calls of every section, and the alert that tells of them (in the page's
    language), for the alert on every TD page (``live.js`` asks every few seconds)."""
    waiting = await runtime.read(td.calls_waiting)
    count = sum(waiting.values())
    first = min(waiting) if waiting else None
    alert = fragment(
        web, "td/_call_alert.html", count=count, section_id=first, lang=language(request)
    )
    return JSONResponse(
        {
            "count": count,
            "sections": {str(k): v for k, v in sorted(waiting.items())},
            "alert": alert,
        },
        headers={"cache-control": "no-store"},
    )


def _room(session: Session, section_id: int) -> dict[str, Any]:
    section = setup.get_section(session, section_id)
    return {
        "head": dashboard.head(session, section),
        "room": room.room_view(dashboard.overview(session, section)),
        "section_id": section_id,
    }


@router.get("/s/{section_id}/room", response_class=HTMLResponse)
async def room_page(
    request: Request, runtime: RuntimeDep, web: WebDep, td_: TDPage, section_id: int
) -> Response:
    """The big-type room view for a second screen: the tables late or with entries missing."""
    ctx = await runtime.read(lambda s: _room(s, section_id))
    lang = language(request)
    body = fragment(web, "td/_room.html", **ctx, lang=lang)
    return page(request, "td/room.html", td_, active="room", body=body, lang=lang, **ctx)


@router.get("/s/{section_id}/room/now", response_class=HTMLResponse)
async def room_now(
    request: Request, runtime: RuntimeDep, web: WebDep, _td: TDPage, section_id: int
) -> Response:
    """The room view's body alone, fetched again whenever the dashboard's live feed moves."""
    ctx = await runtime.read(lambda s: _room(s, section_id))
    body = fragment(web, "td/_room.html", **ctx, lang=language(request))
    return HTMLResponse(body, headers={"cache-control": "no-store"})
