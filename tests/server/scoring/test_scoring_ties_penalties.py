"""§ 223 pair ties, § X90C warnings then deductions, § 211B standard deductions, § 216 boards
not played, and the exact rounding helpers."""

from decimal import Decimal
from fractions import Fraction

import pytest

from server.scoring import (
    BoardResult,
    Direction,
    Offence,
    PairBoard,
    PairsScorer,
    Penalty,
    ScoringOptions,
    Unit,
    absent_pair,
    assess,
    break_pair_ties,
    has_withdrawn,
    penalty_totals,
    reserve_not_played,
    round_half_away,
    round_to_int,
    round_to_multiple,
    standard_deduction,
    to_decimal,
    withdraw,
)
from server.scoring.models import Artificial

F = Fraction  # short for the many exact values below

TOP = F(4)


def rec(board, opponent, score, round_=None):
    return PairBoard(board, round_, opponent, F(score), TOP)


def test_223b1_two_tied_pairs_the_one_that_won_their_meeting_goes_first():
    records = {"A": [rec(1, "B", 3), rec(2, "X", 0)], "B": [rec(1, "A", 1), rec(3, "Y", 2)]}
    assert break_pair_ties(["B", "A"], records) == [["A"], ["B"]]


def test_223b1_three_tied_pairs_sum_mutual_meetings_with_0_as_average_then_repeat():
    # A v B: A +1 (3 of 4), B -1. B v C: B +2 (4 of 4), C -2. A never met C.
    # Sums: A +1, B +1, C -2 → C last; A and B still level → their own meeting puts A first.
    records = {
        "A": [rec(1, "B", 3)],
        "B": [rec(1, "A", 1), rec(2, "C", 4)],
        "C": [rec(2, "B", 0)],
    }
    assert break_pair_ties(["C", "B", "A"], records) == [["A"], ["B"], ["C"]]


def test_223b2_most_rounds_above_average_when_they_never_met():
    # A: rounds +1, -0.5, +0.5 → 2 rounds above; B: +3, -1, -1 → 1 round above.
    records = {
        "A": [rec(1, "X", 3, 1), rec(2, "X", F("1.5"), 2), rec(3, "X", F("2.5"), 3)],
        "B": [rec(4, "Y", 5, 1), rec(5, "Y", 1, 2), rec(6, "Y", 1, 3)],
    }
    assert break_pair_ties(["B", "A"], records) == [["A"], ["B"]]


def test_223b3_fewest_bottoms_then_fewest_next_to_bottoms():
    a = {"A": [rec(1, "X", 0), rec(2, "X", 4), rec(3, "X", 2), rec(4, "X", 2)]}
    b = {"B": [rec(5, "Y", 1), rec(6, "Y", 1), rec(7, "Y", 3), rec(8, "Y", 3)]}
    assert break_pair_ties(["A", "B"], a | b) == [["B"], ["A"]]
    # Same number of zeros (one each): then fewer 1s wins.
    c = {"C": [rec(1, "X", 0), rec(2, "X", 1), rec(3, "X", 4), rec(4, "X", 3)]}
    d = {"D": [rec(5, "Y", 0), rec(6, "Y", 2), rec(7, "Y", 2), rec(8, "Y", 4)]}
    assert break_pair_ties(["C", "D"], c | d) == [["D"], ["C"]]


def test_pairs_still_level_after_all_criteria_stay_tied():
    same = [rec(1, "X", 2, 1)]
    assert break_pair_ties(["A", "B"], {"A": same, "B": same}) == [["A", "B"]]


def test_unique_places_applied_only_when_the_event_asks_for_them():
    # Four pairs, two tables, one board a round (top 2 on each board):
    #  board 1: A-B +420, C-D +400 → A 2, C 0; B 0, D 2
    #  board 2: A-C +100, B-D +200 → A 0, B 2; C 2, D 0
    #  board 3: A-D +50,  B-C -50  → A 2, B 0; D 0, C 2
    # A and C have 4, B and D 2. Head to head (board 2) C beat A and B beat D.
    results = [
        BoardResult.played(1, "A", "B", 420, round=1),
        BoardResult.played(1, "C", "D", 400, round=1),
        BoardResult.played(2, "A", "C", 100, round=2),
        BoardResult.played(2, "B", "D", 200, round=2),
        BoardResult.played(3, "A", "D", 50, round=3),
        BoardResult.played(3, "B", "C", -50, round=3),
    ]
    tied = PairsScorer(results).standings()
    assert sorted((s.place, s.pair) for s in tied) == [
        ("1=", "A"), ("1=", "C"), ("3=", "B"), ("3=", "D"),
    ]  # fmt: skip
    unique = PairsScorer(results, ScoringOptions(unique_places=True)).standings()
    assert [(s.place, s.pair) for s in unique] == [("1", "C"), ("2", "A"), ("3", "B"), ("4", "D")]


def test_standard_deductions_per_211b():
    assert standard_deduction(Unit.MATCHPOINTS, top=24) == F("2.4")
    assert standard_deduction(Unit.IMPS_ACROSS, other_tables=11) == 22
    assert standard_deduction(Unit.BUTLER) == 2
    assert standard_deduction(Unit.VP, boards_in_match=16) == F(1, 2)
    assert standard_deduction(Unit.VP, boards_in_match=12) == 1
    assert standard_deduction(Unit.BOARD_A_MATCH) == F("0.2")
    assert standard_deduction(Unit.KNOCKOUT_IMPS) == F("1.5")
    with pytest.raises(ValueError, match="top"):
        standard_deduction(Unit.MATCHPOINTS)


def test_x90c_first_offence_is_a_warning_the_second_of_the_same_type_deducts():
    sd = F("2.4")
    offences = [
        Offence("N3", "missing entry"),
        Offence("N3", "time"),
        Offence("N3", "missing entry"),
        Offence("N5", "missing entry"),
        Offence("N3", "missing entry", phase="final"),
        Offence("N7", "time", immediate=True),  # 3+ minutes late: no warning first (§ 213B1c)
        Offence("N3", "missing entry"),
    ]
    rulings = assess(offences, sd)
    assert [(r.warning, r.deduction) for r in rulings] == [
        (True, 0),
        (True, 0),
        (False, sd),
        (True, 0),
        (True, 0),
        (False, sd),
        (False, sd),
    ]
    totals = penalty_totals(rulings, [Penalty.standard("N5", sd, 3, "X90B: 3 deductions")])
    assert totals == {"N3": 2 * sd, "N7": sd, "N5": 3 * sd}


def test_216b_absent_pair_penalised_gets_ave_minus_excused_ave_present_pair_ave_plus():
    penalised = absent_pair(5, "N1", "E9")
    assert (penalised.ns, penalised.ew) == (Artificial.of(60), Artificial.of(40))
    excused = absent_pair(5, "E1", "N9", present_direction=Direction.EW, penalised=False)
    assert (excused.ns_pair, excused.ew_pair) == ("N9", "E1")
    assert (excused.ns, excused.ew) == (Artificial.of(50), Artificial.of(60))


def test_216d_reserve_pair_gets_ave_and_its_opponents_ave_plus():
    result = reserve_not_played(2, "N1", "R1")
    assert (result.ns, result.ew) == (Artificial.of(60), Artificial.of(50))


def test_216e_withdrawn_pair_results_cancelled_and_opponents_sit_out():
    assert has_withdrawn(11, 24)
    assert not has_withdrawn(12, 24)
    assert has_withdrawn(12, 24, reserve=True)
    results = [
        BoardResult.played(1, "N1", "E1", 420, round=1),
        BoardResult.played(1, "N2", "E2", 100, round=1),
        BoardResult.played(1, "N3", "E3", -50, round=1),
    ]
    kept = withdraw(results, "E2")
    assert [r.is_sit_out for r in kept] == [False, True, False]
    assert kept[1].ns_pair == "N2"
    table = {s.pair: s for s in PairsScorer(kept).standings()}
    assert table["N2"].boards == 0
    assert "E2" not in table
    # The two remaining results are Neubergised to the 3 tables the board was played at? No:
    # § 216E2b scores the opponents as sitting out, so the board is scored over 2 tables.
    assert (table["N1"].total, table["N1"].top) == (2, 2)


def test_rounding_helpers_round_halves_away_from_zero():
    assert round_half_away(F(5, 2)) == 3
    assert round_half_away(F(-5, 2)) == -3
    assert round_to_int(F("2.49")) == 2
    assert round_half_away(F("61.665"), 2) == F("61.67")
    assert round_half_away(F("-61.665"), 2) == F("-61.67")
    assert round_to_multiple(-25, 10) == -30
    assert round_to_multiple(F("24.99"), 10) == 20
    assert to_decimal(F(185, 3)) == Decimal("61.67")
    assert to_decimal(F(1, 8), 2) == Decimal("0.13")
