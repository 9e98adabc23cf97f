"""Publishing results (provisional or final) and the correction deadline (Law 79C, § X79)."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import Session

from server.errors import InvalidError
from server.models import Section, utcnow
from server.services import audit

#: § X79: scoring errors may be corrected for 72 hours per playing day after publication.
DEFAULT_CORRECTION_HOURS = 72
#: § X79: a shorter provisional deadline at the prize-giving is at least 5 minutes.
MIN_PROVISIONAL_MINUTES = 5
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
    or ``hours``, or a short provisional deadline of ``minutes`` (at least 5)."""
    if status not in STATES:
        raise InvalidError("invalid_status", f"Results are live, provisional or final: {status}?")
    now = now or utcnow()
    old = {
        "publication": section.publication,
        "corrections_until": _iso(section.corrections_until),
    }
    if status == "live":
        section.published_at = section.corrections_until = None
    else:
        if minutes is not None and minutes < MIN_PROVISIONAL_MINUTES:
            raise InvalidError(
                "deadline_too_short",
                f"A provisional deadline is at least {MIN_PROVISIONAL_MINUTES} minutes (§ X79).",
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
    section.publication = status
    session.add(section)
    audit.record(
        session,
        actor="td",
        action="published",
        section_id=section.id,
        old=old,
        new={"publication": status, "corrections_until": _iso(section.corrections_until)},
    )


def corrections_open(section: Section, now: datetime | None = None) -> bool:
    """Whether scoring errors can still be corrected (§ X79)."""
    if section.corrections_until is None:
        return section.publication != "final"
    return (now or utcnow()) < section.corrections_until


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None
