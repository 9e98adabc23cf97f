"""A Norwegian matchpoint pairs event scored by Ruter, checked against what Ruter published.

The file is the PBN that "Ruter i Norge" 4.14.2 wrote for "2022-05-08-KM. par" (NBF Østfold og
Follo, 2022-05-08): 8 pairs, 4 tables, 63 boards each played 4 times, matchpoints
(`[Scoring "MatchPoints;MP1"]`, a barometer); source, licence and what was cut:
tests/data/published/README.md. Traveller reads it with its PBN reader (server/io/pbn.py);
nothing published is used to score.

What the tests found:
- Ruter's "MP1" matchpoints are the plus-minus scale: +1 a beaten score, -1 a better one, 0 a
  tie, i.e. our 2-per-beat matchpoints less the number of comparisons (here 3), to 0.1; its
  `TotalScoreMP` is the sum of those and its `TotalPercentage` the pair's matchpoints over
  the event's top (63 x 6), to 0.01;
- every line is ours exactly, both sides, but the two real results of board 37 (250 of 252
  lines, the two A+/A- lines of that board included);
- board 37 was played at two tables only: the other two got A+/A- (60 %/40 %). We score the
  two real results against each other and factor them up to the four tables (§ X78A3/X78B:
  83.3 % and 16.7 %); Ruter gives them 65 %/55 % (N/S -100) and 55 %/65 % (N/S -200), so the
  two sides of one table add up to 120 %: Ruter's own convention for a board with artificial
  scores, which we could not derive from the file (not factoring, the BriAn profile, gives
  100 %/0 %). The 4 pairs who played those two tables are the 4 pairs whose totals differ;
- with Ruter's figures on that one board, all 8 published totals and percentages are ours,
  and the ranking is the published ranking. All of it under the `ruter` profile the file
  suggests, which scores a matchpoint event as DBf does.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from server.io.formats import load
from server.io.model import EventFile
from server.io.report import ScoreReport
from server.io.scorefile import score_event
from server.scoring import Method, to_decimal
from server.scoring.profiles import RUTER, get_profile, suggest_profile

RUTER_MP = "published/ruter_nbf_ostfold_follo_2022-05-08_km_par.pbn"
BOARDS, COMPARISONS = 63, 3  # 4 tables: 3 comparisons, top 6 on the 2-per-beat scale
ODD_BOARD = 37
#: Board 37's two real results: (N/S, E/W) -> (our %, Ruter's %) for N/S and for E/W.
ODD_LINES = {
    (4, 1): ((Fraction(250, 3), Fraction(50, 3)), (Decimal(65), Decimal(55))),
    (8, 6): ((Fraction(50, 3), Fraction(250, 3)), (Decimal(55), Decimal(65))),
}


@pytest.fixture(scope="module")
def event() -> EventFile:
    return load(Path(__file__).resolve().parents[2] / "data" / RUTER_MP)


@pytest.fixture(scope="module")
def report(event: EventFile) -> ScoreReport:
    """Scored under the profile the file suggests: Ruter's own."""
    suggested = suggest_profile(event.program)
    assert suggested is RUTER
    return score_event(event, profile=suggested)


def test_ruter_mp_scores_under_ruters_profile_as_under_dbf(
    event: EventFile, report: ScoreReport
) -> None:
    # Ruter's profile differs from DBf only in Butler (the datum rounded): a matchpoint
    # event is scored line for line and total for total as DBf scores it.
    dbf = score_event(event)
    assert [(r.key, r.total, r.percentage) for r in dbf.pairs] == [
        (r.key, r.total, r.percentage) for r in report.pairs
    ]
    ours = [(b.board, row.ns_value, row.ew_value) for b in report.boards for row in b.rows]
    assert [(b.board, row.ns_value, row.ew_value) for b in dbf.boards for row in b.rows] == ours


def _mp1(value: Fraction | None) -> Decimal:
    """Our 2-per-beat matchpoints on Ruter's plus-minus scale, to 0.1 as published."""
    assert value is not None
    return to_decimal(value - COMPARISONS, 1)


def test_ruter_mp_file_is_read_whole(event: EventFile) -> None:
    assert event.refused == []
    assert event.method is Method.MATCHPOINTS
    assert "Ruter i Norge" in event.program
    assert len(event.lines) == BOARDS * 4
    assert len(event.pairs) == 8
    artificial = [(ln.board, ln.ns.number) for ln in event.lines if ln.contract is None]
    assert sorted(artificial) == [(ODD_BOARD, 2), (ODD_BOARD, 5)]


def test_ruter_mp_every_score_is_the_law_77_score(report: ScoreReport) -> None:
    published = {(ln.board, ln.ns, ln.ew): ln.published_ns_score for ln in report.event.lines}
    compared = 0
    passed_out = 0
    for board in report.boards:
        for row in board.rows:
            if row.contract is None:
                continue
            want = published[(board.board, row.ns, row.ew)]
            if row.contract == "PASS":
                # Ruter writes "0" for a pass-out; the reader keeps it as for any contract
                assert want == 0
                assert row.ns_score == 0
                passed_out += 1
                continue
            assert row.ns_score == want, (board.board, str(row.ns))
            compared += 1
    assert (compared, passed_out) == (BOARDS * 4 - 2 - passed_out, passed_out)
    assert passed_out > 0


def test_ruter_mp_every_line_matches_but_the_two_real_results_of_board_37(
    report: ScoreReport,
) -> None:
    published = {(ln.board, ln.ns, ln.ew): ln.published_values for ln in report.event.lines}
    matched = 0
    odd: dict[tuple[int, int], tuple[Fraction, Fraction]] = {}
    for board in report.boards:
        for row in board.rows:
            assert row.ns is not None
            assert row.ew is not None
            want = published[(board.board, row.ns, row.ew)]
            assert want is not None
            got = (_mp1(row.ns_value), _mp1(row.ew_value))
            if got == want:
                matched += 1
                continue
            assert board.board == ODD_BOARD, (board.board, str(row.ns), got, want)
            assert row.ns_percent is not None
            assert row.ew_percent is not None
            odd[(row.ns.number, row.ew.number)] = (row.ns_percent, row.ew_percent)
            # Ruter's plus-minus figures are its percentages on the 3-comparison scale
            assert want == tuple(
                to_decimal(Fraction(p) * 2 * COMPARISONS / 100 - COMPARISONS, 1)
                for p in ODD_LINES[(row.ns.number, row.ew.number)][1]
            )
    assert matched == BOARDS * 4 - 2
    assert odd == {key: ours for key, (ours, _) in ODD_LINES.items()}


def test_ruter_mp_not_factoring_does_not_give_ruters_board_37_either(event: EventFile) -> None:
    brian = score_event(event, profile=get_profile("brian"))
    board = next(b for b in brian.boards if b.board == ODD_BOARD)
    percents = {
        (row.ns.number, row.ew.number): (row.ns_percent, row.ew_percent)
        for row in board.rows
        if row.contract is not None and row.ns is not None and row.ew is not None
    }
    assert percents == {(4, 1): (100, 0), (8, 6): (0, 100)}


def test_ruter_mp_totals_and_percentages_with_ruters_board_37(report: ScoreReport) -> None:
    ruter_odd: dict[int, Fraction] = {}
    ours_odd: dict[int, Fraction] = {}
    for (ns, ew), ((ours_ns, ours_ew), (pub_ns, pub_ew)) in ODD_LINES.items():
        for pair, ours, pub in ((ns, ours_ns, pub_ns), (ew, ours_ew, pub_ew)):
            ours_odd[pair] = ours * 2 * COMPARISONS / 100
            ruter_odd[pair] = Fraction(pub) * 2 * COMPARISONS / 100
    published = {p.key: p for p in report.event.pairs}
    top = BOARDS * 2 * COMPARISONS
    differ = []
    for result in report.pairs:
        pair = published[result.key]
        number = result.key.number
        total = result.total - ours_odd.get(number, 0) + ruter_odd.get(number, 0)
        assert to_decimal(total - BOARDS * COMPARISONS, 1) == pair.published_total, number
        assert to_decimal(100 * total / top, 2) == pair.published_percentage, number
        assert result.percentage is not None
        if to_decimal(result.percentage, 2) != pair.published_percentage:
            differ.append(number)
    assert sorted(differ) == sorted(ours_odd) == [1, 4, 6, 8]
    assert [p.key.number for p in report.pairs] == [8, 3, 1, 5, 6, 4, 7, 2]
    assert [published[p.key].published_place for p in report.pairs] == [str(n) for n in range(1, 9)]
