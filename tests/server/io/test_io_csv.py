"""CSV travellers in and out, and the ranking CSV."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from server.io import EventFileError
from server.io.csv_io import (
    RANKING_COLUMNS,
    TRAVELLER_COLUMNS,
    read_text_cell,
    read_travellers_csv,
    text_cell,
    write_ranking_csv,
    write_travellers_csv,
)
from server.io.formats import load
from server.io.scorefile import score_event
from tests.support.io import content


def test_spellings_give_the_same_event_as_the_usebio_file(data_dir: Path) -> None:
    csv_event = load(data_dir / "io" / "travellers_spellings.csv")
    xml_event = load(data_dir / "io" / "mitchell_3_tables.xml")
    strip = {k: v for k, v in content(csv_event).items() if k == "lines"}
    expected = {k: v for k, v in content(xml_event).items() if k == "lines"}
    # The CSV has no leads except board 1 table 1, as the XML.
    assert strip == expected
    csv_report = score_event(csv_event)
    xml_report = score_event(xml_event)
    assert [(str(p.key), p.percentage) for p in csv_report.pairs] == [
        (str(p.key), p.percentage) for p in xml_report.pairs
    ]


def test_round_trip(data_dir: Path) -> None:
    original = load(data_dir / "io" / "mitchell_3_tables.xml")
    text = write_travellers_csv(original, score_event(original))
    assert text.splitlines()[0].split(",") == list(TRAVELLER_COLUMNS)
    again = read_travellers_csv(text)
    assert content(again)["lines"] == content(original)["lines"]


def test_sections_round_trip() -> None:
    text = (
        "section,board,ns,ew,contract,declarer,tricks\n"
        "A,1,1,2,3NT,N,9\nB,1,1,2,4S,S,10\nA,1,3,4,PASS,,\n"
    )
    event = read_travellers_csv(text)
    again = read_travellers_csv(write_travellers_csv(event))
    assert content(again) == content(event)
    assert {str(p.key) for p in event.pairs} == {
        "(A) 1",
        "(A) 2",
        "(A) 3",
        "(A) 4",
        "(B) 1",
        "(B) 2",
    }


def test_ranking_csv(data_dir: Path) -> None:
    report = score_event(load(data_dir / "io" / "mitchell_3_tables.xml"))
    rows = write_ranking_csv(report).splitlines()
    assert rows[0].split(",") == list(RANKING_COLUMNS)
    assert rows[1] == "1,,1,NS,Ann North & Bob South,8.40,70.00,"  # no penalty


def test_one_bad_row_is_refused_with_its_line_and_the_rest_read() -> None:
    text = "board,ns,ew,contract,declarer,tricks\n1,1,2,3NT,N,9\n2,1,2,8NT,N,9\n"
    event = read_travellers_csv(text)
    assert [(ln.board, ln.contract) for ln in event.lines] == [(1, "3NT")]
    [refusal] = event.refused
    assert (refusal.line, refusal.board) == (3, 2)
    assert "level" in refusal.reason


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ("", None, "empty"),
        ("ns,ew,contract\n1,2,3NT\n", 1, "no 'board' column"),
        ("board,ns,ew,contract,declarer,tricks\nx,1,2,3NT,N,9\n", 2, "not a board number"),
        ("board,ns,ew,contract,declarer,tricks\n1,1,2,3NT,N,\n", 2, "has no tricks"),
        ("board,ns,ew,contract,declarer,tricks\n1,1,2,3NT,Q,9\n", 2, "not a seat"),
    ],
)
def test_malformed_csv_names_the_line(text: str, line: int | None, needle: str) -> None:
    with pytest.raises(EventFileError, match=needle) as info:
        read_travellers_csv(text)
    assert info.value.line == line


def test_the_apostrophe_guard_is_documented_as_it_is_written() -> None:
    """server/io/README.md tells other programs' users what the guard is; its examples are
    the cells `text_cell` writes, and `read_text_cell` gives each name back."""
    readme = (Path(__file__).resolve().parents[3] / "server" / "io" / "README.md").read_text()
    guard = readme.split("### The apostrophe guard", 1)[1]
    examples = re.findall(r"^\| `(.+)` \| `(.+)` \|$", guard, flags=re.MULTILINE)
    assert len(examples) >= 6
    for name, cell in examples:
        assert text_cell(name) == cell
        assert read_text_cell(cell) == name
