"""Real published events, scored from their travellers and checked against what was published.

Sources and licences: tests/data/published/README.md and tests/data/README.md.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

from server.io.formats import load
from server.io.report import ScoreReport
from server.io.scorefile import score_event
from server.io.teamfile import pair_rooms, score_team_event
from server.scoring import Method, to_decimal

FFB = "published/ffb_open2_dn1_finale_2022_seance1.pbn"
REALBRIDGE = "endplay-realbridge/example2_realbridge_2021_online_qual_open_R2.pbn"
TENTH = Decimal("0.1")


@pytest.fixture(scope="module")
def ffb() -> ScoreReport:
    return score_event(load(Path(__file__).resolve().parents[2] / "data" / FFB))


def test_ffb_every_board_matchpoint_matches_the_published_figure_to_0_1(ffb: ScoreReport) -> None:
    # 30 boards x 22 tables, 2-1-0 with a top of 42; four boards with an artificial score
    # (A+/A+ three times, A-/A+ once) whose other 21 results are scaled to 22 tables by Neuberg:
    # e.g. board 1, 4S= beats 7 and ties 13 others: 27 of 40, 22/21 x 28 - 1 = 28.33 -> "28.3".
    published = {(ln.board, str(ln.ns), str(ln.ew)): ln.published_values for ln in ffb.event.lines}
    compared = 0
    for board in ffb.boards:
        for row in board.rows:
            want = published[(board.board, str(row.ns), str(row.ew))]
            assert want is not None
            assert (to_decimal(row.ns_value, 1), to_decimal(row.ew_value, 1)) == want, (
                board.board,
                str(row.ns),
            )
            compared += 1
    assert compared == 660


def test_ffb_every_published_score_is_the_law_77_score(ffb: ScoreReport) -> None:
    published = {
        (ln.board, str(ln.ns), str(ln.ew)): ln.published_ns_score for ln in ffb.event.lines
    }
    scores = [
        (published[(b.board, str(row.ns), str(row.ew))], row.ns_score)
        for b in ffb.boards
        for row in b.rows
        if row.contract is not None
    ]
    assert len(scores) == 656  # 660 lines less the four artificial scores (boards 1, 2, 9, 14)
    assert all(want == got for want, got in scores)


def test_ffb_totals_are_the_sums_of_the_boards_rounded_to_a_tenth_as_published(
    ffb: ScoreReport,
) -> None:
    # Magic Contest rounds each board's matchpoints to 0.1 before adding them up, and the
    # percentage is that total over 30 x 42 = 1260. Summing our per-board values the same way
    # reproduces all 44 published totals and percentages exactly.
    totals: dict[str, Decimal] = defaultdict(Decimal)
    for board in ffb.boards:
        for row in board.rows:
            totals[str(row.ns)] += to_decimal(row.ns_value, 1)
            totals[str(row.ew)] += to_decimal(row.ew_value, 1)
    assert len(ffb.event.pairs) == 44
    for pair in ffb.event.pairs:
        total = totals[str(pair.key)]
        percent = (total * 100 / 1260).quantize(Decimal("0.01"), ROUND_HALF_UP)
        assert (total, percent) == (pair.published_total, pair.published_percentage), pair.key


def test_ffb_exact_percentages_differ_from_the_published_only_by_that_rounding(
    ffb: ScoreReport,
) -> None:
    # Scored exactly (§ X78C1: no rounding on boards), 32 of the 44 percentages agree with the
    # publication to 0.01; the other 12 differ by exactly 0.01 because of the per-board
    # rounding above - never by more.
    published = {p.key: p.published_percentage for p in ffb.event.pairs}
    differences = [
        abs(to_decimal(p.percentage, 2) - published[p.key])  # type: ignore[arg-type, operator]
        for p in ffb.pairs
    ]
    assert len(differences) == 44
    assert differences.count(Decimal(0)) == 32
    assert set(differences) == {Decimal(0), Decimal("0.01")}
    winner = ffb.pairs[0]
    assert (winner.key.number, winner.place) == (7, "1")


def test_ffb_is_scored_as_matchpoints_because_the_file_says_so(ffb: ScoreReport) -> None:
    assert ffb.method is Method.MATCHPOINTS
    assert ffb.event.scoring == "MatchPoints;MP1"


def test_realbridge_teams_every_published_imp_and_every_match(data_dir: Path) -> None:
    # 2021 Online Qualifier, Open, round 2 (RealBridge): 15 matches of 10 boards. Each table's
    # [ScoreIMP] is the N/S team's IMPs on the board; ours come from the two rooms' contracts.
    event = load(data_dir / REALBRIDGE)
    assert event.teams is not None
    compared = 0
    for _stage, _home, _away, plays in pair_rooms(event.teams.lines):
        for play in plays:
            if play.home_imps is None:
                continue
            assert play.open is not None
            assert play.closed is not None
            assert play.open.published_ns_imps == play.home_imps
            assert play.closed.published_ns_imps == -play.home_imps
            compared += 1
    assert compared == 149
    report = score_team_event(event)
    assert len(report.matches) == 15
    assert all(m.result.home_vp + m.result.away_vp == 20 for m in report.matches)
    assert sum(s.vp for s in report.standings) == 15 * 20
