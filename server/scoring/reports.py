"""What people read: the traveller and frequency table of a board, and a pair's score card."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from fractions import Fraction

from .board import BoardScore
from .exact import to_decimal
from .models import Artificial, BoardResult, Direction, PairId, Points, SelfInflicted, SideScore


def side_label(side: SideScore | None, direction: Direction = Direction.NS) -> str:
    """A side's score as printed: "420", "A60" (artificial 60 %), "30% 420 / 70% -50"."""
    if side is None:
        return ""
    if isinstance(side, Points):
        return str(direction.sign * side.ns)
    if isinstance(side, Artificial):
        return f"A{to_decimal(side.percent, 2).normalize():f}"
    if isinstance(side, SelfInflicted):
        adjusted = side_label(side.adjusted, direction)
        expected = side_label(side.expected, direction)
        at_table = side_label(side.at_table, direction)
        return f"{adjusted} (§ X78A4: M {expected}, F {at_table})"
    return " / ".join(
        f"{to_decimal(100 * w, 2).normalize():f}% {direction.sign * s}" for s, w in side.parts
    )


@dataclass(frozen=True, slots=True)
class ScoredLine:
    """One table on a board's traveller, scored: exact values, the pairs as the scorer keys
    them (the offline report prints these; the pages' ``TravellerLine`` is made from them)."""

    table: Hashable | None
    round: int | None
    ns: PairId | None
    ew: PairId | None
    contract: str | None
    declarer: str | None
    lead: str | None
    result: str | None
    """Tricks relative to the contract: "=", "+1", "-2"."""
    tricks: int | None
    ns_score: int | None
    """The N/S points of an ordinary (balanced, unweighted) result."""
    ns_label: str
    ew_label: str
    ns_value: Fraction | None
    ew_value: Fraction | None
    ns_percent: Fraction | None
    ew_percent: Fraction | None


def _ordinary_score(result: BoardResult) -> int | None:
    if isinstance(result.ns, Points) and result.ns == result.ew:
        return result.ns.ns
    return None


def traveller(score: BoardScore) -> list[ScoredLine]:
    """Every table's result and each side's score on the board, best N/S score first."""
    rows: list[ScoredLine] = []
    for index, result in enumerate(score.results):
        if result.is_sit_out:
            continue
        play = result.play
        rows.append(
            ScoredLine(
                table=result.table,
                round=result.round,
                ns=result.ns_pair,
                ew=result.ew_pair,
                contract=None if play is None else str(play.contract),
                declarer=None if play is None or play.declarer is None else play.declarer.name,
                lead=result.lead,
                result=None if play is None or play.declarer is None else play.result,
                tricks=None if play is None or play.declarer is None else play.tricks,
                ns_score=_ordinary_score(result),
                ns_label=side_label(result.ns, Direction.NS),
                ew_label=side_label(result.ew, Direction.EW),
                ns_value=score.value(index, Direction.NS),
                ew_value=score.value(index, Direction.EW),
                ns_percent=score.percent(index, Direction.NS),
                ew_percent=score.percent(index, Direction.EW),
            )
        )
    rows.sort(key=lambda r: (r.ns_value is None, -(r.ns_value or 0)))
    return rows


@dataclass(frozen=True, slots=True)
class FrequencyRow:
    """One line of a board's frequency table in one direction."""

    group: int
    label: str
    """The side's own score ("420", "-50"), or the adjusted score's label."""
    score: int | None
    """The side's own points, for an ordinary score."""
    frequency: Fraction
    """How many results (a decimal once weighted scores are in, § X78A1)."""
    value: Fraction | None
    """Matchpoints (IMPs...) each of these results earned."""
    percent: Fraction | None


def frequency_table(score: BoardScore, direction: Direction = Direction.NS) -> list[FrequencyRow]:
    """Scores in a direction, best first, with how often each occurred and what it earned.

    Ordinary results with the same score share a line; a weighted or artificial score is a
    line of its own (frequency 1), so the frequencies add up to the number of results.
    """
    plain: dict[tuple[int, int], list[int]] = {}
    other: list[FrequencyRow] = []
    for index, result in enumerate(score.results):
        side = result.side(direction)
        if side is None:
            continue
        if isinstance(side, Points):
            plain.setdefault((result.group, direction.sign * side.ns), []).append(index)
        else:
            other.append(
                FrequencyRow(
                    result.group,
                    side_label(side, direction),
                    None,
                    Fraction(1),
                    score.value(index, direction),
                    score.percent(index, direction),
                )
            )
    rows = [
        FrequencyRow(
            group,
            str(points),
            points,
            Fraction(len(indices)),
            score.value(indices[0], direction),
            score.percent(indices[0], direction),
        )
        for (group, points), indices in plain.items()
    ]
    rows.extend(other)
    rows.sort(key=lambda r: (r.group, r.value is None, -(r.value or 0)))
    return rows


@dataclass(frozen=True, slots=True)
class ScoredCardLine:
    """One board on a pair's personal score card, scored (the pages' ``CardLine`` is made
    from it)."""

    board: int
    section: Hashable | None
    round: int | None
    table: Hashable | None
    direction: Direction | None
    opponents: PairId | None
    contract: str | None
    declarer: str | None
    lead: str | None
    result: str | None
    label: str
    """The pair's own score as printed ("-420", "A60", ...)."""
    value: Fraction | None
    percent: Fraction | None
    sat_out: bool


def score_card(boards: Iterable[BoardScore], pair: PairId) -> list[ScoredCardLine]:
    """Board by board: the pair's opponents, result, score and matchpoints (or IMPs) and %."""
    rows: list[ScoredCardLine] = []
    for score in boards:
        for index, result in enumerate(score.results):
            if pair not in (result.ns_pair, result.ew_pair):
                continue
            direction = Direction.NS if result.ns_pair == pair else Direction.EW
            play = result.play
            side = result.side(direction)
            rows.append(
                ScoredCardLine(
                    board=result.board,
                    section=result.section,
                    round=result.round,
                    table=result.table,
                    direction=direction,
                    opponents=result.pair(direction.other),
                    contract=None if play is None else str(play.contract),
                    declarer=None if play is None or play.declarer is None else play.declarer.name,
                    lead=result.lead,
                    result=None if play is None or play.declarer is None else play.result,
                    label=side_label(side, direction),
                    value=score.value(index, direction),
                    percent=score.percent(index, direction),
                    sat_out=side is None,
                )
            )
    rows.sort(key=lambda r: (r.round is None, r.round or 0, str(r.section), r.board))
    return rows


__all__ = [
    "FrequencyRow",
    "ScoredCardLine",
    "ScoredLine",
    "frequency_table",
    "score_card",
    "side_label",
    "traveller",
]
