"""A pair's handicap set by the TD (server/services/event/handicaps.py): typed text stored in its
exact decimal form, a blank clears it, bad text refused with the pair named and nothing stored, an
unchanged handicap neither written nor audited (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from sqlmodel import Session, col, select

from server.core.errors import InvalidError
from server.core.models import Audit, Pair, Section
from server.services.event import handicaps
from tests.support.api import Club


def _pair_one(session: Session, club: Club) -> tuple[Section, Pair]:
    section = session.get(Section, club.section_id)
    assert section is not None
    pair = session.exec(
        select(Pair).where(Pair.section_id == club.section_id).order_by(col(Pair.id))
    ).first()
    assert pair is not None
    return section, pair


def _audited(session: Session) -> list[tuple[dict[str, str], dict[str, str]]]:
    rows = session.exec(
        select(Audit).where(Audit.action == "pair_handicap").order_by(col(Audit.id))
    ).all()
    return [(json.loads(a.old or "{}"), json.loads(a.new or "{}")) for a in rows]


@pytest.mark.parametrize(
    ("typed", "stored"), [("2.5", "2.5"), (" -1 ", "-1"), ("+3", "3"), ("", None), (None, None)]
)
def test_typed_text_is_kept_in_its_exact_decimal_form(
    typed: str | None, stored: str | None
) -> None:
    assert handicaps.parse(typed, "3NS") == stored


@pytest.mark.parametrize("typed", ["two", "101", "2,5x"])
def test_bad_text_is_refused_with_the_pair_named(typed: str) -> None:
    with pytest.raises(InvalidError) as refused:
        handicaps.parse(typed, "3NS")
    assert refused.value.code == "invalid_handicap"
    assert "Pair 3NS" in refused.value.message


def test_set_change_and_clear_are_audited_and_an_unchanged_one_is_not(club: Club) -> None:
    with Session(club.engine) as s:
        section, pair = _pair_one(s, club)
        label = f"{pair.number}{pair.direction or ''}"
        assert handicaps.set_handicap(s, section, pair, "2.5") is True
        assert handicaps.set_handicap(s, section, pair, "2.5") is False  # unchanged
        assert handicaps.value(pair) == Fraction(5, 2)
        assert handicaps.set_handicap(s, section, pair, "-1") is True
        assert handicaps.set_handicap(s, section, pair, " ") is True  # cleared
        s.commit()
    with Session(club.engine) as s:
        section, pair = _pair_one(s, club)
        assert pair.handicap is None
        assert handicaps.value(pair) is None
        assert _audited(s) == [
            ({"pair": label, "handicap": None}, {"pair": label, "handicap": "2.5"}),
            ({"pair": label, "handicap": "2.5"}, {"pair": label, "handicap": "-1"}),
            ({"pair": label, "handicap": "-1"}, {"pair": label, "handicap": None}),
        ]


def test_a_refused_handicap_leaves_the_pair_and_the_audit_as_they_were(club: Club) -> None:
    with Session(club.engine) as s:
        section, pair = _pair_one(s, club)
        handicaps.set_handicap(s, section, pair, "1")
        s.commit()
        with pytest.raises(InvalidError):
            handicaps.set_handicap(s, section, pair, "lots")
        s.commit()
    with Session(club.engine) as s:
        _section, pair = _pair_one(s, club)
        assert pair.handicap == "1"
        assert len(_audited(s)) == 1
