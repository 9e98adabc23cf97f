"""The auction and the play of a board at each table, as the pages show them: the calls under
W N E S from the dealer, and the play trick by trick (who led, the cards, who won, the running
count of tricks, a claim), replayed with protocol.bridge.play so the winners are the Laws'.

Pure view models and one loader. The public traveller shows them only through :func:`shown`,
which keeps nothing unless the traveller itself is shown (server/services/results/standings.travel:
every table has played the board, or the results are published), and then only the tables on
the traveller. The TD's board page shows every table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlmodel import Session, col, select

from protocol import alerts
from protocol.bridge import BridgeError, Contract, Seat
from protocol.bridge.auction import Call
from protocol.bridge.card import RANKS
from protocol.bridge.deal import Hand, parse_deal
from protocol.bridge.play import Play
from protocol.messages import ResultState
from server.core.models import Board, Result, Section
from server.services.results.standings import Traveller, TravellerLine

#: The columns of an auction and of the trick table, as bridge columns and hand records print them.
COLUMNS = ("W", "N", "E", "S")
SUITS = (("S", "♠"), ("H", "♥"), ("D", "♦"), ("C", "♣"))
_SYMBOL = dict(SUITS)
#: The results whose play the public traveller may show: agreed at the table, or adjusted by the
#: TD (the traveller lists them; an entry not yet confirmed is never on it).
SHOWN_STATES = frozenset({ResultState.CONFIRMED, ResultState.TD_PENDING, ResultState.ADJUSTED})


@dataclass(frozen=True, slots=True)
class CallCell:
    """One call of an auction: "1NT", "P", "X" or "XX", whether it was alerted, and the
    number of its explanation below the grid (None when the table keyed none)."""

    call: str
    bid: bool
    alert: bool
    note: int | None = None


@dataclass(frozen=True, slots=True)
class AlertNote:
    """An alerted call's explanation under the grid: its number, the call and the text."""

    number: int
    call: str
    bid: bool
    text: str


@dataclass(frozen=True, slots=True)
class AuctionView:
    dealer: str
    rows: tuple[tuple[CallCell | None, ...], ...]
    """Rows of four cells under W N E S; None before the dealer's first call and after the end."""
    notes: tuple[AlertNote, ...] = ()
    """The explanations of alerted calls the table keyed, in call order."""


@dataclass(frozen=True, slots=True)
class CardView:
    seat: str
    card: str
    """Canonical, suit then rank: "SA", "HT"."""
    suit: str
    rank: str
    """As printed: "A" ... "2", ten as "10"."""
    symbol: str


@dataclass(frozen=True, slots=True)
class TrickView:
    number: int
    leader: str
    cards: tuple[CardView, ...]
    """In the order played, from the leader."""
    winner: str | None
    """None for a trick the play stopped in (a claim or the end of the record)."""
    ns: int
    ew: int
    """Tricks each side has won once this trick is over."""

    def by_seat(self) -> dict[str, CardView]:
        return {card.seat: card for card in self.cards}


@dataclass(frozen=True, slots=True)
class PlayView:
    declarer: str
    strain: str
    leader: str
    tricks: tuple[TrickView, ...]
    claim: int | None
    """Declarer's total tricks claimed (Law 68), if the play ended in a claim."""
    ns: int
    ew: int
    """Tricks each side took in all: counted, or with the claim the rest going to the claimers."""
    stopped: int | None
    """The card (1 = the opening lead) the stored play could not be replayed from; None if read."""

    @property
    def dummy(self) -> str:
        return Seat.parse(self.declarer).partner.value

    @property
    def cards(self) -> int:
        return sum(len(trick.cards) for trick in self.tricks)

    @property
    def declarer_tricks(self) -> int:
        return self.ns if self.declarer in ("N", "S") else self.ew


@dataclass(frozen=True, slots=True)
class SuitCards:
    suit: str
    symbol: str
    cards: tuple[CardView, ...]
    """High to low; empty for a void."""


@dataclass(frozen=True, slots=True)
class TablePlay:
    """One table's auction and play on the board."""

    table: int
    round: int
    state: str
    contract: str | None
    declarer: str | None
    tricks: int | None
    auction: AuctionView | None
    play: PlayView | None


@dataclass(frozen=True, slots=True)
class BoardPlays:
    board: int
    dealer: str
    hands: dict[str, tuple[SuitCards, ...]] | None
    """The deal card by card for the replay (None when it is not known)."""
    tables: tuple[TablePlay, ...]


@dataclass(frozen=True, slots=True)
class ShownPlay:
    """A table's auction and play beside its line on the public traveller."""

    line: TravellerLine
    play: TablePlay


def card_view(seat: str, card: str) -> CardView:
    rank = card[1]
    return CardView(seat, card, card[0], "10" if rank == "T" else rank, _SYMBOL[card[0]])


def auction_view(
    dealer: str, text: str, explanations: Mapping[int, str] | None = None
) -> AuctionView:
    """Stored calls ("1C 1NT! P 3NT P P P", from the dealer) in rows under W N E S, with the
    table's explanations of alerted calls (call number -> text) numbered under the grid. A
    word that is not a call is shown as it was stored, never dropped."""
    explained = explanations or {}
    cells: list[CallCell | None] = [None] * COLUMNS.index(Seat.parse(dealer).value)
    notes: list[AlertNote] = []
    for number, word in enumerate(text.split(), start=1):
        try:
            call = Call.parse(word)
        except BridgeError:
            cells.append(CallCell(word, False, False))
            continue
        plain = str(call).rstrip("!")
        note = None
        if call.alert and explained.get(number):
            notes.append(AlertNote(len(notes) + 1, plain, call.is_bid, explained[number]))
            note = len(notes)
        cells.append(CallCell(plain, call.is_bid, call.alert, note))
    rows = tuple(
        tuple((cells[i : i + 4] + [None] * 4)[:4]) for i in range(0, max(len(cells), 1), 4)
    )
    return AuctionView(Seat.parse(dealer).value, rows, tuple(notes))


def deal_hands(deal: str | None) -> dict[Seat, Hand] | None:
    """The four hands of a complete stored deal, or None (no deal, or not a whole one)."""
    if not deal:
        return None
    try:
        return parse_deal(deal)
    except BridgeError:
        return None


def hand_cards(hands: Mapping[Seat, Hand]) -> dict[str, tuple[SuitCards, ...]]:
    """Each seat's cards suit by suit, high to low, for the replay's table."""
    return {
        seat.value: tuple(
            SuitCards(
                suit,
                symbol,
                tuple(
                    card_view(seat.value, f"{suit}{rank}")
                    for rank in RANKS
                    if f"{suit}{rank}" in hands[seat]
                ),
            )
            for suit, symbol in SUITS
        )
        for seat in (Seat.N, Seat.E, Seat.S, Seat.W)
    }


def _replay(
    text: str, strain: str, declarer: str, hands: Mapping[Seat, Hand] | None
) -> tuple[Play, int | None]:
    """The stored play replayed card by card (protocol.bridge.play.parse_play's rules), and the
    number of the first card it could not take (None when all were read)."""
    play = Play(strain, declarer, hands)
    tokens = text.split()
    for index, token in enumerate(tokens):
        try:
            if token.startswith("="):
                if index != len(tokens) - 1:
                    return play, index + 1
                play.claim(int(token[1:]))
            else:
                play.play(token)
        except (BridgeError, ValueError):
            return play, index + 1
    return play, None


def play_view(
    contract: str | None,
    declarer: str | None,
    text: str | None,
    hands: Mapping[Seat, Hand] | None = None,
) -> PlayView | None:
    """The stored play (format_play's text) trick by trick, or None without a play, a contract
    played (not passed out) or a declarer. Checked against the deal when it is known; a card the
    rules refuse ends the replay there and `stopped` says which (nothing after it is guessed)."""
    if not text or not text.strip() or not contract or not declarer:
        return None
    try:
        made = Contract.parse(contract)
        seat = Seat.parse(declarer)
    except BridgeError:
        return None
    if made.strain is None:
        return None
    play, stopped = _replay(text, made.strain.value, seat.value, hands)
    tricks: list[TrickView] = []
    won = {"NS": 0, "EW": 0}
    for number, trick in enumerate(play.tricks, start=1):
        if not trick.cards:
            continue
        winner = trick.winner(play.strain).value if trick.complete else None
        if winner is not None:
            won["NS" if winner in ("N", "S") else "EW"] += 1
        cards = tuple(card_view(s.value, card) for s, card in trick.cards)
        tricks.append(TrickView(number, trick.leader.value, cards, winner, won["NS"], won["EW"]))
    ns, ew = won["NS"], won["EW"]
    if play.claimed is not None:
        declaring = play.claimed
        if seat in (Seat.N, Seat.S):
            ns, ew = declaring, 13 - declaring
        else:
            ns, ew = 13 - declaring, declaring
    return PlayView(
        declarer=seat.value,
        strain=made.strain.value,
        leader=seat.lho.value,
        tricks=tuple(tricks),
        claim=play.claimed,
        ns=ns,
        ew=ew,
        stopped=stopped,
    )


def table_play(result: Result, dealer: str, hands: Mapping[Seat, Hand] | None) -> TablePlay:
    return TablePlay(
        table=result.table_number,
        round=result.round,
        state=str(result.state),
        contract=result.contract,
        declarer=result.declarer,
        tricks=result.tricks,
        auction=(
            auction_view(dealer, result.auction, alerts.read_stored(result.alerts))
            if result.auction
            else None
        ),
        play=play_view(result.contract, result.declarer, result.play, hands),
    )


def board_plays(session: Session, section: Section, board: int) -> BoardPlays | None:
    """Every table's auction and play stored for the board (a rejected entry left out), table
    by table; None when the board is not in the section."""
    record = session.exec(
        select(Board).where(Board.section_id == section.id, Board.number == board)
    ).first()
    if record is None:
        return None
    rows = session.exec(
        select(Result)
        .where(
            Result.section_id == section.id,
            Result.board == board,
            Result.state != ResultState.REJECTED,
            col(Result.auction).is_not(None) | col(Result.play).is_not(None),
        )
        .order_by(col(Result.round), col(Result.table_number))
    ).all()
    hands = deal_hands(record.deal)
    tables = tuple(
        found
        for found in (table_play(r, record.dealer, hands) for r in rows)
        if found.auction is not None or found.play is not None
    )
    return BoardPlays(board, record.dealer, hand_cards(hands) if hands else None, tables)


def shown(plays: BoardPlays | None, traveller: Traveller) -> tuple[BoardPlays, list[ShownPlay]]:
    """What the public traveller may show of the tables' auctions and play: nothing unless the
    traveller is shown, then each table on the traveller that has them, in the traveller's
    order. (The fair-play decision is the traveller's; this never widens it.)"""
    empty = BoardPlays(traveller.board, "N", None, ())
    if plays is None or not traveller.visible or plays.board != traveller.board:
        return empty, []
    at = {(p.table, p.round): p for p in plays.tables}
    out = [
        ShownPlay(line, at[(line.table, line.round)])
        for line in traveller.lines
        if line.table is not None
        and line.round is not None
        and (line.table, line.round) in at
        and at[(line.table, line.round)].state in SHOWN_STATES
    ]
    if not out:
        return empty, []
    return BoardPlays(plays.board, plays.dealer, plays.hands, tuple(s.play for s in out)), out
