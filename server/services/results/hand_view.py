"""A board's hand record as the public traveller shows it: the deal, the makeable contracts and par.

Shown only beside a traveller that is itself shown (server/services/results/standings.travel:
the board is released once every table has played it, or the results are published), so it
reveals nothing before the traveller does. The double-dummy table comes from the cache
(server/services/hands.dd_tricks, never waiting for the solver in a page request: a board not
yet solved shows its deal and is solved in the background); par is solved from it
(protocol.bridge.par). Without a solver installed, or for a deal the solver refused, the page
says so instead of promising an analysis that cannot come.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, select

from protocol.bridge.par import par
from server.core.models import Board, Section
from server.io import handrecords
from server.services import hands
from server.services.hands import DoubleDummy

SUITS = (("S", "♠"), ("H", "♥"), ("D", "♦"), ("C", "♣"))
STRAIN_COLUMNS = ("NT", "S", "H", "D", "C")
SEAT_ROWS = ("N", "S", "E", "W")


@dataclass(frozen=True, slots=True)
class SuitLine:
    symbol: str
    suit: str
    cards: str
    """The ranks high to low, ten as "10", "—" for a void."""


@dataclass(frozen=True, slots=True)
class HandView:
    board: int
    dealer: str
    vulnerability: str
    hands: dict[str, tuple[SuitLine, ...]]
    """Seat -> its four suits; a seat the hand record leaves out is not in it."""
    makeable: tuple[tuple[str, tuple[int | None, ...]], ...] | None
    """(seat, the level it makes in NT, ♠, ♥, ♦, ♣ or None) for N, S, E, W; None until solved."""
    par: str | None
    par_score: int | None
    analysis: DoubleDummy | None = None
    """Where the double-dummy table is, for a complete deal (None for a partial one)."""


def _suit_line(suit: str, symbol: str, cards: str) -> SuitLine:
    text = " ".join("10" if rank == "T" else rank for rank in cards) if cards else "—"
    return SuitLine(symbol, suit, text)


def hand_view(session: Session, section: Section, board: int) -> HandView | None:
    """The board's hand record for the public traveller, or None without a deal."""
    record = session.exec(
        select(Board).where(Board.section_id == section.id, Board.number == board)
    ).first()
    if record is None or not record.deal:
        return None
    try:
        held = handrecords.hands(record.deal)
    except ValueError:
        return None
    shown = {
        seat: tuple(
            _suit_line(suit, symbol, cards)
            for (suit, symbol), cards in zip(SUITS, held[seat], strict=True)
        )
        for seat in handrecords.SEATS
        if any(held[seat])
    }
    tricks = hands.dd_tricks(record.deal, wait=False)
    if tricks is None:
        analysis = hands.analysis_state(record.deal) if len(shown) == 4 else None
        return HandView(
            board, record.dealer, record.vulnerability, shown, None, None, None, analysis
        )
    makeable = tuple(
        (
            seat,
            tuple(
                tricks[seat][strain] - 6 if tricks[seat][strain] >= 7 else None
                for strain in STRAIN_COLUMNS
            ),
        )
        for seat in SEAT_ROWS
    )
    found = par(tricks, record.vulnerability, record.dealer)
    return HandView(
        board,
        record.dealer,
        record.vulnerability,
        shown,
        makeable,
        str(found),
        found.ns_score,
        hands.DoubleDummy.SOLVED,
    )
