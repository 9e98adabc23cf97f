"""The bridge-scorer reference vectors (tests/data/README.md): matchpoints, IMPs, Butler.

Convention differences with that program, all explained where they matter:
- its cross-IMPs are the IMP total divided by the number of comparisons (our CROSS_IMPS; the
  regulations' IMPS_ACROSS is the plain total, § 203);
- its Butler datum is the plain mean when there are 3 results or fewer (we pass drop=0; § 204
  always drops the top and bottom) and is itself rounded to 10 (we pass round_datum; § 204B2
  rounds the difference instead - both give the same IMPs on its example).
"""

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from protocol.bridge import imps
from server.scoring import (
    BoardResult,
    Direction,
    Method,
    ScoringOptions,
    butler_datum,
    rank,
    score_board,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "bridge-scorer-vectors"
VECTORS: dict[str, Any] = json.loads((DATA / "bridge_scorer_test_vectors.json").read_text("utf-8"))

F = Fraction  # short for the many exact values below


def board_of(case: dict[str, Any]) -> list[BoardResult]:
    return [
        BoardResult.played(1, f"N{i}", f"E{i}", r["ns_score"])
        for i, r in enumerate(case["results"])
    ]


def scored(case: dict[str, Any], method: Method, **options: Any):
    return score_board((None, 1), board_of(case), ScoringOptions(method=method, **options))


@pytest.mark.parametrize("case", VECTORS["matchpoints_2per"], ids=lambda c: c["name"])
def test_matchpoints_two_per_beat(case):
    board = scored(case, Method.MATCHPOINTS)
    n = len(case["results"])
    assert [board.value(i, Direction.NS) for i in range(n)] == case["expected_ns_mp"]
    if "expected_ew_mp" in case:
        assert [board.value(i, Direction.EW) for i in range(n)] == case["expected_ew_mp"]


@pytest.mark.parametrize("case", VECTORS["matchpoints_acbl"], ids=lambda c: c["name"])
def test_matchpoints_acbl_with_ranks_and_percentages(case):
    board = scored(case, Method.MATCHPOINTS_AMERICAN)
    n = len(case["results"])
    ns = [board.value(i, Direction.NS) for i in range(n)]
    assert ns == [F(str(v)) for v in case["expected_ns_mp"]]
    if "expected_ew_mp" in case:
        ew = [board.value(i, Direction.EW) for i in range(n)]
        assert ew == [F(str(v)) for v in case["expected_ew_mp"]]
        assert rank(ew) == case["expected_ew_rank"]
    if "expected_ns_rank" in case:
        assert rank(ns) == case["expected_ns_rank"]
    if "expected_ns_percentage" in case:
        percents = [board.percent(i, Direction.NS) for i in range(n)]
        assert percents == [F(str(v)) for v in case["expected_ns_percentage"]]


@pytest.mark.parametrize("edge", VECTORS["imp_table"], ids=lambda e: str(e["diff"]))
def test_imp_table_edges(edge):
    assert imps(edge["diff"]) == edge["imps"]


@pytest.mark.parametrize("case", VECTORS["cross_imps"], ids=lambda c: c["name"])
def test_cross_imps_are_the_average_per_comparison(case):
    board = scored(case, Method.CROSS_IMPS)
    n = len(case["results"])
    got = [board.value(i, Direction.NS) for i in range(n)]
    assert got == [F(str(v)) for v in case["expected_ns_imps"]]
    # The § 203 total is the same times the n-1 comparisons.
    total = scored(case, Method.IMPS_ACROSS)
    assert [total.value(i, Direction.NS) for i in range(n)] == [v * (n - 1) for v in got]


def test_butler_three_results_plain_mean_is_the_peer_convention_not_section_204():
    case = VECTORS["butler"][0]
    table = {}
    for r in case["results"]:
        table[r["ns_score"]] = table.get(r["ns_score"], 0) + 1
    assert butler_datum(table, drop=0) == case["expected_datum_ns"] == 340
    # § 204A1 drops the highest and lowest: only +200 is left.
    assert butler_datum(table, drop=1) == 200


def test_butler_six_results_drop_top_and_bottom_datum_and_imps():
    case = VECTORS["butler"][1]
    n = len(case["results"])
    peer = scored(case, Method.BUTLER, butler_round_datum=True)
    assert peer.datums[0][0] == F(-595, 2)  # the unrounded mean; the peer rounds it to -300
    assert [peer.value(i, Direction.NS) for i in range(n)] == case["expected_ns_imps"]
    rules = scored(case, Method.BUTLER)
    assert [rules.value(i, Direction.NS) for i in range(n)] == case["expected_ns_imps"]
    # The peer's datum, rounded to the nearest 10:
    assert round(peer.datums[0][0] / 10) * 10 == case["expected_datum_ns"]
