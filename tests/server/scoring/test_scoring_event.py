"""A pairs event end to end: totals, percentages, places, penalties, running totals, reports,
and incremental rescoring agreeing with a full rescore."""

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.scoring import (
    BoardResult,
    Direction,
    Method,
    PairsScorer,
    ScoringOptions,
    Unit,
    frequency_table,
    score_card,
    standard_deduction,
    traveller,
)

F = Fraction  # short for the many exact values below

NS, EW = Direction.NS, Direction.EW


def small_event() -> list[BoardResult]:
    """Three tables, three rounds, one board a round; board 3 has an Ave+/Ave- at table 1.

    By hand (2-1-0, top 4):
      board 1: N1-E1 +420, N2-E2 +400, N3-E3 -50  → N 4, 2, 0; E 0, 2, 4
      board 2: N1-E2 +100, N2-E3 +100, N3-E1 +200 → N 1, 1, 4; E2 3, E3 3, E1 0
      board 3: N1-E3 60/40, N2-E1 +50, N3-E2 -50  → G = 2 of A = 3, Neuberg 3/2·(P+1)-1:
               N2 3.5, N3 0.5, E1 0.5, E2 3.5; N1 60 % of 4 = 2.4, E3 40 % = 1.6
    """
    return [
        BoardResult.played(1, "N1", "E1", 420, table=1, round=1),
        BoardResult.played(1, "N2", "E2", 400, table=2, round=1),
        BoardResult.played(1, "N3", "E3", -50, table=3, round=1),
        BoardResult.played(2, "N1", "E2", 100, table=1, round=2),
        BoardResult.played(2, "N2", "E3", 100, table=2, round=2),
        BoardResult.played(2, "N3", "E1", 200, table=3, round=2),
        BoardResult.artificial(3, "N1", "E3", 60, 40, table=1, round=3),
        BoardResult.played(3, "N2", "E1", 50, table=2, round=3),
        BoardResult.played(3, "N3", "E2", -50, table=3, round=3),
    ]


def by_pair(standings):
    return {s.pair: s for s in standings}


def test_small_event_totals_and_percentages_by_hand():
    scorer = PairsScorer(small_event())
    table = by_pair(scorer.standings())
    assert table["N1"].total == F("7.4")
    assert table["N2"].total == F("6.5")
    assert table["N3"].total == F("4.5")
    assert table["E1"].total == F("0.5")
    assert table["E2"].total == F("8.5")
    assert table["E3"].total == F("8.6")
    assert table["N1"].top == 12
    assert table["N1"].percent_display == Decimal("61.67")  # 7.4/12 = 61.666...
    assert table["N2"].percent_display == Decimal("54.17")  # 6.5/12 = 54.1666...
    assert table["N3"].percent == F("37.5")


def test_ns_and_ew_ranked_separately_as_in_a_mitchell():
    scorer = PairsScorer(small_event())
    ns = scorer.standings(["N1", "N2", "N3"])
    ew = scorer.standings(["E1", "E2", "E3"])
    assert [(s.pair, s.place) for s in ns] == [("N1", "1"), ("N2", "2"), ("N3", "3")]
    assert [(s.pair, s.place) for s in ew] == [("E3", "1"), ("E2", "2"), ("E1", "3")]


def test_sit_out_scores_nothing_and_does_not_lower_the_percentage():
    results = [*small_event(), BoardResult.sit_out(1, "N4", NS, round=1)]
    results += [
        BoardResult.played(2, "N4", "E4", 100, table=4, round=2),
        BoardResult.played(3, "N4", "E4", 50, table=4, round=3),
    ]
    table = by_pair(PairsScorer(results, ScoringOptions(field="board")).standings())
    assert table["N4"].boards == 2
    # Board 2 now has four results (+200, +100 ×3): N4 scores 2 of 6; board 3 (+50 ×2, -50,
    # Ave+): three results of four tables, Neuberg 4/3·(P+1)-1 with P = 3 → 13/3, of top 6.
    assert table["N4"].total == 2 + F(13, 3)
    assert table["N4"].top == 12
    assert table["N4"].percent == 100 * (2 + F(13, 3)) / 12


def test_shared_places_shown_as_equals_or_as_a_range():
    results = [
        BoardResult.played(1, "N1", "E1", 420),
        BoardResult.played(1, "N2", "E2", 420),
        BoardResult.played(1, "N3", "E3", 100),
        BoardResult.played(1, "N4", "E4", -50),
    ]
    places = [(s.pair, s.place) for s in PairsScorer(results).standings(["N1", "N2", "N3", "N4"])]
    assert places == [("N1", "1="), ("N2", "1="), ("N3", "3"), ("N4", "4")]
    ranged = PairsScorer(results, ScoringOptions(tie_style="-")).standings(["N4", "N3", "N2", "N1"])
    assert [s.place for s in ranged] == ["1-2", "1-2", "3", "4"]


def test_penalty_of_one_standard_deduction_is_10_percent_of_a_top():
    scorer = PairsScorer(small_event())
    deduction = standard_deduction(Unit.MATCHPOINTS, top=4)
    assert deduction == F("0.4")
    scorer.set_penalties({"N2": deduction})
    table = by_pair(scorer.standings())
    assert table["N2"].total == F("6.1")
    assert table["N2"].penalty == F("0.4")
    assert table["N1"].total == F("7.4")  # only the offender is touched (§ 211A2)


def test_running_totals_after_each_round():
    running = PairsScorer(small_event()).running_totals()
    assert running[1]["N1"] == (4, 4)
    assert running[2]["N1"] == (5, 8)
    assert running[3]["N1"] == (F("7.4"), 12)
    assert running[3]["E3"] == (F("8.6"), 12)


def test_put_result_rescores_one_board_and_matches_a_full_rescore():
    events = small_event()
    scorer = PairsScorer(events[:-1])
    scorer.put_result(events[-1])
    full = PairsScorer(events)
    assert [(s.pair, s.total) for s in scorer.standings()] == [
        (s.pair, s.total) for s in full.standings()
    ]
    # A correction replaces the table's result instead of adding one.
    corrected = BoardResult.played(3, "N3", "E2", 420, table=3, round=3)
    scorer.put_result(corrected)
    assert len(scorer.board(3).results) == 3
    assert scorer.total("N3") == PairsScorer([*events[:-1], corrected]).total("N3")


def test_field_max_neubergises_a_board_played_fewer_times_and_rescores_when_it_grows():
    results = [
        BoardResult.played(1, "N1", "E1", 420),
        BoardResult.played(1, "N2", "E2", 400),
        BoardResult.played(1, "N3", "E3", -50),
        BoardResult.played(2, "N1", "E2", 100),
        BoardResult.played(2, "N2", "E3", 200),
    ]
    scorer = PairsScorer(results)
    # Board 2 played twice, scaled to 3 tables: 3/2·(P+1)-1 → 3.5 and 0.5.
    assert scorer.board(2).value(1, NS) == F("3.5")
    scorer.put_result(BoardResult.played(2, "N3", "E1", 300))
    assert scorer.board(2).value(1, NS) == 2
    # A fourth result on board 1 raises the field: board 2 is rescaled to 4 tables too.
    scorer.put_result(BoardResult.played(1, "N4", "E4", 0))
    assert scorer.board(2).fields == (4, 4)
    assert scorer.board(2).value(2, NS) == F(4, 3) * 5 - 1  # P = 4 → 17/3


@st.composite
def event_results(draw):
    scores = st.sampled_from([-200, -50, 0, 100, 110, 140, 420, 450])
    out = []
    for board in range(1, 4):
        for table in range(1, draw(st.integers(2, 6)) + 1):
            kind = draw(st.integers(0, 9))
            ns, ew = f"N{table}", f"E{(table + board) % 6}"
            if kind == 0:
                out.append(BoardResult.artificial(board, ns, ew, 60, 40, table=table))
            elif kind == 1:
                out.append(
                    BoardResult.weighted(
                        board, ns, ew, (draw(scores), "0.25"), (draw(scores), "0.75"), table=table
                    )
                )
            elif kind == 2:
                out.append(
                    BoardResult.unbalanced(board, ns, ew, draw(scores), draw(scores), table=table)
                )
            else:
                out.append(BoardResult.played(board, ns, ew, draw(scores), table=table))
    return out


@settings(max_examples=40, deadline=None)
@given(event_results(), st.data(), st.sampled_from(list(Method)))
def test_incremental_rescoring_always_equals_a_full_rescore(results, data, method):
    options = ScoringOptions(method=method)
    order = data.draw(st.permutations(results))
    scorer = PairsScorer([], options)
    for result in order:
        scorer.put_result(result)
    dropped = data.draw(st.sampled_from(order))
    scorer.remove_result(dropped)
    expected = PairsScorer([r for r in results if r is not dropped], options)
    got = {s.pair: (s.total, s.top, s.boards) for s in scorer.standings()}
    want = {s.pair: (s.total, s.top, s.boards) for s in expected.standings()}
    assert {p: v for p, v in got.items() if v[2]} == {p: v for p, v in want.items() if v[2]}


def test_traveller_rows_with_contracts_leads_and_both_sides_scores():
    results = [
        BoardResult.from_play(1, "N1", "E1", "4S", "N", 10, lead="HK", table=1),
        BoardResult.from_play(1, "N2", "E2", "4SX", "N", 9, table=2),
        BoardResult.artificial(1, "N3", "E3", 60, 40, table=3),
    ]
    rows = traveller(PairsScorer(results).board(1))
    first = rows[0]
    assert (first.table, first.contract, first.declarer, first.lead, first.result) == (
        1,
        "4S",
        "N",
        "HK",
        "=",
    )
    assert first.ns_score == 420
    assert (first.ns_value, first.ew_value) == (F("3.5"), F("0.5"))
    assert (rows[1].ns_label, rows[1].ew_label) == ("A60", "A40")
    assert (rows[2].ns_score, rows[2].result) == (-100, "-1")


def test_frequency_table_lists_scores_with_their_frequency_and_matchpoints():
    freq = frequency_table(PairsScorer(small_event()).board(3), NS)
    assert [(r.label, r.frequency, r.value) for r in freq] == [
        ("50", 1, F("3.5")),
        ("A60", 1, F("2.4")),
        ("-50", 1, F("0.5")),
    ]
    weighted = PairsScorer(
        [
            BoardResult.played(1, "N1", "E1", 420),
            BoardResult.played(1, "N2", "E2", 420),
            BoardResult.weighted(1, "N3", "E3", (420, "0.3"), (-50, "0.7")),
        ]
    )
    rows = frequency_table(weighted.board(1), EW)
    assert [(r.label, r.frequency) for r in rows] == [("30% -420 / 70% 50", 1), ("-420", 2)]


def test_score_card_lists_each_board_with_opponents_score_and_percent():
    results = [*small_event(), BoardResult.sit_out(4, "N1", NS, round=4)]
    card = score_card(PairsScorer(results).boards.values(), "N1")
    assert [(r.board, r.opponents, r.label, r.value, r.sat_out) for r in card] == [
        (1, "E1", "420", 4, False),
        (2, "E2", "100", 1, False),
        (3, "E3", "A60", F("2.4"), False),
        (4, None, "", None, True),
    ]
    assert card[0].percent == 100
    east = score_card(PairsScorer(results).boards.values(), "E1")
    assert [r.label for r in east] == ["-420", "-200", "-50"]


def test_imps_across_the_field_event_ranks_by_total_without_percentages():
    results = [
        BoardResult.played(1, "N1", "E1", 420),
        BoardResult.played(1, "N2", "E2", 450),
        BoardResult.played(1, "N3", "E3", -50),
    ]
    standings = PairsScorer(results, ScoringOptions(method=Method.IMPS_ACROSS)).standings()
    assert [(s.pair, s.total) for s in standings][:3] == [("E3", 21), ("N2", 12), ("N1", 9)]
    assert standings[0].percent is None


def test_sections_are_scored_apart_unless_across_sections():
    results = [
        BoardResult.played(1, "A1", "AE1", 420, section="A"),
        BoardResult.played(1, "A2", "AE2", 100, section="A"),
        BoardResult.played(1, "B1", "BE1", 620, section="B"),
        BoardResult.played(1, "B2", "BE2", 50, section="B"),
    ]
    apart = by_pair(PairsScorer(results).standings())
    assert (apart["A1"].total, apart["B1"].total) == (2, 2)
    together = by_pair(PairsScorer(results, ScoringOptions(across_sections=True)).standings())
    assert (together["A1"].total, together["B1"].total) == (4, 6)


def test_scorer_reports_are_the_board_traveller_and_the_pair_score_card():
    scorer = PairsScorer(small_event())
    assert scorer.traveller(1) == traveller(scorer.board(1))
    assert scorer.score_card("E2") == score_card(scorer.boards.values(), "E2")
    assert [r.value for r in scorer.score_card("E2")] == [2, 3, F("3.5")]


def test_fixed_field_scales_every_board_to_that_many_tables():
    # Two results scored as if over 4 tables: 4/2·(P+1)-1 → 5 and 1 on a top of 6.
    results = [BoardResult.played(1, "N1", "E1", 420), BoardResult.played(1, "N2", "E2", 100)]
    board = PairsScorer(results, ScoringOptions(field=4)).board(1)
    assert (board.value(0, NS), board.value(1, NS), board.top()) == (5, 1, 6)


def test_set_board_rejects_a_result_of_another_board():
    scorer = PairsScorer(small_event())
    with pytest.raises(ValueError, match="not on board"):
        scorer.set_board(2, [BoardResult.played(1, "N1", "E1", 420)])
