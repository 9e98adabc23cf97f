"""The audit log page, filterable by table, board and pair."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from server.services.event import setup
from server.services.glance import dashboard
from server.services.results import standings
from server.web.auth import TDPage
from server.web.fields import whole_number
from server.web.respond import page
from server.web.state import RuntimeDep

router = APIRouter(prefix="/td/s/{section_id}", include_in_schema=False)


def _number(text: str) -> int | None:
    return whole_number(text)


@router.get("/audit", response_class=HTMLResponse)
async def audit_page(
    request: Request,
    runtime: RuntimeDep,
    td_: TDPage,
    section_id: int,
    table: str = "",
    board: str = "",
    pair: str = "",
) -> Response:
    def work(s: Session) -> dict[str, Any]:
        section = setup.get_section(s, section_id)
        pairs = standings.pairs(s, section)
        chosen = next((p for p in pairs if p.key == pair), None)
        head = dashboard.head(s, section)
        return {
            "head": head,
            "pairs": pairs,
            "boards": standings.load(s, section).plays.keys(),
            "lines": dashboard.audit_log(
                s,
                section,
                table=_number(table),
                board=_number(board),
                pair=chosen.id if chosen else None,
            ),
            "filters": {"table": table, "board": board, "pair": pair},
        }

    ctx = await runtime.read(work)
    return page(request, "td/audit.html", td_, active="audit", **ctx)
