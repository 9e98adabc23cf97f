"""The audit trail: one row for every change to a result and every TD action."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session, SQLModel, col, select

from server.core.models import Audit, Result, Section, utcnow
from server.services.deadlines import change_deadline

#: The audit row as one Core INSERT, built once (the table commands' hot path).
_INSERT = insert(SQLModel.metadata.tables["audit"])


def snapshot(result: Result) -> dict[str, Any]:
    """The auditable fields of a result, as plain data.

    A row made for the TD on a board no table ever entered (version 0, see
    ``td.board_result``) is audited as missing: it was never rejected."""
    return {
        "state": "missing" if result.version == 0 else result.state,
        "contract": result.contract,
        "declarer": result.declarer,
        "tricks": result.tricks,
        "lead": result.lead,
        "auction": result.auction,
        "play": result.play,
        "ns_score": result.ns_score,
        "ruling_pending": result.ruling_pending,
        "adjusted": result.adjusted,
        "version": result.version,
    }


def record(
    session: Session,
    *,
    actor: str,
    action: str,
    section_id: int | None,
    result: Result | None = None,
    old: dict[str, Any] | None = None,
    new: dict[str, Any] | None = None,
    reason: str = "",
) -> Audit:
    """Add an audit row in the caller's transaction (it commits or rolls back with the change).

    A change to a result after the results were published carries its own correction
    deadline (§ X79)."""
    row = Audit(
        actor=actor,
        action=action,
        section_id=section_id,
        result_id=result.id if result is not None else None,
        old=json.dumps(old, sort_keys=True) if old is not None else None,
        new=json.dumps(new, sort_keys=True) if new is not None else None,
        reason=reason,
    )
    if result is not None and section_id is not None:
        section = session.get(Section, section_id)
        if section is not None:
            row.corrections_until = change_deadline(section, row.at)
    session.add(row)
    return row


def record_change(
    session: Session,
    *,
    actor: str,
    action: str,
    section: Section,
    result_id: int,
    old: dict[str, Any] | None,
    new: dict[str, Any],
    reason: str = "",
) -> None:
    """:func:`record` for a change to a result by a table, as one INSERT with no ORM object to
    build and flush: the same row, in the caller's transaction."""
    at = utcnow()
    session.connection().execute(
        _INSERT,
        {
            "at": at,
            "actor": actor,
            "action": action,
            "section_id": section.id,
            "result_id": result_id,
            "old": json.dumps(old, sort_keys=True) if old is not None else None,
            "new": json.dumps(new, sort_keys=True),
            "reason": reason,
            "corrections_until": change_deadline(section, at),
        },
    )


def trail(session: Session, result_id: int) -> list[Audit]:
    """Every audit row of one result, oldest first."""
    stmt = select(Audit).where(Audit.result_id == result_id).order_by(col(Audit.id))
    return list(session.exec(stmt))
