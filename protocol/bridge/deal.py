"""A deal: four hands of 13 cards, 52 in all, read from and written to PBN notation.

PBN 2.1 § 3.4.11 (the [Deal] tag): "N:KT8.A96.A95.7542 Q5.KJ52.KQ874.T8 ..." gives the hands
clockwise from the named seat, each as spades.hearts.diamonds.clubs. A void is an empty suit;
some programs write it "-" (read as empty). Ten is "T" ("10" is read too).

Hand entry at the table (a hand-dealt board) keys the four hands suit by suit; `check_deal`
says exactly what is wrong (a hand of 12 or 14 cards, a card in two hands, a card missing), and
`confirm_hand` is the next table's check of one hand against the stored deal.
"""

from __future__ import annotations

from collections.abc import Mapping

from .card import RANKS, SUITS
from .enums import Seat
from .errors import BridgeError

Hand = frozenset[str]
"""The cards of one hand, each "SA"-style (suit letter, then rank)."""

_ORDER = (Seat.N, Seat.E, Seat.S, Seat.W)
DECK = frozenset(f"{suit.value}{rank}" for suit in SUITS for rank in RANKS)


class InvalidDeal(BridgeError):  # noqa: N818 (public API name, like the other errors)
    """Hands that cannot be a deal: the wrong number of cards, a card twice, a bad card."""

    default_code = "invalid_deal"


def parse_hand(text: str, seat: Seat | None = None) -> Hand:
    """One hand in PBN notation ("KT8.A96.A95.7542"; "-" or nothing for a void)."""
    where = f"{seat.name_en}: " if seat else ""
    suits = text.strip().split(".")
    if len(suits) != 4:
        raise InvalidDeal(
            f"{where}{text!r} is not a hand: give four suits (spades.hearts.diamonds.clubs)",
            text,
        )
    cards: list[str] = []
    for suit, holding in zip(SUITS, suits, strict=True):
        holding = holding.strip().upper().replace("10", "T")
        if holding in ("-", "—"):
            holding = ""
        for rank in holding:
            if rank not in RANKS:
                raise InvalidDeal(f"{where}{rank!r} is not a rank in {suit.name_en}", text)
            cards.append(f"{suit.value}{rank}")
    hand = frozenset(cards)
    if len(hand) != len(cards):
        raise InvalidDeal(f"{where}a card is given twice in {text!r}", text, code="card_twice")
    return hand


def parse_deal(text: str, *, complete: bool = True) -> dict[Seat, Hand]:
    """The four hands of a PBN deal string. With `complete`, each must hold 13 cards and all 52
    cards must be dealt (`check_deal`); otherwise hands may be partial (a "-" hand is unknown)."""
    raw = text.strip()
    first = Seat.N
    if len(raw) > 1 and raw[1] == ":":
        first = Seat.parse(raw[0])
        raw = raw[2:]
    parts = raw.split()
    if len(parts) != 4:
        raise InvalidDeal(f"{text!r} is not a deal: give four hands", text)
    hands: dict[Seat, Hand] = {}
    seat = first
    for part in parts:
        hands[seat] = frozenset() if (part == "-" and not complete) else parse_hand(part, seat)
        seat = seat.lho
    if complete:
        check_deal(hands)
    return hands


def check_deal(hands: Mapping[Seat, Hand], *, known_only: bool = False) -> None:
    """InvalidDeal unless the four hands hold 13 cards each and every card exactly once (four
    hands of 13 distinct cards of the deck are then the whole deck). ``known_only``: a partial
    hand record, whose hands with no cards are not known; only the known ones are checked."""
    seen: dict[str, Seat] = {}
    for seat in _ORDER:
        hand = hands.get(seat, frozenset())
        if known_only and not hand:
            continue
        for card in sorted(hand):
            if card not in DECK:
                raise InvalidDeal(f"{seat.name_en}: {card!r} is not a card", card)
            if card in seen:
                raise InvalidDeal(
                    f"{card} is in two hands: {seen[card].name_en} and {seat.name_en}",
                    card,
                    code="card_twice",
                )
            seen[card] = seat
        if len(hand) != 13:
            raise InvalidDeal(
                f"{seat.name_en} has {len(hand)} cards; a hand has 13",
                len(hand),
                code="hand_size",
            )


def format_hand(hand: Hand) -> str:
    """PBN notation of one hand, ranks high to low, a void as an empty suit."""
    return ".".join(
        "".join(rank for rank in RANKS if f"{suit.value}{rank}" in hand) for suit in SUITS
    )


def format_deal(hands: Mapping[Seat, Hand], first: Seat = Seat.N) -> str:
    """The PBN [Deal] string, clockwise from `first`."""
    parts = []
    seat = first
    for _ in range(4):
        parts.append(format_hand(hands.get(seat, frozenset())))
        seat = seat.lho
    return f"{first.value}:" + " ".join(parts)


def confirm_hand(stored: Mapping[Seat, Hand], seat: Seat, keyed: Hand) -> list[str]:
    """The next table's check of one hand: the differences between the hand keyed at `seat`
    and the stored deal ("SA missing", "HK extra"), empty when they agree."""
    have = stored.get(seat, frozenset())
    order = {card: index for index, card in enumerate(sorted(DECK, key=_card_order))}
    missing = sorted(have - keyed, key=order.__getitem__)
    extra = sorted(keyed - have, key=order.__getitem__)
    return [f"{card} missing" for card in missing] + [f"{card} extra" for card in extra]


def _card_order(card: str) -> tuple[int, int]:
    return ("SHDC".index(card[0]), RANKS.index(card[1]))
