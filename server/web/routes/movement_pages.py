"""The TD's movement pages: the grid with its balance figures, and printable guide cards."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from server.services.event import setup
from server.services.glance import dashboard, movement_views
from server.web.auth import TDPage
from server.web.respond import language, page
from server.web.state import RuntimeDep

router = APIRouter(prefix="/td/s/{section_id}/movement", include_in_schema=False)


@router.get("", response_class=HTMLResponse)
async def movement_page(
    request: Request, runtime: RuntimeDep, td_: TDPage, section_id: int
) -> Response:
    """The movement as it stands: rounds x tables, who plays whom on which boards."""
    lang = language(request)

    def work(s: Session) -> dict[str, Any]:
        section = setup.get_section(s, section_id)
        m = movement_views.section_movement(s, section)
        return {
            "head": dashboard.head(s, section),
            "mv": movement_views.view(m, lang),
            "individual": section.movement_kind == "individual",
        }

    ctx = await runtime.read(work)
    return page(request, "td/movement.html", td_, active="movement", lang=lang, **ctx)


@router.get("/cards", response_class=HTMLResponse)
async def guide_cards(
    request: Request,
    runtime: RuntimeDep,
    td_: TDPage,
    section_id: int,
    by: Annotated[Literal["table", "pair", "player"], Query()] = "table",
    size: Annotated[Literal["a4", "a5"], Query()] = "a5",
) -> Response:
    """Guide cards to print (the browser prints them: one card a page, A4 or A5)."""
    lang = language(request)

    def work(s: Session) -> dict[str, Any]:
        section = setup.get_section(s, section_id)
        m = movement_views.section_movement(s, section)
        make = {
            "table": movement_views.table_cards,
            "pair": movement_views.pair_cards,
            "player": movement_views.player_cards,
        }[by]
        return {"head": dashboard.head(s, section), "cards": make(m, lang), "name": m.name}

    ctx = await runtime.read(work)
    return page(
        request, "td/guide_cards.html", td_, active="movement", by=by, size=size, lang=lang, **ctx
    )
