"""The scoring program's sessions: finding them, their sections, and the JSON each one keeps."""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import Session, col, select

from server.core.models import DcSession, Event, Section
from server.dataconnector.wire import DcError, ErrorType


def find_session(session: Session, guid: str) -> DcSession:
    """The session with this guid, or the protocol's EntryUnknown answer."""
    row = session.exec(select(DcSession).where(DcSession.session_guid == guid)).first()
    if row is None:
        raise DcError(
            ErrorType.ENTRY_UNKNOWN,
            f"There is no session {guid!r}: initialize the event first (InitializeEvent).",
        )
    return row


def event_of(session: Session, dcs: DcSession) -> Event:
    """The Traveller event the session fills."""
    event = session.get(Event, dcs.event_id)
    assert event is not None
    return event


def sections_of(session: Session, dcs: DcSession) -> list[Section]:
    """The Traveller sections of the session, by letters."""
    stmt = (
        select(Section)
        .where(Section.event_id == dcs.event_id, Section.session_number == dcs.session_number)
        .order_by(col(Section.letter))
    )
    return list(session.exec(stmt))


def section_of(session: Session, dcs: DcSession, letters: str) -> Section:
    """The session's section with these letters, or the protocol's Movement answer."""
    for section in sections_of(session, dcs):
        if section.letter == letters:
            return section
    raise DcError(ErrorType.MOVEMENT, f"Session {dcs.session_guid} has no section {letters!r}.")


def load(dcs: DcSession) -> dict[str, Any]:
    """What the session keeps beyond Traveller's columns (scoring groups, sections, settings)."""
    return dcs.kept()


def save(session: Session, dcs: DcSession, data: dict[str, Any]) -> None:
    """Store the session's JSON again."""
    dcs.data = json.dumps(data, sort_keys=True)
    session.add(dcs)


def same_session(guids: list[str], dcs: DcSession) -> None:
    """Every DTO of a request belongs to the request's session, or a Validation answer."""
    others = sorted({g for g in guids if g != dcs.session_guid})
    if others:
        raise DcError(
            ErrorType.VALIDATION,
            f"The request is for session {dcs.session_guid} but carries data for {others[0]}.",
        )
