"""Publishing: live, provisional or final results, and the correction deadline (§ X79)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from server.i18n import N_
from server.i18n.notice_words import said
from server.services import deadlines
from server.services.event import setup
from server.services.glance import dashboard
from server.services.results import exports, standings
from server.services.td import publication, round_control
from server.web.auth import TDForm, TDPage
from server.web.fields import whole_number
from server.web.respond import act, page
from server.web.state import RuntimeDep

router = APIRouter(prefix="/td/s/{section_id}/publish", include_in_schema=False)

#: The exports (``/publish/export/<kind>``), with what each is for.
EXPORTS = (
    ("usebio", "USEBIO XML", N_("for the federation")),
    ("pbn", "PBN", N_("results and travellers")),
    ("ranking", N_("Ranking CSV"), N_("the ranking, penalties included")),
    ("travellers", N_("Travellers CSV"), N_("every board's traveller")),
)


def where_results_stand(s: Session, section_id: int) -> dict[str, Any]:
    """What the publishing forms show and ask about (``td/_publish_facts.html`` and
    ``td/_publish_forms.html``, on the publish and the end-of-session page): boards scored and
    missing, the unsettled boards the TD is asked about, the § X79 deadline, the changes
    published since."""
    section = setup.get_section(s, section_id)
    ranking = standings.ranking(s, section, public=False)
    return {
        "head": dashboard.head(s, section),
        "open": publication.corrections_open(section),
        "boards_total": ranking.boards_total,
        "boards_scored": len(ranking.boards_shown),
        "missing": len(dashboard.missing_entries(s, section)),
        "unsettled": round_control.unsettled(s, section),
        "changes": deadlines.published_changes(s, section),
        "default_hours": publication.DEFAULT_CORRECTION_HOURS,
        "exports": EXPORTS,
    }


@router.get("", response_class=HTMLResponse)
async def publish_page(
    request: Request, runtime: RuntimeDep, td_: TDPage, section_id: int
) -> Response:
    ctx = await runtime.read(lambda s: where_results_stand(s, section_id))
    return page(request, "td/publish.html", td_, active="publish", **ctx)


@router.post("", response_model=None)
async def publish(
    request: Request,
    runtime: RuntimeDep,
    td_: TDForm,
    section_id: int,
    status: Annotated[str, Form(max_length=12)] = "provisional",
    period: Annotated[str, Form(max_length=8)] = "hours",
    amount: Annotated[str, Form(max_length=4)] = "",
    confirmed: Annotated[str, Form(max_length=3)] = "",
) -> Response:
    """Publish (or take back to live). Missing results and open conflicts are named and the
    TD confirms first: on a page of its own, so it works without JavaScript."""
    if confirmed != "yes":

        def check(s: Session) -> dict[str, Any]:
            section = setup.get_section(s, section_id)
            return {
                "head": dashboard.head(s, section),
                "unsettled": round_control.unsettled(s, section),
            }

        ctx = await runtime.read(check)
        if publication.asks_first(ctx["head"].publication, status, ctx["unsettled"]):
            return page(
                request,
                "td/confirm.html",
                td_,
                active="publish",
                kind="unpublish" if status == "live" else "publish",
                status=status,
                action=f"/td/s/{section_id}/publish",
                fields={"status": status, "period": period, "amount": amount},
                back=f"/td/s/{section_id}/publish",
                **ctx,
            )
    value = whole_number(amount)
    minutes = value if period == "minutes" else None
    hours = value if period == "hours" else None
    labels = {
        "live": said("notice", "Results are live again."),
        "provisional": said("notice", "Published as provisional."),
    }
    return await act(
        runtime,
        lambda s: publication.publish(
            s, setup.get_section(s, section_id), status=status, minutes=minutes, hours=hours
        ),
        f"/td/s/{section_id}/publish",
        labels.get(status) or said("notice", "Published as final."),
    )


@router.get("/export/{kind}")
async def export(runtime: RuntimeDep, _td: TDPage, section_id: int, kind: str) -> Response:
    """Download the section's results: USEBIO, PBN, or CSV travellers and ranking."""
    data = await runtime.read(lambda s: exports.load(s, setup.get_section(s, section_id)))
    club_id = runtime.settings.dc_club_id
    made = await run_in_threadpool(exports.export, data, kind, club_id)
    return Response(
        made.content,
        media_type=made.media_type,
        headers={"content-disposition": f'attachment; filename="{made.name}"'},
    )
