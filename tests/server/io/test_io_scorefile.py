"""The offline scorer: from travellers only, the stable JSON shape, and every method."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.io import EventFileError
from server.io.formats import load, parse_bytes
from server.io.model import EventFile, Line, PairEntry, PairKey
from server.io.scorefile import score_event, to_json, to_text
from server.scoring import Method


def test_json_shape_is_stable(data_dir: Path) -> None:
    data = to_json(score_event(load(data_dir / "io" / "mitchell_3_tables.xml")))
    assert {"event", "method", "pairs", "boards"} <= set(data)
    assert data["event"] == "Three-table Mitchell"
    assert data["method"] == "mp"
    first = data["pairs"][0]
    assert first == {
        "number": 1,
        "section": None,
        "direction": "NS",
        "names": ["Ann North", "Bob South"],
        "total": 8.4,
        "percentage": 70.0,
        "place": "1",
        "boards": 3,
    }
    board = data["boards"][0]
    assert board["board"] == 1
    assert board["results"][0]["ns"] == "3 NS"
    assert board["results"][0]["contract"] == "4S"
    assert board["results"][0]["result"] == "+1"
    assert board["results"][0]["ns_points"] == 4.0


def test_totals_in_the_file_are_never_used(data_dir: Path) -> None:
    event = load(data_dir / "io" / "mitchell_3_tables.xml")
    published = event.pair(PairKey(None, 1, "NS"))
    assert published is not None
    assert published.published_total == 99
    report = score_event(event)
    assert report.pairs[0].total != 99


def test_method_from_the_file_or_overridden(data_dir: Path) -> None:
    event = load(data_dir / "io" / "howell_2_tables.pbn")
    assert score_event(event).method is Method.MATCHPOINTS
    for method in Method:
        report = score_event(event, method)
        assert report.method is method
        assert len(report.pairs) == 4
        if method.is_matchpoints:
            assert all(p.percentage is not None for p in report.pairs)
        else:
            assert all(p.percentage is None for p in report.pairs)


def test_cross_imps_are_antisymmetric_across_a_two_table_board() -> None:
    event = EventFile(
        lines=[
            Line(1, PairKey(None, 1), PairKey(None, 2), "4S", "N", 10),
            Line(1, PairKey(None, 3), PairKey(None, 4), "2S", "N", 10),
        ]
    )
    event.pairs = []
    event.pairs = [PairEntry(PairKey(None, n)) for n in (1, 2, 3, 4)]
    report = score_event(event, Method.IMPS_ACROSS)
    totals = {p.key.number: p.total for p in report.pairs}
    # 420 against 170 is 250 points: 6 IMPs.
    assert totals == {1: 6, 2: -6, 3: -6, 4: 6}


def test_sit_outs_score_nothing() -> None:
    event = EventFile(
        pairs=[PairEntry(PairKey(None, n)) for n in (1, 2, 3, 4, 5)],
        lines=[
            Line(1, PairKey(None, 1), PairKey(None, 2), "3NT", "N", 9),
            Line(1, PairKey(None, 3), PairKey(None, 4), "3NT", "N", 10),
            Line(1, PairKey(None, 5), None),
        ],
    )
    report = score_event(event)
    five = next(p for p in report.pairs if p.key.number == 5)
    assert five.percentage is None
    assert five.boards == 0


def test_text_output_lists_ranking_and_travellers(data_dir: Path) -> None:
    text = to_text(score_event(load(data_dir / "io" / "mitchell_3_tables.xml")))
    assert "-- NS --" in text
    assert "Ann North & Bob South" in text
    assert "Board 2" in text
    assert "A60" in text


def test_unknown_content_is_refused() -> None:
    with pytest.raises(EventFileError, match="not a PBN, USEBIO or CSV"):
        parse_bytes(b"\x00\x01binary")


def test_missing_file_is_an_event_file_error(tmp_path: Path) -> None:
    with pytest.raises(EventFileError, match="cannot read"):
        load(tmp_path / "missing.pbn")
