"""An event's settings changed by the TD (server/services/event/event_settings.py): the change is
audited, every section's terminals are told the new settings, and a setting the round view
carries is pushed to each table as a new round; a section with a hand record says so."""

from __future__ import annotations

import json

from sqlmodel import Session, select

from protocol.messages import RoundChanged, SettingsChanged
from server.core.models import Audit, Event, Section
from server.services.event import event_settings
from tests.support.api import Club
from tests.support.deals import DEAL, put_deal


def _event_and_section(session: Session, club: Club) -> tuple[Event, Section]:
    event, section = session.get(Event, club.event_id), session.get(Section, club.section_id)
    assert event is not None
    assert section is not None
    return event, section


def test_a_section_has_deals_once_a_board_has_its_hand_record(club: Club) -> None:
    with Session(club.engine) as s:
        event, section = _event_and_section(s, club)
        assert event_settings.has_deals(s, section) is False
        assert event_settings.table_settings(s, event, section).hand_records is False
    put_deal(club.engine, 2, DEAL)
    with Session(club.engine) as s:
        event, section = _event_and_section(s, club)
        assert event_settings.has_deals(s, section) is True
        assert event_settings.table_settings(s, event, section).hand_records is True


def test_a_change_is_audited_and_told_to_the_section_not_pushed_as_a_round(club: Club) -> None:
    with Session(club.engine) as s:
        event, _section = _event_and_section(s, club)
        before = event.show_ranking
        changed, pushes = event_settings.update_event(s, event, {"show_ranking": not before})
        s.commit()
        assert changed.show_ranking is (not before)
        assert [(p.section_id, p.table) for p in pushes] == [(club.section_id, None)]
        (told,) = pushes
        assert isinstance(told.message, SettingsChanged)
        assert told.message.settings.show_ranking is (not before)
    with Session(club.engine) as s:
        (row,) = s.exec(select(Audit).where(Audit.action == "event_settings")).all()
        assert json.loads(row.old or "{}") == {"show_ranking": before}
        assert json.loads(row.new or "{}") == {"show_ranking": not before}
        stored = s.get(Event, club.event_id)
        assert stored is not None
        assert stored.show_ranking is (not before)


def test_a_setting_of_the_round_view_is_pushed_to_every_table_as_its_round(club: Club) -> None:
    tables = [club.pair(n) for n in (1, 2, 3)]  # paired: the section's tables exist
    club.start_round(1)
    with Session(club.engine) as s:
        event, _section = _event_and_section(s, club)
        _changed, pushes = event_settings.update_event(s, event, {"lead_required": True})
        s.commit()
    rounds = [p for p in pushes if isinstance(p.message, RoundChanged)]
    assert {p.table for p in rounds} >= {t.number for t in tables}
    assert all(p.message.round.lead_required is True for p in rounds)  # type: ignore[attr-defined]
    assert sum(isinstance(p.message, SettingsChanged) for p in pushes) == 1
    assert tables[0].round()["lead_required"] is True
