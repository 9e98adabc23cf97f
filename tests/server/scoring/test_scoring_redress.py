"""§ X78A4 (self-inflicted damage, Law 12C1e) and § 202B4 (a match voided through nobody's
fault), with every figure worked by hand from the rule text in the test names and comments."""

from fractions import Fraction

import pytest

from server.scoring import (
    Artificial,
    BoardResult,
    Direction,
    Method,
    Points,
    ScoringOptions,
    SelfInflicted,
    TeamBoard,
    TeamMatch,
    Weighted,
    average_vp_elsewhere,
    frequency_table,
    score_board,
    score_match,
    self_inflicted_score,
    self_inflicted_team_board,
    traveller,
    voided_match_vp,
)

F = Fraction
NS, EW = Direction.NS, Direction.EW


def field(*ns_scores: int) -> list[BoardResult]:
    """Tables 1.. with ordinary N/S scores."""
    return [
        BoardResult.played(1, f"N{i}", f"E{i}", s, table=i)
        for i, s in enumerate(ns_scores, start=1)
    ]


def with_redress(
    others: list[BoardResult],
    *,
    offenders: Direction = EW,
    adjusted: int = 420,
    expected: int | Artificial = 140,
    at_table: int = -100,
) -> list[BoardResult]:
    table = len(others) + 1
    return [
        *others,
        BoardResult.self_inflicted(
            1,
            f"N{table}",
            f"E{table}",
            offenders=offenders,
            adjusted=adjusted,
            expected=expected,
            at_table=at_table,
            table=table,
        ),
    ]


def column(results: list[BoardResult], direction: Direction, **options: object) -> list[F | None]:
    score = score_board((None, 1), results, ScoringOptions(**options))  # type: ignore[arg-type]
    return [score.value(i, direction) for i in range(len(results))]


# --- the formula (§ X78A4d-e) ------------------------------------------------------------------


def test_formula_m_below_j_gives_j_minus_m_plus_f():
    # J 5, M 2, F 0: the infraction cost 5 - 2 = 3; the side keeps F and gets that back: 3.
    assert self_inflicted_score(5, 2, 0) == 3


def test_formula_m_equal_to_j_leaves_the_table_result_f():
    # § X78A4d: M >= J - all the damage was self-inflicted.
    assert self_inflicted_score(5, 5, 1) == 1
    assert self_inflicted_score(5, 7, 0) == 0


def test_formula_is_exact_with_fractions():
    assert self_inflicted_score(F(13, 2), F(9, 4), F(1, 3)) == F(13, 2) - F(9, 4) + F(1, 3)


# --- matchpoints --------------------------------------------------------------------------------


def test_mp_nos_ns_j5_m2_f0_scores_3_offenders_3_and_the_field_sees_the_adjusted_420():
    # Five tables, 2-1-0, top 8. N/S at tables 1-4: +420, +450, +170, -50. At table 5 E/W
    # offended and the TD adjusted to N/S +420; without their gambling action N/S would have
    # scored +140; at the table they got -100.
    #   J (+420 against 420, 450, 170, -50): beats 170 and -50 (4) + ties 420 (1) = 5
    #   M (+140): beats -50 = 2;  F (-100): 0.  M < J, so N/S get J - M + F = 3.
    #   E/W offenders get J's other side: -420 against -420, -450, -170, +50 = 2 + 1 = 3.
    #   Table 1 (+420) ties the adjusted +420: 4 + 1 = 5; table 4 (-50) beats nobody: 0
    #   (against the table result -100 it would have had 2).
    results = with_redress(field(420, 450, 170, -50))
    assert column(results, NS) == [5, 8, 2, 0, 3]
    assert column(results, EW) == [3, 0, 6, 8, 3]


def test_mp_m_equal_score_to_another_table_j5_m3_f0_scores_2():
    # As above with M's score +170: it beats -50 (2) and ties +170 (1) = 3; 5 - 3 + 0 = 2.
    results = with_redress(field(420, 450, 170, -50), expected=170)
    assert column(results, NS)[4] == 2


def test_mp_m_at_least_j_all_damage_self_inflicted_scores_f():
    # M's score +450 beats 420, 170, -50 (6) and ties 450 (1) = 7 >= J 5: N/S keep F = 0.
    results = with_redress(field(420, 450, 170, -50), expected=450)
    assert column(results, NS)[4] == 0
    assert column(results, EW)[4] == 3


def test_mp_artificial_m_60_percent_is_4_8_of_a_top_of_8():
    # M = 60 % of 8 = 4.8 < J 5: N/S get 5 - 4.8 + 0 = 0.2.
    results = with_redress(field(420, 450, 170, -50), expected=Artificial.of(60))
    assert column(results, NS)[4] == F(1, 5)


def test_mp_non_offenders_east_west_offenders_north_south():
    # Adjusted N/S +170 (E/W -170), E/W expected -140 (N/S +140), E/W at the table -450.
    # E/W at tables 1-4: -420, -450, -170, +50.
    #   J (-170): beats -420, -450 (4) + ties -170 (1) = 5
    #   M (-140): beats -420, -450, -170 = 6 >= 5, so E/W keep F
    #   F (-450): ties -450 = 1
    #   N/S offenders: +170 against 420, 450, 170, -50 = 2 + 1 = 3.
    results = with_redress(
        field(420, 450, 170, -50), offenders=NS, adjusted=170, expected=140, at_table=450
    )
    assert column(results, EW)[4] == 1
    assert column(results, NS)[4] == 3


def test_mp_weighted_adjusted_score_is_what_the_field_compares_against():
    # Adjusted: 50 % of +420, 50 % of +170 (§ X78A1). N/S at tables 1-3: +420, +170, -50;
    # four results, top 6.
    #   Table 4, J: the +420 part beats 170 and -50 (4) and ties 420 (1) = 5; the +170 part
    #   beats -50 (2) and ties 170 (1) = 3; weighted 4.  M (+140): 2.  F (-100): 0.  4 - 2 = 2.
    #   Table 1 (+420): beats +170 (2) and -50 (2); against the adjusted score ½ tie + ½ win
    #   = ½·1 + ½·2 = 1.5; total 5.5.
    adjusted = Weighted.of((420, "1/2"), (170, "1/2"))
    redress = SelfInflicted(adjusted, Points(140), Points(-100))
    table4 = BoardResult(1, "N4", "E4", redress, adjusted, table=4)
    values = column([*field(420, 170, -50), table4], NS)
    assert values[3] == 2
    assert values[0] == F(11, 2)


def test_mp_traveller_and_frequency_table_label_the_redress():
    results = with_redress(field(420, 450, 170, -50))
    board = score_board((None, 1), results)
    row = next(r for r in traveller(board) if r.table == 5)
    assert row.ns_label == "420 (§ X78A4: M 140, F -100)"
    assert row.ew_label == "-420"
    assert row.ns_value == 3
    labels = [r.label for r in frequency_table(board, NS)]
    assert "420 (§ X78A4: M 140, F -100)" in labels


# --- IMPs across the field and Butler ------------------------------------------------------------


def test_imps_across_j10_m_minus6_f_minus24_scores_minus8():
    # N/S at tables 1-3: +420, +420, -50; table 4 adjusted +420, expected +170, table -100.
    #   J (+420): 0 + 0 + IMP(470) = 10
    #   M (+170): IMP(-250) twice = -12, IMP(220) = 6: -6
    #   F (-100): IMP(-520) twice = -22, IMP(-50) = -2: -24
    #   M < J: 10 + 6 - 24 = -8.  E/W offenders: -10.  Table 3 (-50): -10 x 3 = -30.
    results = with_redress(field(420, 420, -50), expected=170)
    ns = column(results, NS, method=Method.IMPS_ACROSS)
    assert ns == [10, 10, -30, -8]
    assert column(results, EW, method=Method.IMPS_ACROSS)[3] == -10


def test_butler_datum_is_recomputed_for_m_and_f_j2_m_minus3_f_minus7_scores_minus2():
    # N/S at tables 1-4: +420, +420, +170, -50; table 5 adjusted +420, M +140, F -100.
    # Datum without the top and the bottom:
    #   J field 420 420 170 -50 420 -> 420 420 170, datum 1010/3 = 336.67; +83.33 -> 80: 2 IMPs
    #   M field 420 420 170 -50 140 -> 420 170 140, datum 243.33; -103.33 -> -100: -3
    #   F field 420 420 170 -50 -100 -> 420 170 -50, datum 180; -280: -7
    #   M < J: 2 + 3 - 7 = -2.  Table 3 (+170) against 336.67: -166.67 -> -170: -5.
    results = with_redress(field(420, 420, 170, -50))
    ns = column(results, NS, method=Method.BUTLER)
    assert ns == [2, 2, -5, -9, -2]
    assert column(results, EW, method=Method.BUTLER)[4] == -2


# --- teams ---------------------------------------------------------------------------------


def test_team_home_non_offenders_open_room_j10_m0_f_minus7_gets_3_away_minus10():
    # Open room adjusted to N/S (home) +620; closed room N/S +170.
    #   J = IMP(620 - 170 = 450) = 10;  M (+170): IMP(0) = 0;  F (-100): IMP(-270) = -7.
    #   Home: 10 - 0 - 7 = 3; away (offenders): -10.
    board = self_inflicted_team_board(
        1,
        open_score=620,
        closed_score=170,
        adjusted_room="open",
        non_offenders_home=True,
        expected=170,
        at_table=-100,
    )
    result = score_match([board])
    assert (result.home_margin, result.away_margin) == (3, -10)


def test_team_away_non_offenders_mirror_gets_3_home_minus10():
    # The same board the other way round: open N/S -620 (away E/W +620), closed N/S -170.
    #   J (away) = 10;  M (away, N/S -170) = 0;  F (away, N/S +100) = IMP(270) against: -7.
    board = self_inflicted_team_board(
        1,
        open_score=-620,
        closed_score=-170,
        adjusted_room="open",
        non_offenders_home=False,
        expected=-170,
        at_table=100,
    )
    assert (board.home_adjusted, board.away_adjusted) == (-10, 3)


def test_team_closed_room_adjustment_imps_the_closed_room_against_the_open():
    # Closed room adjusted to N/S -420 (home E/W +420); open room N/S +170 (home N/S).
    #   home J = IMP(170 + 420 = 590) = 11;  M (closed N/S -170): IMP(340) = 8;
    #   F (closed N/S +100): IMP(70) = 2.  Home non-offending: 11 - 8 + 2 = 5; away -11.
    board = self_inflicted_team_board(
        1,
        open_score=170,
        closed_score=-420,
        adjusted_room="closed",
        non_offenders_home=True,
        expected=-170,
        at_table=100,
    )
    assert (board.home_adjusted, board.away_adjusted) == (5, -11)


def test_team_unknown_room_is_refused():
    with pytest.raises(ValueError, match="open"):
        self_inflicted_team_board(
            1,
            open_score=0,
            closed_score=0,
            adjusted_room="kitchen",
            non_offenders_home=True,
            expected=0,
            at_table=0,
        )


def test_self_inflicted_refuses_an_artificial_adjusted_score():
    with pytest.raises(TypeError, match="contract result"):
        SelfInflicted(Artificial.of(60), Points(0), Points(0))  # type: ignore[arg-type]


# --- § 202B4: every board voided through nobody's fault ----------------------------------------


def test_voided_by_both_teams_fault_is_8_8():
    assert voided_match_vp("both") == (8, 8)


def test_voided_through_nobodys_fault_running_score_is_13_13():
    # § 202B4 -> § 202C1: each team gets at least 13 VP; the averages come at the end.
    assert voided_match_vp("neither") == (13, 13)


def test_voided_through_nobodys_fault_round_robin_averages_14_and_9_5_give_15_81_and_13():
    # § 202C1b for the home team: x = 14, y = 9.5; X = 14/6 = 7/3, Y = 9.5/10.5 = 19/21;
    # 15·X/(X+Y) + 5 = 15·49/68 + 5 = 15.8088... -> 15.81 (more than 13).
    # The away team: 15·19/68 + 5 = 9.19 -> 13 VP is more.
    home, away = voided_match_vp("neither", home_average=14, away_average=F(19, 2))
    assert (home, away) == (F(1581, 100), 13)


def test_voided_through_nobodys_fault_integer_scale_rounds_to_16():
    home, away = voided_match_vp(
        "neither", home_average=14, away_average=F(19, 2), integer_scale=True
    )
    assert (home, away) == (16, 13)


def test_voided_through_nobodys_fault_two_strong_teams_16_and_15_give_13_57_and_13():
    # X = 16/4 = 4, Y = 15/5 = 3: 15·4/7 + 5 = 13.571 -> 13.57; 15·3/7 + 5 = 11.43 -> 13.
    assert voided_match_vp("neither", home_average=16, away_average=15) == (F(1357, 100), 13)


def test_voided_fault_must_be_both_or_neither_and_averages_come_together():
    with pytest.raises(ValueError, match="fault"):
        voided_match_vp("home")
    with pytest.raises(ValueError, match="both teams"):
        voided_match_vp("neither", home_average=12)


def test_score_match_with_every_board_voided_through_nobodys_fault():
    boards = [TeamBoard(b, 420, 420, voided=True) for b in (1, 2, 3)]
    both = score_match(boards)
    neither = score_match(boards, voided_fault="neither", home_average=14, away_average=F(19, 2))
    assert (both.home_vp, both.away_vp) == (8, 8)
    assert (neither.home_vp, neither.away_vp) == (F(1581, 100), 13)
    assert (neither.home_margin, neither.away_margin, neither.boards) == (0, 0, 0)


def test_average_vp_elsewhere_leaves_out_the_voided_match():
    matches = [
        TeamMatch("A", "B", F(15), F(5), F(30), F(10)),
        TeamMatch("C", "A", F(7), F(13), F(12), F(20)),
        TeamMatch("A", "D", F(10), F(10), F(0), F(0)),
    ]
    # A's other matches than A-D: 15 and 13 -> 14.
    assert average_vp_elsewhere("A", matches, excluding=("A", "D")) == 14
    assert average_vp_elsewhere("D", matches, excluding=("A", "D")) is None
