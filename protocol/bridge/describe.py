"""One English sentence for a table result, e.g. "4♠ doubled by South, two down, N/S -500"."""

from __future__ import annotations

from .board import vulnerability
from .contract import TableResult
from .enums import Doubling, Vulnerability
from .score import result_ns_score

NUMBER_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six",
    "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
)  # fmt: skip
_DOUBLING_WORDS = {Doubling.NONE: "", Doubling.X: " doubled", Doubling.XX: " redoubled"}


def describe_outcome(result: TableResult) -> str:
    """The outcome in words: "made", "made with two overtricks", "one down"; "" for a pass."""
    if result.contract.is_pass:
        return ""
    difference = result.tricks - result.contract.tricks_needed
    if difference == 0:
        return "made"
    if difference > 0:
        plural = "s" if difference > 1 else ""
        return f"made with {NUMBER_WORDS[difference]} overtrick{plural}"
    return f"{NUMBER_WORDS[-difference]} down"


def describe(board: int | None, result: TableResult, vulnerable: bool | None = None) -> str:
    """Describe a result; vulnerability comes from the board if given, else from ``vulnerable``."""
    strain = result.contract.strain
    if result.declarer is None or strain is None:
        return "Passed out, 0"
    if board is not None:
        vul = vulnerability(board)
    else:
        # Without a board, ``vulnerable`` says whether the declaring side is vulnerable.
        side = result.declarer.side
        vul = Vulnerability(side.value) if vulnerable else Vulnerability.NONE
    contract = result.contract
    words = f"{contract.level}{strain.symbol}{_DOUBLING_WORDS[contract.doubling]}"
    ns = result_ns_score(result, vul)
    return f"{words} by {result.declarer.name_en}, {describe_outcome(result)}, N/S {ns:+d}"
