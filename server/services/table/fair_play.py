"""The fair-play rule (protocol/fair_play.py, Law 16) on stored data: who sits at a table now,
who has played a board and agreed its result, and the lead refusals a table has had.

Every table-side read of a board (its deal, the double dummy, other tables' results) asks
:func:`disclosure` or :func:`require_played` first.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from sqlmodel import Session, select

from protocol import fair_play
from protocol.fair_play import Disclosure
from server.core.errors import ConflictError
from server.core.models import LEAD_CHECK, Audit, DcSession, MovementAssignment, Result, Section
from server.movements.model import parse_seats
from server.services import audit
from server.services.views import assignment

if TYPE_CHECKING:
    from server.services.table.table_context import TableContext

#: The audit action of a lead refused on an actual entry (counted per table, round and board).
LEAD_REFUSED = "lead_refused"
#: The audit action of a wrong lead taken after the refusals ran out (flagged for the TD).
LEAD_FLAGGED = "lead_flagged"


def seated(row: MovementAssignment | None, individual: bool) -> set[int]:
    """Who sits at the table in this round: its pairs, or in an individual its four players."""
    if row is None:
        return set()
    if individual:
        return {p for p in parse_seats(row.seats) if p is not None} if row.seats else set()
    return {p for p in (row.ns_pair_id, row.ew_pair_id) if p is not None}


def played_by(session: Session, section: Section, board: int) -> set[int]:
    """Everyone with a confirmed result on the board, at any table and in any round."""
    results = session.exec(
        select(Result).where(
            Result.section_id == section.id,
            Result.board == board,
            Result.state.in_(fair_play.PLAYED_STATES),  # type: ignore[attr-defined]
        )
    ).all()
    if section.movement_kind != "individual":
        return {p for r in results for p in (r.ns_pair_id, r.ew_pair_id) if p is not None}
    rows = session.exec(
        select(MovementAssignment).where(MovementAssignment.section_id == section.id)
    ).all()
    at = {(row.table_number, row.round): row for row in rows}
    return {p for r in results for p in seated(at.get((r.table_number, r.round)), True)}


def disclosure(cmds: TableContext, board: int) -> Disclosure:
    """What the table may learn about ``board`` now (the event's setting applied)."""
    table, section = cmds.table, cmds.section
    row = assignment(cmds.s, section, table.number, table.round) if table.round else None
    return fair_play.disclosure(
        board,
        seated(row, section.movement_kind == "individual"),
        played_by(cmds.s, section, board),
        cmds.event.after_confirm,
    )


def require_played(cmds: TableContext, board: int) -> Disclosure:
    """:func:`disclosure`, refused (nothing shown) before everyone at the table has played it."""
    shown = disclosure(cmds, board)
    if not shown.played:
        raise ConflictError(
            "board_not_played_here",
            "Board {board} has not been played and confirmed at table {number}: nothing "
            "about it is shown here.",
            board=board,
            number=cmds.table.number,
        )
    return shown


# ---------------------------------------------------------------- the lead check's audit


def _where(cmds: TableContext, board: int) -> dict[str, int]:
    return {"table": cmds.table.number, "round": cmds.table.round, "board": board}


def lead_checked(cmds: TableContext) -> bool:
    """Whether the table's leads are checked against the hand record at all: yes, unless the
    scoring program that set the section up asked for the lead without validation (Bridgemate
    lead card entry "no validation": BM3LeadCardEntry 1, or Bridgemate 2 LeadCard without
    BM2ValidateLeadCard, kept per section by server/dataconnector/bm_settings.py)."""
    return cmds.lead_checked(lambda: _lead_checked(cmds))


def _lead_checked(cmds: TableContext) -> bool:
    section = cmds.section
    dcs = cmds.s.exec(
        select(DcSession).where(
            DcSession.event_id == section.event_id,
            DcSession.session_number == section.session_number,
        )
    ).first()
    if dcs is None:
        return True
    return bool(dcs.kept()["settings"].get(section.letter, {}).get(LEAD_CHECK, True))


def lead_refusals(cmds: TableContext, board: int) -> set[str]:
    """The entry ids whose lead was refused on this board at this table in this round."""
    rows = cmds.s.exec(
        select(Audit.new).where(
            Audit.section_id == cmds.section.id,
            Audit.action == LEAD_REFUSED,
            Audit.actor == cmds.label,
        )
    ).all()
    where = _where(cmds, board)
    found = (json.loads(new) for new in rows if new)
    return {str(d.get("entry_id")) for d in found if all(d.get(k) == v for k, v in where.items())}


def record_lead(
    cmds: TableContext, action: str, board: int, entry_id: str, values: dict[str, object]
) -> None:
    """Audit a refused (or flagged) lead: in the audit trail, counted per table and board."""
    audit.record(
        cmds.s,
        actor=cmds.label,
        action=action,
        section_id=cmds.section.id,
        new={**_where(cmds, board), "entry_id": entry_id, **values},
        reason=f"lead not in the leader's hand on board {board}",
    )
