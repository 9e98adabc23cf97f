"""The deals keyed at the tables: their state, and the TD settling a conflict."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from protocol.text import MAX_TEXT, SingleLine
from server.i18n.notice_words import said
from server.services.event import setup
from server.services.glance import dashboard
from server.services.table import deal_entry
from server.web.auth import TDForm, TDPage
from server.web.respond import act, page
from server.web.state import RuntimeDep

router = APIRouter(prefix="/td/s/{section_id}/deals", include_in_schema=False)

Reason = Annotated[SingleLine, Form(max_length=MAX_TEXT)]


@router.get("", response_class=HTMLResponse)
async def deals_page(
    request: Request, runtime: RuntimeDep, td_: TDPage, section_id: int
) -> Response:
    """Every deal keyed at a table, the conflicts first, each with the TD's choices."""

    def work(s: Session) -> dict[str, Any]:
        section = setup.get_section(s, section_id)
        return {
            "head": dashboard.head(s, section),
            "deals": deal_entry.keyed_deals(s, section.id or 0),
        }

    ctx = await runtime.read(work)
    return page(request, "td/keyed_deals.html", td_, active="deals", **ctx)


@router.post("/{board}/resolve")
async def resolve(
    runtime: RuntimeDep,
    _td: TDForm,
    section_id: int,
    board: int,
    choice: Annotated[str, Form(max_length=80)] = "",
    deal: Annotated[str, Form(max_length=80)] = "",
    reason: Reason = "",
) -> Response:
    """Settle a conflicting deal: keep the one keyed (``keyed``), take a table's whole deal
    (``check:<its entry id>``), or key it (``deal``); audited."""
    choice, _, entry_id = choice.partition(":")
    return await act(
        runtime,
        lambda s: deal_entry.resolve(
            s, section_id, board, choice=choice, entry_id=entry_id, deal=deal, reason=reason
        ),
        f"/td/s/{section_id}/deals",
        said("notice", "Board {board}: the deal is set.", board=board),
    )
