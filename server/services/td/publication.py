"""Publishing results (provisional or final) and the correction deadline (Law 79C, § X79)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlmodel import Session

from server.core.errors import ConflictError, InvalidError
from server.core.models import Section, utcnow
from server.services import audit
from server.services.deadlines import DEFAULT_CORRECTION_HOURS, MIN_PROVISIONAL_MINUTES, same_day

__all__ = [
    "DEFAULT_CORRECTION_HOURS",
    "MIN_PROVISIONAL_MINUTES",
    "asks_first",
    "corrections_open",
    "publish",
]

STATES = ("live", "provisional", "final")


def publish(
    session: Session,
    section: Section,
    *,
    status: str,
    minutes: int | None = None,
    hours: int | None = None,
    now: datetime | None = None,
) -> None:
    """Set the results' status. Publishing opens the correction period: 72 hours by default,
    or ``hours``, or a short provisional deadline of ``minutes`` (at least 5). Going back to
    live un-publishes (an undo), except final results once their period is over. The period runs
    from the publication of the playing day's last section (§ X79), so the day's sections
    already published move to the new deadline if it is later. Changes published from now on
    each open their own deadline of the same period (``server.services.deadlines``)."""
    if status not in STATES:
        raise InvalidError(
            "invalid_status", "Results are live, provisional or final: {given}?", given=status
        )
    now = now or utcnow()
    if status == "live" and section.publication == "final" and not corrections_open(section, now):
        raise ConflictError(
            "corrections_closed",
            "The correction period is over (Law 79C, § X79): final results stay final.",
        )
    old = {
        "publication": section.publication,
        "corrections_until": _iso(section.corrections_until),
    }
    if status == "live":
        section.published_at = section.corrections_until = None
        section.correction_minutes = None
    else:
        if minutes is not None and minutes < MIN_PROVISIONAL_MINUTES:
            raise InvalidError(
                "deadline_too_short",
                "A provisional deadline is at least {MIN_PROVISIONAL_MINUTES} minutes (§ X79).",
                MIN_PROVISIONAL_MINUTES=MIN_PROVISIONAL_MINUTES,
            )
        if hours is not None and not 1 <= hours <= 24 * 30:
            raise InvalidError("invalid_deadline", "Give the correction period in hours (1-720).")
        if minutes is not None:
            period = timedelta(minutes=minutes)
        else:
            period = timedelta(hours=hours or DEFAULT_CORRECTION_HOURS)
        if section.publication == "live" or section.published_at is None:
            section.published_at = now
        section.corrections_until = now + period
        section.correction_minutes = int(period.total_seconds() // 60)
    section.publication = status
    session.add(section)
    if section.corrections_until is not None:
        _same_day_deadline(session, section)
    audit.record(
        session,
        actor="td",
        action="published",
        section_id=section.id,
        old=old,
        new={"publication": status, "corrections_until": _iso(section.corrections_until)},
    )


def _same_day_deadline(session: Session, section: Section) -> None:
    """§ X79: the day's sections published earlier keep open until the new deadline."""
    until = section.corrections_until
    assert until is not None
    for other in same_day(session, section):
        if other.corrections_until is not None and other.corrections_until < until:
            old = {"corrections_until": _iso(other.corrections_until)}
            other.corrections_until = until
            session.add(other)
            audit.record(
                session,
                actor="td",
                action="deadline_moved",
                section_id=other.id,
                old=old,
                new={"corrections_until": _iso(until), "because": f"section {section.letter}"},
                reason="§ X79: the period runs from the publication of the day's last section",
            )


def asks_first(publication: str, status: str, unsettled: Sequence[object]) -> bool:
    """Whether the TD confirms before publishing ``status`` over ``publication`` (the
    section's now): publishing with boards unsettled (missing, unconfirmed, in conflict), or
    taking published results back to live (the public then sees only the boards every table
    has finished)."""
    if status == "live":
        return publication != "live"
    return bool(unsettled)


def corrections_open(section: Section, now: datetime | None = None) -> bool:
    """Whether scoring errors can still be corrected (§ X79)."""
    if section.corrections_until is None:
        return section.publication != "final"
    return (now or utcnow()) < section.corrections_until


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None
