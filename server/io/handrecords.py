"""Hand records: deals from PBN, and double-dummy tables, makeable contracts and par via endplay.

The solver is the optional `endplay` package (extra "handrecords"); without it the deal
functions still work and the solver functions raise SolverUnavailableError.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import Any

from protocol.bridge import dealer, vulnerability
from protocol.bridge.deal import Hand, InvalidDeal, check_deal, format_hand, parse_deal

from .errors import EventFileError

SEATS = ("N", "E", "S", "W")
STRAINS = ("C", "D", "H", "S", "NT")
_RANKS = "AKQJT98765432"


class SolverUnavailableError(RuntimeError):
    """The double-dummy solver (the optional `endplay` package) is not installed."""


def solver_available() -> bool:
    """Whether endplay can be imported."""
    return importlib.util.find_spec("endplay") is not None


def hands(deal: str) -> dict[str, tuple[str, str, str, str]]:
    """Seat -> (spades, hearts, diamonds, clubs) from "N:AKQ.JT9.876.5432 ..." (PBN Deal),
    read by the protocol's parser (``protocol.bridge.deal``, the one the terminal and keypad
    use). A hand written "-" (or with no cards) is not known; each known hand holds 13 cards
    and no card is in two hands. ValueError (the protocol's InvalidDeal) with its sentence."""
    text = deal.strip()
    if len(text) < 2 or text[1] != ":" or text[0].upper() not in SEATS:
        raise InvalidDeal(
            f"{deal[:20]!r} is not a PBN deal (expected e.g. N:AK.QJ.T9.8765 ...)", deal
        )
    held = parse_deal(text, complete=False)
    check_deal(held, known_only=True)  # all four known: the whole deck, each card once
    return {seat.value: _suits(hand) for seat, hand in held.items()}


def _suits(hand: Hand) -> tuple[str, str, str, str]:
    spades, hearts, diamonds, clubs = format_hand(hand).split(".")
    return spades, hearts, diamonds, clubs


def law2_dealer(board: int) -> str:
    """The dealer of a board by Law 2 ("N", "E", "S" or "W")."""
    return str(dealer(board).value)[:1]


def law2_vulnerable(board: int) -> str:
    """The vulnerability of a board by Law 2 in PBN words: "None", "NS", "EW" or "All"."""
    value = vulnerability(board).value
    return {"NONE": "None", "BOTH": "All"}.get(value, value)


def normalise_deal(deal: str) -> str:
    """The deal in canonical PBN form, starting with North, ranks upper-case and ordered, a
    hand not known "-"."""
    held = hands(deal)
    return "N:" + " ".join(".".join(held[seat]) if any(held[seat]) else "-" for seat in SEATS)


def is_complete(deal: str) -> bool:
    """Whether all four hands are known (the solver needs all 52 cards)."""
    return all(sum(len(s) for s in h) == 13 for h in hands(deal).values())


@dataclass(frozen=True, slots=True)
class Analysis:
    """Double-dummy tricks per declarer and strain, the makeable contracts and the par."""

    tricks: dict[str, dict[str, int]]
    """Declarer seat -> strain (C, D, H, S, NT) -> tricks."""
    par_score: int
    """The par score for N/S."""
    par_contracts: tuple[str, ...]
    """Par contracts as "4SN" style text (contract, doubling, declarer)."""

    def makeable(self) -> list[tuple[str, str]]:
        """(contract, declarer) for the highest makeable level of each strain and seat."""
        out = []
        for seat in SEATS:
            for strain in STRAINS:
                level = self.tricks[seat][strain] - 6
                if level >= 1:
                    out.append((f"{level}{strain}", seat))
        return out


def dd_table(deal: str) -> dict[str, dict[str, int]]:
    """Double-dummy tricks for every declarer and strain (needs endplay)."""
    dds, types = _endplay()
    table = dds.calc_dd_table(types.Deal(normalise_deal(deal)))
    out: dict[str, dict[str, int]] = {}
    for seat in SEATS:
        player = types.Player.find(seat)
        out[seat] = {strain: int(table[types.Denom.find(strain), player]) for strain in STRAINS}
    return out


def analyse(deal: str, dealer: str, vulnerable: str) -> Analysis:
    """Double-dummy table, makeable contracts and par for a complete deal (needs endplay)."""
    if not is_complete(deal):
        raise ValueError("the solver needs all four hands")
    dds, types = _endplay()
    parsed = types.Deal(normalise_deal(deal))
    table = dds.calc_dd_table(parsed)
    tricks = {
        seat: {
            strain: int(table[types.Denom.find(strain), types.Player.find(seat)])
            for strain in STRAINS
        }
        for seat in SEATS
    }
    vul = {"None": types.Vul.none, "NS": types.Vul.ns, "EW": types.Vul.ew, "All": types.Vul.both}
    result = dds.par(table, vul.get(vulnerable, types.Vul.none), types.Player.find(dealer))
    return Analysis(tricks, int(result.score), tuple(str(c) for c in result))


def _endplay() -> tuple[Any, Any]:
    try:
        dds = importlib.import_module("endplay.dds")
        types = importlib.import_module("endplay.types")
    except ImportError:
        raise SolverUnavailableError(
            "double-dummy analysis needs the optional endplay package (pip install endplay)"
        ) from None
    return dds, types


def deal_error(exc: ValueError, board: int) -> EventFileError:
    """A deal problem as an import error naming the board."""
    return EventFileError(str(exc), board=board)
