"""The TD's round control beyond start and close: what to ask before starting or closing a
round, round time, the end-of-round gate, devices."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, col, select

from protocol.messages import COMPLETE_STATES, RoundChanged
from server.core.errors import ConflictError, InvalidError, NotFoundError
from server.core.models import (
    BridgeTable,
    Event,
    MovementAssignment,
    Result,
    Section,
    TableToken,
    utcnow,
)
from server.services import audit, generations
from server.services.event.setup import find_table, tables_of
from server.services.outcomes import Push
from server.services.td.actions import section_state, start_round
from server.services.tokens import new_pairing_code, revoke_table_tokens
from server.services.views import round_info

MAX_ROUND_MINUTES = 240


def locked_table(session: Session, section: Section, number: int) -> BridgeTable:
    """The table, read once its lock is held: a command of the table on another worker at
    the same moment is then made before this change or after it, never beside it."""
    generations.lock_tables(session, [(section.id or 0, number)])
    return find_table(session, section, number)


@dataclass(frozen=True)
class TableBehind:
    """A table still playing an earlier round than the one the TD is about to start."""

    table: int
    round: int
    missing: int  # boards of its round without a finished result


@dataclass(frozen=True)
class Unsettled:
    """A board of a started round with no finished result: missing, unconfirmed or in
    conflict (§ 262)."""

    table: int
    round: int
    board: int
    state: str  # "missing", "entered" or "conflict"


def tables_behind(session: Session, section: Section, round_: int) -> list[TableBehind]:
    """The tables still in round ``round_ - 1`` (or earlier) with boards unfinished: starting
    ``round_`` now asks first. None before round 2."""
    if round_ < 2:
        return []
    return [
        TableBehind(t.table, t.round, t.missing + t.entered + t.conflict)
        for t in section_state(session, section)
        if t.round < round_ - 1 or (t.round == round_ - 1 and not t.complete)
    ]


def start_round_once(session: Session, section: Section, round_: int) -> list[Push]:
    """Start round ``round_`` unless it has started already: a second, identical request (a
    double click) is refused and changes nothing, so it never starts the round after."""
    if round_ <= section.current_round:
        raise ConflictError(
            "round_already_started",
            "Round {round} has already started: nothing was changed.",
            round=round_,
        )
    return start_round(session, section, round_)


def reopen_round(session: Session, section: Section, round_: int) -> list[Push]:
    """Undo closing round ``round_`` (the last one closed): its tables may enter results again.
    The TD could change them all along; this only gives the tables back their entry."""
    if round_ < 1 or round_ != section.closed_rounds:
        raise ConflictError(
            "round_not_closed",
            "Round {round} is not the last round closed: only that one can be reopened.",
            round=round_,
        )
    section.closed_rounds = round_ - 1
    session.add(section)
    audit.record(
        session, actor="td", action="round_reopened", section_id=section.id, new={"round": round_}
    )
    event = session.get(Event, section.event_id)
    assert event is not None
    return [
        Push(section.id or 0, t.number, RoundChanged(round=round_info(session, event, section, t)))
        for t in tables_of(session, section)
        if t.round == round_
    ]


def unsettled(session: Session, section: Section, *, up_to: int | None = None) -> list[Unsettled]:
    """The boards of the started rounds (up to round ``up_to``) at tables with both pairs
    seated that have no finished result, in round, table, board order."""
    last = section.current_round if up_to is None else min(up_to, section.current_round)
    rows = session.exec(
        select(MovementAssignment)
        .where(MovementAssignment.section_id == section.id, MovementAssignment.round <= last)
        .order_by(col(MovementAssignment.round), col(MovementAssignment.table_number))
    ).all()
    states = {
        (r.table_number, r.round, r.board): r.state
        for r in session.exec(select(Result).where(Result.section_id == section.id))
    }
    out = []
    for row in rows:
        for board in row.board_numbers():
            state = states.get((row.table_number, row.round, board), "missing")
            if state not in COMPLETE_STATES:
                shown = "missing" if state == "rejected" else state
                out.append(Unsettled(row.table_number, row.round, board, shown))
    return out


def set_round_time(session: Session, section: Section, minutes: int | None) -> None:
    """Set (or clear, with None) the time a round should take; later tables show as late."""
    if minutes is not None and not 1 <= minutes <= MAX_ROUND_MINUTES:
        raise InvalidError(
            "invalid_round_time",
            "A round takes 1 to {MAX_ROUND_MINUTES} minutes, not {minutes}.",
            MAX_ROUND_MINUTES=MAX_ROUND_MINUTES,
            minutes=minutes,
        )
    old = {"round_minutes": section.round_minutes}
    section.round_minutes = minutes
    session.add(section)
    audit.record(
        session,
        actor="td",
        action="round_time",
        section_id=section.id,
        old=old,
        new={"round_minutes": minutes},
    )


def release_table(session: Session, section: Section, number: int, reason: str) -> list[Push]:
    """Override a table's end-of-round gate (§ 262C): move it to the next started round even
    though boards are missing. The missing boards stay on the TD's list."""
    if not reason.strip():
        raise InvalidError("reason_required", "Give a reason for moving the table on.")
    table = locked_table(session, section, number)
    if table.round >= section.current_round:
        raise ConflictError(
            "next_round_not_released",
            "Table {number} is on round {round}: start round {round2} first.",
            number=number,
            round=table.round,
            round2=table.round + 1,
        )
    old = {"table": number, "round": table.round}
    table.round += 1
    table.round_entered_at = utcnow()
    session.add(table)
    audit.record(
        session,
        actor="td",
        action="gate_override",
        section_id=section.id,
        old=old,
        new={"table": number, "round": table.round},
        reason=reason,
    )
    event = session.get(Event, section.event_id)
    assert event is not None
    info = round_info(session, event, section, table)
    return [Push(section.id or 0, table.number, RoundChanged(round=info))]


def move_to_new_device(session: Session, section: Section, number: int) -> str:
    """Withdraw every terminal of a table and give it a fresh pairing code. Returns the code."""
    table = locked_table(session, section, number)
    revoked = revoke_table_tokens(session, table)
    table.pairing_code = new_pairing_code(session)
    session.add(table)
    audit.record(
        session,
        actor="td",
        action="table_new_device",
        section_id=section.id,
        new={"table": number, "revoked": revoked},
    )
    return table.pairing_code


def revoke_terminal(session: Session, section: Section, token_id: int) -> None:
    """Withdraw one terminal's pairing (a lost or misbehaving device)."""
    token = session.get(TableToken, token_id)
    table = None
    if token is not None:
        numbers = {t.id: t.number for t in tables_of(session, section)}
        table = numbers.get(token.table_id)
    if token is None or table is None:
        raise NotFoundError(
            "unknown_terminal",
            "There is no terminal {token_id} in this section.",
            token_id=token_id,
        )
    if token.revoked_at is None:
        token.revoked_at = utcnow()
        session.add(token)
        audit.record(
            session,
            actor="td",
            action="terminal_revoked",
            section_id=section.id,
            new={"table": table, "device": token.device},
        )
