"""Hand records at the table: the opening lead must be in the leader's hand; double-dummy check.

The deal is never sent to a terminal before everyone at the table has played the board
(protocol/fair_play.py). The lead is checked only on an actual entry, and the tricks warning is
given once, on a board's first entry (server/services/table/table_commands.py): neither can be
swept to rebuild the deal. The double-dummy table is computed once per deal and cached in this
process; without endplay the check is skipped.
"""

from __future__ import annotations

import atexit
import logging
import threading
from collections.abc import Iterable
from enum import StrEnum
from functools import lru_cache

from sqlmodel import Session, select

from protocol import fair_play
from protocol.fair_play import LEADER
from server.core.errors import InvalidError
from server.core.models import Board
from server.io import handrecords

log = logging.getLogger(__name__)


class DoubleDummy(StrEnum):
    """Where a deal's double-dummy analysis is (what a hand record says in its place)."""

    SOLVED = "solved"
    SOLVING = "solving"
    REFUSED = "refused"
    NOT_INSTALLED = "not_installed"


SUIT_NAMES = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_INDEX = {"S": 0, "H": 1, "D": 2, "C": 3}

_solver_lock = threading.Lock()
_warm_lock = threading.Lock()
_done: set[str] = set()  # deals solved in this process (in _dd_cached)
_warming: set[str] = set()  # deals being solved in the background
_refused: set[str] = set()  # deals the solver refused: never tried again in this process
_stopping = False


def deal_of(session: Session, section_id: int, board: int) -> str | None:
    """The board's deal (PBN), or None without a hand record."""
    return session.exec(
        select(Board.deal).where(Board.section_id == section_id, Board.number == board)
    ).first()


def card_text(card: str) -> str:
    """ "HT" -> "♥10" """
    rank = "10" if card[1:] == "T" else card[1:]
    return SUIT_NAMES.get(card[0], card[0]) + rank


def lead_in_hand(board: int, deal: str | None, declarer: str, lead: str) -> bool | None:
    """Whether the lead is a card of the opening leader's hand; None when the hand record
    cannot tell (no deal, an unreadable deal, the leader's hand not in it)."""
    if not deal:
        return None
    try:
        held = handrecords.hands(deal)
    except ValueError:
        log.warning("board %s has an unreadable deal; the lead is not checked", board)
        return None
    suits = held[LEADER[declarer]]
    if not any(suits):
        return None  # the leader's hand is not in the hand record
    return lead[1] in suits[SUIT_INDEX[lead[0]]]


def lead_refusal(board: int, declarer: str, lead: str) -> InvalidError:
    """The refusal ``lead_not_in_hand`` of an entry whose lead the leader does not hold."""
    return InvalidError(
        "lead_not_in_hand",
        "{card} is not in {leader}'s hand on board {board}: {leader} leads against {declarer}. "
        "Check the lead and the declarer.",
        card=card_text(lead),
        leader=fair_play.SEAT_NAMES[LEADER[declarer]],
        board=board,
        declarer=fair_play.SEAT_NAMES[declarer],
    )


@lru_cache(maxsize=2048)
def _dd_cached(deal: str) -> tuple[tuple[str, tuple[tuple[str, int], ...]], ...]:
    with _solver_lock:  # the solver library is not safe to call from two threads at once
        if _stopping:
            raise handrecords.SolverUnavailableError("the process is stopping")
        table = handrecords.dd_table(deal)
    return tuple((seat, tuple(row.items())) for seat, row in table.items())


def _solved(key: str) -> tuple[tuple[str, tuple[tuple[str, int], ...]], ...]:
    table = _dd_cached(key)
    with _warm_lock:
        _done.add(key)
        _warming.discard(key)
    return table


@atexit.register
def _stop() -> None:
    """At exit, wait for a background solve in progress and start no other: the solver's
    native code must not run while the interpreter shuts down."""
    global _stopping
    with _solver_lock:
        _stopping = True


def _warm(key: str) -> None:
    """Solve the deal in the background (a table's command must not wait a second for it)."""
    with _warm_lock:
        if key in _done or key in _warming or key in _refused:
            return
        _warming.add(key)

    def solve() -> None:
        try:
            _solved(key)
        except Exception as exc:  # a deal the solver refuses: no warning for it, ever
            log.info("no double-dummy table: %s", exc)
            with _warm_lock:
                _warming.discard(key)
                _refused.add(key)

    threading.Thread(target=solve, name="double-dummy", daemon=True).start()


def dd_tricks(deal: str | None, *, wait: bool = True) -> dict[str, dict[str, int]] | None:
    """Double-dummy tricks (declarer -> strain -> tricks), or None: no deal, no solver.

    ``wait=False``: only a table solved already; else None, and it is solved in the background
    (for the writes, which hold the table's lock)."""
    if not deal or not handrecords.solver_available():
        return None
    try:
        if not handrecords.is_complete(deal):
            return None
        key = handrecords.normalise_deal(deal)
        if not wait and key not in _done:
            _warm(key)
            return None
        cached = _solved(key)
    except (ValueError, handrecords.SolverUnavailableError) as exc:
        log.info("no double-dummy table: %s", exc)
        return None
    return {seat: dict(row) for seat, row in cached}


def analysis_state(deal: str) -> DoubleDummy:
    """Where a complete deal's double-dummy table is: solved, being solved (in the background),
    refused by the solver, or never coming because no solver is installed."""
    if not handrecords.solver_available():
        return DoubleDummy.NOT_INSTALLED
    try:
        key = handrecords.normalise_deal(deal)
    except ValueError:
        return DoubleDummy.REFUSED
    with _warm_lock:
        if key in _done:
            return DoubleDummy.SOLVED
        if key in _refused:
            return DoubleDummy.REFUSED
    return DoubleDummy.SOLVING


def warm(deals: Iterable[str | None]) -> None:
    """Start solving these deals in the background, so that their warnings are ready."""
    for deal in deals:
        dd_tricks(deal, wait=False)


def dd_warning(
    board: int, deal: str | None, contract: str, declarer: str | None, tricks: int
) -> str | None:
    """The "are you sure?" text when the tricks are far from double dummy (never the number).

    The caller gives it at most once per table and board, on the first entry only. It never
    waits for the solver: a deal not solved yet gets no warning (and is solved meanwhile)."""
    if contract == "PASS" or declarer is None:
        return None
    table = dd_tricks(deal, wait=False)
    if table is None:
        return None
    expected = table[declarer][contract[1:].rstrip("X")]
    if not fair_play.tricks_far(expected, tricks):
        return None
    return fair_play.warning_text(board, declarer, tricks)
