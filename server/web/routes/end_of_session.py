"""End of session: publishing (§ X79 deadlines), the exports, a printable results sheet and a
one-click backup, all reached from one page of the TD console."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, HTMLResponse, Response
from sqlmodel import Session

from server.api import backups
from server.services.event import setup
from server.services.glance import dashboard
from server.services.results import standings
from server.web.auth import TDForm, TDPage
from server.web.respond import page
from server.web.routes.publish import where_results_stand
from server.web.state import RuntimeDep

router = APIRouter(prefix="/td/s/{section_id}/end", include_in_schema=False)


@dataclass(frozen=True)
class ResultsSheet:
    """What the printed results sheet holds: the ranking, every board's traveller and every
    pair's score card, as the TD sees them (every settled result, scored)."""

    ranking: standings.Ranking
    travellers: list[standings.Traveller]
    cards: list[standings.ScoreCard]


def results_sheet(data: standings.SectionData) -> ResultsSheet:
    """The sheet of loaded data (pure): boards in number order, pairs in ranking order."""
    ranking = standings.rank(data, public=False)
    boards = sorted(data.plays)
    keys = [line.pair.key for line in ranking.lines]
    return ResultsSheet(
        ranking=ranking,
        travellers=[standings.travel(data, board, public=False) for board in boards],
        cards=[standings.card(data, key, public=False) for key in keys],
    )


@router.get("", response_class=HTMLResponse)
async def end_page(request: Request, runtime: RuntimeDep, td_: TDPage, section_id: int) -> Response:
    """Publish, export, print and back up: the TD's last round of the evening."""

    ctx = await runtime.read(lambda s: where_results_stand(s, section_id))
    sqlite = runtime.engine.dialect.name == "sqlite"
    return page(request, "td/end_of_session.html", td_, active="end", sqlite=sqlite, **ctx)


@router.get("/sheet", response_class=HTMLResponse)
async def sheet_page(
    request: Request, runtime: RuntimeDep, td_: TDPage, section_id: int
) -> Response:
    """The results sheet to print (or save as PDF): one page for the ranking, then the
    travellers, then one score card a pair."""

    def work(s: Session) -> tuple[dict[str, Any], standings.SectionData]:
        section = setup.get_section(s, section_id)
        return {"head": dashboard.head(s, section)}, standings.load(s, section)

    ctx, data = await runtime.read(work)
    made = await run_in_threadpool(results_sheet, data)
    return page(request, "td/results_sheet.html", td_, active="end", sheet=made, **ctx)


@router.post("/backup")
async def take_backup(runtime: RuntimeDep, _td: TDForm, section_id: int) -> Response:
    """Back up the whole database now and hand the file to the browser; audited
    (``server.api.backups``, shared with the API)."""
    made = await backups.take_backup(runtime, section_id)
    return FileResponse(made, media_type="application/octet-stream", filename=made.name)
