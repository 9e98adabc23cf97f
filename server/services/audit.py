"""The audit trail: one row for every change to a result and every TD action."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session, SQLModel, col, select

from server.core.models import Audit, Result, Section, utcnow
from server.services import commit_rows
from server.services.deadlines import change_deadline

#: The audit row as one Core INSERT, built once (every audit row is written with it).
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
        "alerts": result.alerts,
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
    result_id: int | None = None,
    section: Section | None = None,
    old: dict[str, Any] | None = None,
    new: dict[str, Any] | None = None,
    reason: str = "",
    at_commit: bool = False,
) -> None:
    """Write an audit row in the caller's transaction (it commits or rolls back with the change):
    the one way an audit row is written, for the TD and the tables alike, as one Core INSERT
    with no ORM object to build and flush (the row is in the database at once, in call order).

    ``result`` (or its ``result_id``, the table commands' way) names the changed result, which
    is in the database already. A change to a result after the results were published carries
    its own correction deadline (§ X79); ``section``, when the caller holds it, saves its read.
    ``at_commit``: a table command's row, which nothing reads back in its transaction, written
    at the commit with the group commit's others (server.services.commit_rows).
    """
    at = utcnow()
    about_result = result is not None or result_id is not None
    if result is not None:
        result_id = result.id
    corrections_until = None
    if about_result and section_id is not None:
        if section is None or section.id != section_id:
            section = session.get(Section, section_id)
        if section is not None:
            corrections_until = change_deadline(section, at)
    commit_rows.write(
        session,
        _INSERT,
        {
            "at": at,
            "actor": actor,
            "action": action,
            "section_id": section_id,
            "result_id": result_id,
            "old": json.dumps(old, sort_keys=True) if old is not None else None,
            "new": json.dumps(new, sort_keys=True) if new is not None else None,
            "reason": reason,
            "corrections_until": corrections_until,
        },
        at_once=not at_commit,
    )


def trail(session: Session, result_id: int) -> list[Audit]:
    """Every audit row of one result, oldest first."""
    stmt = select(Audit).where(Audit.result_id == result_id).order_by(col(Audit.id))
    return list(session.exec(stmt))
