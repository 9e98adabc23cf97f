"""The offline scorer: score an event file from its travellers, never from its published totals."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from typing import Any

from server.scoring import (
    Method,
    Profile,
    ScoredLine,
    Standing,
    get_profile,
    suggest_profile,
    to_decimal,
)

from .board_scores import board_report, build_scorer
from .individual import score_individual
from .model import EventFile, PairKey, Refusal
from .report import ScoredRankingLine, ScoreReport, decimal, line_key


def score_event(
    event: EventFile,
    method: Method | None = None,
    *,
    across_sections: bool | None = None,
    field: str | int | None = None,
    profile: Profile | None = None,
) -> ScoreReport:
    """Score the event by the method given, else the one the file names, else matchpoints.

    ``field`` is the number of tables a board is scored over (``ScoringOptions.field``): a
    live section passes its movement's, so a file exported mid-event agrees with the ranking;
    without it, the tables the file says it was scored over (``EventFile.tables_per_board``,
    a provisional export's), else the most results any board has ("max").
    ``profile`` sets the conventions the rules leave open (default DBf); when the method is
    not given, plain matchpoints are on the profile's scale.
    """
    if event.individual:
        return score_individual(
            event, method, across_sections=across_sections, field=field, profile=profile
        )
    profile = profile or get_profile(None)
    scorer, chosen = build_scorer(event, method, across_sections, field, profile)
    keys = [p.key for p in event.pairs]
    seats = _seats(event)
    winners = event.winners or (2 if keys and all(k.direction for k in keys) else 1)
    groups: list[tuple[str | None, list[PairKey]]]
    if winners == 2:
        groups = [(side, [k for k in keys if seats.get(k) == side]) for side in ("NS", "EW")]
        rest = [k for k in keys if seats.get(k) not in ("NS", "EW")]
        if rest:
            groups.append((None, rest))
    else:
        groups = [(None, keys)]
    names = {p.key: p.names for p in event.pairs}
    handicaps = {p.key: Fraction(p.handicap) for p in event.pairs if p.handicap is not None}
    pairs: list[ScoredRankingLine] = []
    for side, members in groups:
        if not members:
            continue
        for standing in scorer.standings(members):
            key = standing.pair
            assert isinstance(key, PairKey)
            result = _pair_result(standing, key, names.get(key, ()), side or key.direction)
            handicap = handicaps.get(key)
            if handicap is not None:
                handicapped = profile.handicapped(result.percentage, handicap)
                result = replace(result, handicap=handicap, handicapped=handicapped)
            pairs.append(result)
    boards = tuple(
        board_report(scorer, board_key)
        for board_key in sorted(scorer.boards, key=lambda k: (str(k[0] or ""), k[1]))
    )
    return ScoreReport(event, chosen, winners, tuple(pairs), boards, profile)


def _seats(event: EventFile) -> dict[PairKey, str]:
    """The direction each pair sat most often (its own, when the key has one)."""
    counts: dict[PairKey, Counter[str]] = {}
    for line in event.lines:
        for key, side in ((line.ns, "NS"), (line.ew, "EW")):
            if key is not None:
                counts.setdefault(key, Counter())[side] += 1
    seats = {key: c.most_common(1)[0][0] for key, c in counts.items()}
    for pair in event.pairs:
        if pair.key.direction:
            seats[pair.key] = pair.key.direction
    return seats


def _pair_result(
    standing: Standing, key: PairKey, names: tuple[str, ...], side: str | None
) -> ScoredRankingLine:
    return ScoredRankingLine(
        key=key,
        names=names,
        direction=side,
        total=standing.total,
        percentage=standing.percent,
        place=standing.place,
        boards=standing.boards,
        penalty=standing.penalty,
    )


# --- output -----------------------------------------------------------------------------


def _plain(value: Fraction | None, places: int = 2) -> str:
    if value is None:
        return ""
    number: Decimal = to_decimal(value, places)
    return f"{number:.{places}f}"


def to_json(report: ScoreReport) -> dict[str, Any]:
    """The stable JSON shape: event, method, pairs (number, direction, names, total, %), boards."""
    event = report.event
    played = _auctions_and_plays(report)
    return {
        "event": event.name,
        "date": event.date,
        "program": event.program,
        "method": report.method.value,
        "profile": report.profile.name,
        "suggested_profile": _suggested(event.program),
        "winners": report.winners,
        "lines_read": len(event.lines),
        "refused": [refusal_json(r) for r in event.refused],
        "notes": list(event.notes),
        "individual": report.partnerships is not None,
        ("players" if report.partnerships is not None else "pairs"): [
            {
                "number": p.key.number,
                "section": p.key.section,
                "direction": p.direction,
                "names": list(p.names),
                "total": decimal(p.total),
                "percentage": decimal(p.percentage),
                "place": p.place,
                "boards": p.boards,
                **(
                    {}
                    if p.handicap is None
                    else {
                        "handicap": decimal(p.handicap),
                        "handicapped_percentage": decimal(p.handicapped),
                    }
                ),
            }
            for p in report.pairs
        ],
        "boards": [
            {
                "board": b.board,
                "section": b.section,
                "results": [_row_json(report, b.board, row, played) for row in b.rows],
            }
            for b in report.boards
        ],
    }


def refusal_json(refusal: Refusal) -> dict[str, Any]:
    """A refused piece of the file: where it is and why."""
    return {
        "line": refusal.line,
        "element": refusal.element,
        "board": refusal.board,
        "reason": refusal.reason,
        "text": str(refusal),
    }


def _suggested(program: str) -> str | None:
    """The profile of the program that wrote the file (server/scoring/profiles.py), if known."""
    found = suggest_profile(program)
    return None if found is None else found.name


Played = dict[tuple[int, str, str], tuple[str | None, str | None, dict[int, str]]]
"""(board, N/S, E/W as printed) -> the table's auction, play and alert explanations, as the
file gave them."""


def _auctions_and_plays(report: ScoreReport) -> Played:
    """Each line's auction, play and explanations, found again by its board and its two sides."""
    return {
        line_key(line): (line.auction, line.play, line.alerts)
        for line in report.event.lines
        if line.auction is not None or line.play is not None
    }


def _row_json(report: ScoreReport, board: int, row: ScoredLine, played: Played) -> dict[str, Any]:
    key = report.row_key(board, row)
    _, ns, ew = key
    auction, play, explained = played.get(key, (None, None, {}))
    return {
        "ns": None if row.ns is None else ns,
        "ew": None if row.ew is None else ew,
        "table": row.table,
        "round": row.round,
        "contract": row.contract,
        "declarer": row.declarer,
        "tricks": row.tricks,
        "result": row.result,
        "lead": row.lead,
        "ns_score": row.ns_score,
        "score": row.ns_label,
        "ns_points": decimal(row.ns_value),
        "ew_points": decimal(row.ew_value),
        "ns_percentage": decimal(row.ns_percent),
        "ew_percentage": decimal(row.ew_percent),
        "auction": auction,
        "alerts": {str(call): text for call, text in explained.items()},
        "play": play,
    }


#: The column headers over each board's traveller in :func:`to_text` (the score is N/S's).
BOARD_HEADER = f"  {'NS':>8}   {'EW':<8} {'Contract':<12} {'Score':>7} {'NS':>8} {'EW':>8}"


def to_text(report: ScoreReport) -> str:
    """A printable ranking and the travellers."""
    event = report.event
    out = [f"{event.name or 'Event'} {event.date}".rstrip(), f"Method: {report.method.value}"]
    out.extend([f"Profile: {report.profile.title}", ""])
    handicaps = any(p.handicap is not None for p in report.pairs)
    extra = f" {'Hcp':>6} {'Hcp %':>7}" if handicaps else ""
    who = "Player" if report.partnerships is not None else "Pair"
    out.append(f"{'Place':>5} {who:>10} {'Total':>9} {'%':>7}{extra}  Names")
    current: str | None = "start"
    for p in report.pairs:
        if report.winners == 2 and p.direction != current:
            current = p.direction
            out.append(f"-- {current or 'other'} --")
        pct = _plain(p.percentage)
        hcp = f" {_plain(p.handicap):>6} {_plain(p.handicapped):>7}" if handicaps else ""
        out.append(
            f"{p.place:>5} {p.key!s:>10} {_plain(p.total):>9} {pct:>7}{hcp}  {' & '.join(p.names)}"
        )
    for b in report.boards:
        title = f"Board {b.board}" + (f" (section {b.section})" if b.section else "")
        out.extend(["", title, BOARD_HEADER])
        for row in b.rows:
            play = " ".join(x for x in (row.contract, row.declarer, row.result) if x)
            ns, ew = report.side(row.ns), report.side(row.ew)
            out.append(
                f"  {ns:>8} v {ew:<8} {play:<12} {row.ns_label:>7} "
                f"{_plain(row.ns_value):>8} {_plain(row.ew_value):>8}"
            )
    return "\n".join(out) + "\n"
