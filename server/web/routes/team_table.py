"""The TD's page of a teams section: the matches round by round (IMPs and VPs) and the VP
standings, and for a Swiss the button that pairs the next round from them
(`services/results/team_matches.py`); a thin adapter over that service."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from server.i18n.notice_words import said
from server.services.event import setup
from server.services.glance import dashboard
from server.services.results import team_matches
from server.web.auth import TDForm, TDPage
from server.web.respond import act, page
from server.web.state import RuntimeDep

router = APIRouter(prefix="/td/s/{section_id}/teams", include_in_schema=False)


@router.get("", response_class=HTMLResponse)
async def team_table(
    request: Request, runtime: RuntimeDep, td_: TDPage, section_id: int
) -> Response:
    """The matches so far and the teams ranked on VPs (a refusal for a pairs section)."""

    def work(s: Session) -> dict[str, Any]:
        section = setup.get_section(s, section_id)
        return {
            "head": dashboard.head(s, section),
            "table": team_matches.team_table(s, section),
            "swiss": team_matches.is_swiss(section),
            "next_round": section.current_round + 1,
            "rounds": section.rounds,
        }

    ctx = await runtime.read(work)
    return page(request, "td/team_table.html", td_, active="ranking", **ctx)


@router.post("/pair")
async def pair_next_round(runtime: RuntimeDep, td_: TDForm, section_id: int) -> Response:
    """Swiss: pair the next round from the standings (refused with the reason on the page)."""
    return await act(
        runtime,
        lambda s: team_matches.pair_next_round(s, setup.get_section(s, section_id)),
        f"/td/s/{section_id}/teams",
        said("notice", "The next round is paired from the standings."),
    )
