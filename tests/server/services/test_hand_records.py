"""Hand records loaded into a running section (server/services/event/hand_records.py): each deal on
the board of its number and audited, boards the section does not play named, another deal never
overwritten unless the TD replaces it, and in strict mode a file with a refused board stores
nothing (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlmodel import Session, col, select

from server.core.errors import ConflictError, InvalidError
from server.core.models import Audit, Board, Section
from server.services.event import hand_records
from server.services.event.event_wizard import HandRecords
from tests.support.api import Club
from tests.support.deals import DEAL, OTHER


def _load(club: Club, hands: HandRecords, *, strict: bool = False, replace: bool = False) -> Any:
    with Session(club.engine) as s:
        section = s.get(Section, club.section_id)
        assert section is not None
        loaded = hand_records.load(s, section, hands, strict=strict, replace=replace)
        s.commit()
        return loaded


def _deals(club: Club) -> dict[int, str]:
    with Session(club.engine) as s:
        boards = s.exec(select(Board).where(Board.section_id == club.section_id)).all()
        return {b.number: b.deal for b in boards if b.deal is not None}


def _set(club: Club) -> list[tuple[object, object]]:
    with Session(club.engine) as s:
        rows = s.exec(select(Audit).where(Audit.action == "deal_set").order_by(col(Audit.id)))
        return [(json.loads(a.old or "null"), json.loads(a.new or "null")) for a in rows]


def test_deals_go_on_their_boards_audited_and_strays_are_named(club: Club) -> None:
    loaded = _load(club, HandRecords({1: DEAL, 2: OTHER, 99: DEAL}))
    assert loaded == hand_records.Loaded(read=3, stored=2, refused=(), not_in_section=(99,))
    assert _deals(club) == {1: DEAL, 2: OTHER}
    assert _set(club) == [(None, {"board": 1, "deal": DEAL}), (None, {"board": 2, "deal": OTHER})]
    again = _load(club, HandRecords({1: DEAL}))  # the same deal: left as it is
    assert (again.read, again.stored) == (1, 0)
    assert len(_set(club)) == 2


def test_another_deal_is_refused_unless_replaced_and_the_replaced_one_audited(club: Club) -> None:
    _load(club, HandRecords({1: DEAL}))
    with pytest.raises(ConflictError) as refused:
        _load(club, HandRecords({1: OTHER, 2: OTHER}))
    assert refused.value.code == "deals_already_set"
    assert "Boards 1 " in refused.value.message
    assert _deals(club) == {1: DEAL}  # nothing stored, not even board 2
    loaded = _load(club, HandRecords({1: OTHER}), replace=True)
    assert loaded.stored == 1
    assert _deals(club) == {1: OTHER}
    assert _set(club)[-1] == ({"board": 1, "deal": DEAL}, {"board": 1, "deal": OTHER})


def test_strict_mode_stores_nothing_of_a_file_with_a_refused_board(club: Club) -> None:
    hands = HandRecords({1: DEAL}, refused=("line 9: board 2: not a deal",))
    with pytest.raises(InvalidError) as refused:
        _load(club, hands, strict=True)
    assert refused.value.code == "hand_records_refused"
    assert "1 read, 1 refused: line 9: board 2: not a deal" in refused.value.message
    assert _deals(club) == {}
    loaded = _load(club, hands)  # not strict: the readable deals are stored, the refusal told
    assert (loaded.stored, loaded.refused) == (1, ("line 9: board 2: not a deal",))
    assert _deals(club) == {1: DEAL}
