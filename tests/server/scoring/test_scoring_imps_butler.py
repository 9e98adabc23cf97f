"""IMPs across the field (§ 203), Butler (§ 204) and total points, worked by hand."""

from fractions import Fraction

from server.scoring import (
    BoardResult,
    Direction,
    Method,
    ScoringOptions,
    butler_datum,
    butler_imps,
    score_board,
)

F = Fraction  # short for the many exact values below

NS, EW = Direction.NS, Direction.EW


def board(results, method, **options):
    return score_board((None, 1), results, ScoringOptions(method=method, **options))


def plain(*scores):
    return [BoardResult.played(1, f"N{i}", f"E{i}", s) for i, s in enumerate(scores)]


def column(score, direction, n):
    return [score.value(i, direction) for i in range(n)]


def test_imps_across_420_450_minus50_are_9_12_minus21():
    # +420: IMP(-30) = -1, IMP(+470) = +10 → 9; +450: +1 +11 → 12; -50: -10 -11 → -21.
    scored = board(plain(420, 450, -50), Method.IMPS_ACROSS)
    assert column(scored, NS, 3) == [9, 12, -21]
    assert column(scored, EW, 3) == [-9, -12, 21]


def test_imps_across_ave_plus_is_plus_2_per_comparison_and_the_rest_scaled_a_over_g():
    # 4 tables, one Ave+/Ave-: N/S Ave+ = +2 × 3 comparisons = 6, E/W Ave- = -6 (§ 203A).
    # The others IMP among themselves (9, 12, -21) and are scaled by A/G = 4/3 (§ 203B).
    results = [*plain(420, 450, -50), BoardResult.artificial(1, "N9", "E9", 60, 40)]
    scored = board(results, Method.IMPS_ACROSS)
    assert column(scored, NS, 4) == [12, 16, -28, 6]
    assert column(scored, EW, 4) == [-12, -16, 28, -6]


def test_imps_across_weighted_score_half_420_half_minus50():
    # vs +420: ½·0 + ½·IMP(-470) = -5; vs -50: ½·IMP(470) + ½·0 = +5 → 0.
    results = [*plain(420, -50), BoardResult.weighted(1, "N3", "E3", (420, "0.5"), (-50, "0.5"))]
    scored = board(results, Method.IMPS_ACROSS)
    # +420: vs -50 +10, vs weighted ½·0 + ½·10 = 5 → 15; -50: -10 - 5 = -15.
    assert column(scored, NS, 3) == [15, -15, 0]


def test_butler_difference_ending_in_5_rounds_away_from_zero():
    assert butler_imps(115, 100) == 1  # 15 → 20 → 1 IMP
    assert butler_imps(114, 100) == 0  # 14 → 10 → 0
    assert butler_imps(85, 100) == -1  # -15 → -20 → -1 IMP
    assert butler_imps(100, F(165, 2)) == 1  # 17.5 → 20 → 1
    assert butler_imps(625, 600) == 1  # 25 → 30 → 1 (a difference of 20-40 is 1 IMP)


def test_butler_datum_drops_top_and_bottom_then_averages():
    # 620, 170, 140, 140, -100: drop 620 and -100 → mean of 170, 140, 140 = 150.
    assert butler_datum({620: 1, 170: 1, 140: 2, -100: 1}) == 150
    assert butler_datum({620: 1, 170: 1, 140: 2, -100: 1}, drop=2) == 140


def test_butler_datum_with_fractional_frequencies_removes_exactly_one_occurrence_each_end():
    # {-100: ½, 0: 1, 100: 1, 500: ½}: the bottom removes ½ of -100 and ½ of 0, the top ½ of
    # 500 and ½ of 100 (§ 204 footnote **): left 0 ×½ and 100 ×½ → datum 50.
    assert butler_datum({-100: F(1, 2), 0: 1, 100: 1, 500: F(1, 2)}) == 50


def test_butler_with_an_artificial_score_scales_frequencies_by_a_over_g_before_dropping():
    # Results 100, 200, 600 and one Ave+/Ave- (A = 4, G = 3): each frequency becomes 4/3.
    # Dropping one occurrence at each end leaves 100 ×1/3, 200 ×4/3, 600 ×1/3 → datum 250.
    results = [*plain(100, 200, 600), BoardResult.artificial(1, "N9", "E9", 60, 40)]
    scored = board(results, Method.BUTLER)
    assert scored.datums[0][0] == 250
    assert scored.datums[1][0] == -250
    # 100-250 = -150 → -4; 200-250 = -50 → -2; 600-250 = 350 → 8; Ave+ +2, Ave- -2 (§ 204C).
    assert column(scored, NS, 4) == [-4, -2, 8, 2]
    assert column(scored, EW, 4) == [4, 2, -8, -2]


def test_butler_drop_two_is_configurable():
    results = plain(1430, 680, 650, 650, 620, 200, -100)
    # drop 2 each end: 650, 650, 620 → datum 640; +680 → 40 → 1 IMP; +200 → -440 → -10.
    scored = board(results, Method.BUTLER, butler_drop=2)
    assert scored.datums[0][0] == 640
    assert column(scored, NS, 7)[1] == 1
    assert column(scored, NS, 7)[5] == -10


def test_butler_weighted_score_gets_the_weighted_imps_of_its_parts():
    results = [
        *plain(620, 170, 140, -100),
        BoardResult.weighted(1, "N5", "E5", (620, "0.4"), (-100, "0.6")),
    ]
    scored = board(results, Method.BUTLER)
    # Frequencies 620 ×1.4, 170, 140, -100 ×1.6 (5 in all). Dropping one occurrence at each
    # end leaves 620 ×0.4, 170, 140, -100 ×0.6: (248 + 170 + 140 - 60) / 3 = 166.
    assert scored.datums[0][0] == 166
    # 620-166 = 454 → 450 → 10 IMPs; -100-166 = -266 → -270 → -7. Weighted: 0.4·10 + 0.6·(-7).
    assert scored.value(4, NS) == F("0.4") * 10 + F("0.6") * -7


def test_total_scores_points_each_direction():
    results = [*plain(420, -50), BoardResult.weighted(1, "N3", "E3", (420, "0.3"), (-50, "0.7"))]
    scored = board(results, Method.TOTAL)
    assert column(scored, NS, 3) == [420, -50, F("0.3") * 420 + F("0.7") * -50]
    assert column(scored, EW, 3) == [-420, 50, -(F("0.3") * 420 + F("0.7") * -50)]
