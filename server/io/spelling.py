"""What real producers write: pair numbers, directions, contracts, tricks and artificial scores.

Every spelling a reader accepts beyond the format's own standard is in ``KNOWN``, the one table:
what is written, in which field, what it means, which program writes it, and the source that
shows it (the program's documentation, a real published file, or - marked so - the report
that found it where no real file under a usable licence was at hand). The readers take the
sets below from the table, so a spelling is accepted exactly when it is documented here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from protocol.bridge import BridgeError, Contract, Seat, Side, parse_tricks
from server.scoring import Method, methods

_PAIR = re.compile(
    r"(?:\(?\s*(?P<section>[A-Za-z]{1,2})\s*\)?\s*[-:]?\s*)?"
    r"(?P<number>\d{1,4})\s*[-/]?\s*(?P<dir>[^\d\s]*)"
)
_ARTIFICIAL = re.compile(
    r"A(?:RB)?\s*(?P<ns>\d{1,3}(?:\.\d+)?)\s*[-/ ]?\s*%?\s*(?P<ew>\d{1,3}(?:\.\d+)?)?\s*%?"
)
_ARTIFICIAL_4 = re.compile(r"A(?P<ns>\d\d)(?P<ew>\d\d)")


@dataclass(frozen=True, slots=True)
class Spelling:
    """One spelling a reader accepts: where it is written, what it means, and who says so."""

    field: str
    """Where it is written: "contract", "score", "adjusted", "deal", "program", "method"."""
    written: str
    means: str
    programs: str
    source: str


_PBN = "PBN 2.1 standard, https://www.tistis.nl/pbn/pbn_v21.txt"
_FFB = "real file: tests/data/published/ffb_open2_dn1_finale_2022_seance1.pbn (Magic Contest)"
_RB = "real file: tests/data/endplay-realbridge/ (RealBridge, 2021 Online Qual Open R2)"
_BW = "real file: tests/data/published/bridgewebs_westwood_2019-06-25_silver_points_pairs.pbn"
_REPORTED = "reported by a user; no real file under a usable licence found (minimal test file)"
_EARLIER = "accepted by the first readers; no source was recorded (kept, not yet cited)"
_USEBIO = "USEBIO 1.2, http://www.usebio.org/files/usebio_v1_2.dtd"

KNOWN: tuple[Spelling, ...] = (
    # contracts
    Spelling("contract", "Pass", "passed out", "PBN writers", _PBN),
    Spelling("contract", "Pass", "passed out", "RealBridge", _RB),
    Spelling("contract", "4Sx", "doubled (lower-case x)", "RealBridge", _RB),
    Spelling("contract", "PO", "passed out", "Bridgewebs-style PBN exports", _REPORTED),
    Spelling("contract", "PASS", "passed out (declarer N, result '-')", "Bridgewebs", _BW),
    Spelling("contract", "3H*", "doubled (an asterisk)", "Bridgewebs", _BW),
    Spelling("contract", "-", "not played (declarer N, result '-')", "Bridgewebs", _BW),
    Spelling("contract", "NP", "not played", "EBUScore, Bridgewebs", _EARLIER),
    Spelling("contract", "N/P", "not played", "unknown", _EARLIER),
    Spelling("contract", "NOT PLAYED", "not played", "unknown", _EARLIER),
    Spelling("contract", "-", "not played", "PBN writers (missing value)", _PBN),
    Spelling("contract", "--", "not played", "unknown", _EARLIER),
    Spelling("contract", "NOTPLAYED", "not played", "unknown", _EARLIER),
    Spelling("contract", "X", "not played", "unknown", _EARLIER),
    # a contract field saying "not played" next to a score of 0 with matchpoints
    Spelling(
        "np-scored",
        "NP, SCORE 0, matchpoints on the line",
        "passed out (the line was scored, and 0 is a pass-out's score)",
        "USEBIO writers of individual and club events",
        _REPORTED,
    ),
    # adjusted scores
    Spelling("score", "A+", "artificial 60 %", "Magic Contest", _FFB),
    Spelling("score", "A-", "artificial 40 %", "Magic Contest", _FFB),
    Spelling("score", "A=", "artificial 50 %", "unknown", _EARLIER),
    Spelling("score", "AVE+", "artificial 60 %", "ACBLscore-style", _EARLIER),
    Spelling("score", "AVE", "artificial 50 %", "ACBLscore-style", _EARLIER),
    Spelling("score", "AVE-", "artificial 40 %", "ACBLscore-style", _EARLIER),
    Spelling("score", "A6040", "artificial 60 % / 40 %", "USEBIO writers", _EARLIER),
    Spelling(
        "adjusted",
        "A A A",
        "adjusted score in Contract, Declarer and Result; the per cent from the line's "
        "Percentage_NS/_EW, else from its matchpoints",
        "Bridgewebs-style PBN exports",
        _REPORTED,
    ),
    # hand records
    Spelling("deal", "Q64.-.KQ8643.KQT4", "a void written '-'", "dealing programs", _REPORTED),
    Spelling("deal", "Q64..KQ8643.KQT4", "a void (the standard's spelling)", "PBN", _PBN),
    Spelling("deal", "-", "a hand not known", "PBN", _PBN),
    # the program that wrote the file
    Spelling("program", "[Application]", "the program (PBN tag)", "Magic Contest", _FFB),
    Spelling("program", "[Generator]", "the program (PBN tag)", "dealing programs", _PBN),
    Spelling("program", "% Generator: ...", "the program (PBN comment)", "Magic Contest", _FFB),
    Spelling("program", "%Creator: ...", "the program (PBN comment)", "Traveller", "this repo"),
    Spelling("program", "PROGRAM_NAME, PROGRAM_VERSION", "the program (USEBIO)", "USEBIO", _USEBIO),
    # the scoring method
    Spelling("method", "MatchPoints;MP1", "matchpoints", "Magic Contest", _FFB),
    Spelling("method", "IMP", "IMPs", "RealBridge", _RB),
    Spelling("method", "MP_PAIRS", "matchpoints (EVENT_TYPE)", "USEBIO", _USEBIO),
    Spelling("method", "BUTLER_PAIRS", "Butler (EVENT_TYPE)", "USEBIO", _USEBIO),
    Spelling("method", "CROSS_IMPS", "cross-IMPs (EVENT_TYPE)", "USEBIO", _USEBIO),
    Spelling("method", "IMPS", "IMPs (SCORING_METHOD)", "USEBIO", _REPORTED),
)
"""The one table of accepted spellings (tests check every reader honours it)."""


def _written(field: str, means: str) -> frozenset[str]:
    return frozenset(
        s.written.upper() for s in KNOWN if s.field == field and s.means.startswith(means)
    )


_AVERAGE_WORDS = {
    s.written.upper(): Fraction(s.means.split()[1])
    for s in KNOWN
    if s.field == "score"
    if s.means.startswith("artificial") and "/" not in s.means
}
_PASSED_OUT = _written("contract", "passed out")
_NOT_PLAYED = _written("contract", "not played") | {""}


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


def player_number(text: str) -> int:
    """A player's number in an individual event: 1 to 9999, ASCII digits."""
    raw = text.strip()
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= 9999:
        raise SpellingError(f"{raw!r} is not a player number")
    return int(raw)


def seated_players(cells: Sequence[tuple[str, str]], unit: str) -> tuple[int, int, int, int] | None:
    """The four players (North, East, South, West) of an individual's traveller ``unit`` (a
    "row", a "line") from its four (name, text) cells; None when none is filled (a pairs
    line). One missing, a number that is not a player's or a player twice is refused."""
    texts = [text for _, text in cells]
    if not any(texts):
        return None
    missing = [name for name, text in cells if not text]
    if missing:
        raise SpellingError(f"an individual's {unit} without {', '.join(missing)}")
    north, east, south, west = (player_number(text) for text in texts)
    if len({north, east, south, west}) < 4:
        raise SpellingError(f"a player sits twice at the table ({', '.join(texts)})")
    return north, east, south, west


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
    """The canonical contract ("4SX", "PASS") from "4S", "4Sx", "4 S x", "3N", "Pass", "PO" ..."""
    if text.strip().upper() in _PASSED_OUT:
        return "PASS"
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


def played(
    contract_text: str,
    declarer_text: str,
    tricks_text: str | int,
    *,
    declarer_word: str | None = None,
    tricks_word: str | None = None,
) -> tuple[str, str | None, int]:
    """The contract, declarer and tricks of a line a file says was played, from its cells, the
    same for every reader (through ``lines.read_cells``): ("PASS", None, 0) for a passed-out
    board. With `declarer_word` or
    `tricks_word`, an empty cell is refused as "4S has no <word>" (the format's name for it)."""
    played_contract = contract(contract_text)
    if played_contract == "PASS":
        return played_contract, None, 0
    if declarer_word and not declarer_text.strip():
        raise SpellingError(f"{played_contract} has no {declarer_word}")
    seat = declarer(declarer_text)
    if tricks_word and not str(tricks_text).strip():
        raise SpellingError(f"{played_contract} has no {tricks_word}")
    return played_contract, seat, tricks(tricks_text, played_contract)


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
    return methods.named_in_file(text)


def cli_method(text: str) -> Method:
    """A method named on the command line: one of the registry's keys (server/scoring/methods)."""
    try:
        return methods.parse(text)
    except ValueError as error:
        raise SpellingError(str(error)) from None


def adjusted_columns(contract_text: str, declarer_text: str, result_text: str) -> bool:
    """Whether Contract, Declarer and Result all say "A": an adjusted score ("A A A")."""
    return all(t.strip().upper() == "A" for t in (contract_text, declarer_text, result_text))


def void_suits(deal: str) -> str:
    """A deal with each void written "-" inside a hand ("Q64.-.KQ8643.KQT4") in the standard's
    spelling (an empty suit); a whole hand "-" (not known) is left as it is."""
    hands = deal.split()
    out = []
    for hand in hands:
        prefix = ""
        if len(hand) > 2 and hand[1] == ":":
            prefix, hand = hand[:2], hand[2:]
        if "." in hand:
            hand = ".".join("" if suit == "-" else suit for suit in hand.split("."))
        out.append(prefix + hand)
    return " ".join(out)


def np_scored(contract_text: str, score: int | None, scored: bool) -> bool:
    """Whether a line whose contract field says "not played" (NP) was a board passed out: it
    carries a score of 0 and its matchpoints (``scored``), as a line not played never does
    (``KNOWN``, field "np-scored")."""
    written = contract_text.strip()
    return bool(written) and not_played(written) and score == 0 and scored
