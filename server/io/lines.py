"""A traveller line's result from the cells a file writes it in, read the same by every reader
(PBN, team PBN, CSV, USEBIO pairs and teams, BWS, ACBL Live): the same cells give the same
result and the same refusal wherever they come from. A reader only finds the cells and names
the place in the file; the spellings themselves are ``spelling.KNOWN``'s.

In order:

1. An artificial score (``spelling.artificial``: "A60", "A6040", "AVE+", "A+" ...) in the
   contract cell, else in the score cell(s), is the line's result.
2. A contract cell that is empty or says the board was not played ("NP", "-", ...):
   - "NP" beside a score of 0 on a line that carries its matchpoints is a board passed out
     (``spelling.np_scored``);
   - an empty contract beside a score is scored from the score;
   - an empty contract beside a score cell that is neither a score nor an artificial score is
     refused;
   - otherwise the board was not played at the table.
3. Otherwise the contract was played (``spelling.played``): a pass-out, or a contract with its
   declarer and tricks, each refused by name when missing ("4S has no declarer", "4S has no
   tricks"); the score cell is kept as the file's published score (never used to score).

A format whose tricks cell is an absolute count only (ACBL Live's ``tricks_taken``) reads with
``relative=False``: "+1" is then refused, not taken as one trick or as the overtrick.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from protocol.bridge import BridgeError

from . import spelling
from .model import Line

_SCORE = re.compile(r"[+-]?[0-9]{1,5}")
_TRICKS_TAKEN = re.compile(r"[0-9]{1,2}")


@dataclass(frozen=True, slots=True)
class Cells:
    """A line's result cells as the file writes them ("" for a cell it leaves out)."""

    contract: str = ""
    declarer: str = ""
    tricks: str | int = ""
    score: str = ""
    """The N/S score, or an artificial score's spelling."""
    score_ew: str = ""
    """The E/W score, where the format has a cell of its own for it (PBN Score_EW)."""


@dataclass(frozen=True, slots=True)
class LinePlay:
    """What a line's cells say: a contract played, an artificial score, a score alone, or
    nothing (not played)."""

    contract: str | None = None
    """Canonical ("4SX", "PASS"), or None."""
    declarer: str | None = None
    tricks: int | None = None
    artificial: tuple[Fraction, Fraction] | None = None
    """(N/S %, E/W %) of an artificial score."""
    score: int | None = None
    """The N/S score of a line with a score and no contract (scored from it)."""
    published_ns_score: int | None = None
    """The score cell beside a contract played: what the file published (never used)."""


def read_cells(cells: Cells, *, scored: bool = False, relative: bool = True) -> LinePlay:
    """The line's result from its cells (the rules in the module's docstring); SpellingError
    with the reason when a cell is not in any accepted spelling. ``scored``: the line carries
    its matchpoints or IMPs (an "NP" with a score of 0 is then a pass-out)."""
    contract = cells.contract.strip()
    artificial = _artificial(contract, cells.score.strip(), cells.score_ew.strip())
    if artificial is not None:
        return LinePlay(artificial=artificial)
    score = _ns_score(cells.score.strip(), cells.score_ew.strip())
    if not contract or spelling.not_played(contract):
        if spelling.np_scored(contract, score, scored):
            return LinePlay("PASS", None, 0)
        if contract:
            return LinePlay()
        if score is not None:
            return LinePlay(score=score)
        written = cells.score.strip() or cells.score_ew.strip()
        if written:
            raise spelling.SpellingError(
                f"{written!r} is not a score (expected a whole number, or an artificial score "
                "such as A60)"
            )
        return LinePlay()
    tricks = cells.tricks if relative else _tricks_taken(cells.tricks)
    try:
        played, seat, taken = spelling.played(
            contract, cells.declarer, tricks, declarer_word="declarer", tricks_word="tricks"
        )
    except BridgeError as exc:  # the spelling's own checks name it; this keeps one error type
        raise spelling.SpellingError(str(exc)) from None
    return LinePlay(played, seat, taken, published_ns_score=score)


def fill_play(line: Line, cells: Cells, *, relative: bool = True) -> None:
    """Set a pairs line's result from its cells (``read_cells``; ``scored`` when the line
    already carries its published matchpoints or IMPs)."""
    play = read_cells(cells, scored=line.published_values is not None, relative=relative)
    line.contract, line.declarer, line.tricks = play.contract, play.declarer, play.tricks
    line.artificial = play.artificial
    line.score = play.score
    line.published_ns_score = play.published_ns_score


def _artificial(contract: str, score: str, score_ew: str) -> tuple[Fraction, Fraction] | None:
    """An artificial score in the contract cell, else in the score cells: each side's own cell
    gives its per cent, and one side's alone gives the other the rest."""
    found = spelling.artificial(contract) if contract else None
    if found is not None:
        return found
    ns = spelling.artificial(score) if score else None
    ew = spelling.artificial(score_ew) if score_ew else None
    if ns is None and ew is None:
        return None
    ns_pct = ns[0] if ns else 100 - (ew[0] if ew else Fraction(50))
    return ns_pct, (ew[0] if ew else 100 - ns_pct)


def _ns_score(score: str, score_ew: str) -> int | None:
    """The N/S score from its own cell, else the E/W score's negation; None without a whole
    number."""
    if score:
        return int(score) if _SCORE.fullmatch(score) else None
    if score_ew and _SCORE.fullmatch(score_ew):
        return -int(score_ew)
    return None


def _tricks_taken(text: str | int) -> str:
    """An absolute count of tricks ("9"): anything else is refused, "+1" included."""
    written = str(text).strip()
    if written and not (_TRICKS_TAKEN.fullmatch(written) and int(written) <= 13):
        raise spelling.SpellingError(f"{written!r} is not a number of tricks (expected 0 to 13)")
    return written


def team_refusal(play: LinePlay, cells: Cells) -> str | None:
    """Why a team match's line cannot be read (team PBN, USEBIO teams), or None: a team board
    is scored from the contract in both rooms, so an artificial score or a score without a
    contract is refused rather than guessed at."""
    if play.artificial is not None:
        written = cells.contract.strip()
        if not written or spelling.artificial(written) is None:
            written = cells.score.strip() or cells.score_ew.strip()
        return f"the artificial score {written!r} in a team match is not read"
    score = _ns_score(cells.score.strip(), cells.score_ew.strip())
    if play.contract is None and score:
        return (
            f"the score {score} without a contract: a team board is scored from the contract, "
            "so this one is not scored"
        )
    return None
