"""An event's settings: what the terminals show beyond § 262 entry, and the TD changing them."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from protocol.messages import (
    RoundChanged,
    SettingsChanged,
    TableSettings,
)
from server.core.models import Board, Event, Section
from server.services import audit
from server.services.event.setup import tables_of
from server.services.outcomes import Push
from server.services.views import round_info

#: Settings a terminal reads from RoundInfo: a change is pushed as a new round to every table.
ROUND_FIELDS = frozenset({"lead_required", "tricks_style", "confirm_pin_required", "deal_entry"})


def has_deals(session: Session, section: Section) -> bool:
    """Whether any board of the section has a hand record."""
    found = session.exec(
        select(Board.id).where(Board.section_id == section.id, col(Board.deal).is_not(None))
    ).first()
    return found is not None


def table_settings(session: Session, event: Event, section: Section) -> TableSettings:
    """The settings a terminal of this section works with."""
    return TableSettings(
        after_confirm=event.after_confirm,
        show_ranking=event.show_ranking,
        player_numbers=event.player_numbers,
        hand_records=has_deals(session, section),
        auction_entry=event.auction_entry,
        play_entry=event.play_entry,
        deal_entry=event.deal_entry,
    )


def update_event(
    session: Session, event: Event, changes: dict[str, Any]
) -> tuple[Event, list[Push]]:
    """Apply the TD's changes (audited) and tell every terminal of the event's sections."""
    old = {key: getattr(event, key) for key in changes}
    for key, value in changes.items():
        setattr(event, key, value)
    session.add(event)
    session.flush()
    audit.record(
        session, actor="td", action="event_settings", section_id=None, old=old, new=changes
    )
    pushes: list[Push] = []
    sections = session.exec(select(Section).where(Section.event_id == event.id)).all()
    for section in sections:
        sid = section.id or 0
        settings = table_settings(session, event, section)
        pushes.append(Push(sid, None, SettingsChanged(settings=settings)))
        if ROUND_FIELDS & changes.keys():
            for table in tables_of(session, section):
                info = round_info(session, event, section, table)
                pushes.append(Push(sid, table.number, RoundChanged(round=info)))
    return event, pushes
