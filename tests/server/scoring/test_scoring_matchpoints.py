"""Matchpoints on one board: Law 78A, § X78A1-3, § X78B and § 87, with hand-worked examples."""

from fractions import Fraction

import pytest

from server.scoring import (
    BoardResult,
    Direction,
    Method,
    ScoringOptions,
    Weighted,
    group_matchpoints,
    score_board,
)
from server.scoring.models import Points

F = Fraction  # short for the many exact values below

NS, EW = Direction.NS, Direction.EW


def plain(*ns_scores: int, start: int = 1) -> list[BoardResult]:
    return [
        BoardResult.played(1, f"N{i}", f"E{i}", s, table=i)
        for i, s in enumerate(ns_scores, start=start)
    ]


def values(results: list[BoardResult], direction: Direction, **options: object) -> list[F | None]:
    fields = options.pop("fields", None)
    score = score_board((None, 1), results, ScoringOptions(**options), fields)  # type: ignore[arg-type]
    return [score.value(i, direction) for i in range(len(results))]


def test_four_tables_no_ties_score_6_4_2_0_on_a_top_of_6():
    assert values(plain(430, 400, 150, -50), NS) == [6, 4, 2, 0]
    assert values(plain(430, 400, 150, -50), EW) == [0, 2, 4, 6]


def test_three_way_tie_for_second_shares_2_1_0_points_3_3_3():
    # +620 beats all three (6); the three +170s beat nobody, tie two others each: 2 points each.
    assert values(plain(620, 170, 170, 170), NS) == [6, 2, 2, 2]


def test_passed_out_board_is_an_ordinary_score_of_zero():
    assert values(plain(90, 0, -50, -50), NS) == [6, 4, 1, 1]


def test_american_scale_gives_half_the_european_points_1_half_0():
    results = plain(620, 170, 170, 140)
    assert values(results, NS, method=Method.MATCHPOINTS_AMERICAN) == [3, 1.5, 1.5, 0]
    board = score_board((None, 1), results, ScoringOptions(method=Method.MATCHPOINTS_AMERICAN))
    assert board.top() == 3
    assert board.percent(1, NS) == 50


def test_weighted_score_30pct_420_70pct_minus50_scores_the_weighted_sum_of_comparisons():
    # Tables: +420, -50, and 30 % of +420 / 70 % of -50 (§ X78A1). By hand, 2-1-0, top 4:
    #  +420: beats -50 (2) + vs weighted 0.3 tie (0.3) + 0.7 beat (1.4) = 3.7
    #  -50:  loses to +420 (0) + vs weighted 0.3 lose (0) + 0.7 tie (0.7) = 0.7
    #  weighted: vs +420 0.3 tie = 0.3; vs -50 0.3 beat (0.6) + 0.7 tie (0.7) = 1.3; total 1.6
    results = [
        BoardResult.played(1, "N1", "E1", 420),
        BoardResult.played(1, "N2", "E2", -50),
        BoardResult.weighted(1, "N3", "E3", (420, "0.3"), (-50, "0.7")),
    ]
    assert values(results, NS) == [F("3.7"), F("0.7"), F("1.6")]
    assert values(results, EW) == [F("0.3"), F("3.3"), F("2.4")]


def test_unbalanced_score_compares_ns_and_ew_in_separate_frequency_tables():
    # Table 4: N/S keep +420, E/W are scored as if N/S had +450 (§ X78A2).
    # N/S table: 420 ×3, -50 → 4, 4, 0, 4. E/W own scores: -420, -420, +50, -450 → 3, 3, 6, 0.
    results = [
        *plain(420, 420, -50),
        BoardResult.unbalanced(1, "N4", "E4", 420, 450),
    ]
    assert values(results, NS) == [4, 4, 0, 4]
    assert values(results, EW) == [3, 3, 6, 0]


def test_ave_plus_ave_minus_not_compared_and_four_results_neubergised_to_five_tables():
    # Raw 2-1-0 among the four results: 0, 2, 4, 6. Neuberg 5/4·(P+1)-1 → 1/4, 11/4, 21/4, 31/4.
    # Top for 5 tables is 8: Ave+ = 60 % = 4.8, Ave- = 40 % = 3.2.
    results = [*plain(100, 200, 300, 400), BoardResult.artificial(1, "N5", "E5", 60, 40)]
    assert values(results, NS) == [F(1, 4), F(11, 4), F(21, 4), F(31, 4), F("4.8")]
    assert values(results, EW) == [F(31, 4), F(21, 4), F(11, 4), F(1, 4), F("3.2")]


def test_artificial_split_40_40_and_50_60_score_their_own_percentages():
    results = [
        *plain(100, 200, 300),
        BoardResult.artificial(1, "N4", "E4", 40, 40),
        BoardResult.artificial(1, "N5", "E5", 50, 60),
    ]
    # top 8 (5 tables): 40 % = 3.2, 50 % = 4, 60 % = 4.8
    assert values(results, NS)[3:] == [F("3.2"), 4]
    assert values(results, EW)[3:] == [F("3.2"), F("4.8")]


def test_x78b1_a_single_result_among_artificial_scores_gets_60_percent():
    results = [
        BoardResult.played(1, "N1", "E1", 420),
        *(BoardResult.artificial(1, f"N{i}", f"E{i}", 50, 50) for i in (2, 3, 4)),
    ]
    # 4 tables, top 6: 60 % = 3.6 in both directions.
    assert values(results, NS)[0] == F("3.6")
    assert values(results, EW)[0] == F("3.6")


def test_x78b2_two_results_on_six_tables_get_65_and_55_percent():
    results = [
        *plain(420, 400),
        *(BoardResult.artificial(1, f"N{i}", f"E{i}", 50, 50) for i in (3, 4, 5, 6)),
    ]
    # top 10: 65 % = 6.5, 55 % = 5.5; E/W the other way round.
    assert values(results, NS)[:2] == [F("6.5"), F("5.5")]
    assert values(results, EW)[:2] == [F("5.5"), F("6.5")]


def test_x78b2_two_equal_results_on_six_tables_get_60_percent_each():
    results = [
        *plain(420, 420),
        *(BoardResult.artificial(1, f"N{i}", f"E{i}", 50, 50) for i in (3, 4, 5, 6)),
    ]
    assert values(results, NS)[:2] == [6, 6]


def test_x78b2_does_not_apply_below_six_tables_so_two_of_five_use_neuberg():
    # 5/2·(2+1)-1 = 6.5 and 5/2·(0+1)-1 = 1.5 on a top of 8.
    results = [
        *plain(420, 400),
        *(BoardResult.artificial(1, f"N{i}", f"E{i}", 50, 50) for i in (3, 4, 5)),
    ]
    assert values(results, NS)[:2] == [F("6.5"), F("1.5")]


def test_x78b3_three_results_on_nine_tables_get_70_60_50_percent():
    results = [
        *plain(300, 200, 100),
        *(BoardResult.artificial(1, f"N{i}", f"E{i}", 50, 50) for i in range(4, 10)),
    ]
    # top 16: 11.2, 9.6, 8.0
    assert values(results, NS)[:3] == [F("11.2"), F("9.6"), 8]


def test_x78b3_tied_results_share_the_percentages_65_65_50():
    results = [
        *plain(300, 300, 100),
        *(BoardResult.artificial(1, f"N{i}", f"E{i}", 50, 50) for i in range(4, 10)),
    ]
    # (70 + 60) / 2 = 65 % of 16 = 10.4 each.
    assert values(results, NS)[:3] == [F("10.4"), F("10.4"), 8]


def test_x78b3_does_not_apply_below_nine_tables_so_three_of_eight_use_neuberg():
    # 8/3·(P+1)-1 for P = 4, 2, 0 → 37/3, 7, 5/3 (top 14).
    results = [
        *plain(300, 200, 100),
        *(BoardResult.artificial(1, f"N{i}", f"E{i}", 50, 50) for i in range(4, 9)),
    ]
    assert values(results, NS)[:3] == [F(37, 3), 7, F(5, 3)]


def test_board_played_three_times_is_neubergised_to_four_tables():
    # 4/3·(P+1)-1 for P = 4, 2, 0 → 17/3, 3, 1/3 on the top of 6 for four tables.
    assert values(plain(300, 200, 100), NS, fields=(4, 4)) == [F(17, 3), 3, F(1, 3)]
    board = score_board((None, 1), plain(300, 200, 100), fields=(4, 4))
    assert board.top() == 6


def test_fouled_board_scored_in_two_groups_each_scaled_to_six_tables():
    # § 87: group 0 has four results, group 1 two; A = 6, top 10.
    # Group 0: 6/4·(P+1)-1 for P = 6, 4, 2, 0 → 9.5, 6.5, 3.5, 0.5.
    # Group 1: two results on six tables → 65 % and 55 % → 6.5, 5.5 (§ X78B2).
    results = [
        *plain(400, 300, 200, 100),
        BoardResult.played(1, "N5", "E5", 50, group=1),
        BoardResult.played(1, "N6", "E6", -50, group=1),
    ]
    assert values(results, NS) == [F("9.5"), F("6.5"), F("3.5"), F("0.5"), F("6.5"), F("5.5")]


def test_sit_out_and_not_played_sides_get_no_score():
    results = [*plain(100, 200), BoardResult.sit_out(1, "N9", NS)]
    assert values(results, NS) == [0, 2, None]
    assert values(results, EW) == [2, 0, None]


def test_group_matchpoints_of_weighted_parts_merge_with_equal_plain_scores():
    sides = [Points(420), Weighted.of((420, "0.5"), (400, "0.5")), Points(400)]
    # +420 vs weighted: 0.5 tie + 0.5 beat = 1.5; vs 400 beat 2 → 3.5
    # weighted vs 420: 0.5 tie → 0.5; vs 400: 0.5 beat (1) + 0.5 tie (0.5) → 1.5; total 2
    # +400: 0 + (0.5 tie) 0.5 + 0 = 0.5
    assert group_matchpoints(sides, 1) == [F("3.5"), 2, F("0.5")]


def test_weights_must_sum_to_one():
    with pytest.raises(ValueError, match="sum to"):
        Weighted.of((420, "0.3"), (-50, "0.6"))
