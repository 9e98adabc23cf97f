"""Breaking ties where unique places are needed: § 223 for pairs, § 221 for teams."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

from .models import PairId

T = TypeVar("T", bound=Hashable)
Criterion = Callable[[Sequence[T]], Mapping[T, Any]]
"""Scores a tied group; a higher key ranks ahead."""


def break_ties(
    group: Sequence[T], criteria: Sequence[Criterion[T]], *, restart: bool
) -> list[list[T]]:
    """Order a tied group into sub-groups, best first; each sub-group is still tied.

    Criteria are tried in order. When one splits the group, each smaller group still tied goes
    through the criteria again: from the first (`restart`, § 221A4) or from the one that split
    it (§ 223B1b repeats the head-to-head comparison for those still level).
    """

    def resolve(members: list[T], start: int) -> list[list[T]]:
        if len(members) < 2:
            return [members]
        for index in range(start, len(criteria)):
            keys = criteria[index](members)
            distinct = sorted(set(keys.values()), reverse=True)
            if len(distinct) < 2:
                continue
            ordered: list[list[T]] = []
            for key in distinct:
                subgroup = [m for m in members if keys[m] == key]
                ordered.extend(resolve(subgroup, 0 if restart else index))
            return ordered
        return [members]

    return resolve(list(group), 0)


# --- Pairs (§ 223) -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PairBoard:
    """One board a pair was scored on, as the tie-break needs it."""

    board: Hashable
    round: int | None
    opponent: PairId | None
    score: Fraction
    top: Fraction

    @property
    def above_average(self) -> Fraction:
        """Matchpoints relative to the average (the Danish ± scale: 0 = average)."""
        return self.score - self.top / 2


def pair_criteria(records: Mapping[PairId, Sequence[PairBoard]]) -> list[Criterion[PairId]]:
    """§ 223B's three criteria over the pairs' board records."""

    def head_to_head(group: Sequence[PairId]) -> dict[PairId, Fraction]:
        # § 223B1: matchpoints in the boards the tied pairs played against each other; with more
        # than two pairs all their mutual meetings are summed with 0 as average.
        members = set(group)
        return {
            pair: sum(
                (r.above_average for r in records.get(pair, ()) if r.opponent in members),
                Fraction(0),
            )
            for pair in group
        }

    def rounds_above_average(group: Sequence[PairId]) -> dict[PairId, int]:
        # § 223B2: most rounds with a score above average (results without a round don't count).
        counts: dict[PairId, int] = {}
        for pair in group:
            by_round: dict[int, Fraction] = {}
            for r in records.get(pair, ()):
                if r.round is not None:
                    by_round[r.round] = by_round.get(r.round, Fraction(0)) + r.above_average
            counts[pair] = sum(1 for total in by_round.values() if total > 0)
        return counts

    def fewest_bottoms(group: Sequence[PairId]) -> dict[PairId, tuple[int, ...]]:
        # § 223B3: fewest of the worst board score, then of the next worst, and so on; scores are
        # compared as fractions of the top so boards of different tops compare fairly.
        shares = {
            pair: [r.score / r.top for r in records.get(pair, ()) if r.top > 0] for pair in group
        }
        values = sorted({v for pair_shares in shares.values() for v in pair_shares})
        return {pair: tuple(-shares[pair].count(v) for v in values) for pair in group}

    return [head_to_head, rounds_above_average, fewest_bottoms]


def break_pair_ties(
    group: Sequence[PairId], records: Mapping[PairId, Sequence[PairBoard]]
) -> list[list[PairId]]:
    """§ 223B: order pairs tied on total; pairs still level after all three stay tied."""
    return break_ties(group, pair_criteria(records), restart=False)


# --- Teams (§ 221) -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TeamMatch:
    """A played match as the team tie-break needs it."""

    home: Hashable
    away: Hashable
    home_vp: Fraction
    away_vp: Fraction
    home_imps: Fraction
    """IMPs won by the home team."""
    away_imps: Fraction
    """IMPs won by the away team."""


def imp_quotient(won: Fraction, lost: Fraction) -> tuple[int, Fraction]:
    """Won/lost IMPs as a sortable key: a team that lost no IMPs beats any finite quotient."""
    if lost == 0:
        return (1, won) if won > 0 else (0, Fraction(1))
    return (0, Fraction(won) / lost)


def _imps(
    matches: Sequence[TeamMatch], group: Sequence[Hashable], mutual: bool
) -> dict[Hashable, tuple[int, Fraction]]:
    members = set(group)
    won = {team: Fraction(0) for team in group}
    lost = {team: Fraction(0) for team in group}
    for m in matches:
        if mutual and not (m.home in members and m.away in members):
            continue
        if m.home in members:
            won[m.home] += m.home_imps
            lost[m.home] += m.away_imps
        if m.away in members:
            won[m.away] += m.away_imps
            lost[m.away] += m.home_imps
    return {team: imp_quotient(won[team], lost[team]) for team in group}


def team_criteria(
    matches: Sequence[TeamMatch], *, round_robin: bool = True
) -> list[Criterion[Hashable]]:
    """§ 221A (round robin) or § 221B (e.g. Monrad) criteria over the matches played."""

    def mutual_vp(group: Sequence[Hashable]) -> dict[Hashable, Fraction]:
        members = set(group)
        vp = {team: Fraction(0) for team in group}
        for m in matches:
            if m.home in members and m.away in members:
                vp[m.home] += m.home_vp
                vp[m.away] += m.away_vp
        return vp

    def mutual_quotient(group: Sequence[Hashable]) -> dict[Hashable, tuple[int, Fraction]]:
        return _imps(matches, group, mutual=True)

    def all_quotient(group: Sequence[Hashable]) -> dict[Hashable, tuple[int, Fraction]]:
        return _imps(matches, group, mutual=False)

    def opponents_vp(group: Sequence[Hashable]) -> dict[Hashable, Fraction]:
        totals: dict[Hashable, Fraction] = {}
        for m in matches:
            totals[m.home] = totals.get(m.home, Fraction(0)) + m.home_vp
            totals[m.away] = totals.get(m.away, Fraction(0)) + m.away_vp
        sums = {team: Fraction(0) for team in group}
        for m in matches:
            if m.home in sums:
                sums[m.home] += totals[m.away]
            if m.away in sums:
                sums[m.away] += totals[m.home]
        return sums

    if round_robin:
        return [mutual_vp, mutual_quotient, all_quotient]
    return [opponents_vp, all_quotient]


def break_team_ties(
    group: Sequence[Hashable], matches: Sequence[TeamMatch], *, round_robin: bool = True
) -> list[list[Hashable]]:
    """§ 221A (restarting for a smaller group still tied) or § 221B for teams level on VPs."""
    return break_ties(group, team_criteria(matches, round_robin=round_robin), restart=round_robin)
