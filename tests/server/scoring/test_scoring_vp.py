"""The WBF 2013 VP scales (§ 202): published values, symmetry, monotony and concavity."""

import math
from fractions import Fraction
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.scoring import continuous_scale, discrete_scale, victory_points, victory_points_integer
from server.scoring.vp import imps_for_vp

F = Fraction  # short for the many exact values below

BOARDS = range(1, 65)


def formula(margin: int, boards: int) -> float:
    """An independent float evaluation of the published formula, as an oracle."""
    blitz = 15 * math.sqrt(boards)
    if margin >= blitz:
        return 20.0
    tau = (math.sqrt(5) - 1) / 2
    return 10 + 10 * (1 - tau ** (3 * margin / blitz)) / (1 - tau**3)


def test_published_20_board_continuous_values_10_00_10_28_10_55():
    # Published examples of the continuous scale (bcstar.nl, "Continue WP-schaal ingevoerd",
    # quoting the WBF tables): 0 IMP 10.00, 1 IMP 10.28, 2 IMP 10.55 on 20 boards.
    assert victory_points(0, 20) == (10, 10)
    assert victory_points(1, 20) == (F("10.28"), F("9.72"))
    assert victory_points(2, 20) == (F("10.55"), F("9.45"))


def test_published_20_board_discrete_ranges_0_1_is_10_2_5_is_11_6_9_is_12():
    # Same source, discrete scale: 0-1 IMP 10 VP, 2-5 IMP 11 VP, 6-9 IMP 12 VP.
    assert [victory_points_integer(m, 20)[0] for m in range(0, 11)] == [
        10, 10, 11, 11, 11, 11, 12, 12, 12, 12, 13,
    ]  # fmt: skip


def test_blitz_on_16_boards_is_60_imps_for_20_vp():
    assert victory_points(60, 16) == (20, 0)
    assert victory_points(59, 16)[0] < 20
    assert victory_points(200, 16) == (20, 0)
    assert victory_points(-200, 16) == (0, 20)


def test_fractional_margin_rounds_half_away_from_zero_before_look_up():
    # § 202A2: 2.5 → 3, -2.5 → -3, 2.49 → 2.
    assert victory_points(F(5, 2), 16) == victory_points(3, 16)
    assert victory_points(F(-5, 2), 16) == victory_points(-3, 16)
    assert victory_points(F("2.49"), 16) == victory_points(2, 16)


@pytest.mark.parametrize("boards", BOARDS)
def test_continuous_scale_is_monotone_concave_and_close_to_the_formula(boards):
    scale = continuous_scale(boards)
    assert scale[0] == 10
    assert scale[-1] == 20
    steps = [b - a for a, b in pairwise(scale)]
    assert all(step >= 0 for step in steps)
    assert all(later <= earlier for earlier, later in pairwise(steps))
    assert all(v.denominator in (1, 2, 4, 5, 10, 20, 25, 50, 100) for v in scale)
    # The concavity corrections move a value by a few hundredths at most.
    assert all(abs(float(v) - formula(i, boards)) < 0.03 for i, v in enumerate(scale))
    assert len(scale) - 1 == math.ceil(15 * math.sqrt(boards))


@pytest.mark.parametrize("boards", BOARDS)
def test_discrete_scale_ranges_never_narrow_and_follow_the_rounded_formula(boards):
    bounds = discrete_scale(boards)
    widths = [2 * bounds[0] + 1] + [b - a for a, b in pairwise(bounds)]
    assert all(w >= 1 for w in widths)
    assert all(later >= earlier for earlier, later in pairwise(widths))
    winners = [victory_points_integer(m, boards)[0] for m in range(0, bounds[-1] + 3)]
    assert winners == sorted(winners)
    assert winners[-1] == 20


@given(st.integers(1, 64), st.integers(-200, 200))
def test_vp_of_x_plus_vp_of_minus_x_is_20(boards, margin):
    assert victory_points(margin, boards)[0] + victory_points(-margin, boards)[0] == 20
    assert sum(victory_points(margin, boards)) == 20
    assert sum(victory_points_integer(margin, boards)) == 20
    assert (
        victory_points_integer(margin, boards)[0] + victory_points_integer(-margin, boards)[0] == 20
    )


@given(st.integers(1, 64), st.integers(0, 150))
def test_continuous_vp_is_the_rounded_formula_where_no_correction_was_needed(boards, margin):
    won = victory_points(margin, boards)[0]
    assert abs(float(won) - formula(margin, boards)) < 0.03


def test_imps_for_vp_is_the_least_margin_worth_the_vps():
    # § 202C5: a 13 VP forfeit on 16 boards is the first margin worth at least 13.00 VP.
    margin = imps_for_vp(13, 16)
    assert victory_points(margin, 16)[0] >= 13
    assert victory_points(margin - 1, 16)[0] < 13
