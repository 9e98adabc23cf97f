"""Players: import the club's member list, name pairs by member number, add visitors."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from server.error_words import notice
from server.errors import NotFoundError
from server.services import dashboard, members, setup, standings
from server.web.auth import TDForm, TDPage
from server.web.respond import act, page, redirect
from server.web.state import RuntimeDep

router = APIRouter(prefix="/td/s/{section_id}", include_in_schema=False)

MAX_UPLOAD = 2_000_000
Name = Annotated[str, Form(max_length=100)]
Number = Annotated[str, Form(max_length=32)]


@router.get("/players", response_class=HTMLResponse)
async def players_page(
    request: Request, runtime: RuntimeDep, td_: TDPage, section_id: int
) -> Response:
    def work(s: Session) -> dict[str, Any]:
        section = setup.get_section(s, section_id)
        return {
            "head": dashboard.head(s, section),
            "pairs": sorted(
                setup.pairs_of(s, section), key=lambda p: (p.direction != "NS", p.number)
            ),
            "labels": {p.id: p for p in standings.pairs(s, section)},
            "members": members.members(s),
        }

    ctx = await runtime.read(work)
    return page(request, "td/players.html", td_, active="players", **ctx)


@router.post("/players/import")
async def import_members(
    runtime: RuntimeDep,
    _td: TDForm,
    section_id: int,
    text: Annotated[str, Form(max_length=MAX_UPLOAD)] = "",
    file: UploadFile | None = None,
) -> Response:
    """Import "number,name" lines, pasted or as a CSV file."""
    back = f"/td/s/{section_id}/players"
    if file is not None and file.filename:
        raw = await file.read(MAX_UPLOAD + 1)
        if len(raw) > MAX_UPLOAD:
            return redirect(back, "The file is too large for a member list.", "error")
        text = raw.decode("utf-8-sig", errors="replace")
    if not text.strip():
        return redirect(back, "Paste the member list or choose a CSV file.", "error")

    def done(report: members.ImportReport) -> str:
        added, updated, skipped = report.added, report.updated, len(report.problems)
        if not report.problems:
            return notice(f"Members: {added} added, {updated} updated.")
        first = report.problems[0]
        return notice(
            f"Members: {added} added, {updated} updated. Lines skipped: {skipped} ({first}…)."
        )

    return await act(runtime, lambda s: members.import_members(s, text), back, done)


@router.post("/pairs/{pair_id}")
async def name_pair(
    runtime: RuntimeDep,
    _td: TDForm,
    section_id: int,
    pair_id: int,
    player1: Name = "",
    player2: Name = "",
    member1: Number = "",
    member2: Number = "",
) -> Response:
    """Name a pair: a member number fills in a blank name; visitors just get a name."""

    def work(s: Session) -> str:
        section = setup.get_section(s, section_id)
        pair = next((p for p in setup.pairs_of(s, section) if p.id == pair_id), None)
        if pair is None:
            raise NotFoundError("unknown_pair", f"There is no pair {pair_id} in this section.")
        row = members.set_pair(
            s,
            section,
            pair,
            player1=player1,
            player2=player2,
            member1=member1,
            member2=member2,
        )
        return standings.pair_name(row).label

    return await act(
        runtime, work, f"/td/s/{section_id}/players", lambda label: f"Pair {label} saved."
    )
