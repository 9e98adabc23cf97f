"""Two ACBL club games scored by ACBLscore, checked against what ACBL Live for Clubs published.

The files are the results records my.acbl.org publishes for a club game (its JSON, as the page
embeds it); sources, licence and what was cut: tests/data/published/README.md. Traveller reads
them with server/io/acbl_live.py (`traveller score FILE`), which keeps the published figures
beside the lines; nothing published is used to score.

What the tests found (ACBLscore 833, "ACBLScore/ScoreParser 833/1.03"):
- every traveller line's score is the Law 77 score of its contract, and every line's
  matchpoints equal ours on ACBL's scale of 1 per board beaten (half our 2-per-beat figure);
- a pair that played every board gets the published total and percentage exactly;
- a pair that sat out a round (the N/S pairs of the 12.5-table Mitchell, 9 of 11 pairs of
  the Howell) is published with its total *factored up to the boards of the event*
  (raw x boards / boards played, to 0.01) and the percentage *of that rounded total* over
  the event's boards x top. The `acbl` profile does exactly that (its `sitout_factoring`,
  with matchpoints on the 1-per-beat scale): scored under it, every published line, total,
  percentage and place is `score_event`'s own. Under DBf our percentage (raw over the boards
  played, exact) differs from the published one by 0.01 for the pairs where the rounded
  total moves it.
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from protocol.bridge.par import par
from server.io import handrecords
from server.io.formats import load
from server.io.handrecords import law2_dealer, law2_vulnerable
from server.io.model import PairKey
from server.io.report import ScoreReport
from server.io.scorefile import score_event
from server.scoring import to_decimal
from server.scoring.profiles import get_profile

MITCHELL = "published/acbl_livermore_2026-04-20_monday_morning_pairs.json"
HOWELL = "published/acbl_stoneridge_creek_2026-04-15_pairs.json"


def _load(data_dir: Path, name: str) -> tuple[dict[str, Any], ScoreReport]:
    """The record as JSON (for the published figures) and as Traveller's reader reads it
    (server/io/acbl_live.py), scored."""
    record = json.loads((data_dir / name).read_text(encoding="utf-8"))
    return record, score_event(load(data_dir / name))


@pytest.fixture(scope="module")
def mitchell() -> tuple[dict[str, Any], ScoreReport]:
    return _load(Path(__file__).resolve().parents[2] / "data", MITCHELL)


@pytest.fixture(scope="module")
def howell() -> tuple[dict[str, Any], ScoreReport]:
    return _load(Path(__file__).resolve().parents[2] / "data", HOWELL)


def _acbl(value: Fraction | None) -> Decimal:
    """Our 2-per-beat matchpoints on ACBL's 1-per-beat scale, to 0.01 as published."""
    assert value is not None
    return to_decimal(value / 2, 2)


def _lines_compared(report: ScoreReport) -> int:
    published = {(ln.board, ln.ns, ln.ew): ln for ln in report.event.lines}
    compared = 0
    for board in report.boards:
        for row in board.rows:
            line = published[(board.board, row.ns, row.ew)]
            assert row.ns_score == line.published_ns_score, (board.board, str(row.ns))
            assert (_acbl(row.ns_value), _acbl(row.ew_value)) == line.published_values, (
                board.board,
                str(row.ns),
            )
            compared += 1
    return compared


def _under_acbl(report: ScoreReport) -> ScoreReport:
    """The same event scored under the acbl profile (1-per-beat scale, sit-out factoring)."""
    return score_event(report.event, profile=get_profile("acbl"))


def _figures(report: ScoreReport) -> dict[PairKey, tuple[Decimal, Decimal]]:
    """Each pair's total and percentage as published: to 0.01."""
    figures = {}
    for pair in report.pairs:
        assert pair.percentage is not None
        figures[pair.key] = (to_decimal(pair.total, 2), to_decimal(pair.percentage, 2))
    return figures


def _lines_match_as_published(report: ScoreReport) -> int:
    """Under the acbl profile every line's matchpoints are the published ones as they are."""
    published = {(ln.board, ln.ns, ln.ew): ln.published_values for ln in report.event.lines}
    compared = 0
    for board in report.boards:
        for row in board.rows:
            assert row.ns_value is not None
            assert row.ew_value is not None
            got = (to_decimal(row.ns_value, 2), to_decimal(row.ew_value, 2))
            assert got == published[(board.board, row.ns, row.ew)], (board.board, str(row.ns))
            compared += 1
    return compared


def test_acbl_mitchell_every_traveller_line_matches(
    mitchell: tuple[dict[str, Any], ScoreReport],
) -> None:
    # Livermore Bridge Club, 2026-04-20: 13 N/S and 12 E/W pairs, 26 boards in 13 rounds;
    # every board played 12 times (top 11), so no board is factored.
    record, report = mitchell
    assert record["uploads"][0]["program_version"] == "833/1.03"
    assert _lines_compared(report) == 312


def test_acbl_mitchell_totals_are_factored_to_26_boards(
    mitchell: tuple[dict[str, Any], ScoreReport],
) -> None:
    _, report = mitchell
    published = {p.key: (p.published_total, p.published_percentage) for p in report.event.pairs}
    acbl = _under_acbl(report)
    assert _lines_match_as_published(acbl) == 312
    figures = _figures(acbl)
    assert len(figures) == 25
    assert figures == published
    # The E/W pairs played all 26 boards: their totals are ours as they are. Each N/S pair
    # sat out one round (24 boards): e.g. N/S 10, 163.5 MP -> 163.5 x 26/24 = 177.125 ->
    # "177.13", and 177.13 / 286 = 61.93 %.
    played = {p.key: p.boards for p in report.pairs}
    assert {k.direction for k, n in played.items() if n == 24} == {"NS"}
    assert {k.direction for k, n in played.items() if n == 26} == {"EW"}
    ns10 = next(p for p in report.pairs if p.key == PairKey("A", 10, "NS"))
    assert ns10.total / 2 == Fraction(327, 2)
    ns10 = next(p for p in acbl.pairs if p.key == PairKey("A", 10, "NS"))
    assert (ns10.total, ns10.boards) == (Fraction(17713, 100), 24)
    assert ns10.percentage == Fraction(17713, 286)


def test_acbl_mitchell_exact_percentages_differ_only_by_the_rounded_total(
    mitchell: tuple[dict[str, Any], ScoreReport],
) -> None:
    # Ours is the exact percentage of the boards each pair played. ACBLscore's is taken from
    # the total after factoring and rounding to 0.01; for 3 of the 25 pairs that moves the
    # second decimal: N/S 1 161/264 = 60.985 % -> 60.98, published 174.42/286 = 60.99;
    # likewise N/S 2 (55.11 v 55.12), N/S 12 (48.11 v 48.10).
    _, report = mitchell
    published = {p.key: p.published_percentage for p in report.event.pairs}
    differences = {
        str(p.key): to_decimal(p.percentage, 2) - published[p.key]  # type: ignore[arg-type, operator]
        for p in report.pairs
    }
    assert {k: v for k, v in differences.items() if v} == {
        "(A) 1 NS": Decimal("-0.01"),
        "(A) 2 NS": Decimal("-0.01"),
        "(A) 12 NS": Decimal("0.01"),
    }


def test_acbl_howell_every_traveller_line_matches(
    howell: tuple[dict[str, Any], ScoreReport],
) -> None:
    # Stoneridge Creek Pleasant, 2026-04-15: an 11-pair Howell (one pair out each round),
    # 18 boards each played 5 times (top 4).
    _, report = howell
    assert _lines_compared(report) == 90


def test_acbl_howell_totals_are_factored_to_18_boards(
    howell: tuple[dict[str, Any], ScoreReport],
) -> None:
    _, report = howell
    published = {p.key: (p.published_total, p.published_percentage) for p in report.event.pairs}
    acbl = _under_acbl(report)
    assert _lines_match_as_published(acbl) == 90
    figures = _figures(acbl)
    assert len(figures) == 11
    assert figures == published
    pair12 = next(p for p in acbl.pairs if p.key.number == 12)
    assert (pair12.total, to_decimal(pair12.percentage or 0, 2)) == (
        Fraction(3263, 100),
        Decimal("45.32"),
    )
    # Pairs 7 and 9 played all 18 boards; the other nine played 16 and are factored by
    # 18/16, e.g. pair 12: 29 MP -> 32.625 -> "32.63" (halves up), 32.63/72 = 45.32 %.
    assert sorted(p.key.number for p in report.pairs if p.boards == 18) == [7, 9]


def test_acbl_howell_exact_percentages_differ_only_by_the_rounded_total(
    howell: tuple[dict[str, Any], ScoreReport],
) -> None:
    # Pairs 5 and 6: 38.5/64 = 60.156 % -> 60.16, published 43.31/72 = 60.15; pair 12:
    # 45.31 v 45.32; pair 3: 26.5/64 = 41.406 % -> 41.41 v 29.81/72 = 41.40.
    _, report = howell
    published = {p.key: p.published_percentage for p in report.event.pairs}
    differences = {
        p.key.number: to_decimal(p.percentage, 2) - published[p.key]  # type: ignore[arg-type, operator]
        for p in report.pairs
    }
    assert {k: v for k, v in differences.items() if v} == {
        5: Decimal("0.01"),
        6: Decimal("0.01"),
        12: Decimal("-0.01"),
        3: Decimal("0.01"),
    }


def _published_places(record: dict[str, Any]) -> dict[tuple[int, str | None], str]:
    """The section places ACBL Live prints (strat A only: the places that win awards)."""
    (section,) = record["sessions"][0]["sections"]
    return {
        (int(pair["pair_number"]), pair["direction"]): place["rank"]
        for pair in section["pair_summaries"]
        for place in pair["strat_place"]
        if place["strat_number"] == 1 and place["type"] == "Section"
    }


@pytest.mark.parametrize("which", ["mitchell", "howell"])
def test_acbl_published_places_are_ours(which: str, request: pytest.FixtureRequest) -> None:
    # The ranking order is ACBLscore's in both games (ours ranks on the exact percentage,
    # theirs on the factored total: the same order here). ACBL writes a shared place as
    # "1/2" where we write "1=".
    record, report = request.getfixturevalue(which)
    published = _published_places(record)
    spelled = {k: v.replace("1/2", "1=") for k, v in published.items()}
    for scored in (report, _under_acbl(report)):
        ours = {(p.key.number, p.key.direction): p.place for p in scored.pairs}
        assert {k: ours[k] for k in spelled} == spelled
    assert len(spelled) == {"mitchell": 10, "howell": 4}[which]
    order = [int(p["pair_number"]) for p in record["sessions"][0]["sections"][0]["pair_summaries"]]
    ranked = [p.key.number for p in report.pairs]
    assert ranked == order


@pytest.mark.parametrize(("which", "lines", "boards"), [("mitchell", 312, 36), ("howell", 90, 24)])
def test_the_reader_reads_every_line_and_hand_record(
    which: str, lines: int, boards: int, request: pytest.FixtureRequest
) -> None:
    _, report = request.getfixturevalue(which)
    event = report.event
    assert event.refused == []
    assert len(event.lines) == lines
    assert event.program == "ACBLScore/ScoreParser 833/1.03"
    assert len(event.boards) == boards  # hand records, voids ("-----") included
    assert all(board.deal for board in event.boards.values())
    for number, board in event.boards.items():  # ACBL's dealer and vulnerability are Law 2's
        assert (board.dealer, board.vulnerable) == (law2_dealer(number), law2_vulnerable(number))


def _published_par(text: str) -> int:
    """ACBL's "Par: 110 2H-NS" / "Par: -420 4S-EW" as the N/S par score."""
    return int(text.split()[1])


@pytest.mark.slow
@pytest.mark.parametrize("which", ["mitchell", "howell"])
def test_our_par_is_the_par_acbl_published(which: str, request: pytest.FixtureRequest) -> None:
    """The double-dummy par of every hand record (endplay's solver, protocol.bridge.par) is
    the par ACBL Live prints with it."""
    pytest.importorskip("endplay")

    record, report = request.getfixturevalue(which)
    published = {
        int(h["board"]): h["par"] for h in record["sessions"][0]["hand_records"] if h.get("par")
    }
    assert published
    for number, text in sorted(published.items()):
        board = report.event.boards[number]
        assert board.deal is not None
        tricks = handrecords.dd_table(board.deal)
        vul = {"None": "NONE", "All": "BOTH"}.get(board.vulnerable or "", board.vulnerable)
        found = par(tricks, vul or "NONE", board.dealer or "N")
        assert found.ns_score == _published_par(text), (number, text, str(found))
