"""Convention profiles (server/scoring/profiles.py): each setting's effect, hand-computed on
minimal boards (marked as such, the arithmetic in the test), and the FFB/Magic Contest event
reproduced exactly under its profile while DBf scoring stays as it was.
"""

from __future__ import annotations

from dataclasses import fields
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from server.io.formats import load
from server.io.scorefile import score_event, to_json, to_text
from server.scoring import (
    BoardResult,
    Direction,
    Method,
    PairsScorer,
    Rounding,
    ScoringOptions,
    score_board,
    to_decimal,
)
from server.scoring.profiles import (
    DBF,
    PROFILES,
    SETTINGS,
    Profile,
    get_profile,
    suggest_profile,
)

DATA = Path(__file__).resolve().parents[2] / "data"
FFB = DATA / "published" / "ffb_open2_dn1_finale_2022_seance1.pbn"
F = Fraction


def _values(results: list[BoardResult], options: ScoringOptions) -> list[Fraction | None]:
    score = score_board((None, 1), results, options)
    return [score.value(i, Direction.NS) for i in range(len(results))]


# --- the profiles themselves -----------------------------------------------------------------


def test_dbf_is_the_default_and_sets_exactly_the_engine_defaults() -> None:
    assert get_profile(None) is DBF
    assert get_profile("") is DBF
    assert get_profile(" DBF ") is DBF
    assert DBF.options() == ScoringOptions()
    base = ScoringOptions(method=Method.BUTLER, field=7, across_sections=True)
    assert DBF.options(base) == base
    assert DBF.differences() == {}


def test_every_profile_cites_a_source_for_each_setting_it_changes() -> None:
    assert set(DBF.sources) == set(SETTINGS)
    assert set(PROFILES) == {
        "dbf",
        "ebu",
        "abf",
        "acbl",
        "ffb",
        "nz",
        "brian",
        "pianola",
        "ruter",
    }
    for profile in PROFILES.values():
        changed = profile.differences()
        if profile is not DBF:
            # Each differs, or (EBU: its handicap share is DBf's, found in EBUScore's own
            # document) cites its own source for what it keeps.
            assert changed or set(profile.sources) - set(changed), profile.name
        for setting in changed:
            assert len(profile.sources.get(setting, "")) > 20, (profile.name, setting)


def test_profiles_are_frozen_and_unknown_names_are_refused() -> None:
    with pytest.raises(AttributeError):
        DBF.butler_round_datum = True  # type: ignore[misc]
    with pytest.raises(ValueError, match=r"unknown profile 'fbb'.*dbf, ebu"):
        get_profile("fbb")
    assert {f.name for f in fields(Profile)} >= set(SETTINGS)


@pytest.mark.parametrize(
    ("program", "expected"),
    [
        ("Magic Contest France 4.13.3.4 (www.brenning.se)", "ffb"),
        ("Compscore3 13-Mar-26 Pianola", "abf"),  # Compscore writes "Pianola" in its version
        ("Compscore3", "abf"),
        ("Scorer 140104020", "nz"),  # NZ Scorer's USEBIO PROGRAM_NAME is "Scorer"
        ("EBUScore Pairs 2.1.8", "ebu"),
        ("ACBLscore 7.96", "acbl"),
        ("BriAn", "brian"),
        ("Pianola", "pianola"),
        ("Ruter i Norge - Read more at www.brenning.se", "ruter"),  # both Ruter corpus files
    ],
)
def test_suggest_profile_knows_the_programs(program: str, expected: str) -> None:
    suggested = suggest_profile(program)
    assert suggested is not None
    assert suggested.name == expected


@pytest.mark.parametrize("program", ["", "Traveller", "BridgeScorer", "JFR 2.0"])
def test_suggest_profile_suggests_nothing_for_other_programs(program: str) -> None:
    assert suggest_profile(program) is None


# --- Butler: the datum or the difference rounded (hand-computed, minimal) --------------------


def test_butler_compscore_rounds_the_datum_dbf_the_difference() -> None:
    # Hand-computed, minimal: four tables, N/S +420, +420, +450, +450. One score off each end
    # leaves 420 and 450: datum 435.
    # DBf § 204B2: 420-435 = -15 -> -20 -> -1 IMP; 450-435 = +15 -> +20 -> +1 IMP.
    # Compscore: datum 435 -> 440 first; 420-440 = -20 -> -1 IMP; 450-440 = +10 -> 0 IMP.
    results = [
        BoardResult.played(1, f"N{i}", f"E{i}", score, table=i)
        for i, score in enumerate((420, 420, 450, 450), 1)
    ]
    butler = ScoringOptions(method=Method.BUTLER)
    assert _values(results, get_profile("dbf").options(butler)) == [-1, -1, 1, 1]
    assert _values(results, get_profile("abf").options(butler)) == [-1, -1, 0, 0]


# --- rounding on boards (hand-computed, minimal) ---------------------------------------------


def _short_board() -> list[BoardResult]:
    # Five tables; one gets Ave+/Ave- (60/40), four play: N/S +100, +110, +120, +140.
    played = [
        BoardResult.played(1, f"N{i}", f"E{i}", score, table=i)
        for i, score in enumerate((100, 110, 120, 140), 1)
    ]
    return [*played, BoardResult.artificial(1, "N5", "E5", 60, 40, table=5)]


def test_dbf_factors_the_others_up_exactly_nz_truncates_the_factored_values() -> None:
    # Hand-computed: among the four, 2-1-0 gives 0, 2, 4, 6; Neuberg to five tables
    # (§ X78B): 5/4 x (P+1) - 1 = 0.25, 2.75, 5.25, 7.75 of a top of 8; Ave+ is 60 % of 8 = 4.8.
    # NZ Scorer truncates the factored values to 0.1: 0.2, 2.7, 5.2, 7.7 (4.8 is not factored).
    dbf = _values(_short_board(), DBF.options())
    assert dbf == [F(1, 4), F(11, 4), F(21, 4), F(31, 4), F(24, 5)]
    nz = _values(_short_board(), get_profile("nz").options())
    assert nz == [F(2, 10), F(27, 10), F(52, 10), F(77, 10), F(24, 5)]


def test_brian_leaves_the_others_unfactored_and_gives_the_artificial_score_its_share() -> None:
    # Hand-computed: the board is scored over the four real results: top 2 x (4-1) = 6, the
    # four get 0, 2, 4, 6 unfactored and Ave+ gets 60 % of 6 = 3.6 (E/W Ave- 40 % of 6 = 2.4).
    score = score_board((None, 1), _short_board(), get_profile("brian").options())
    assert [score.value(i, Direction.NS) for i in range(5)] == [0, 2, 4, 6, F(18, 5)]
    assert score.value(4, Direction.EW) == F(12, 5)
    assert score.top(Direction.NS) == 6
    assert score_board((None, 1), _short_board()).top(Direction.NS) == 8  # DBf: five tables


def test_board_rounding_on_the_american_scale_rounds_the_shown_value() -> None:
    # Hand-computed: three tables, N/S +100, +100, +90 on 1-1/2-0: 1.5, 1.5, 0 - nothing to
    # round; five tables with one Ave+ (60 %) on 1-1/2-0: the four real results (0, 1, 2, 3
    # among themselves) become 5/4 x (P+1/2) - 1/2 = 0.125, 1.375, 2.625, 3.875, rounded to
    # 0.1 as shown: 0.1, 1.4, 2.6, 3.9 (halves away from zero; 0.125 -> 0.1).
    options = ScoringOptions(method=Method.MATCHPOINTS_AMERICAN, board_rounding=Rounding(1))
    assert _values(_short_board(), options)[:4] == [F(1, 10), F(14, 10), F(26, 10), F(39, 10)]
    assert Rounding(1)(F(5, 4) * 7 - 1) == F(78, 10)  # 7.75 -> 7.8, half away from zero
    assert Rounding(1, "truncate")(F(-31, 4)) == F(-77, 10)  # toward zero
    with pytest.raises(ValueError, match="half-away"):
        Rounding(1, "banker")


# --- sit-outs in cross-IMPs (hand-computed, minimal) -----------------------------------------


def test_pianola_scales_the_cross_imp_totals_of_pairs_who_sat_out() -> None:
    # Hand-computed, cross-IMPs, each board over its own tables (field "board"):
    # board 1, three tables: A +420, B +420, C +980 (N/S). A: 0 v B, -11 v C (560) -> -11/2;
    #   B: -11/2; C: +11 +11 -> 22/2 = +11. E/W D, E, F the opposite: +11/2, +11/2, -11.
    # board 2, two tables (C and F sit out): A +100, B +130: A -1 (30), B +1; D +1, E -1.
    # Totals: A -13/2, B -9/2, C +11 (one board); D +13/2, E +9/2, F -11 (one board).
    # Pianola scales C and F by 2/1 (the most boards, 2, over their 1): C +22, F -22.
    results = [
        BoardResult.played(1, "A", "D", 420, table=1),
        BoardResult.played(1, "B", "E", 420, table=2),
        BoardResult.played(1, "C", "F", 980, table=3),
        BoardResult.played(2, "A", "D", 100, table=1),
        BoardResult.played(2, "B", "E", 130, table=2),
    ]
    base = ScoringOptions(method=Method.CROSS_IMPS, field="board")

    def totals(profile: str) -> dict[str, Fraction]:
        scorer = PairsScorer(results, get_profile(profile).options(base))
        return {str(s.pair): s.total for s in scorer.standings()}

    half = F(1, 2)
    assert totals("dbf") == {
        "A": -13 * half,
        "B": -9 * half,
        "C": 11,
        "D": 13 * half,
        "E": 9 * half,
        "F": -11,
    }
    scaled = totals("pianola")
    assert scaled == {
        "A": -13 * half,
        "B": -9 * half,
        "C": 22,
        "D": 13 * half,
        "E": 9 * half,
        "F": -22,
    }
    pianola = PairsScorer(results, get_profile("pianola").options(base))
    pianola.set_penalties({"C": F(3)})  # a deduction comes off after the scaling: 22 - 3
    assert {str(s.pair): s.total for s in pianola.standings(["A", "B", "C"])}["C"] == 19
    assert [str(s.pair) for s in pianola.standings(["A", "B", "C"])] == ["C", "B", "A"]


# --- sit-outs in matchpoint pairs (hand-computed, minimal) ------------------------------------


def test_acbl_factors_a_sit_out_pairs_total_up_and_rounds_it() -> None:
    # Hand-computed, 1-1/2-0 matchpoints, each board over its own tables (field "board"):
    # board 1, three tables: N/S A +420, B +450, C +400: A 1, B 2, C 0 (top 2);
    # board 2, three tables: A +110, B +140, C +140: A 0, B 1.5, C 1.5;
    # board 3, two tables (C sits out): A +100, B +50: A 1, B 0 (top 1).
    # Totals: A 2 of 5 (40 %), B 3.5 of 5 (70 %), C 1.5 of 4 on 2 boards (37.5 %).
    # ACBL factors C to the 3 boards, total and top: 1.5 x 3/2 = 2.25 of 6 (37.5 %).
    # DBf (§ X78A5) keeps 1.5 of 4.
    results = [
        BoardResult.played(1, "A", "D", 420, table=1),
        BoardResult.played(1, "B", "E", 450, table=2),
        BoardResult.played(1, "C", "F", 400, table=3),
        BoardResult.played(2, "A", "D", 110, table=1),
        BoardResult.played(2, "B", "E", 140, table=2),
        BoardResult.played(2, "C", "F", 140, table=3),
        BoardResult.played(3, "A", "D", 100, table=1),
        BoardResult.played(3, "B", "E", 50, table=2),
    ]
    base = ScoringOptions(method=Method.MATCHPOINTS_AMERICAN, field="board")

    def figures(profile: str) -> dict[str, tuple[Fraction, Fraction | None, int]]:
        scorer = PairsScorer(results, get_profile(profile).options(base))
        return {
            str(s.pair): (s.total, s.percent, s.boards) for s in scorer.standings(["A", "B", "C"])
        }

    assert figures("dbf") == {"A": (2, 40, 3), "B": (F(7, 2), 70, 3), "C": (F(3, 2), F(75, 2), 2)}
    assert figures("acbl") == {"A": (2, 40, 3), "B": (F(7, 2), 70, 3), "C": (F(9, 4), F(75, 2), 2)}
    # With a penalty of 0.5 MP, it comes off the factored total: 2.25 - 0.5 = 1.75 of 6.
    scorer = PairsScorer(results, get_profile("acbl").options(base))
    scorer.set_penalties({"C": F(1, 2)})
    c = next(s for s in scorer.standings(["A", "B", "C"]) if s.pair == "C")
    assert (c.total, c.top) == (F(7, 4), 6)
    # The rounding is ACBL's 0.01, halves up: 29 x 18/16 = 32.625 -> 32.63 (the Howell file).
    assert get_profile("acbl").sitout_factoring == Rounding(2, "half-away")
    assert Rounding(2, "half-away")(F(29 * 18, 16)) == F(3263, 100)


# --- handicap pairs (hand-made handicaps on a real file's pairs) -----------------------------


def test_handicap_pairs_publish_the_raw_percentage_plus_half_the_handicap() -> None:
    # Hand-made handicaps on the FFB event's pairs (the file has none): pair 7 +4.00 and pair
    # 26 -3.50. Raw (DBf, exact): pair 7 771.095... of 1260 = 61.198... %; published handicap
    # percentage 61.198 + 2.00 = 63.198 -> 63.20; pair 26 raw + (-1.75). Places stay scratch.
    # (Exactly, pair 7 has 16193/21 = 771.095... MP; 100 x that / 1260 = 61.198... %.)
    event = load(FFB)
    by_number = {p.key.number: p for p in event.pairs}
    by_number[7].handicap = Decimal("4.00")
    by_number[26].handicap = Decimal("-3.50")
    report = score_event(event)
    rows = {p.key.number: p for p in report.pairs}
    seven, twenty_six = rows[7], rows[26]
    assert seven.percentage == 100 * F(16193, 21) / 1260
    assert seven.handicapped == seven.percentage + 2
    assert to_decimal(seven.handicapped, 2) == Decimal("63.20")
    assert twenty_six.handicapped == twenty_six.percentage - F(7, 4)  # type: ignore[operator]
    assert rows[17].handicap is None
    assert rows[17].handicapped is None
    assert [p.key.number for p in report.pairs][:2] == [7, 26]  # the scratch places


# --- the FFB/Magic Contest event reproduced exactly ------------------------------------------


def test_ffb_profile_reproduces_all_44_published_totals_and_percentages() -> None:
    # Real file (tests/data/published/README.md): Magic Contest rounds each board's
    # matchpoints to 0.1 before adding up; the percentage is the total over 30 x 42 = 1260.
    report = score_event(load(FFB), profile=get_profile("ffb"))
    published = {p.key: (p.published_total, p.published_percentage) for p in report.event.pairs}
    assert len(report.pairs) == 44
    for pair in report.pairs:
        assert pair.percentage is not None
        ours = (to_decimal(pair.total, 1), to_decimal(pair.percentage, 2))
        assert ours == published[pair.key], pair.key
        # the total is exact at one decimal: no rounding hides in the comparison
        assert pair.total == F(to_decimal(pair.total, 1))
        assert to_decimal(pair.percentage, 2) == (
            Decimal(str(float(pair.total))) * 100 / 1260
        ).quantize(Decimal("0.01"), ROUND_HALF_UP)
    assert report.profile.name == "ffb"
    assert [p.place for p in report.pairs][:3] == ["1", "2", "3"]


def test_ffb_event_under_dbf_is_scored_as_before() -> None:
    # § X78C1, no rounding on boards: 32 of the 44 percentages equal the published ones and
    # 12 differ by exactly 0.01 (tests/server/io/test_io_published_events.py).
    dbf = score_event(load(FFB))
    assert dbf.profile is DBF
    published = {p.key: p.published_percentage for p in dbf.event.pairs}
    gaps = [
        abs(to_decimal(p.percentage, 2) - published[p.key])  # type: ignore[arg-type, operator]
        for p in dbf.pairs
    ]
    assert gaps.count(Decimal(0)) == 32
    assert set(gaps) == {Decimal(0), Decimal("0.01")}
    seven = next(p for p in dbf.pairs if p.key.number == 7)
    assert seven.total == F(16193, 21)  # exact, 771.10 to two decimals; published 771.2


def test_acbl_scores_plain_matchpoints_on_the_american_scale_with_the_same_percentages() -> None:
    # 1-1/2-0 is exactly half of 2-1-0 (top 21 instead of 42): totals halve, and ACBLscore
    # publishes them to 0.01, the percentage from that total (sitout_factoring; every pair
    # here played all 30 boards, so nothing is factored, only rounded).
    dbf = score_event(load(FFB))
    acbl = score_event(load(FFB), profile=get_profile("acbl"))
    assert (dbf.method, acbl.method) == (Method.MATCHPOINTS, Method.MATCHPOINTS_AMERICAN)
    rounded = [(p.key, Fraction(to_decimal(p.total / 2, 2))) for p in dbf.pairs]
    assert [(p.key, p.total) for p in acbl.pairs] == rounded
    assert [p.percentage for p in acbl.pairs] == [100 * total / (30 * 21) for _, total in rounded]
    seven = acbl.pairs[0]  # 771.10 / 2 = 385.5476...: 385.55, 61.198 %
    assert (seven.key.number, seven.total) == (7, F(38555, 100))
    given = score_event(load(FFB), Method.MATCHPOINTS, profile=get_profile("acbl"))
    assert given.method is Method.MATCHPOINTS  # a method given is never changed


def test_text_and_json_show_the_profile_and_the_handicap_columns() -> None:
    event = load(FFB)
    next(p for p in event.pairs if p.key.number == 7).handicap = Decimal("4.00")
    report = score_event(event, profile=get_profile("ebu"))  # EBU: DBf's figures, half share
    text = to_text(report)
    assert "Profile: EBU / EBUScore" in text
    assert "    Hcp   Hcp %  Names" in text
    assert "    1          7    771.10   61.20   4.00   63.20  Philippe CHESNY" in text
    data = to_json(report)
    assert data["profile"] == "ebu"
    event.program = "Magic Contest France 4.13.3.4"  # as the readers fill it (EventFile.program)
    assert to_json(score_event(event))["suggested_profile"] == "ffb"
    seven = next(p for p in data["pairs"] if p["number"] == 7)
    assert (seven["handicap"], seven["handicapped_percentage"]) == (4.0, 63.2)
    assert "handicap" not in next(p for p in data["pairs"] if p["number"] == 26)
