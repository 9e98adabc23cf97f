"""The TD's home and live dashboard: the table grid, calls, missing entries, round control."""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request, WebSocket
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from server.i18n.notice_words import said
from server.movements import mitchell
from server.scoring import methods
from server.services.event import setup
from server.services.glance import dashboard
from server.services.results import standings
from server.services.td import actions as td
from server.services.td import round_control
from server.web.auth import TD, TDForm, TDPage, current_td, same_origin
from server.web.fields import whole_number
from server.web.live_views import DashboardView, dashboard_fragments
from server.web.respond import act, language, page
from server.web.state import RuntimeDep, WebDep, get_runtime, get_web

router = APIRouter(prefix="/td", include_in_schema=False)
#: A scoring method's key (server/scoring/methods.py), as the event form sends it.
SCORING_PATTERN = "^(" + "|".join(re.escape(key) for key in methods.KEYS) + ")$"


def dashboard_context(
    session: Session, section_id: int, connected: dict[int, int]
) -> dict[str, Any]:
    """Everything the dashboard shows, read in one snapshot."""
    section = setup.get_section(session, section_id)
    room = dashboard.overview(session, section, connected=connected)
    return {
        "head": dashboard.head(session, section),
        "grid": room.grid,
        "missing": room.missing,
        "calls": room.calls,
        "section_id": section_id,
    }


@router.get("", response_class=HTMLResponse)
async def home(request: Request, runtime: RuntimeDep, td_: TDPage) -> Response:
    sections = await runtime.read(dashboard.sections)
    return page(request, "td/home.html", td_, sections=sections, scorings=methods.METHODS.values())


@router.post("/events")
async def create_event(
    runtime: RuntimeDep,
    _td: TDForm,
    name: Annotated[str, Form(min_length=1, max_length=200)],
    tables: Annotated[int, Form(ge=2, le=60)],
    boards_per_round: Annotated[int, Form(ge=1, le=8)] = 3,
    scoring: Annotated[str, Form(pattern=SCORING_PATTERN)] = methods.DEFAULT,
) -> Response:
    movement = mitchell(tables, boards_per_round=boards_per_round)

    def work(s: Session) -> int:
        # The form field's pattern lets only the methods' keys through.
        event = setup.create_event(s, name=name.strip(), scoring=scoring)
        section = setup.create_section(s, event=event, letter="A", movement=movement)
        return section.id or 0

    return await act(runtime, work, "/td", said("notice", "Event created."))


@router.get("/s/{section_id}", response_class=HTMLResponse)
async def dashboard_page(
    request: Request, runtime: RuntimeDep, web: WebDep, td_: TDPage, section_id: int
) -> Response:
    connected = runtime.bus.terminals(section_id)
    ctx = await runtime.read(lambda s: dashboard_context(s, section_id, connected))
    ctx["lang"] = language(request)
    return page(request, "td/dashboard.html", td_, fragments=dashboard_fragments(web, ctx), **ctx)


@router.websocket("/s/{section_id}/live")
async def dashboard_live(websocket: WebSocket, section_id: int) -> None:
    """The dashboard's live feed: the changed rows and totals within moments of a result,
    the whole page after any other change (server/web/live_views.py)."""
    if not same_origin(websocket) or await current_td(websocket) is None:
        await websocket.close(code=4401)
        return
    runtime, web = get_runtime(websocket), get_web(websocket)
    await runtime.read(lambda s: setup.get_section(s, section_id))
    await websocket.accept()
    lang = language(websocket)

    async def still_logged_in() -> bool:
        return await current_td(websocket) is not None

    # One channel per language: the TDs watching in one language share its fragments.
    channel = ("td" if lang == "en" else f"td:{lang}", section_id)
    view = DashboardView(runtime, web, section_id, lang)
    await web.hub_for(runtime).serve(websocket, channel, view, still_logged_in)


def _back(section_id: int) -> str:
    return f"/td/s/{section_id}"


#: The hidden field a confirmation step (or the browser's confirm dialog) sends as "yes".
Confirmed = Annotated[str, Form(max_length=3)]


async def _asked(
    request: Request, td_: TD, runtime: RuntimeDep, section_id: int, round_: int, kind: str
) -> Response | None:
    """The confirmation page for starting (``kind`` "start") or closing a round, or None when
    there is nothing to ask: no table still playing an earlier round, no entry missing."""

    def check(s: Session) -> dict[str, Any]:
        section = setup.get_section(s, section_id)
        if kind == "start":
            listed: dict[str, Any] = {"behind": round_control.tables_behind(s, section, round_)}
            ask = bool(listed["behind"]) and round_ == section.current_round + 1
        else:
            listed = {"unsettled": round_control.unsettled(s, section, up_to=round_)}
            ask = bool(listed["unsettled"])
        return {"head": dashboard.head(s, section), "ask": ask, **listed}

    ctx = await runtime.read(check)
    if not ctx.pop("ask"):
        return None
    return page(
        request,
        "td/confirm.html",
        td_,
        kind=kind,
        action=f"/td/s/{section_id}/rounds/{kind}",
        fields={"round": round_},
        round=round_,
        back=_back(section_id),
        **ctx,
    )


@router.post("/s/{section_id}/rounds/start", response_model=None)
async def start_round(
    request: Request,
    runtime: RuntimeDep,
    td_: TDForm,
    section_id: int,
    round: Annotated[int, Form(ge=1)],
    confirmed: Confirmed = "",
) -> Response:
    """Start the round the form names. With tables still in the round before, ask first (a
    page, so it works without JavaScript); the same request twice never starts the round
    after (the second is refused)."""
    if confirmed != "yes" and (
        asked := await _asked(request, td_, runtime, section_id, round, "start")
    ):
        return asked
    return await act(
        runtime,
        lambda s: round_control.start_round_once(s, setup.get_section(s, section_id), round),
        _back(section_id),
        said("notice", "Round {round} started.", round=round),
        rounds_of=section_id,
    )


@router.post("/s/{section_id}/rounds/close", response_model=None)
async def close_round(
    request: Request,
    runtime: RuntimeDep,
    td_: TDForm,
    section_id: int,
    round: Annotated[int, Form(ge=1)],
    confirmed: Confirmed = "",
) -> Response:
    """Close a round to table entries; with entries missing, name them and ask first."""
    if confirmed != "yes" and (
        asked := await _asked(request, td_, runtime, section_id, round, "close")
    ):
        return asked
    return await act(
        runtime,
        lambda s: td.close_round(s, setup.get_section(s, section_id), round),
        _back(section_id),
        said("notice", "Round {round} closed to table entries.", round=round),
        rounds_of=section_id,
    )


@router.post("/s/{section_id}/rounds/reopen")
async def reopen_round(
    runtime: RuntimeDep, _td: TDForm, section_id: int, round: Annotated[int, Form(ge=1)]
) -> Response:
    """Undo closing a round: its tables may enter results again."""
    return await act(
        runtime,
        lambda s: round_control.reopen_round(s, setup.get_section(s, section_id), round),
        _back(section_id),
        said("notice", "Round {round} reopened to table entries.", round=round),
        rounds_of=section_id,
    )


@router.post("/s/{section_id}/round-time")
async def round_time(
    runtime: RuntimeDep,
    _td: TDForm,
    section_id: int,
    minutes: Annotated[str, Form(max_length=4)] = "",
) -> Response:
    value = whole_number(minutes)
    return await act(
        runtime,
        lambda s: round_control.set_round_time(s, setup.get_section(s, section_id), value),
        _back(section_id),
        said("notice", "Round time set.") if value else said("notice", "Round time cleared."),
    )


@router.post("/s/{section_id}/calls/{call_id}/ack")
async def acknowledge(runtime: RuntimeDep, _td: TDForm, section_id: int, call_id: int) -> Response:
    return await act(
        runtime,
        lambda s: td.acknowledge_call(s, call_id),
        _back(section_id),
        said("notice", "Call acknowledged."),
    )


@router.get("/s/{section_id}/ranking", response_class=HTMLResponse)
async def td_ranking(
    request: Request, runtime: RuntimeDep, td_: TDPage, section_id: int
) -> Response:
    """The ranking with every settled result, also boards other tables still have to play."""

    def work(s: Session) -> Any:
        section = setup.get_section(s, section_id)
        return dashboard.head(s, section), standings.ranking(s, section, public=False)

    head, ranking = await runtime.read(work)
    return page(request, "td/ranking.html", td_, head=head, ranking=ranking, active="ranking")
