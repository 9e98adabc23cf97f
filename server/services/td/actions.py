"""The TD's actions: start and close rounds, read every table's state, settle and edit results."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict, Field
from sqlmodel import Session, col, select

from protocol import board_rules as rules
from protocol.messages import COMPLETE_STATES, EntryValues, ResultState, RoundChanged
from server.core.errors import ConflictError, InvalidError, NotFoundError
from server.core.models import (
    Event,
    ReceivedEntry,
    Result,
    Section,
    TableToken,
    TDCall,
    utcnow,
)
from server.services import audit, deadlines, generations
from server.services.entries import apply_values, checked_entry, conflict_call_reason
from server.services.event.setup import get_section, tables_of
from server.services.glance.dashboard import ONLINE_SECONDS, entry_values
from server.services.outcomes import Push, changed
from server.services.results.adjusted import Adjustment, artificial
from server.services.views import assignment, results_at, round_infos


def start_round(session: Session, section: Section, round_: int) -> list[Push]:
    """Release round ``round_``. Tables not yet playing (round 0) move straight to round 1;
    the others move when their terminal says their round is complete (§ 262C)."""
    if round_ != section.current_round + 1:
        raise ConflictError(
            "round_order",
            "Section {letter} is at round {current_round}: the next round to start is "
            "{current_round2}.",
            letter=section.letter,
            current_round=section.current_round,
            current_round2=section.current_round + 1,
        )
    if round_ > section.rounds:
        raise ConflictError(
            "last_round",
            "Section {letter} has only {rounds} rounds.",
            letter=section.letter,
            rounds=section.rounds,
        )
    section.current_round = round_
    section.round_started_at = utcnow()
    session.add(section)
    event = session.get(Event, section.event_id)
    assert event is not None
    tables = tables_of(session, section)
    for table in tables:
        if table.round == 0:
            table.round = 1
            table.round_entered_at = utcnow()
            session.add(table)
    infos = round_infos(session, event, section, tables)  # read for every table at once
    pushes = [
        Push(section.id or 0, table.number, RoundChanged(round=infos[table.number]))
        for table in tables
    ]
    audit.record(
        session, actor="td", action="round_started", section_id=section.id, new={"round": round_}
    )
    return pushes


def close_round(session: Session, section: Section, round_: int) -> list[Push]:
    """Close rounds up to ``round_`` to table entries; the TD can still edit their results."""
    if round_ > section.current_round:
        raise ConflictError("round_not_started", "Round {round} has not started yet.", round=round_)
    section.closed_rounds = max(section.closed_rounds, round_)
    session.add(section)
    audit.record(
        session, actor="td", action="round_closed", section_id=section.id, new={"round": round_}
    )
    event = session.get(Event, section.event_id)
    assert event is not None
    tables = [t for t in tables_of(session, section) if t.round <= round_]
    infos = round_infos(session, event, section, tables)
    return [Push(section.id or 0, t.number, RoundChanged(round=infos[t.number])) for t in tables]


class TableState(BaseModel):
    """One table at a glance: its round and how many boards are in each state (the API sends
    it as ``TableStatePublic``)."""

    model_config = ConfigDict(frozen=True)
    table: int
    round: int
    boards: int
    missing: int
    entered: int
    confirmed: int
    conflict: int
    td_pending: int
    complete: bool
    terminals_online: int
    last_seen: str | None
    queued: int = Field(
        default=0, description="Commands waiting in the table's terminals, as last reported."
    )


def section_state(
    session: Session,
    section: Section,
    *,
    connected: Mapping[int, int] | None = None,
    now: datetime | None = None,
) -> list[TableState]:
    """Every table's round and boards; ``terminals_online`` counts its devices online as the
    dashboard's dot says (``connected``: each table's live terminal sockets, or a device heard
    from within ``ONLINE_SECONDS``), not the devices paired."""
    connected = connected or {}
    recent = (now or utcnow()) - timedelta(seconds=ONLINE_SECONDS)
    out = []
    for table in tables_of(session, section):
        row = assignment(session, section, table.number, table.round) if table.round else None
        boards = row.board_numbers() if row else []
        results = [
            r for r in results_at(session, section, table.number, table.round) if r.board in boards
        ]
        states = [r.state for r in results]
        tokens = session.exec(
            select(TableToken).where(TableToken.table_id == table.id, TableToken.revoked_at == None)  # noqa: E711
        ).all()
        seen = [t.last_seen for t in tokens if t.last_seen is not None]
        done = sum(1 for s in states if s in COMPLETE_STATES)
        out.append(
            TableState(
                table=table.number,
                round=table.round,
                boards=len(boards),
                missing=len(boards) - len(results) + states.count(ResultState.REJECTED),
                entered=states.count(ResultState.ENTERED),
                confirmed=states.count(ResultState.CONFIRMED),
                conflict=states.count(ResultState.CONFLICT),
                td_pending=states.count(ResultState.TD_PENDING),
                complete=row is not None and done == len(boards),
                terminals_online=max(
                    connected.get(table.number, 0),
                    sum(1 for t in tokens if t.last_seen is not None and t.last_seen >= recent),
                ),
                last_seen=max(seen).isoformat() if seen else None,
                queued=sum(t.queued or 0 for t in tokens),
            )
        )
    return out


def pairing_codes(session: Session, section: Section) -> dict[int, str]:
    return {t.number: t.pairing_code for t in tables_of(session, section)}


def open_calls(session: Session, section: Section) -> list[TDCall]:
    stmt = (
        select(TDCall)
        .where(TDCall.section_id == section.id, TDCall.acknowledged_at == None)  # noqa: E711
        .order_by(col(TDCall.id))
    )
    return list(session.exec(stmt))


def conflicting_entries(session: Session, result: Result) -> list[dict[str, object]]:
    """The entries a table sent for this board, oldest first (the TD chooses among them)."""
    rows = session.exec(
        select(ReceivedEntry)
        .where(ReceivedEntry.result_id == result.id, ReceivedEntry.kind == "enter_result")
        .order_by(col(ReceivedEntry.id))
    ).all()
    return [{"entry_id": r.entry_id, "command": json.loads(r.request)} for r in rows]


def set_result(
    session: Session,
    *,
    result: Result,
    values: EntryValues,
    reason: str,
    actor: str = "td",
    ruling_in_time: bool = False,
    lead_optional: bool = False,
) -> list[Push]:
    """The TD (or ``actor``) enters or changes a result (also how a conflict is resolved).
    ``lead_optional``: no lead is asked for even when the event asks the tables for one (a
    scoring program's correction: the Data Connector makes the lead optional)."""
    if not reason.strip():
        raise InvalidError(
            "reason_required", "Give a reason for the change; it goes into the audit trail."
        )
    _check_deadline(session, result, ruling_in_time)
    event = _event_of(session, result.section_id)
    checked = checked_entry(
        session,
        event,
        result.section_id,
        result.board,
        values,
        lead_required=event.lead_required and not lead_optional,
        auction_required=False,
    )
    if values.alerts is None and checked.auction and checked.auction == result.auction:
        # The TD's form keys no explanations: the table's stay with the auction it keeps.
        checked = replace(checked, alerts=result.alerts)
    old = audit.snapshot(result)
    apply_values(result, checked)
    result.state = rules.td_set_result().state
    result.adjusted = None
    result.ruling_pending = False
    result.conflict_entry_id = None
    result.confirmed_by = actor
    result.confirmed_at = utcnow()
    return _td_save(session, result, "td_set_result", old, reason, actor)


def adjust(
    session: Session,
    *,
    result: Result,
    ns_percent: int,
    ew_percent: int,
    reason: str,
    actor: str = "td",
    ruling_in_time: bool = False,
) -> list[Push]:
    """An artificial adjusted score (Ave+ 60, Ave 50, Ave- 40, or any split, Law 12C)."""
    return adjust_score(
        session,
        result=result,
        adjustment=artificial(ns_percent, ew_percent),
        reason=reason,
        actor=actor,
        ruling_in_time=ruling_in_time,
    )


def adjust_score(
    session: Session,
    *,
    result: Result,
    adjustment: Adjustment,
    reason: str,
    actor: str = "td",
    ruling_in_time: bool = False,
) -> list[Push]:
    """Any adjusted score (Law 12C): artificial, assigned, weighted (§ X78A1) or unbalanced
    (§ X78A2). The table's own entry stays in the row (and in the audit trail)."""
    if not reason.strip():
        raise InvalidError("reason_required", "Give a reason for the adjusted score.")
    _check_deadline(session, result, ruling_in_time)
    old = audit.snapshot(result)
    result.state = rules.td_adjusted().state
    result.adjusted = adjustment.text
    result.conflict_entry_id = None
    return _td_save(session, result, "td_adjusted", old, reason, actor)


def mark_not_played(
    session: Session,
    *,
    result: Result,
    reason: str,
    actor: str = "td",
    ruling_in_time: bool = False,
) -> list[Push]:
    if not reason.strip():
        raise InvalidError("reason_required", "Give a reason for marking the board not played.")
    _check_deadline(session, result, ruling_in_time)
    old = audit.snapshot(result)
    result.state = rules.td_not_played().state
    result.conflict_entry_id = None
    return _td_save(session, result, "td_not_played", old, reason, actor)


def board_result(
    session: Session, section: Section, table_number: int, round_: int, board: int
) -> Result:
    """The result row for a board at a table in a round, created empty if it has none (so the
    TD can settle a board that was never entered). The table's lock is taken first: a table
    command on another worker changing the board at the same moment is then made before
    this change or after it, never beside it."""
    generations.lock_tables(session, [(section.id or 0, table_number)])
    row = assignment(session, section, table_number, round_)
    if row is None or board not in row.board_numbers():
        raise NotFoundError(
            "board_not_in_round",
            "Board {board} is not played at table {table_number} in round {round}.",
            board=board,
            table_number=table_number,
            round=round_,
        )
    result = session.exec(
        select(Result).where(
            Result.section_id == section.id,
            Result.table_number == table_number,
            Result.round == round_,
            Result.board == board,
        )
    ).first()
    if result is None:
        result = Result(
            section_id=section.id or 0,
            table_number=table_number,
            round=round_,
            board=board,
            ns_pair_id=row.ns_pair_id,
            ew_pair_id=row.ew_pair_id,
            state=ResultState.REJECTED,  # nothing valid yet; the TD's action sets the real state
            version=0,
        )
        session.add(result)
        session.flush()
    return result


def _check_deadline(session: Session, result: Result, ruling_in_time: bool) -> None:
    section = get_section(session, result.section_id)
    deadlines.check_open(session, section, result, ruling_in_time=ruling_in_time)


def _event_of(session: Session, section_id: int) -> Event:
    section = get_section(session, section_id)
    event = session.get(Event, section.event_id)
    assert event is not None
    return event


def _td_save(
    session: Session,
    result: Result,
    action: str,
    old: dict[str, object],
    reason: str,
    actor: str = "td",
) -> list[Push]:
    result.version += 1
    result.updated_at = utcnow()
    session.add(result)
    session.flush()
    audit.record(
        session,
        actor=actor,
        action=action,
        section_id=result.section_id,
        result=result,
        old=old,
        new=audit.snapshot(result),
        reason=reason,
    )
    if rules.closes_conflict(str(old.get("state")), result.state):
        close_conflict_calls(session, result)
    return changed(result)


def close_conflict_calls(session: Session, result: Result) -> list[TDCall]:
    """Acknowledge the open calls a conflict on this board raised: once the TD has settled the
    board there is nothing left to come to the table for. Other calls stay open."""
    stmt = select(TDCall).where(
        TDCall.section_id == result.section_id,
        TDCall.table_number == result.table_number,
        TDCall.reason == conflict_call_reason(result.board),
        TDCall.acknowledged_at == None,  # noqa: E711
    )
    closed = list(session.exec(stmt))
    for call in closed:
        call.acknowledged_at = utcnow()
        session.add(call)
    return closed


def calls_waiting(session: Session) -> dict[int, int]:
    """Open TD calls by section, across every event (the alert on each TD page)."""
    waiting: dict[int, int] = {}
    stmt = select(TDCall.section_id).where(TDCall.acknowledged_at == None)  # noqa: E711
    for section_id in session.exec(stmt):
        waiting[section_id] = waiting.get(section_id, 0) + 1
    return waiting


def acknowledge_call(session: Session, call_id: int) -> TDCall:
    call = session.get(TDCall, call_id)
    if call is None:
        raise NotFoundError("unknown_call", "There is no TD call {call_id}.", call_id=call_id)
    call.acknowledged_at = call.acknowledged_at or utcnow()
    session.add(call)
    return call


def all_results(session: Session, section: Section) -> list[Result]:
    stmt = (
        select(Result)
        .where(Result.section_id == section.id)
        .order_by(col(Result.round), col(Result.table_number), col(Result.board))
    )
    return list(session.exec(stmt))


def choose_entry(session: Session, *, result: Result, entry_id: str, reason: str) -> list[Push]:
    """Resolve a conflict by choosing one of the entries the table sent (``unknown_entry``
    for an id the board never had); set and audited as any TD change."""
    values = EntryValues.model_validate(entry_values(session, result, entry_id))
    return set_result(session, result=result, values=values, reason=reason)


def settle(
    section_id: int,
    table: int,
    round_: int,
    board: int,
    action: Callable[[Session, Result], list[Push]],
) -> Callable[[Session], list[Push]]:
    """The TD's action on one board at one table, as a unit of work for ``transact`` (the
    result row is made if the board has none yet). The API and the web pages both use it."""

    def work(session: Session) -> list[Push]:
        section = get_section(session, section_id)
        return action(session, board_result(session, section, table, round_, board))

    return work
