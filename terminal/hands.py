"""Deals as the terminal shows them after play: PBN parsing, a compass layout, makeable contracts.

The terminal may not import the server, so this small PBN reader mirrors the server's
(``server/io/handrecords.py``); the fake server also uses it for the lead check.
"""

from __future__ import annotations

from . import i18n

SEATS = ("N", "E", "S", "W")
SUITS = ("S", "H", "D", "C")
SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣", "NT": "NT"}
STRAINS = ("NT", "S", "H", "D", "C")
#: The opening leader sits on declarer's left.
LEADER = {"N": "E", "E": "S", "S": "W", "W": "N"}
RANKS = "AKQJT98765432"

Hand = tuple[str, str, str, str]


def parse_deal(deal: str | None) -> dict[str, Hand] | None:
    """Seat -> (spades, hearts, diamonds, clubs) from "N:AKQ.JT9.876.5432 ...", or None."""
    if not deal or len(deal) < 2 or deal[1] != ":" or deal[0].upper() not in SEATS:
        return None
    parts = deal[2:].split()
    if len(parts) != 4:
        return None
    first = SEATS.index(deal[0].upper())
    out: dict[str, Hand] = {}
    for offset, part in enumerate(parts):
        suits = ["", "", "", ""] if part == "-" else part.upper().split(".")
        if len(suits) != 4 or any(c not in RANKS for s in suits for c in s):
            return None
        out[SEATS[(first + offset) % 4]] = (suits[0], suits[1], suits[2], suits[3])
    return out


def holds(deal: str | None, seat: str, card: str) -> bool | None:
    """Whether ``seat`` holds ``card`` ("SA", "HT"); None when the hand is not known."""
    hands = parse_deal(deal)
    if hands is None or not any(hands[seat]):
        return None
    return card[1] in hands[seat][SUITS.index(card[0])]


def _ranks(cards: str) -> str:
    return " ".join("10" if c == "T" else c for c in cards) or "—"


def hand_lines(hand: Hand) -> list[str]:
    """One line per suit: "♠ A K Q J"."""
    return [f"{SYMBOLS[suit]} {_ranks(cards)}" for suit, cards in zip(SUITS, hand, strict=True)]


def deal_lines(deal: str | None, width: int = 24) -> list[str]:
    """The four hands in a compass: North on top, West and East side by side, South below."""
    hands = parse_deal(deal)
    if hands is None:
        return []
    north, south = hand_lines(hands["N"]), hand_lines(hands["S"])
    west, east = hand_lines(hands["W"]), hand_lines(hands["E"])
    pad = " " * width
    lines = [pad + i18n.seat_name("N"), *(pad + line for line in north)]
    lines.append(i18n.seat_name("W").ljust(width * 2) + i18n.seat_name("E"))
    lines += [w.ljust(width * 2) + e for w, e in zip(west, east, strict=True)]
    lines += [pad + i18n.seat_name("S"), *(pad + line for line in south)]
    return lines


def makeable_text(dd: dict[str, dict[str, int]] | None) -> str:
    """The makeable contracts by seat: "N 4♠ 3NT  ·  E 2♥" (empty when unknown)."""
    if not dd:
        return ""
    parts = []
    for seat in SEATS:
        made = [
            f"{dd[seat][strain] - 6}{i18n.strain(strain)}"
            for strain in STRAINS
            if strain in dd.get(seat, {}) and dd[seat][strain] >= 7
        ]
        if made:
            parts.append(f"{i18n.seat(seat)} {' '.join(made)}")
    return "  ·  ".join(parts) or i18n._("Nothing makes.")
