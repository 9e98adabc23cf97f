"""An event file's travellers scored board by board: the results the scorer sees (contract,
declarer and tricks, or an artificial score), the scorer over them, and each board's scored
traveller. ``scorefile`` ranks pairs from them, ``individual`` players."""

from __future__ import annotations

from typing import Any

from protocol.bridge import BridgeError
from server.scoring import (
    BoardResult,
    Method,
    PairsScorer,
    Profile,
    ScoringOptions,
    traveller,
)

from .errors import EventFileError
from .model import EventFile, Line
from .report import ScoredTraveller


def board_results(event: EventFile, across_sections: bool) -> list[BoardResult]:
    """The scorer's results from the travellers: contract, declarer and tricks, or artificial."""
    results: list[BoardResult] = []
    for line in event.lines:
        section = None if across_sections else line.section
        where: dict[str, Any] = {"table": line.table, "round": line.round, "section": section}
        try:
            results.append(_board_result(line, where))
        except (BridgeError, ValueError, TypeError) as exc:
            raise EventFileError(f"{line.ns} v {line.ew}: {exc}", board=line.board) from None
    return results


def _board_result(line: Line, where: dict[str, Any]) -> BoardResult:
    if line.ns is None or line.ew is None:
        return BoardResult(line.board, line.ns, line.ew, None, None, **where)
    if line.artificial is not None:
        ns, ew = line.artificial
        return BoardResult.artificial(line.board, line.ns, line.ew, ns, ew, **where)
    if line.adjusted is not None:
        return BoardResult.unbalanced(line.board, line.ns, line.ew, *line.adjusted, **where)
    if line.contract is None and line.score is not None:
        return BoardResult.played(line.board, line.ns, line.ew, line.score, **where)
    if line.contract is None:
        return BoardResult(line.board, line.ns, line.ew, None, None, **where)
    if line.tricks is None:
        raise ValueError(f"{line.contract} has no tricks")
    declarer = None if line.contract == "PASS" else line.declarer
    return BoardResult.from_play(
        line.board,
        line.ns,
        line.ew,
        line.contract,
        declarer,
        line.tricks,
        lead=line.lead,
        **where,
    )


def build_scorer(
    event: EventFile,
    method: Method | None,
    across_sections: bool | None,
    field: str | int | None,
    profile: Profile,
) -> tuple[PairsScorer, Method]:
    """The event's lines scored on every board by the method chosen as ``score_event`` says,
    with the pairs' penalties; and that method."""
    chosen = method or event.method or Method.MATCHPOINTS
    if method is None and chosen is Method.MATCHPOINTS:
        chosen = profile.matchpoints
    across = event.across_sections if across_sections is None else across_sections
    if field is None:  # the file's own word (a provisional export), else the most results
        field = event.tables_per_board or "max"
    results = board_results(event, across)
    try:
        options = profile.options(
            ScoringOptions(method=chosen, across_sections=across, field=field)
        )
        scorer = PairsScorer(results, options, pairs=[p.key for p in event.pairs])
        scorer.set_penalties({p.key: p.penalty for p in event.pairs if p.penalty})
    except (ValueError, TypeError) as exc:
        raise EventFileError(f"cannot score the event: {exc}") from None
    return scorer, chosen


def board_report(scorer: PairsScorer, board_key: tuple[Any, int]) -> ScoredTraveller:
    section, number = board_key
    rows = tuple(traveller(scorer.boards[board_key]))
    return ScoredTraveller(number, section if isinstance(section, str) else None, rows)
