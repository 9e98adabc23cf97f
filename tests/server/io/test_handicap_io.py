"""Handicap pairs in USEBIO: PAIR / HANDICAP read into PairEntry.handicap and written back."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from server.io.handicap_io import handicap_text, parse_handicap
from server.io.model import PairKey
from server.io.scorefile import score_event
from server.io.usebio import read_usebio, write_usebio

MITCHELL = "io/mitchell_3_tables.xml"


def _with_handicaps(data_dir: Path, values: dict[tuple[str, str], str]) -> bytes:
    """The Mitchell fixture with a HANDICAP element added to the pairs named (number, direction)."""
    text = (data_dir / MITCHELL).read_text(encoding="iso-8859-1")
    for (number, direction), value in values.items():
        anchor = f"<PAIR><PAIR_NUMBER>{number}</PAIR_NUMBER><DIRECTION>{direction}</DIRECTION>"
        assert anchor in text
        text = text.replace(anchor, anchor + f"<HANDICAP>{value}</HANDICAP>", 1)
    return text.encode("iso-8859-1")


def test_handicap_reaches_the_pair_entry(data_dir: Path) -> None:
    event = read_usebio(_with_handicaps(data_dir, {("1", "NS"): "3", ("2", "EW"): "-1.5"}))
    handicaps = {str(p.key): p.handicap for p in event.pairs}
    assert handicaps["1 NS"] == Decimal(3)
    assert handicaps["2 EW"] == Decimal("-1.5")
    assert handicaps["1 EW"] is None  # the same number in the other direction keeps none
    assert event.refused == []


def test_scratch_event_has_no_handicaps(data_dir: Path) -> None:
    event = read_usebio((data_dir / MITCHELL).read_bytes())
    assert all(p.handicap is None for p in event.pairs)
    assert b"HANDICAP" not in write_usebio(event)


def test_handicap_round_trip(data_dir: Path) -> None:
    original = read_usebio(_with_handicaps(data_dir, {("3", "NS"): "2.5", ("1", "EW"): "-4"}))
    for report in (None, score_event(original)):
        again = read_usebio(write_usebio(original, report))
        assert {p.key: p.handicap for p in again.pairs} == {
            p.key: p.handicap for p in original.pairs
        }
    assert again.pair(PairKey(None, 3, "NS")).handicap == Decimal("2.5")  # type: ignore[union-attr]


def test_bad_handicap_is_refused_with_the_pair_named(data_dir: Path) -> None:
    event = read_usebio(_with_handicaps(data_dir, {("2", "NS"): "lots", ("3", "EW"): "1"}))
    assert [str(r) for r in event.refused] == [
        "PAIR 2 / HANDICAP: 'lots' is not a handicap (expected a number)"
    ]
    handicaps = {str(p.key): p.handicap for p in event.pairs}
    assert handicaps["2 NS"] is None
    assert handicaps["3 EW"] == Decimal(1)
    assert event.lines  # the rest of the event is read


@pytest.mark.parametrize(
    ("text", "value"), [("3", "3"), ("-2.5", "-2.5"), ("+1,5", "1.5"), (" 0 ", "0")]
)
def test_parse_handicap(text: str, value: str) -> None:
    assert parse_handicap(text) == Decimal(value)


@pytest.mark.parametrize("text", ["", "x", "NaN", "Infinity", "101", "-250"])
def test_parse_handicap_refuses_what_is_not_a_handicap(text: str) -> None:
    with pytest.raises(ValueError, match="not a handicap"):
        parse_handicap(text)


@pytest.mark.parametrize(
    ("value", "text"), [("3", "3"), ("3.0", "3"), ("-1.50", "-1.50"), ("1E+1", "10")]
)
def test_handicap_text(value: str, text: str) -> None:
    assert handicap_text(Decimal(value)) == text
