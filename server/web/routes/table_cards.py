"""The TD's printable table cards: how to key results at the table, one card per language."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from protocol.languages import LANGUAGES
from protocol.table_card import DEVICES
from server.i18n import table_cards
from server.services.event import setup
from server.services.glance import dashboard
from server.web.auth import TDPage
from server.web.respond import language, page
from server.web.state import RuntimeDep

router = APIRouter(prefix="/td/s/{section_id}/table-cards", include_in_schema=False)


@router.get("", response_class=HTMLResponse)
async def table_cards_page(
    request: Request,
    runtime: RuntimeDep,
    td_: TDPage,
    section_id: int,
    every: Annotated[bool, Query(alias="all")] = False,
) -> Response:
    """The table card in the page's language (or in every language, one a page), to print and
    put on each table beside the terminal or keypad."""
    lang = language(request)

    def work(s: Session) -> dict[str, Any]:
        return {"head": dashboard.head(s, setup.get_section(s, section_id))}

    ctx = await runtime.read(work)
    cards = [table_cards.card(code) for code in (LANGUAGES if every else [lang])]
    return page(
        request,
        "td/table_cards.html",
        td_,
        active="movement",
        cards=cards,
        devices=DEVICES,
        every=every,
        lang=lang,
        **ctx,
    )
