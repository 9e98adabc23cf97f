"""What real producers write: pair numbers, directions, contracts, tricks and artificial scores."""

from __future__ import annotations

import re
from fractions import Fraction

from protocol.bridge import BridgeError, Contract, Seat, Side, parse_tricks
from server.scoring import Method

_PAIR = re.compile(
    r"(?:\(?\s*(?P<section>[A-Za-z]{1,2})\s*\)?\s*[-:]?\s*)?"
    r"(?P<number>\d{1,4})\s*[-/]?\s*(?P<dir>[^\d\s]*)"
)
_ARTIFICIAL = re.compile(
    r"A(?:RB)?\s*(?P<ns>\d{1,3}(?:\.\d+)?)\s*[-/ ]?\s*%?\s*(?P<ew>\d{1,3}(?:\.\d+)?)?\s*%?"
)
_ARTIFICIAL_4 = re.compile(r"A(?P<ns>\d\d)(?P<ew>\d\d)")
_AVERAGE_WORDS = {"AVE+": Fraction(60), "AVE": Fraction(50), "AVE-": Fraction(40)}
_AVERAGE_WORDS.update({"A+": Fraction(60), "A=": Fraction(50), "A-": Fraction(40)})
_NOT_PLAYED = frozenset({"", "-", "--", "NP", "N/P", "NOT PLAYED", "NOTPLAYED", "X"})


class SpellingError(ValueError):
    """A field that is not in any accepted spelling; importers add the line or board."""


def direction(text: str) -> str:
    """ "NS" or "EW" from "NS", "N-S", "N/S", "EW", "E-W", "Ö-V", "ØV", "N" or "E"."""
    key = text.strip().upper().replace("Ö", "Ø")
    if key in ("N", "S", "NORTH", "SOUTH"):
        return "NS"
    if key in ("E", "W", "EAST", "WEST", "Ø", "V", "O"):
        return "EW"
    try:
        return Side.parse(key).value
    except BridgeError:
        raise SpellingError(f"{text!r} is not a direction (expected NS or EW)") from None


def pair_number(text: str | int) -> tuple[str | None, int, str | None]:
    """(section, number, direction) from 7, "7", "7 NS", "7NS", "7-EW", "(A) 7 NS" or "A7"."""
    if isinstance(text, int) and not isinstance(text, bool):
        if text < 0:
            raise SpellingError(f"{text} is not a pair number")
        return None, text, None
    raw = str(text).strip()
    match = _PAIR.fullmatch(raw)
    if match is None:
        raise SpellingError(f"{raw!r} is not a pair number (expected e.g. 7, 7 NS or 7NS)")
    dir_text = match.group("dir")
    side = direction(dir_text) if dir_text else None
    section = match.group("section")
    return (section.upper() if section else None), int(match.group("number")), side


def contract(text: str) -> str:
    """The canonical contract ("4SX", "PASS") from "4S", "4Sx", "4 S x", "3N", "Pass" ..."""
    try:
        return str(Contract.parse(text))
    except BridgeError as exc:
        raise SpellingError(str(exc)) from None


def declarer(text: str) -> str:
    """The declarer's seat letter from "N", "north", "Syd" ..."""
    try:
        return Seat.parse(text).value
    except BridgeError as exc:
        raise SpellingError(str(exc)) from None


def tricks(text: str | int, contract_text: str) -> int:
    """Tricks taken from an absolute count (9) or a result relative to the contract (+1, =, -2)."""
    parsed = Contract.parse(contract_text)
    if isinstance(text, int) and not isinstance(text, bool):
        text = str(text)
    try:
        return parse_tricks(str(text), parsed)
    except BridgeError as exc:
        raise SpellingError(str(exc)) from None


def artificial(text: str) -> tuple[Fraction, Fraction] | None:
    """(N/S %, E/W %) from "A6040", "A60/40", "A60 40", "A60", "AVE+", "A+"; else None.

    A single figure gives N/S that percentage and E/W the rest (A60 is 60/40).
    """
    key = text.strip().upper().replace(" ", "")
    if not key.startswith("A"):
        return None
    if key in _AVERAGE_WORDS:
        ns = _AVERAGE_WORDS[key]
        return ns, 100 - ns
    four = _ARTIFICIAL_4.fullmatch(key)
    match = four or _ARTIFICIAL.fullmatch(key)
    if match is None:
        return None
    ns = Fraction(match.group("ns"))
    ew_text = match.group("ew")
    ew = Fraction(ew_text) if ew_text else 100 - ns
    if not (0 <= ns <= 100 and 0 <= ew <= 100):
        raise SpellingError(f"{text!r}: an artificial score is 0 to 100 per cent per side")
    return ns, ew


def artificial_label(ns: Fraction, ew: Fraction) -> str:
    """The USEBIO spelling of an artificial score: "A6040" (or "A60.5/39.5")."""
    if ns.denominator == 1 and ew.denominator == 1 and ns < 100 and ew < 100:
        return f"A{int(ns):02d}{int(ew):02d}"
    return f"A{_number(ns)}/{_number(ew)}"


def _number(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):g}"


def not_played(text: str) -> bool:
    """Whether a contract field says the board was not played at the table."""
    return text.strip().upper() in _NOT_PLAYED


def method(text: str) -> Method | None:
    """The scoring method a file names: USEBIO EVENT_TYPE / BOARD_SCORING_METHOD, PBN [Scoring]."""
    key = text.strip().upper().replace("-", "_").replace(" ", "_")
    if not key:
        return None
    if "BUTLER" in key:
        return Method.BUTLER
    if "CROSS" in key:
        return Method.CROSS_IMPS
    if "IMP" in key:
        return Method.IMPS_ACROSS
    if "AGG" in key or "TOTAL" in key:
        return Method.AGGREGATE
    if "MATCH" in key or key.startswith("MP") or key in ("PAIRS", "MP_PAIRS"):
        return Method.MATCHPOINTS
    return None


def cli_method(text: str) -> Method:
    """A method named on the command line: mp, mp-american, imps, butler, cross-imps, total."""
    key = text.strip().lower()
    if key in ("total", "aggregate"):
        return Method.AGGREGATE
    try:
        return Method(key)
    except ValueError:
        raise SpellingError(
            f"{text!r} is not a method (expected mp, mp-american, imps, butler, cross-imps "
            "or total)"
        ) from None
