"""Hand records at the table: the opening lead must be in the leader's hand; double-dummy check.

The deal is never sent to a terminal before the table has played the board: the terminal asks
(CheckEntry) and the server answers with a refusal or a warning. The double-dummy table is
computed once per deal and cached in this process; without endplay the check is skipped.
"""

from __future__ import annotations

import logging
import threading
from functools import lru_cache

from sqlmodel import Session, select

from server.errors import InvalidError
from server.io import handrecords
from server.models import Board

log = logging.getLogger(__name__)

#: The opening leader sits on declarer's left.
LEADER = {"N": "E", "E": "S", "S": "W", "W": "N"}
SEAT_NAMES = {"N": "North", "E": "East", "S": "South", "W": "West"}
SUIT_NAMES = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_INDEX = {"S": 0, "H": 1, "D": 2, "C": 3}
#: Tricks this far from the double-dummy result make the terminal ask "are you sure?".
DD_WARNING_GAP = 4

_solver_lock = threading.Lock()


def deal_of(session: Session, section_id: int, board: int) -> str | None:
    """The board's deal (PBN), or None without a hand record."""
    return session.exec(
        select(Board.deal).where(Board.section_id == section_id, Board.number == board)
    ).first()


def card_text(card: str) -> str:
    """ "HT" -> "♥10" """
    rank = "10" if card[1:] == "T" else card[1:]
    return SUIT_NAMES.get(card[0], card[0]) + rank


def check_lead(board: int, deal: str | None, declarer: str | None, lead: str | None) -> None:
    """InvalidError ``lead_not_in_hand`` when the lead is not a card of the leader's hand."""
    if not deal or not declarer or not lead:
        return
    try:
        held = handrecords.hands(deal)
    except ValueError:
        log.warning("board %s has an unreadable deal; the lead is not checked", board)
        return
    leader = LEADER[declarer]
    suits = held[leader]
    if not any(suits):
        return  # the leader's hand is not in the hand record
    if lead[1] not in suits[SUIT_INDEX[lead[0]]]:
        raise InvalidError(
            "lead_not_in_hand",
            f"{card_text(lead)} is not in {SEAT_NAMES[leader]}'s hand on board {board}: "
            f"{SEAT_NAMES[leader]} leads against {SEAT_NAMES[declarer]}. Check the lead "
            "and the declarer.",
        )


@lru_cache(maxsize=2048)
def _dd_cached(deal: str) -> tuple[tuple[str, tuple[tuple[str, int], ...]], ...]:
    with _solver_lock:  # the solver library is not safe to call from two threads at once
        table = handrecords.dd_table(deal)
    return tuple((seat, tuple(row.items())) for seat, row in table.items())


def dd_tricks(deal: str | None) -> dict[str, dict[str, int]] | None:
    """Double-dummy tricks (declarer -> strain -> tricks), or None: no deal, no solver."""
    if not deal or not handrecords.solver_available():
        return None
    try:
        if not handrecords.is_complete(deal):
            return None
        cached = _dd_cached(handrecords.normalise_deal(deal))
    except (ValueError, handrecords.SolverUnavailableError) as exc:
        log.info("no double-dummy table: %s", exc)
        return None
    return {seat: dict(row) for seat, row in cached}


def dd_warning(
    board: int, deal: str | None, contract: str, declarer: str | None, tricks: int
) -> tuple[int | None, str | None]:
    """Double-dummy tricks for the contract, and an "are you sure?" text when far from them."""
    if contract == "PASS" or declarer is None:
        return None, None
    table = dd_tricks(deal)
    if table is None:
        return None, None
    strain = contract[1:].rstrip("X")
    expected = table[declarer][strain]
    if abs(expected - tricks) < DD_WARNING_GAP:
        return expected, None
    return expected, warning_text(board, declarer, tricks)


def warning_text(board: int, declarer: str, tricks: int) -> str:
    """The "are you sure?" question; it never says the double-dummy number (a player could key
    a result before playing the board to learn it)."""
    return (
        f"Board {board}: {tricks} tricks for {SEAT_NAMES[declarer]} is far from what the cards "
        "allow (double dummy). Check the declarer and the tricks."
    )
