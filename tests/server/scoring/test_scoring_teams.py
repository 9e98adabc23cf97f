"""Team scoring: two-table IMPs and VPs (§ 202), board-a-match (§ 206), carry-over (§ 207),
multi-team (§ 205), standings and § 221 ties - plus a real RealBridge match file."""

import re
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.bridge import imps, ns_score
from server.scoring import (
    BYE_VP,
    VOIDED_MATCH_VP,
    Artificial,
    MultiTeamTable,
    Points,
    TeamBoard,
    TeamMatch,
    Weighted,
    bam_board,
    carry_over,
    forfeit_imps,
    forfeit_loser_vp,
    forfeit_winner_vp,
    multiteam_scores,
    score_bam_match,
    score_match,
    team_standings,
    two_table_imps,
    victory_points,
)
from server.scoring.teams import round_robin_forfeit_vp

PBN = (
    Path(__file__).resolve().parents[2]
    / "data"
    / "endplay-realbridge"
    / "example2_realbridge_2021_online_qual_open_R2.pbn"
)

F = Fraction  # short for the many exact values below
_TAG = re.compile(r'^\[(\w+) "(.*)"\]\s*$', re.MULTILINE)


def pbn_games(text: str) -> list[dict[str, str]]:
    games = []
    for block in re.split(r"\n\s*\n", text):
        tags = dict(_TAG.findall(block))
        if "Board" in tags:
            games.append(tags)
    return games


def ns_points(tags: dict[str, str]) -> int:
    """The N/S score from the contract, declarer and tricks (not from the file's Score)."""
    board = int(tags["Board"])
    if tags["Contract"].lower() == "pass":
        return 0
    return ns_score(board, tags["Contract"], tags["Declarer"], int(tags["Result"]))


def realbridge_rooms() -> list[tuple[dict[str, str], dict[str, str]]]:
    # The two rooms of a match name the teams the other way round (the home team of one room is
    # the visitors in the other), so they pair on the unordered {HomeTeam, VisitTeam}.
    rooms: dict[tuple[frozenset[str], str], list[dict[str, str]]] = defaultdict(list)
    for tags in pbn_games(PBN.read_text("utf-8")):
        rooms[(frozenset((tags["HomeTeam"], tags["VisitTeam"])), tags["Board"])].append(tags)
    return [(pair[0], pair[1]) for pair in rooms.values() if len(pair) == 2]


ROOMS = realbridge_rooms()


def score_imp(tags: dict[str, str]) -> int:
    match = re.fullmatch(r"NS (-?\d+) EW (-?\d+)", tags["ScoreIMP"])
    assert match is not None
    assert int(match.group(1)) == -int(match.group(2))
    return int(match.group(1))


def test_realbridge_file_pairs_149_boards_of_15_matches():
    assert len(ROOMS) == 149
    assert len({frozenset((a["HomeTeam"], a["VisitTeam"])) for a, _ in ROOMS}) == 15


@pytest.mark.parametrize(
    ("first", "second"),
    ROOMS,
    ids=[f"{a['HomeTeam']}-{a['VisitTeam']} board {a['Board']}" for a, _ in ROOMS],
)
def test_realbridge_score_imp_is_imps_of_the_two_rooms_difference(first, second):
    ns_first, ns_second = ns_points(first), ns_points(second)
    assert ns_first == int(first.get("Score", "NS 0").split()[1])
    assert two_table_imps(ns_first, ns_second) == score_imp(first) == imps(ns_first - ns_second)
    assert two_table_imps(ns_second, ns_first) == score_imp(second)


def test_realbridge_match_totals_are_antisymmetric_and_vps_sum_to_20():
    matches: dict[tuple[str, str], list[TeamBoard]] = defaultdict(list)
    for first, second in ROOMS:
        open_room, closed_room = sorted((first, second), key=lambda t: int(t["Table"]))
        matches[(open_room["Table"], closed_room["Table"])].append(
            TeamBoard(int(first["Board"]), ns_points(open_room), ns_points(closed_room))
        )
    assert len(matches) == 15
    for boards in matches.values():
        result = score_match(boards)
        assert result.home_margin == -result.away_margin
        assert result.home_margin == sum(two_table_imps(b.open, b.closed) for b in boards)
        assert result.home_vp + result.away_vp == 20
        assert result.home_vp == victory_points(result.home_margin, result.boards)[0]


@given(
    st.integers(-8000, 8000).map(lambda x: x * 10), st.integers(-8000, 8000).map(lambda x: x * 10)
)
def test_two_table_imps_are_antisymmetric(a, b):
    assert two_table_imps(a, b) == -two_table_imps(b, a)


def test_three_board_match_plus_10_minus_6_zero_wins_by_4_imps_12_61_to_7_39():
    # +420 v -50: 470 → +10; -100 v +140: -240 → -6; 0 v 0 → 0. Margin +4 on 3 boards:
    # X = 15·√3 = 25.98; 10 + 10·(1 - τ^(12/25.98)) / (1 - τ³) = 12.61.
    boards = [TeamBoard(1, 420, -50), TeamBoard(2, -100, 140), TeamBoard(3, 0, 0)]
    result = score_match(boards)
    assert (result.home_won, result.home_lost) == (10, 6)
    assert result.home_margin == 4
    assert (result.home_vp, result.away_vp) == (F("12.61"), F("7.39"))


def test_voided_board_uses_the_scale_for_the_boards_played():
    boards = [
        TeamBoard(1, 420, -50),
        TeamBoard(2, -100, 140),
        TeamBoard(3, 0, 0),
        TeamBoard(4, 1430, -100, voided=True),
    ]
    result = score_match(boards)
    assert result.boards == 3
    assert result.home_vp == victory_points(4, 3)[0] == F("12.61")


def test_whole_match_voided_scores_8_8():
    result = score_match([TeamBoard(1, 420, -50, voided=True)])
    assert (result.home_vp, result.away_vp) == (VOIDED_MATCH_VP, VOIDED_MATCH_VP) == (8, 8)


def test_weighted_board_gives_fractional_imps_and_the_total_is_rounded_half_away_from_zero():
    # Open room: 30 % of +620, 70 % of -100, against +620: 0.3·0 + 0.7·IMP(-720) = -8.4.
    # With +5.9 elsewhere the margin is -2.5, which rounds to -3 before the VP look-up.
    open_room = Weighted.of((620, "0.3"), (-100, "0.7"))
    boards = [
        TeamBoard(1, open_room, 620),
        TeamBoard(2, 0, 0, home_adjusted=F("5.9")),
    ]
    result = score_match(boards)
    assert two_table_imps(open_room, 620) == F("-8.4")
    assert result.home_margin == F("-2.5")
    assert result.home_vp == victory_points(-3, 2)[0]


def test_unbalanced_adjusted_imps_give_each_team_its_own_vps():
    # Both teams non-offending on board 2: +3 IMPs each (Law 86A).
    boards = [TeamBoard(1, 420, 420), TeamBoard(2, None, None, F(3), F(3))]
    result = score_match(boards)
    assert result.home_margin == result.away_margin == 3
    assert result.home_vp == result.away_vp == victory_points(3, 2)[0]


def test_bye_is_12_vp_and_forfeits_follow_202c():
    assert BYE_VP == 12
    assert forfeit_winner_vp() == 13
    # Round robin: own average 14, opponents' 8: X = 14/6, Y = 8/12 → 15·X/(X+Y)+5 = 16.67.
    assert round_robin_forfeit_vp(14, 8) == 15 * F(7, 3) / (F(7, 3) + F(2, 3)) + 5
    assert forfeit_winner_vp(own_average=14, opponents_average=8) == F("16.67")
    assert forfeit_winner_vp(own_average=9, opponents_average=12) == 13
    assert forfeit_winner_vp(played_vp=F("14.5")) == F("14.5")
    assert forfeit_loser_vp() == 0
    assert forfeit_loser_vp(played_vp=F("7.25")) == 0  # min(0, 2.25)
    assert forfeit_loser_vp(played_vp=F(3)) == -2  # § 202C2b taken literally: the lowest
    assert forfeit_loser_vp(penalised=False) == 10
    assert forfeit_loser_vp(penalised=False, played_vp=F("8.4")) == F("8.4")
    winner_imps, loser_imps = forfeit_imps(13, 16)
    assert loser_imps == 0
    assert victory_points(winner_imps, 16)[0] >= 13 > victory_points(winner_imps - 1, 16)[0]


def test_forfeit_formula_rounds_to_whole_vps_on_the_integer_scale():
    assert forfeit_winner_vp(own_average=14, opponents_average=8, integer_scale=True) == 17


def test_board_a_match_2_1_0_and_ave_plus_1_2():
    assert bam_board(TeamBoard(1, 420, 400)) == (2, 0)
    assert bam_board(TeamBoard(1, 420, 420)) == (1, 1)
    assert bam_board(TeamBoard(1, -50, 100)) == (0, 2)
    assert bam_board(TeamBoard(1, None, None, home_adjusted=F("1.2"))) == (F("1.2"), F("0.8"))
    assert bam_board(TeamBoard(1, None, None, F("1.2"), F("1.2"))) == (F("1.2"), F("1.2"))
    # 30 % of +420 (tie) and 70 % of -50 (loss) against +420: 0.3·1 = 0.3.
    weighted = Weighted.of((420, "0.3"), (-50, "0.7"))
    assert bam_board(TeamBoard(1, weighted, 420)) == (F("0.3"), F("1.7"))
    total = score_bam_match(
        [TeamBoard(1, 420, 400), TeamBoard(2, 0, 0), TeamBoard(3, 1, 1, voided=True)]
    )
    assert total == (3, 1)


def test_carry_over_half_or_third_capped_by_match_length():
    assert carry_over(12, positive_team_finished_higher=True, boards_scheduled=48) == 6
    assert carry_over(12, positive_team_finished_higher=False, boards_scheduled=48) == 4
    assert carry_over(-7, positive_team_finished_higher=False, boards_scheduled=48) == F(-7, 3)
    assert carry_over(40, positive_team_finished_higher=True, boards_scheduled=32) == 8
    assert carry_over(40, positive_team_finished_higher=True, boards_scheduled=33) == 12
    assert carry_over(100, positive_team_finished_higher=True, boards_scheduled=129) == 24


def test_multiteam_pair_scores_average_of_imaginary_matches_excluding_own_match():
    # Four tables, two matches (A: tables 1-2, B: tables 3-4), one board of 2 boards each.
    def table(t, match, b1, b2):
        return MultiTeamTable(
            t, match, f"NS{t}", f"EW{t}", {1: (Points(b1), Points(b1)), 2: (Points(b2), Points(b2))}
        )

    tables = [
        table(1, "A", 420, 0),
        table(2, "A", -50, 0),
        table(3, "B", 420, 100),
        table(4, "B", 450, -100),
    ]
    scores = multiteam_scores(tables)
    # NS1 against table 3: 0 + IMP(-100) = -3; against table 4: IMP(-30) + IMP(100) = -1 + 3 = 2.
    assert scores["NS1"] == (victory_points(-3, 2)[0] + victory_points(2, 2)[0]) / 2
    # EW1 is the other side: 20 minus each.
    assert scores["EW1"] == (victory_points(3, 2)[0] + victory_points(-2, 2)[0]) / 2
    everyone = multiteam_scores(tables, exclude_own_match=False)
    # Against table 2 too: IMP(470) + 0 = 10.
    assert (
        everyone["NS1"]
        == (victory_points(-3, 2)[0] + victory_points(2, 2)[0] + victory_points(10, 2)[0]) / 3
    )


def test_multiteam_artificial_score_counts_as_3_imps():
    tables = [
        MultiTeamTable(1, "A", "NS1", "EW1", {1: (Artificial.of(60), Artificial.of(40))}),
        MultiTeamTable(2, "B", "NS2", "EW2", {1: (Points(420), Points(420))}),
    ]
    scores = multiteam_scores(tables)
    assert scores["NS1"] == victory_points(3, 1)[0]
    assert scores["EW1"] == victory_points(-3, 1)[0]
    # NS2's imaginary teammates are EW1 (Ave-, -3); EW2's are NS1 (Ave+, +3).
    assert scores["NS2"] == victory_points(-3, 1)[0]
    assert scores["EW2"] == victory_points(3, 1)[0]


def match(home, away, hv, av, hi, ai):
    return TeamMatch(home, away, F(hv), F(av), F(hi), F(ai))


def test_team_standings_rank_by_vp_with_byes_and_penalties():
    matches = [match("A", "B", 15, 5, 30, 10), match("C", "A", 12, 8, 20, 15)]
    standings = team_standings(matches, extra_vp={"B": BYE_VP}, penalties={"C": F(1, 2)})
    assert [(s.team, s.place, s.vp) for s in standings] == [
        ("A", "1", 23),
        ("B", "2", 17),
        ("C", "3", F("11.5")),
    ]


def test_221a_three_teams_level_mutual_vp_then_restart_for_the_pair_still_tied():
    # A, B, C all on 30 VP. Mutual VPs: A 22, B 19, C 19 → A first. B and C are still level
    # on mutual VPs among all three; § 221A4 starts again for B v C: B beat C 11-9.
    matches = [
        match("A", "B", 12, 8, 20, 15),
        match("A", "C", 10, 10, 10, 10),
        match("B", "C", 11, 9, 12, 10),
        match("A", "D", 8, 12, 5, 10),
        match("B", "D", 11, 9, 10, 8),
        match("C", "E", 11, 9, 10, 8),
    ]
    standings = team_standings(matches, unique_places=True)
    assert [s.team for s in standings][:3] == ["A", "B", "C"]
    tied = team_standings(matches)
    assert [s.place for s in tied][:3] == ["1=", "1=", "1="]


def test_221b_other_formats_use_opponents_vps_then_imp_quotient():
    matches = [
        match("A", "X", 15, 5, 30, 10),
        match("B", "Y", 15, 5, 30, 12),
        match("X", "Z", 20, 0, 50, 0),
    ]
    # A and B both 15. A's opponent X has 25 VP in all; B's opponent Y has 5 → A ahead.
    standings = team_standings(matches, unique_places=True, round_robin=False)
    assert [s.team for s in standings][:3] == ["X", "A", "B"]
