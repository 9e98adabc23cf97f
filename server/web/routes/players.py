"""Players: import the club's member list, name pairs by member number, add visitors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from server.core.errors import InvalidError
from server.core.models import Pair
from server.i18n.notice_words import Notice, said
from server.services.event import handicaps, members, setup, uploads
from server.services.glance import dashboard
from server.services.results import standings
from server.web.auth import TDForm, TDPage
from server.web.respond import act, page, refuse
from server.web.state import RuntimeDep

router = APIRouter(prefix="/td/s/{section_id}", include_in_schema=False)

MAX_UPLOAD = uploads.MAX_MEMBER_LIST
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
    raw = await file.read(MAX_UPLOAD + 1) if file is not None and file.filename else None
    try:
        text = members.member_list(raw, text)
    except InvalidError as exc:
        return refuse(back, exc)

    def done(report: members.ImportReport) -> Notice:
        added, updated, skipped = report.added, report.updated, len(report.problems)
        if not report.problems:
            return said(
                "notice", "Members: {added} added, {updated} updated.", added=added, updated=updated
            )
        first = report.problems[0]
        return said(
            "notice",
            "Members: {added} added, {updated} updated. Lines skipped: {skipped} ({first}…).",
            added=added,
            updated=updated,
            skipped=skipped,
            first=first,
        )

    return await act(runtime, lambda s: members.import_members(s, text), back, done)


#: The fields of one pair's line on the Players page, and the longest value each takes.
PAIR_FIELDS = {"player1": 100, "member1": 32, "player2": 100, "member2": 32}


def _pair_form(form: Mapping[str, object], pair: Pair) -> dict[str, str] | None:
    """A pair's four fields from the one Players form (None: the form has no line for it)."""
    values = {name: form.get(f"{name}_{pair.id}") for name in PAIR_FIELDS}
    if all(v is None for v in values.values()):
        return None
    out = {name: v if isinstance(v, str) else "" for name, v in values.items()}
    for name, longest in PAIR_FIELDS.items():
        if len(out[name]) > longest:
            raise InvalidError(
                "field_too_long",
                "A player's name is at most 100 characters, a member number at most 32.",
            )
    return out


def _unchanged(pair: Pair, values: Mapping[str, str]) -> bool:
    now = {
        "player1": pair.player1 or "",
        "member1": pair.member1 or "",
        "player2": pair.player2 or "",
        "member2": pair.member2 or "",
    }
    return all(now[k] == values[k].strip() for k in PAIR_FIELDS)


#: Five fields a pair (names, numbers, handicap), for a section of up to 1,000 pairs
#: (Starlette's default is 1,000 fields).
MAX_PAIR_FIELDS = 5 * 1_000 + 10


@router.post("/pairs")
async def name_pairs(
    request: Request, runtime: RuntimeDep, _td: TDForm, section_id: int
) -> Response:
    """Every pair's names and handicap from the one Players form, in one transaction: a bad
    line refuses the lot and changes nothing; lines left as they were are not written (or
    audited)."""
    form = await request.form(max_fields=MAX_PAIR_FIELDS)

    def work(s: Session) -> int:
        section = setup.get_section(s, section_id)
        saved = 0
        for pair in setup.pairs_of(s, section):
            values = _pair_form(form, pair)
            changed = False
            if values is not None and not _unchanged(pair, values):
                members.set_pair(s, section, pair, **values)
                changed = True
            handicap = form.get(f"handicap_{pair.id}")
            if isinstance(handicap, str):
                changed = handicaps.set_handicap(s, section, pair, handicap) or changed
            saved += changed
        return saved

    return await act(
        runtime,
        work,
        f"/td/s/{section_id}/players",
        lambda n: said("notice", "Pair names saved: {n}.", n=n),
    )
