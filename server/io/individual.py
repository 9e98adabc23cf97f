"""An individual event read from a file, scored per player.

Each line's two partnerships (North-South, East-West) are scored on the board as pairs are;
a player's score is the sum over the partnerships they played in (individual matchpoints),
and the ranking is by percentage of the possible (matchpoint methods) or by total, as the
live ranking of an individual section (``server/services/results/individual_standings.py``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from fractions import Fraction

from server.scoring import Method, Profile, get_profile
from server.scoring.ranking import places, tied_groups

from .board_scores import board_report, build_scorer
from .model import EventFile, Line, PairEntry, PairKey
from .report import ScoredRankingLine, ScoreReport


def partnerships(event: EventFile) -> tuple[EventFile, dict[PairKey, tuple[int, int]]]:
    """The event with every line keyed by its partnerships (one key for two players of a
    section, whichever sat where), and each key's players."""
    keys: dict[tuple[str | None, int, int], PairKey] = {}
    members: dict[PairKey, tuple[int, int]] = {}

    def key(section: str | None, first: int, second: int) -> PairKey:
        low, high = sorted((first, second))
        found = keys.get((section, low, high))
        if found is None:
            found = keys[(section, low, high)] = PairKey(section, len(keys) + 1)
            members[found] = (first, second)
        return found

    lines: list[Line] = []
    for line in event.lines:
        if line.players is None:
            lines.append(line)
            continue
        north, east, south, west = line.players
        ns, ew = key(line.section, north, south), key(line.section, east, west)
        lines.append(replace(line, ns=ns, ew=ew))
    pairs = [PairEntry(k) for k in members]
    return replace(event, lines=lines, pairs=pairs, players=[]), members


def score_individual(
    event: EventFile,
    method: Method | None = None,
    *,
    across_sections: bool | None = None,
    field: str | int | None = None,
    profile: Profile | None = None,
) -> ScoreReport:
    """Score an individual event: its travellers as ``score_event`` scores a pairs event's,
    its ranking one line a player with the file's names."""
    profile = profile or get_profile(None)
    seated, members = partnerships(event)
    scorer, chosen = build_scorer(seated, method, across_sections, field, profile)
    totals: dict[PairKey, Fraction] = defaultdict(Fraction)
    tops: dict[PairKey, Fraction] = defaultdict(Fraction)
    boards: dict[PairKey, int] = defaultdict(int)
    for partnership, records in scorer.pair_records().items():
        assert isinstance(partnership, PairKey)
        for number in members[partnership]:
            player = PairKey(partnership.section, number)
            for record in records:
                totals[player] += record.score
                tops[player] += record.top
                boards[player] += 1
    names = {PairKey(p.section, p.number): p.name for p in event.players}
    everyone = sorted(set(names) | set(totals))

    def percentage(player: PairKey) -> Fraction | None:
        if not chosen.is_matchpoints or not tops[player]:
            return None
        return 100 * totals[player] / tops[player]

    def rank_key(player: PairKey) -> Fraction:
        if not chosen.is_matchpoints:
            return totals[player]
        found = percentage(player)
        return Fraction(-1) if found is None else found

    ordered = sorted(everyone, key=rank_key, reverse=True)
    ranking = tuple(
        ScoredRankingLine(
            key=player,
            names=(names[player],) if names.get(player) else (),
            direction=None,
            total=totals[player],
            percentage=percentage(player),
            place=label,
            boards=boards[player],
        )
        for player, _, label in places(tied_groups(ordered, rank_key))
    )
    travellers = tuple(
        board_report(scorer, board_key)
        for board_key in sorted(scorer.boards, key=lambda k: (str(k[0] or ""), k[1]))
    )
    return ScoreReport(event, chosen, 1, ranking, travellers, profile, members)
