"""Correction deadlines (Law 79C, § X79): the section's, and one for every published change.

Scoring errors may be corrected for 72 hours per playing day from the publication of the day's
last section, or until a shorter provisional deadline the TD sets at the prize-giving (at least
5 minutes). A change published after that opens its own deadline - the same period again, from
the change - for the errors it introduced. Past every deadline that covers a result, it changes
only for a ruling or appeal started in time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from server.core.errors import ConflictError
from server.core.models import Audit, Result, Section, utcnow

#: § X79: scoring errors may be corrected for 72 hours per playing day after publication.
DEFAULT_CORRECTION_HOURS = 72
#: § X79: a shorter provisional deadline at the prize-giving is at least 5 minutes.
MIN_PROVISIONAL_MINUTES = 5
PUBLISHED = ("provisional", "final")


def period(section: Section) -> timedelta:
    """The correction period the TD set when publishing (72 hours by default)."""
    if section.correction_minutes:
        return timedelta(minutes=section.correction_minutes)
    return timedelta(hours=DEFAULT_CORRECTION_HOURS)


def change_deadline(section: Section, at: datetime) -> datetime | None:
    """The deadline a change made at ``at`` opens: None while the results are not published
    (a change to live results is not a published change)."""
    if section.publication not in PUBLISHED:
        return None
    return at + period(section)


def result_deadline(session: Session, section: Section, result: Result) -> datetime | None:
    """Until when this result may still be corrected: the section's deadline, or a later one
    opened by a published change to the result (None: no deadline runs yet)."""
    if section.publication not in PUBLISHED or result.id is None:
        return None
    latest = session.exec(
        select(Audit.corrections_until)
        .where(Audit.result_id == result.id, col(Audit.corrections_until).is_not(None))
        .order_by(col(Audit.corrections_until).desc())
    ).first()
    found = [d for d in (section.corrections_until, latest) if d is not None]
    return max(found) if found else None


def check_open(
    session: Session,
    section: Section,
    result: Result,
    *,
    ruling_in_time: bool = False,
    now: datetime | None = None,
) -> None:
    """Refuse a change after every deadline covering the result, unless it carries out a
    ruling or appeal started in time (§ X79, Law 79C)."""
    deadline = result_deadline(session, section, result)
    if deadline is None or ruling_in_time or (now or utcnow()) < deadline:
        return
    raise ConflictError(
        "corrections_closed",
        "The correction period for board {board} at table {table_number} ended "
        "{deadline} UTC (§ X79). Change it only for a ruling or appeal started in time, "
        "and say so.",
        board=result.board,
        table_number=result.table_number,
        deadline=format(deadline, "%Y-%m-%d %H:%M"),
    )


@dataclass(frozen=True)
class PublishedChange:
    """A change to a result after publication, and its own correction deadline."""

    board: int
    table: int
    round: int
    at: datetime
    until: datetime
    action: str


def published_changes(session: Session, section: Section) -> list[PublishedChange]:
    """Every change published after the results, newest first, with its deadline."""
    rows = session.exec(
        select(Audit, Result)
        .join(Result, col(Audit.result_id) == col(Result.id))
        .where(Audit.section_id == section.id, col(Audit.corrections_until).is_not(None))
        .order_by(col(Audit.id).desc())
    ).all()
    return [
        PublishedChange(r.board, r.table_number, r.round, a.at, a.corrections_until, a.action)
        for a, r in rows
        if a.corrections_until is not None
    ]


def same_day(session: Session, section: Section) -> list[Section]:
    """The other sections of the same event and playing day (session number)."""
    return list(
        session.exec(
            select(Section).where(
                Section.event_id == section.event_id,
                Section.session_number == section.session_number,
                Section.id != section.id,
            )
        )
    )
