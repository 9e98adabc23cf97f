"""Public results, no login: the live ranking, travellers of finished boards, score cards with
a QR code, and a projector mode. Nothing shows before every table has played the board."""

from __future__ import annotations

import io
from typing import Any

import segno
from fastapi import APIRouter, Request, WebSocket
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlmodel import Session

from server.api.deps import Runtime
from server.services import dashboard, setup, standings
from server.web.live import Fragments
from server.web.respond import fragment, page
from server.web.state import RuntimeDep, WebDep, WebState, get_runtime, get_web

router = APIRouter(include_in_schema=False)


@router.get("/")
async def root() -> Response:
    return RedirectResponse("/results", status_code=307)


@router.get("/results", response_class=HTMLResponse)
async def results_home(request: Request, runtime: RuntimeDep) -> Response:
    sections = await runtime.read(dashboard.sections)
    return page(request, "public/home.html", sections=sections)


async def ranking_context(runtime: Runtime, section_id: int) -> dict[str, Any]:
    """Load in a short transaction, score outside it (scoring never holds up an entry)."""
    data = await runtime.read(lambda s: standings.load(s, setup.get_section(s, section_id)))
    ranking = await run_in_threadpool(standings.rank, data, public=True)
    return {"ranking": ranking, "section_id": section_id}


def ranking_fragments(web: WebState, ctx: dict[str, Any]) -> Fragments:
    return {
        name: fragment(web, f"public/_{name}.html", **ctx)
        for name in ("status", "ranking", "boards")
    }


@router.get("/results/{section_id}", response_class=HTMLResponse)
async def ranking_page(
    request: Request, runtime: RuntimeDep, web: WebDep, section_id: int
) -> Response:
    ctx = await ranking_context(runtime, section_id)
    return page(request, "public/ranking.html", fragments=ranking_fragments(web, ctx), **ctx)


@router.get("/results/{section_id}/projector", response_class=HTMLResponse)
async def projector(
    request: Request, runtime: RuntimeDep, web: WebDep, section_id: int
) -> Response:
    ctx = await ranking_context(runtime, section_id)
    return page(request, "public/projector.html", fragments=ranking_fragments(web, ctx), **ctx)


@router.websocket("/results/{section_id}/live")
async def ranking_live(websocket: WebSocket, section_id: int) -> None:
    """The public ranking's live feed (it only ever carries what the page may show)."""
    runtime, web = get_runtime(websocket), get_web(websocket)
    await runtime.run(lambda s: setup.get_section(s, section_id))
    await websocket.accept()

    async def render() -> Fragments:
        return ranking_fragments(web, await ranking_context(runtime, section_id))

    await web.hub_for(runtime).serve(websocket, ("public", section_id), render)


@router.get("/results/{section_id}/boards/{board}", response_class=HTMLResponse)
async def traveller_page(
    request: Request, runtime: RuntimeDep, section_id: int, board: int
) -> Response:
    def work(s: Session) -> dict[str, Any]:
        section = setup.get_section(s, section_id)
        return {
            "head": dashboard.head(s, section),
            "data": standings.load(s, section),
            "info": dashboard.board_info(s, section, board),
        }

    ctx = await runtime.read(work)
    data = ctx.pop("data")
    shown = await run_in_threadpool(standings.travel, data, board, public=True)
    released = standings.visible_boards(data)
    return page(request, "public/traveller.html", traveller=shown, released=released, **ctx)


@router.get("/results/{section_id}/pairs/{key}", response_class=HTMLResponse)
async def score_card_page(
    request: Request, runtime: RuntimeDep, section_id: int, key: str
) -> Response:
    def work(s: Session) -> tuple[Any, standings.SectionData]:
        section = setup.get_section(s, section_id)
        return dashboard.head(s, section), standings.load(s, section)

    head, data = await runtime.read(work)
    card = await run_in_threadpool(standings.card, data, key, public=True)
    return page(request, "public/card.html", head=head, card=card)


@router.get("/results/{section_id}/pairs/{key}/qr.svg")
async def score_card_qr(request: Request, section_id: int, key: str) -> Response:
    """A QR code of the score card's address, for the pair's phones."""
    url = str(request.url_for("score_card_page", section_id=section_id, key=key))
    buffer = io.BytesIO()
    segno.make(url, error="m").save(
        buffer, kind="svg", scale=6, border=2, dark="#14202e", light="#ffffff", xmldecl=False
    )
    return Response(
        buffer.getvalue(),
        media_type="image/svg+xml",
        headers={"cache-control": "public, max-age=3600"},
    )
