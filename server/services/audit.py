"""The audit trail: one row for every change to a result and every TD action."""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import Session, col, select

from server.models import Audit, Result, Section
from server.services.deadlines import change_deadline


def snapshot(result: Result) -> dict[str, Any]:
    """The auditable fields of a result, as plain data."""
    return {
        "state": result.state,
        "contract": result.contract,
        "declarer": result.declarer,
        "tricks": result.tricks,
        "lead": result.lead,
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


def trail(session: Session, result_id: int) -> list[Audit]:
    """Every audit row of one result, oldest first."""
    stmt = select(Audit).where(Audit.result_id == result_id).order_by(col(Audit.id))
    return list(session.exec(stmt))
