"""Properties checked against brute force: all-pairs comparisons, frequency tables scaled by A/G."""

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.bridge import imps
from server.scoring import (
    BoardResult,
    Direction,
    Method,
    ScoringOptions,
    Weighted,
    group_imps,
    group_matchpoints,
    neuberg,
    neuberg_american,
    neuberg_imps,
    score_board,
)
from server.scoring.models import Points, RealScore
from server.scoring.neuberg import scale_matchpoints

F = Fraction  # short for the many exact values below

SCORES = st.sampled_from([-1100, -200, -100, -50, 0, 90, 110, 140, 420, 450, 620, 1430])
WEIGHTS = st.sampled_from([F(1, 10), F(3, 10), F(1, 2), F(2, 3), F(1, 4)])


@st.composite
def real_scores(draw: st.DrawFn) -> RealScore:
    if draw(st.integers(0, 5)) == 0:
        weight = draw(WEIGHTS)
        a, b = draw(SCORES), draw(SCORES)
        return Weighted(((a, weight), (b, 1 - weight)))
    return Points(draw(SCORES))


def parts(side: RealScore) -> list[tuple[int, F]]:
    return [(side.ns, F(1))] if isinstance(side, Points) else list(side.parts)


def brute_force_matchpoints(sides: list[RealScore]) -> list[F]:
    """Every side against every other, 2 per score beaten and 1 per tie, weights multiplied."""
    out = []
    for i, mine in enumerate(sides):
        total = F(0)
        for j, theirs in enumerate(sides):
            if i == j:
                continue
            for a, wa in parts(mine):
                for b, wb in parts(theirs):
                    total += wa * wb * (2 if a > b else 1 if a == b else 0)
        out.append(total)
    return out


@given(st.lists(real_scores(), min_size=1, max_size=14))
def test_sort_based_matchpoints_equal_the_all_pairs_comparison(sides):
    assert group_matchpoints(sides, 1) == brute_force_matchpoints(sides)


@given(st.lists(real_scores(), min_size=1, max_size=14))
def test_matchpoints_in_a_group_sum_to_top_times_results_over_two(sides):
    # Every comparison hands out exactly 2 points between the two results: Σ = 2·C(G,2) = G(G-1).
    g = len(sides)
    assert sum(group_matchpoints(sides, 1)) == g * (g - 1)
    assert sum(group_matchpoints(sides, -1)) == g * (g - 1)


@given(st.lists(SCORES, min_size=1, max_size=14))
def test_ns_and_ew_matchpoints_of_a_balanced_board_add_up_to_the_top(scores):
    results = [BoardResult.played(1, i, -i - 1, s) for i, s in enumerate(scores)]
    board = score_board((None, 1), results)
    top = board.top()
    for i in range(len(results)):
        assert board.value(i, Direction.NS) + board.value(i, Direction.EW) == top


@given(st.integers(0, 40), st.integers(1, 30))
def test_neuberg_with_g_equal_to_a_is_the_identity(points, g):
    assert neuberg(points, g, g) == points
    assert neuberg_american(F(points, 2), g, g) == F(points, 2)
    assert neuberg_imps(points, g, g) == points
    assert scale_matchpoints(points, g, g) == points


@given(st.lists(SCORES, min_size=4, max_size=12), st.integers(0, 8))
def test_neuberg_equals_the_frequency_table_multiplied_by_a_over_g(scores, extra):
    # § X78B footnote: scale every frequency by A/G; a pair's own result keeps 1 of its A/G.
    g, a = len(scores), len(scores) + extra
    factor = F(a, g)
    for mine in scores:
        below = sum(1 for s in scores if s < mine)
        equal = sum(1 for s in scores if s == mine)
        expected = 2 * factor * below + (factor * equal - 1)
        raw = 2 * below + equal - 1
        assert scale_matchpoints(raw, g, a) == expected
        assert neuberg_american(F(raw, 2), g, a) == expected / 2


@given(st.lists(SCORES, min_size=4, max_size=12), st.integers(0, 8))
def test_neubergised_matchpoints_sum_to_the_top_times_results_over_two(scores, extra):
    g, a = len(scores), len(scores) + extra
    raw = group_matchpoints([Points(s) for s in scores], 1)
    assert sum(scale_matchpoints(p, g, a) for p in raw) == g * (a - 1)


@given(st.lists(real_scores(), min_size=1, max_size=10))
def test_imps_across_the_field_equal_the_all_pairs_sum_and_total_zero(sides):
    expected = []
    for i, mine in enumerate(sides):
        total = F(0)
        for j, theirs in enumerate(sides):
            if i != j:
                for a, wa in parts(mine):
                    for b, wb in parts(theirs):
                        total += wa * wb * imps(a - b)
        expected.append(total)
    assert group_imps(sides, 1) == expected
    assert sum(group_imps(sides, 1)) == 0


@settings(max_examples=50)
@given(st.lists(SCORES, min_size=2, max_size=10), st.integers(0, 3))
def test_american_board_scores_are_half_the_european_ones(scores, artificial):
    results = [BoardResult.played(1, i, -i - 1, s) for i, s in enumerate(scores)]
    results += [BoardResult.artificial(1, 100 + k, -100 - k, 60, 40) for k in range(artificial)]
    eu = score_board((None, 1), results)
    am = score_board((None, 1), results, ScoringOptions(method=Method.MATCHPOINTS_AMERICAN))
    for d in (Direction.NS, Direction.EW):
        for i in range(len(results)):
            assert am.value(i, d) * 2 == eu.value(i, d)
            assert am.percent(i, d) == eu.percent(i, d)
