"""Public results, no login: the live ranking, travellers of finished boards, score cards with
a QR code, and a projector mode. Nothing shows before every table has played the board."""

from __future__ import annotations

import io
import ipaddress
from typing import Any

import segno
from fastapi import APIRouter, Request, WebSocket
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlmodel import Session

from server.core.models import Section
from server.live.runtime import Runtime
from server.services.event import setup
from server.services.glance import dashboard
from server.services.results import hand_view, individual_results, replay, standings
from server.site.discovery import WILDCARDS, lan_addresses
from server.web.live_views import RankingView, ranking_fragments
from server.web.respond import language, page
from server.web.state import RuntimeDep, WebDep, get_runtime, get_web

router = APIRouter(include_in_schema=False)


@router.get("/")
async def root() -> Response:
    return RedirectResponse("/results", status_code=307)


@router.get("/results", response_class=HTMLResponse)
async def results_home(request: Request, runtime: RuntimeDep) -> Response:
    sections = await runtime.read(dashboard.sections)
    return page(request, "public/home.html", sections=sections)


def event_language(session: Session, section: Section) -> str | None:
    """The language the event's club set for its pages, if any."""
    return setup.get_event(session, section.event_id).language


async def ranking_context(
    runtime: Runtime, section_id: int, conn: Request | WebSocket
) -> dict[str, Any]:
    """Load in a short transaction, score outside it (scoring never holds up an entry)."""

    def work(
        s: Session,
    ) -> tuple[standings.SectionData, individual_results.IndividualData | None, str | None]:
        section = setup.get_section(s, section_id)
        found = individual_results.load(s, section)
        data = found.data if found is not None else standings.load(s, section)
        return data, found, event_language(s, section)

    data, found, club_language = await runtime.read(work)
    ranking = await run_in_threadpool(standings.rank, data, public=True)
    players = None
    if found is not None:  # an individual ranks its players, not its partnerships
        players = await run_in_threadpool(individual_results.ranking, found, public=True)
    return {
        "ranking": ranking,
        "players": players,
        "section_id": section_id,
        "lang": language(conn, club_language),
    }


@router.get("/results/{section_id}", response_class=HTMLResponse)
async def ranking_page(
    request: Request, runtime: RuntimeDep, web: WebDep, section_id: int
) -> Response:
    ctx = await ranking_context(runtime, section_id, request)
    return page(request, "public/ranking.html", fragments=ranking_fragments(web, ctx), **ctx)


@router.get("/results/{section_id}/projector", response_class=HTMLResponse)
async def projector(
    request: Request, runtime: RuntimeDep, web: WebDep, section_id: int
) -> Response:
    ctx = await ranking_context(runtime, section_id, request)
    return page(request, "public/projector.html", fragments=ranking_fragments(web, ctx), **ctx)


@router.websocket("/results/{section_id}/live")
async def ranking_live(websocket: WebSocket, section_id: int) -> None:
    """The public ranking's live feed (it only ever carries what the page may show: its
    deltas are ranked under the page's own rule, server/web/live_views.py)."""
    runtime, web = get_runtime(websocket), get_web(websocket)
    club_language = await runtime.read(
        lambda s: event_language(s, setup.get_section(s, section_id))
    )
    await websocket.accept()
    lang = language(websocket, club_language)
    view = RankingView(runtime, web, section_id, websocket)
    # One channel per language: watchers of a channel share its rendered fragments.
    await web.hub_for(runtime).serve(websocket, (f"public:{lang}", section_id), view)


@router.get("/results/{section_id}/boards/{board}", response_class=HTMLResponse)
async def traveller_page(
    request: Request, runtime: RuntimeDep, section_id: int, board: int
) -> Response:
    def work(s: Session) -> dict[str, Any]:
        section = setup.get_section(s, section_id)
        found = individual_results.load(s, section)
        return {
            "head": dashboard.head(s, section),
            "data": found.data if found is not None else standings.load(s, section),
            # an individual's traveller names the four players at each table
            "players": found.seated() if found is not None else None,
            "info": dashboard.board_info(s, section, board),
            "hand": hand_view.hand_view(s, section, board),
            "board_plays": replay.board_plays(s, section, board),
            "lang": language(request, event_language(s, section)),
        }

    ctx = await runtime.read(work)
    data = ctx.pop("data")
    shown = await run_in_threadpool(standings.travel, data, board, public=True)
    if not shown.visible:  # the deal is shown with the traveller, never before it
        ctx["hand"] = None
    # the tables' auctions and play too, and only those of the tables on the traveller
    ctx["board_plays"], ctx["plays"] = replay.shown(ctx.pop("board_plays"), shown)
    released = standings.visible_boards(data)
    return page(request, "public/traveller.html", traveller=shown, released=released, **ctx)


@router.get("/results/{section_id}/players/{number}", response_class=HTMLResponse)
async def player_card_page(
    request: Request, runtime: RuntimeDep, section_id: int, number: int
) -> Response:
    """An individual's player score card: their boards with partner and opponents."""

    def work(s: Session) -> tuple[Any, individual_results.IndividualData, str]:
        section = setup.get_section(s, section_id)
        found = individual_results.load_individual(s, section)
        lang = language(request, event_language(s, section))
        return dashboard.head(s, section), found, lang

    head, found, lang = await runtime.read(work)
    card = await run_in_threadpool(individual_results.player_card, found, number, public=True)
    return page(request, "public/card.html", head=head, card=card, lang=lang)


@router.get("/results/{section_id}/players/{number}/qr.svg")
async def player_card_qr(request: Request, section_id: int, number: int) -> Response:
    """A QR code of a player's score card, for their phone."""
    return _qr(_lan_url(request, "player_card_page", section_id=section_id, number=number))


@router.get("/results/{section_id}/pairs/{key}", response_class=HTMLResponse)
async def score_card_page(
    request: Request, runtime: RuntimeDep, section_id: int, key: str
) -> Response:
    def work(s: Session) -> tuple[Any, standings.SectionData, str]:
        section = setup.get_section(s, section_id)
        lang = language(request, event_language(s, section))
        return dashboard.head(s, section), standings.load(s, section), lang

    head, data, lang = await runtime.read(work)
    card = await run_in_threadpool(standings.card, data, key, public=True)
    return page(request, "public/card.html", head=head, card=card, lang=lang)


@router.get("/results/{section_id}/pairs/{key}/qr.svg")
async def score_card_qr(request: Request, section_id: int, key: str) -> Response:
    """A QR code of the score card's address, for the pair's phones."""
    return _qr(_lan_url(request, "score_card_page", section_id=section_id, key=key))


def _loopback(host: str | None) -> bool:
    if not host or host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def lan_origin(request: Request, host: str, port: int) -> str:
    """Where a phone in the room reaches this server: the address the request came to, unless
    that is this machine's loopback (the TD's own browser); then the configured host, unless
    that is loopback or a wildcard too; then the machine's LAN address (as mDNS advertises
    it). Only when the machine has none does the request's own address stay."""
    origin = f"{request.url.scheme}://{request.url.netloc}"
    if not _loopback(request.url.hostname):
        return origin
    shown = request.url.port or port
    if host not in WILDCARDS and not _loopback(host):
        return f"{request.url.scheme}://{_bracketed(host)}:{shown}"
    found = lan_addresses()
    return f"{request.url.scheme}://{found[0]}:{shown}" if found else origin


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _lan_url(request: Request, name: str, **params: Any) -> str:
    settings = get_runtime(request).settings
    path: str = request.app.url_path_for(name, **{k: str(v) for k, v in params.items()})
    return lan_origin(request, settings.host, settings.port) + path


def _qr(url: str) -> Response:
    buffer = io.BytesIO()
    segno.make(url, error="m").save(
        buffer, kind="svg", scale=6, border=2, dark="#14202e", light="#ffffff", xmldecl=False
    )
    return Response(
        buffer.getvalue(),
        media_type="image/svg+xml",
        headers={"cache-control": "public, max-age=3600"},
    )
