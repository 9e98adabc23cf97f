"""Playing cards as the lead is keyed: "SA", "H7", "DT" (also "♠A", "A♠", "10H")."""

from __future__ import annotations

from .enums import Strain
from .errors import InvalidCard

RANKS = "AKQJT98765432"
SUITS = (Strain.S, Strain.H, Strain.D, Strain.C)


def parse_card(text: str) -> str:
    """Canonical "SA"-style card (suit letter, then rank; ten is "T"), or InvalidCard."""
    raw = str(text).strip().upper().replace(" ", "").replace("10", "T")
    if len(raw) == 2:
        for suit_part, rank in ((raw[0], raw[1]), (raw[1], raw[0])):
            if rank not in RANKS:
                continue
            try:
                suit = Strain.parse(suit_part)
            except ValueError:
                continue
            if suit in SUITS:
                return f"{suit.value}{rank}"
    raise InvalidCard(f"{text!r} is not a card: give suit and rank, e.g. SA, H7, DT", text)
