"""Team matches: two-table IMPs and VPs (§ 202), board-a-match (§ 206), carry-over (§ 207)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from protocol.bridge import imps

from .exact import round_half_away
from .frequency import parts
from .models import Number, Points, RealScore
from .ranking import places, tied_groups
from .ties import TeamMatch, break_team_ties
from .vp import imps_for_vp, victory_points, victory_points_integer

BYE_VP = Fraction(12)
"""§ 202D: a team sitting out a round."""
VOIDED_MATCH_VP = Fraction(8)
"""§ 202B3: every board voided through both teams' fault: 8 VPs each (§ 202B4: neither's
fault - see voided_match_vp)."""
FORFEIT_MIN_VP = Fraction(13)
"""§ 202C1a: the least a team whose opponents did not turn up gets."""
BAM_AVE_PLUS = Fraction(6, 5)
BAM_AVE_MINUS = Fraction(4, 5)


def _real(value: RealScore | int | None) -> RealScore | None:
    return Points(value) if isinstance(value, int) else value


@dataclass(frozen=True, slots=True)
class TeamBoard:
    """One board of a two-table match: the N/S score in each room.

    The home team sits N/S in the open room and E/W in the closed room (§ 231A2), so the home
    team's result is open - closed. `home_adjusted`/`away_adjusted` replace the comparison by
    an adjusted score in the match's unit (IMPs, e.g. Law 86A's ±3; or board-a-match points);
    give one and the other is its negative (IMPs) or complement to 2 (board-a-match).
    A voided board, or one without both results, leaves the match (§ 202B2).
    """

    board: int
    open: RealScore | int | None
    closed: RealScore | int | None
    home_adjusted: Fraction | None = None
    away_adjusted: Fraction | None = None
    voided: bool = False


def two_table_imps(open_score: RealScore | int, closed_score: RealScore | int) -> Number:
    """The home team's IMPs on a board: IMP(open - closed), weighted scores weighted (§ X78A1)."""
    total: Number = 0
    for a, wa in parts(_real(open_score), 1):  # type: ignore[arg-type]
        for b, wb in parts(_real(closed_score), 1):  # type: ignore[arg-type]
            total += wa * wb * imps(a - b)
    return total


def board_imps(board: TeamBoard) -> tuple[Fraction, Fraction] | None:
    """(home IMPs, away IMPs) on a board, or None if it does not count in the match."""
    if board.voided:
        return None
    if board.home_adjusted is not None or board.away_adjusted is not None:
        home = board.home_adjusted
        away = board.away_adjusted
        if home is None:
            home = -Fraction(away)  # type: ignore[arg-type]
        if away is None:
            away = -Fraction(home)
        return Fraction(home), Fraction(away)
    if board.open is None or board.closed is None:
        return None
    home = Fraction(two_table_imps(board.open, board.closed))
    return home, -home


@dataclass(frozen=True, slots=True)
class MatchScore:
    """A team match: IMPs won and lost by each team, the net margins and the VPs."""

    boards: int
    """Boards that count (voided ones left out; the VP scale is for this many)."""
    home_won: Fraction
    home_lost: Fraction
    away_won: Fraction
    away_lost: Fraction
    home_margin: Fraction
    away_margin: Fraction
    home_vp: Fraction
    away_vp: Fraction

    def as_tie_record(self, home: Hashable, away: Hashable) -> TeamMatch:
        return TeamMatch(home, away, self.home_vp, self.away_vp, self.home_won, self.away_won)


def score_match(
    boards: Sequence[TeamBoard],
    *,
    integer_scale: bool = False,
    voided_fault: str = "both",
    home_average: Number | None = None,
    away_average: Number | None = None,
) -> MatchScore:
    """Score a two-table match in IMPs and VPs on the WBF 2013 scale (§ 202).

    Each team's net IMPs are rounded to whole IMPs (halves away from zero) before the VP
    look-up, on the scale for the boards that count (§ 202A2, § 202B2). Unbalanced adjusted
    IMPs give each team its own margin and VPs. With every board voided the VPs come from
    `voided_match_vp`: 8-8 when both teams were at fault (§ 202B3), § 202C1 for each team
    when neither was (§ 202B4; give the teams' average VPs in their other matches for the
    round-robin formula).
    """
    counted = [b for b in (board_imps(board) for board in boards) if b is not None]
    zero = Fraction(0)
    home_won = sum((max(h, zero) for h, _ in counted), zero)
    home_lost = sum((max(-h, zero) for h, _ in counted), zero)
    away_won = sum((max(a, zero) for _, a in counted), zero)
    away_lost = sum((max(-a, zero) for _, a in counted), zero)
    home_margin = home_won - home_lost
    away_margin = away_won - away_lost
    if not counted:
        home_vp, away_vp = voided_match_vp(
            voided_fault,
            home_average=home_average,
            away_average=away_average,
            integer_scale=integer_scale,
        )
    elif integer_scale:
        home_vp = Fraction(victory_points_integer(home_margin, len(counted))[0])
        away_vp = Fraction(victory_points_integer(away_margin, len(counted))[0])
    else:
        home_vp = victory_points(home_margin, len(counted))[0]
        away_vp = victory_points(away_margin, len(counted))[0]
    return MatchScore(
        len(counted),
        home_won,
        home_lost,
        away_won,
        away_lost,
        home_margin,
        away_margin,
        home_vp,
        away_vp,
    )


# --- Forfeits and byes (§ 202C, § 202D) --------------------------------------------------------


def _round_from_ten(value: Fraction, integer: bool) -> Fraction:
    """§ 202C footnote **: to 0.01 VP (or 1 VP), halves away from the middle (10 VP)."""
    return 10 + round_half_away(value - 10, 0 if integer else 2)


def round_robin_forfeit_vp(own_average: Number, opponents_average: Number) -> Fraction:
    """§ 202C1b: 15·X/(X+Y)+5 with X = x/(20-x), Y = y/(20-y) from the two teams' average VPs."""
    x, y = Fraction(own_average), Fraction(opponents_average)
    if x >= 20:
        return Fraction(20)
    if y >= 20:
        return Fraction(5)
    big_x, big_y = x / (20 - x), y / (20 - y)
    if big_x + big_y == 0:
        return Fraction(25, 2)
    return 15 * big_x / (big_x + big_y) + 5


def forfeit_winner_vp(
    *,
    own_average: Number | None = None,
    opponents_average: Number | None = None,
    played_vp: Number | None = None,
    integer_scale: bool = False,
) -> Fraction:
    """§ 202C1: the best of 13 VP, the round-robin formula (when both averages are given) and
    the VPs from the boards played before the no-show (when some were)."""
    options = [FORFEIT_MIN_VP]
    if own_average is not None and opponents_average is not None:
        formula = round_robin_forfeit_vp(own_average, opponents_average)
        options.append(_round_from_ten(formula, integer_scale))
    if played_vp is not None:
        options.append(Fraction(played_vp))
    return max(options)


def forfeit_loser_vp(*, penalised: bool = True, played_vp: Number | None = None) -> Fraction:
    """§ 202C2/C4: the team that did not turn up.

    Penalised: the lower of 0 VP and (VPs from any boards played) - 5 - the regulation takes
    the lowest, which can be below zero. Excused: the VPs from the boards played, else 10 VP.
    """
    if penalised:
        options = [Fraction(0)]
        if played_vp is not None:
            options.append(Fraction(played_vp) - 5)
        return min(options)
    return Fraction(played_vp) if played_vp is not None else Fraction(10)


VOID_FAULTS = ("both", "neither")


def voided_match_vp(
    fault: str,
    *,
    home_average: Number | None = None,
    away_average: Number | None = None,
    integer_scale: bool = False,
) -> tuple[Fraction, Fraction]:
    """(home, away) VPs for a match whose every board had to be voided (§ 202B3-4).

    `fault` "both": both teams were at fault (e.g. they sat wrongly) - 8 VP each (§ 202B3).
    `fault` "neither": neither team was (e.g. one table got the wrong boards) and no
    replacement match could be played - the principles of § 202C1 apply to each team, so each
    gets the best of 13 VP and, in a round robin, 15·X/(X+Y)+5 from the two teams' average VPs
    in their other matches (the averages: `home_average`, `away_average`; known only at the
    end, so give none for a running score of 13-13). No board was played, so § 202C1c does
    not arise. The match's IMPs are 0-0: § 202B4 borrows only § 202C1's VPs.
    """
    if fault == "both":
        return VOIDED_MATCH_VP, VOIDED_MATCH_VP
    if fault != "neither":
        raise ValueError(f"a voided match's fault is one of {VOID_FAULTS}, not {fault!r}")
    if (home_average is None) != (away_average is None):
        raise ValueError("give both teams' average VPs, or neither")
    home = forfeit_winner_vp(
        own_average=home_average, opponents_average=away_average, integer_scale=integer_scale
    )
    away = forfeit_winner_vp(
        own_average=away_average, opponents_average=home_average, integer_scale=integer_scale
    )
    return home, away


def average_vp_elsewhere(
    team: Hashable, matches: Sequence[TeamMatch], *, excluding: tuple[Hashable, Hashable]
) -> Fraction | None:
    """A team's average VPs in its matches other than the one between `excluding` (the x and
    y of § 202C1b), or None if it has played no other match."""
    vps = [
        m.home_vp if m.home == team else m.away_vp
        for m in matches
        if team in (m.home, m.away) and {m.home, m.away} != set(excluding)
    ]
    if not vps:
        return None
    return sum(vps, Fraction(0)) / len(vps)


def forfeit_imps(winner_vp: Number, boards: int) -> tuple[int, int]:
    """§ 202C5: (winner's, loser's) IMPs for a forfeit: the least margin worth the VPs, and 0."""
    return imps_for_vp(winner_vp, boards), 0


# --- Board-a-match (§ 206) ---------------------------------------------------------------------


def bam_board(board: TeamBoard) -> tuple[Fraction, Fraction] | None:
    """(home, away) board-a-match points: 2-0, 1-1 or 0-2 by who scored more (§ 206).

    Adjusted scores are given in points (Ave+ 1.2, Ave- 0.8, § 206A), unrounded; a weighted
    score earns the weighted sum of its comparisons.
    """
    if board.voided:
        return None
    if board.home_adjusted is not None or board.away_adjusted is not None:
        home = board.home_adjusted
        away = board.away_adjusted
        if home is None:
            home = 2 - Fraction(away)  # type: ignore[arg-type]
        if away is None:
            away = 2 - Fraction(home)
        return Fraction(home), Fraction(away)
    if board.open is None or board.closed is None:
        return None
    home_points: Number = 0
    for a, wa in parts(_real(board.open), 1):  # type: ignore[arg-type]
        for b, wb in parts(_real(board.closed), 1):  # type: ignore[arg-type]
            home_points += wa * wb * (2 if a > b else 1 if a == b else 0)
    home = Fraction(home_points)
    return home, 2 - home


def score_bam_match(boards: Sequence[TeamBoard]) -> tuple[Fraction, Fraction]:
    """(home, away) board-a-match totals over the boards that count."""
    counted = [b for b in (bam_board(board) for board in boards) if b is not None]
    return (
        sum((h for h, _ in counted), Fraction(0)),
        sum((a for _, a in counted), Fraction(0)),
    )


# --- Carry-over (§ 207) ------------------------------------------------------------------------


def carry_over_cap(boards_scheduled: int) -> int:
    """§ 207A4: the most IMPs carried into a match of this many boards."""
    for limit, cap in ((32, 8), (64, 12), (96, 16), (128, 20)):
        if boards_scheduled <= limit:
            return cap
    return 24


def carry_over(
    imp_difference: Number, *, positive_team_finished_higher: bool, boards_scheduled: int
) -> Fraction:
    """§ 207A: IMPs carried into a later match from the two teams' earlier meeting.

    `imp_difference` is the head-to-head IMP difference (penalties already turned into IMPs,
    see penalties.vp_penalty_as_imps). Half of it carries if the team that won it finished
    higher in the earlier phase, a third if it finished lower; unrounded; capped by the
    length of the new match.
    """
    difference = Fraction(imp_difference)
    share = Fraction(1, 2) if positive_team_finished_higher else Fraction(1, 3)
    carried = min(abs(difference) * share, Fraction(carry_over_cap(boards_scheduled)))
    return carried if difference >= 0 else -carried


# --- Team standings ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TeamStanding:
    team: Hashable
    place: str
    position: int
    vp: Fraction
    """VPs after penalties."""
    penalty: Fraction
    matches: int


def team_standings(
    matches: Sequence[TeamMatch],
    *,
    extra_vp: Mapping[Hashable, Fraction] | None = None,
    penalties: Mapping[Hashable, Fraction] | None = None,
    unique_places: bool = False,
    round_robin: bool = True,
    tie_style: str = "=",
) -> list[TeamStanding]:
    """Rank teams by VPs (matches + byes/forfeits in `extra_vp` - penalties); § 221 on request."""
    extra_vp = extra_vp or {}
    penalties = penalties or {}
    vp: dict[Hashable, Fraction] = {}
    played: dict[Hashable, int] = {}
    for m in matches:
        for team, value in ((m.home, m.home_vp), (m.away, m.away_vp)):
            vp[team] = vp.get(team, Fraction(0)) + value
            played[team] = played.get(team, 0) + 1
    for team, value in extra_vp.items():
        vp[team] = vp.get(team, Fraction(0)) + value
    for team in penalties:
        vp.setdefault(team, Fraction(0))
    net = {team: vp[team] - penalties.get(team, Fraction(0)) for team in vp}
    ordered = sorted(net, key=net.__getitem__, reverse=True)
    groups = tied_groups(ordered, net.__getitem__)
    if unique_places:
        groups = [
            sub
            for g in groups
            for sub in (break_team_ties(g, matches, round_robin=round_robin) if len(g) > 1 else [g])
        ]
    return [
        TeamStanding(
            team, label, position, net[team], penalties.get(team, Fraction(0)), played.get(team, 0)
        )
        for team, position, label in places(groups, tie_style)
    ]


__all__ = [
    "BAM_AVE_MINUS",
    "BAM_AVE_PLUS",
    "BYE_VP",
    "FORFEIT_MIN_VP",
    "VOIDED_MATCH_VP",
    "VOID_FAULTS",
    "MatchScore",
    "TeamBoard",
    "TeamStanding",
    "average_vp_elsewhere",
    "bam_board",
    "board_imps",
    "carry_over",
    "carry_over_cap",
    "forfeit_imps",
    "forfeit_loser_vp",
    "forfeit_winner_vp",
    "round_robin_forfeit_vp",
    "score_bam_match",
    "score_match",
    "team_standings",
    "two_table_imps",
    "voided_match_vp",
]
