"""Result editing: any board at any table, changed with a reason; conflicts; adjusted scores."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import ValidationError
from sqlmodel import Session

from protocol import alerts
from protocol.bridge.errors import BridgeError
from protocol.messages import AUCTION_TEXT, PLAY_TEXT, EntryValues
from protocol.text import MAX_TEXT, SingleLine
from server.core.errors import InvalidError
from server.core.models import Event, Result, utcnow
from server.i18n import N_
from server.i18n.notice_words import said
from server.services import deadlines, entries
from server.services.event import setup
from server.services.glance import dashboard
from server.services.outcomes import Push
from server.services.results import adjusted, replay
from server.services.td import actions as td
from server.services.td import round_control
from server.web.auth import TDForm, TDPage
from server.web.fields import whole_number
from server.web.respond import act, page, refuse
from server.web.state import RuntimeDep

router = APIRouter(prefix="/td/s/{section_id}/tables/{table}", include_in_schema=False)

Reason = Annotated[SingleLine, Form(max_length=MAX_TEXT)]
"""A reason: one line, no control or formatting characters (protocol.text)."""
#: § X79: past the correction deadline, a change carries out a ruling or appeal made in time.
InTime = Annotated[bool, Form()]
Cells = Annotated[list[str] | None, Form()]
Settle = Callable[[Session, Result], list[Push]]

#: The names of the usual artificial scores (Law 12C2), by percentage.
AVERAGES = {60: N_("Ave+"), 50: N_("Ave"), 40: N_("Ave−")}
#: The TD's usual artificial scores: N/S %, E/W %, N/S's name, E/W's name ("Ave+ / Ave−").
ADJUSTMENTS = [
    (ns, ew, AVERAGES[ns], AVERAGES[ew])
    for ns, ew in ((60, 40), (40, 60), (50, 50), (60, 60), (40, 40), (60, 50), (50, 60))
]


@router.get("", response_class=HTMLResponse)
async def table_page(
    request: Request, runtime: RuntimeDep, td_: TDPage, section_id: int, table: int
) -> Response:
    """A table's every round and board, to open any of them."""

    def work(s: Session) -> dict[str, Any]:
        section = setup.get_section(s, section_id)
        row = setup.find_table(s, section, table)
        pairing = [p for p in dashboard.pairing(s, section) if p.table == table]
        return {
            "head": dashboard.head(s, section),
            "table": row.number,
            "table_round": row.round,
            "sheet": dashboard.table_sheet(s, section, row),
            "pairing": pairing[0] if pairing else None,
        }

    ctx = await runtime.read(work)
    return page(request, "td/table.html", td_, active="dashboard", **ctx)


@router.post("/release")
async def release(
    runtime: RuntimeDep, _td: TDForm, section_id: int, table: int, reason: Reason = ""
) -> Response:
    """Override the end-of-round gate (§ 262C): move the table to the next round."""
    return await act(
        runtime,
        lambda s: round_control.release_table(s, setup.get_section(s, section_id), table, reason),
        f"/td/s/{section_id}/tables/{table}",
        said("notice", "Table {table} moved on to the next round.", table=table),
    )


def _board_url(section_id: int, table: int, round_: int, board: int) -> str:
    return f"/td/s/{section_id}/tables/{table}/rounds/{round_}/boards/{board}"


@router.get("/rounds/{round_}/boards/{board}", response_class=HTMLResponse)
async def board_page(
    request: Request,
    runtime: RuntimeDep,
    td_: TDPage,
    section_id: int,
    table: int,
    round_: int,
    board: int,
) -> Response:
    def work(s: Session) -> dict[str, Any]:
        section = setup.get_section(s, section_id)
        desk = dashboard.board_desk(s, section, table, round_, board)
        result = desk.result
        deadline = deadlines.result_deadline(s, section, result) if result else None
        event = s.get(Event, section.event_id)
        auction = result.auction if result else None
        return {
            "head": dashboard.head(s, section),
            "desk": desk,
            "auction_entry": event.auction_entry if event else "off",
            "play_entry": event.play_entry if event else "off",
            "auction_rows": auction_grid(desk.dealer or "N", auction) if auction else [],
            "auction_notes": alert_notes(desk.dealer or "N", result),
            # every table's auction and play on the board (the TD sees them all)
            "board_plays": replay.board_plays(s, section, board),
            "kind": adjusted.kind_of(result.adjusted) if result else None,
            "deadline": deadline,
            "closed": deadline is not None and deadline <= utcnow(),
        }

    ctx = await runtime.read(work)
    return page(
        request,
        "td/board.html",
        td_,
        active="dashboard",
        adjustments=ADJUSTMENTS,
        score_rows=range(adjusted.MAX_PARTS),
        kind_labels=KIND_LABELS,
        **ctx,
    )


@router.post("/rounds/{round_}/boards/{board}/set")
async def set_result(
    runtime: RuntimeDep,
    _td: TDForm,
    section_id: int,
    table: int,
    round_: int,
    board: int,
    contract: Annotated[str, Form(max_length=16)] = "",
    tricks: Annotated[str, Form(max_length=3)] = "",
    reason: Reason = "",
    declarer: Annotated[str, Form(max_length=1)] = "",
    lead: Annotated[str, Form(max_length=3)] = "",
    auction: Annotated[str, Form(max_length=AUCTION_TEXT)] = "",
    play: Annotated[str, Form(max_length=PLAY_TEXT)] = "",
    ruling_in_time: InTime = False,
) -> Response:
    """Enter or change a result as TD (an assigned score, or a correction), with the auction
    and the play when the event takes them (checked as at the table, never required of the
    TD)."""
    back = _board_url(section_id, table, round_, board)
    try:
        values = _values(contract, declarer, tricks, lead, auction, play)
    except InvalidError as exc:
        return refuse(back, exc)
    contract = values.contract or _auction_contract(board, values.auction)
    return await act(
        runtime,
        td.settle(
            section_id,
            table,
            round_,
            board,
            lambda s, r: td.set_result(
                s, result=r, values=values, reason=reason, ruling_in_time=ruling_in_time
            ),
        ),
        back,
        said(
            "notice",
            "Board {board} at table {table} set to {contract}.",
            board=board,
            table=table,
            contract=contract,
        ),
    )


def _auction_contract(board: int, auction: str | None) -> str:
    """The contract an auction keyed without one ends in (for the TD's notice; the service
    checks the auction itself and refuses a bad one before the notice is shown)."""
    try:
        return str(entries.check_auction(board, auction or "").outcome().contract)
    except (InvalidError, BridgeError):
        return ""


#: The auction's columns on the TD's page, as printed in bridge columns and hand records.
AUCTION_COLUMNS = ("W", "N", "E", "S")


def alert_notes(dealer: str, result: Result | None) -> tuple[replay.AlertNote, ...]:
    """The table's explanations of its auction's alerted calls, numbered in call order."""
    if result is None or not result.auction or not result.alerts:
        return ()
    return replay.auction_view(dealer, result.auction, alerts.read_stored(result.alerts)).notes


def auction_grid(dealer: str, auction: str) -> list[list[str]]:
    """A stored auction in rows of four calls under W N E S, the dealer's column first filled
    (the cells before the dealer's first call empty)."""
    cells = [""] * AUCTION_COLUMNS.index(dealer) + auction.split()
    return [(cells[i : i + 4] + [""] * 4)[:4] for i in range(0, len(cells), 4)]


def _values(
    contract: str, declarer: str, tricks: str, lead: str, auction: str = "", play: str = ""
) -> EntryValues:
    text = tricks.strip()
    try:
        return EntryValues(
            contract=contract.strip().upper(),
            declarer=declarer.strip().upper() or None,
            tricks=text if (number := whole_number(text)) is None else number,
            lead=lead.strip().upper() or None,
            auction=" ".join(auction.upper().split()) or None,
            play=" ".join(play.upper().split()) or None,
        )
    except ValidationError as exc:
        raise InvalidError("invalid_values", "Check the contract, declarer and tricks.") from exc


@router.post("/rounds/{round_}/boards/{board}/adjust")
async def adjust(
    runtime: RuntimeDep,
    _td: TDForm,
    section_id: int,
    table: int,
    round_: int,
    board: int,
    ns_percent: Annotated[int, Form(ge=0, le=100)] = 60,
    ew_percent: Annotated[int, Form(ge=0, le=100)] = 40,
    reason: Reason = "",
    preset: Annotated[str, Form(max_length=7)] = "",
    ruling_in_time: InTime = False,
) -> Response:
    """An artificial adjusted score: Ave+/Ave/Ave- (a preset button) or any split."""
    ns_text, _, ew_text = preset.partition("/")
    ns_preset, ew_preset = whole_number(ns_text), whole_number(ew_text)
    if ns_preset is not None and ew_preset is not None:
        ns_percent, ew_percent = ns_preset, ew_preset
    return await act(
        runtime,
        td.settle(
            section_id,
            table,
            round_,
            board,
            lambda s, r: td.adjust(
                s,
                result=r,
                ns_percent=ns_percent,
                ew_percent=ew_percent,
                reason=reason,
                ruling_in_time=ruling_in_time,
            ),
        ),
        _board_url(section_id, table, round_, board),
        said(
            "notice",
            "Board {board} at table {table}: adjusted {ns_percent} % / {ew_percent} %.",
            board=board,
            table=table,
            ns_percent=ns_percent,
            ew_percent=ew_percent,
        ),
    )


def _rows(
    weights: list[str] | None,
    contracts: list[str] | None,
    declarers: list[str] | None,
    tricks: list[str] | None,
) -> list[adjusted.PartIn]:
    """The form's rows of contract results (a row left empty is skipped by the service)."""
    columns = [weights or [], contracts or [], declarers or [], tricks or []]
    size = max(len(c) for c in columns)
    if size > adjusted.MAX_PARTS:
        raise InvalidError(
            "too_many_parts", "At most {MAX_PARTS} results.", MAX_PARTS=adjusted.MAX_PARTS
        )
    padded = [c + [""] * (size - len(c)) for c in columns]
    return [
        adjusted.PartIn(w[:12], c[:16], d.strip().upper()[:1] or None, t[:3])
        for w, c, d, t in zip(*padded, strict=True)
    ]


@router.post("/rounds/{round_}/boards/{board}/score")
async def assign_score(
    runtime: RuntimeDep,
    _td: TDForm,
    section_id: int,
    table: int,
    round_: int,
    board: int,
    reason: Reason = "",
    ns_weight: Cells = None,
    ns_contract: Cells = None,
    ns_declarer: Cells = None,
    ns_tricks: Cells = None,
    ew_mode: Annotated[str, Form(max_length=8)] = "same",
    ew_weight: Cells = None,
    ew_contract: Cells = None,
    ew_declarer: Cells = None,
    ew_tricks: Cells = None,
    ew_percent: Annotated[str, Form(max_length=8)] = "",
    ruling_in_time: InTime = False,
) -> Response:
    """An assigned (Law 12C1b), weighted (§ X78A1) or unbalanced (§ X78A2) adjusted score."""
    back = _board_url(section_id, table, round_, board)
    try:
        ns = _rows(ns_weight, ns_contract, ns_declarer, ns_tricks)
        ew = _rows(ew_weight, ew_contract, ew_declarer, ew_tricks) if ew_mode == "parts" else None
        made = adjusted.from_rows(
            board, ns, ew=ew, ew_percent=ew_percent if ew_mode == "percent" else None
        )
    except InvalidError as exc:
        return refuse(back, exc)
    return await act(
        runtime,
        td.settle(
            section_id,
            table,
            round_,
            board,
            lambda s, r: td.adjust_score(
                s, result=r, adjustment=made, reason=reason, ruling_in_time=ruling_in_time
            ),
        ),
        back,
        said(
            "notice",
            "Board {board} at table {table}: {value} {text}.",
            board=board,
            table=table,
            value=KIND_LABELS[made.kind].lower(),
            text=made.text,
        ),
    )


#: How the pages name each kind of adjusted score.
KIND_LABELS = {
    "artificial": "Adjusted score",
    "assigned": "Assigned score",
    "weighted": "Weighted score",
    "unbalanced": "Unbalanced score",
}


@router.post("/rounds/{round_}/boards/{board}/not-played")
async def not_played(
    runtime: RuntimeDep,
    _td: TDForm,
    section_id: int,
    table: int,
    round_: int,
    board: int,
    reason: Reason = "",
    ruling_in_time: InTime = False,
) -> Response:
    return await act(
        runtime,
        td.settle(
            section_id,
            table,
            round_,
            board,
            lambda s, r: td.mark_not_played(
                s, result=r, reason=reason, ruling_in_time=ruling_in_time
            ),
        ),
        _board_url(section_id, table, round_, board),
        said(
            "notice", "Board {board} at table {table} marked not played.", board=board, table=table
        ),
    )


@router.post("/rounds/{round_}/boards/{board}/choose")
async def choose(
    runtime: RuntimeDep,
    _td: TDForm,
    section_id: int,
    table: int,
    round_: int,
    board: int,
    entry_id: Annotated[str, Form(max_length=64)] = "",
    reason: Reason = "",
) -> Response:
    """Resolve a conflict by choosing one of the entries the table sent."""
    return await act(
        runtime,
        td.settle(
            section_id,
            table,
            round_,
            board,
            lambda s, r: td.choose_entry(s, result=r, entry_id=entry_id, reason=reason),
        ),
        _board_url(section_id, table, round_, board),
        said(
            "notice",
            "Conflict on board {board} at table {table} resolved.",
            board=board,
            table=table,
        ),
    )
