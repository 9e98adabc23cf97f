"""The ACBL Live for Clubs reader (server/io/acbl_live.py) on bad input: each case is the real
Stoneridge Creek record (tests/data/published/) with one thing broken in memory, so the rest
of the file is real; a broken line is refused with its place, the rest is read."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from server.io.acbl_live import read_acbl_live
from server.io.errors import EventFileError
from server.io.formats import parse_bytes

REAL = Path(__file__).resolve().parents[2] / "data" / "published"
RECORD: dict[str, Any] = json.loads(
    (REAL / "acbl_stoneridge_creek_2026-04-15_pairs.json").read_text(encoding="utf-8")
)


def _bytes(record: dict[str, Any]) -> bytes:
    return json.dumps(record).encode()


def _first_line(record: dict[str, Any]) -> dict[str, Any]:
    line: dict[str, Any] = record["sessions"][0]["sections"][0]["boards"][0]["board_results"][0]
    return line


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("contract", "9 Z", "level"),
        ("tricks_taken", "14", "0 to 13"),
        ("tricks_taken", "lots", "is not a number of tricks"),
        # tricks_taken is a count (the record's "result" holds "+4"): "+1" is not one trick
        ("tricks_taken", "+1", "'+1' is not a number of tricks (expected 0 to 13)"),
        ("declarer", "Q", "'Q' is not a seat"),
        ("declarer", "", "1S has no declarer"),
    ],
)
def test_a_broken_line_is_refused_with_its_place_and_the_rest_is_read(
    field: str, value: str, says: str
) -> None:
    broken = copy.deepcopy(RECORD)
    _first_line(broken)[field] = value
    event = read_acbl_live(_bytes(broken))
    assert len(event.lines) == 89
    (refusal,) = event.refused
    assert refusal.element is not None
    assert refusal.element.endswith("/ line 1")
    assert says in refusal.reason


def test_a_line_without_its_pair_is_named() -> None:
    broken = copy.deepcopy(RECORD)
    del _first_line(broken)["ns_pair"]
    event = read_acbl_live(_bytes(broken))
    assert [r.reason for r in event.refused] == ["no 'ns_pair' on the line"]


def test_the_page_that_embeds_the_record_is_read_too() -> None:
    page = b"<!doctype html><html><script>\nvar data = " + _bytes(RECORD) + b";\n</script></html>"
    event = parse_bytes(page, ".html")
    assert len(event.lines) == 90
    assert event.source == "acbl-live"


def test_broken_json_and_other_scoring_are_refused_whole() -> None:
    with pytest.raises(EventFileError, match="not valid JSON"):
        read_acbl_live(_bytes(RECORD)[:5000])
    imps = dict(RECORD, board_scoring_method="IMPS")
    with pytest.raises(EventFileError, match="only MATCH_POINTS"):
        read_acbl_live(_bytes(imps))
    empty = copy.deepcopy(RECORD)
    for board in empty["sessions"][0]["sections"][0]["boards"]:
        board["board_results"] = []
    with pytest.raises(EventFileError, match="no traveller line"):
        read_acbl_live(_bytes(empty))
