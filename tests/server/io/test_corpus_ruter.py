"""A Norwegian club's Butler pairs scored by Ruter, checked against what Ruter published.

The file is the PBN that "Ruter i Norge" 4.4 (www.brenning.se) wrote for the club night of
Rekrutteringsklubben Ruter 7 on 2012-01-24: 16 pairs, 21 boards each played 8 times, IMPs
against a Butler datum ("IMP;Butler-2;Mean"); source, licence and what was cut:
tests/data/published/README.md. Traveller reads it with its PBN reader (server/io/pbn.py),
which keeps the published figures beside the lines; nothing published is used to score.

What the tests found:
- every line's score is the Law 77 score of its contract, declarer and tricks;
- Ruter's `ButlerDatum` is the mean of the board's 8 scores less the highest and the lowest
  ("Butler-2": one off each end, § 204A), *rounded to 10* (-85 -> -90, halves away from zero);
- so Ruter IMPs each score against that rounded datum, not the rounded difference of
  § 204B2. Under the profiles with that convention (`ruter`, the one the file suggests,
  and ABF/Compscore: `butler_round_datum`)
  all 168 lines' IMPs and all 16 totals are the published ones, and the ranking is the
  published ranking; under DBf 5 lines differ by one IMP, and with them 8 totals.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from server.io.formats import load
from server.io.model import EventFile
from server.io.report import ScoreReport
from server.io.scorefile import score_event
from server.scoring import Method, to_decimal
from server.scoring.butler import butler_datum
from server.scoring.exact import round_to_multiple
from server.scoring.profiles import RUTER as RUTER_PROFILE
from server.scoring.profiles import get_profile, suggest_profile

RUTER = "published/ruter_rekrutteringsklubben_ruter7_2012-01-24_butler.pbn"

#: The lines where the DBf rounding (of the difference, § 204B2) gives another IMP than
#: Ruter's (of the datum): (board, N/S, E/W) -> (ours under DBf, published), N/S IMPs.
#: E.g. board 6: the exact datum is -495 (Ruter: -500); -620 - (-495) = -125 rounds to -130,
#: 4 IMPs, where -620 - (-500) = -120 is 3 IMPs.
DBF_LINE_DIFFERENCES = {
    (6, 5, 10): (-4, -3),
    (6, 14, 9): (-4, -3),
    (11, 1, 8): (1, 0),
    (11, 2, 14): (1, 0),
    (15, 14, 6): (-3, -2),
}
#: The totals that move with them: pair -> (ours under DBf, published).
DBF_TOTAL_DIFFERENCES = {
    1: (0, -1),
    2: (8, 7),
    5: (-48, -47),
    6: (30, 29),
    8: (-48, -47),
    9: (-18, -19),
    10: (30, 29),
    14: (-15, -12),
}


@pytest.fixture(scope="module")
def path() -> Path:
    return Path(__file__).resolve().parents[2] / "data" / RUTER


@pytest.fixture(scope="module")
def event(path: Path) -> EventFile:
    return load(path)


@pytest.fixture(scope="module")
def ruter(event: EventFile) -> ScoreReport:
    """Scored under the profile the file suggests: Ruter's own."""
    suggested = suggest_profile(event.program)
    assert suggested is RUTER_PROFILE
    return score_event(event, profile=suggested)


@pytest.fixture(scope="module")
def dbf(event: EventFile) -> ScoreReport:
    return score_event(event)


def _published_datums(path: Path) -> dict[int, int]:
    """Board -> the ButlerDatum column of its [ScoreTable] (one value on every row)."""
    text = path.read_text(encoding="utf-8")
    datums: dict[int, int] = {}
    for block in re.split(r"\n\s*\n", text):
        board = re.search(r'^\[Board "(\d+)"\]', block, re.M)
        table = re.search(r"^\[ScoreTable [^\n]*\n(.*)", block, re.M | re.S)
        if board is None or table is None:
            continue
        values = {int(row.split()[-1]) for row in table.group(1).strip().splitlines()}
        assert len(values) == 1, board.group(1)
        datums[int(board.group(1))] = values.pop()
    return datums


def test_ruter_file_is_read_whole(event: EventFile) -> None:
    assert event.refused == []
    assert event.method is Method.BUTLER
    assert "Ruter i Norge" in event.program
    assert len(event.lines) == 21 * 8
    assert len(event.pairs) == 16
    assert all(p.published_total is not None for p in event.pairs)


def test_ruter_every_score_is_the_law_77_score(ruter: ScoreReport) -> None:
    published = {(ln.board, ln.ns, ln.ew): ln.published_ns_score for ln in ruter.event.lines}
    compared = [
        (published[(board.board, row.ns, row.ew)], row.ns_score)
        for board in ruter.boards
        for row in board.rows
    ]
    assert len(compared) == 168
    assert all(want == got for want, got in compared)


def test_ruter_datum_is_the_mean_less_one_top_and_one_bottom_rounded_to_10(
    ruter: ScoreReport, path: Path
) -> None:
    datums = _published_datums(path)
    assert sorted(datums) == list(range(1, 22))
    exact_halves = 0
    for board in ruter.boards:
        scores = [row.ns_score for row in board.rows]
        assert all(s is not None for s in scores)
        table: dict[int, int] = {}
        for s in scores:
            assert s is not None
            table[s] = table.get(s, 0) + 1
        datum = butler_datum(table, drop=1)
        assert round_to_multiple(datum, 10) == datums[board.board], board.board
        if datum.denominator == 1 and datum % 10 == 5:
            exact_halves += 1
    # board 1: 50, -80, -80, -110, -140, -150 (120 and the other -150 dropped) = -85 -> -90
    assert exact_halves >= 1


def test_ruter_every_line_imps_match_under_the_rounded_datum_profile(ruter: ScoreReport) -> None:
    published = {(ln.board, ln.ns, ln.ew): ln.published_values for ln in ruter.event.lines}
    compared = 0
    for board in ruter.boards:
        for row in board.rows:
            want = published[(board.board, row.ns, row.ew)]
            assert want is not None
            assert (to_decimal(row.ns_value, 0), to_decimal(row.ew_value, 0)) == want, (
                board.board,
                str(row.ns),
            )
            compared += 1
    assert compared == 168


def test_ruter_every_total_and_the_ranking_match_under_the_rounded_datum_profile(
    ruter: ScoreReport,
) -> None:
    published = {p.key: p for p in ruter.event.pairs}
    assert len(ruter.pairs) == 16
    for result in ruter.pairs:
        pair = published[result.key]
        assert Decimal(result.total.numerator) / result.total.denominator == pair.published_total
        # Ruter writes a shared place as "4-5" (Rank and RankTie), Traveller as "4="
        assert pair.published_place is not None
        assert result.place.rstrip("=") == pair.published_place.split("-")[0], result.key
        assert result.place.endswith("=") == ("-" in pair.published_place)
    order = [p.key.number for p in ruter.pairs]
    assert order == [3, 16, 7, 6, 10, 13, 4, 2, 11, 1, 14, 9, 15, 5, 8, 12]


def test_ruter_profile_rounds_the_datum_as_abf_does(event: EventFile, ruter: ScoreReport) -> None:
    # Ruter's one Butler convention is Compscore's (datum rounded to 10): the ABF profile
    # scores this file line for line as Ruter's does.
    assert RUTER_PROFILE.differences() == {"butler_round_datum": True}
    abf = score_event(event, profile=get_profile("abf"))
    assert [(r.key, r.total) for r in abf.pairs] == [(r.key, r.total) for r in ruter.pairs]
    ours = [(b.board, row.ns_value) for b in ruter.boards for row in b.rows]
    assert [(b.board, row.ns_value) for b in abf.boards for row in b.rows] == ours


def test_ruter_under_dbf_differs_exactly_where_the_rounding_convention_matters(
    dbf: ScoreReport,
) -> None:
    published = {(ln.board, ln.ns, ln.ew): ln.published_values for ln in dbf.event.lines}
    differ: dict[tuple[int, int, int], tuple[int, int]] = {}
    for board in dbf.boards:
        for row in board.rows:
            want = published[(board.board, row.ns, row.ew)]
            assert want is not None
            assert row.ns_value is not None
            assert row.ns is not None
            assert row.ew is not None
            if to_decimal(row.ns_value, 0) != want[0]:
                differ[(board.board, row.ns.number, row.ew.number)] = (
                    int(row.ns_value),
                    int(want[0]),
                )
    assert differ == DBF_LINE_DIFFERENCES
    totals = {p.key.number: p.published_total for p in dbf.event.pairs}
    moved = {
        r.key.number: (int(r.total), int(totals[r.key.number] or 0))
        for r in dbf.pairs
        if r.total != Fraction(totals[r.key.number] or 0)
    }
    assert moved == DBF_TOTAL_DIFFERENCES
