"""A board's hand record as the public traveller shows it (server/services/results/hand_view.py):
each seat's suits high to low with the ten written 10, nothing for a board without a deal, and once
solved the contracts each seat makes and par (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from server.core.models import Section
from server.io.handrecords import solver_available
from server.services import hands
from server.services.results.hand_view import HandView, hand_view
from tests.support.api import Club
from tests.support.deals import DEAL, put_deal


def _view(club: Club, board: int) -> HandView | None:
    with Session(club.engine) as s:
        section = s.get(Section, club.section_id)
        assert section is not None
        return hand_view(s, section, board)


def test_a_board_without_a_deal_or_not_in_the_section_shows_nothing(club: Club) -> None:
    assert _view(club, 1) is None
    put_deal(club.engine, 1, DEAL)
    assert _view(club, 2) is None
    assert _view(club, 999) is None


def test_each_seat_shows_its_suits_high_to_low(club: Club) -> None:
    put_deal(club.engine, 1, DEAL)
    view = _view(club, 1)
    assert view is not None
    assert view.board == 1
    assert set(view.hands) == {"N", "E", "S", "W"}
    north = {line.suit: line.cards for line in view.hands["N"]}
    assert north == {"S": "A K Q J", "H": "A K Q", "D": "A K Q", "C": "A K Q"}
    east = [(line.symbol, line.cards) for line in view.hands["E"]]
    assert east == [("♠", "10 9 8 7"), ("♥", "J 10 9"), ("♦", "J 10 9"), ("♣", "J 10 9")]


@pytest.mark.skipif(not solver_available(), reason="endplay (extra handrecords) not installed")
def test_once_solved_the_makeable_contracts_and_par_are_shown(club: Club) -> None:
    put_deal(club.engine, 1, DEAL)
    assert hands.dd_tricks(DEAL) is not None  # solved (and cached) now
    view = _view(club, 1)
    assert view is not None
    assert view.analysis is hands.DoubleDummy.SOLVED
    assert view.makeable is not None
    makes = dict(view.makeable)
    # North holds every top card: thirteen tricks in no trumps and spades; in hearts, diamonds
    # or clubs West's four trumps beat North-South's three once, so twelve. E/W make nothing.
    assert makes["N"] == makes["S"] == (7, 7, 6, 6, 6)
    assert makes["E"] == makes["W"] == (None,) * 5
    assert view.par is not None
    assert "7NT" in view.par
    assert view.par_score == (2220 if view.vulnerability in ("NS", "All", "Both") else 1520)
