"""USEBIO 1.2: EBU-style and NZ-style pair numbering, export/import, safe XML, clear errors."""

from __future__ import annotations

import contextlib
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.io import EventFileError
from server.io.formats import load
from server.io.model import PairKey
from server.io.scorefile import score_event
from server.io.usebio import read_usebio, write_usebio
from server.scoring import Method
from tests.support.io import content


def test_reads_ebu_style_mitchell(data_dir: Path) -> None:
    event = load(data_dir / "io" / "mitchell_3_tables.xml")
    assert event.name == "Three-table Mitchell"
    assert event.date == "02/01/2024"
    assert event.method is Method.MATCHPOINTS
    assert event.winners == 2
    keys = [str(p.key) for p in event.pairs]
    assert keys == ["1 EW", "2 EW", "3 EW", "1 NS", "2 NS", "3 NS"]
    ann = event.pair(PairKey(None, 1, "NS"))
    assert ann is not None
    assert ann.names == ("Ann North", "Bob South")
    assert ann.ids == ("101", "102")
    assert ann.published_total == Decimal(99)
    artificial = [ln for ln in event.lines if ln.artificial]
    assert [(ln.board, ln.artificial) for ln in artificial] == [(2, (Fraction(60), Fraction(40)))]
    spelled = {(ln.board, str(ln.ns)): (ln.contract, ln.tricks) for ln in event.lines}
    assert spelled[(1, "3 NS")] == ("4S", 11)  # "4 S" and "+1"
    assert spelled[(1, "2 NS")] == ("4SX", 9)  # "4Sx" and "-1"
    assert spelled[(2, "3 NS")] == ("PASS", 0)


def test_mitchell_percentages_hand_worked(data_dir: Path) -> None:
    # NS 1: 420 (2 of 4) + A60 (2.4) + 110 (4) = 8.4 of 12 = 70 %; EW 3: 4 + A40 (1.6) + 4 = 80 %.
    # Board 2 has two real results Neubergised to three: 600 -> 3.5, pass -> 0.5.
    report = score_event(load(data_dir / "io" / "mitchell_3_tables.xml"))
    got = {str(p.key): (p.total, p.percentage, p.place) for p in report.pairs}
    assert got["1 NS"] == (Fraction(42, 5), Fraction(70), "1")
    assert got["2 NS"] == (Fraction(11, 2), Fraction(275, 6), "2")
    assert got["3 NS"] == (Fraction(9, 2), Fraction(75, 2), "3")
    assert got["3 EW"] == (Fraction(48, 5), Fraction(80), "1")
    assert got["1 EW"] == (Fraction(15, 2), Fraction(125, 2), "2")
    assert got["2 EW"] == (Fraction(1, 2), Fraction(25, 6), "3")
    published = {str(p.key): p.published_percentage for p in report.event.pairs}
    for key, (_, percentage, _) in got.items():
        assert round(percentage, 2) == published[key]


def test_nz_style_numbers_with_directions_and_sections() -> None:
    xml = b"""<USEBIO Version="1.2"><EVENT EVENT_TYPE="PAIRS"><SECTION SECTION_ID="A">
    <PARTICIPANTS><PAIR><PAIR_NUMBER>(A) 1 NS</PAIR_NUMBER></PAIR>
    <PAIR><PAIR_NUMBER>(A) 1 EW</PAIR_NUMBER></PAIR></PARTICIPANTS>
    <BOARD><BOARD_NUMBER>1</BOARD_NUMBER><TRAVELLER_LINE><NS_PAIR_NUMBER>(A) 1 NS</NS_PAIR_NUMBER>
    <EW_PAIR_NUMBER>(A) 1 EW</EW_PAIR_NUMBER><CONTRACT>3 NT</CONTRACT><PLAYED_BY>S</PLAYED_BY>
    <TRICKS>+2</TRICKS><SCORE>460</SCORE></TRAVELLER_LINE></BOARD></SECTION></EVENT></USEBIO>"""
    event = read_usebio(xml)
    assert [str(p.key) for p in event.pairs] == ["(A) 1 EW", "(A) 1 NS"]
    line = event.lines[0]
    assert (str(line.ns), str(line.ew), line.contract, line.tricks) == (
        "(A) 1 NS",
        "(A) 1 EW",
        "3NT",
        11,
    )
    assert line.section == "A"
    assert line.published_ns_score == 460


def test_round_trip(data_dir: Path) -> None:
    original = load(data_dir / "io" / "mitchell_3_tables.xml")
    report = score_event(original)
    data = write_usebio(original, report)
    assert data.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE USEBIO')
    again = read_usebio(data)
    assert content(again, rounds=False) == content(original, rounds=False)
    assert again.method is Method.MATCHPOINTS
    assert {p.key: p.published_percentage for p in again.pairs} == {
        p.key: Decimal(f"{float(p.percentage):.2f}") for p in report.pairs if p.percentage
    }
    assert [(p.key, p.percentage) for p in score_event(again).pairs] == [
        (p.key, p.percentage) for p in report.pairs
    ]


def test_round_trip_of_a_howell_from_pbn(data_dir: Path) -> None:
    original = load(data_dir / "io" / "howell_2_tables.pbn")
    again = read_usebio(write_usebio(original, score_event(original, Method.BUTLER)))
    assert again.method is Method.BUTLER
    assert content(again, rounds=False) == content(original, rounds=False)


@pytest.mark.parametrize(
    ("xml", "needle"),
    [
        (b"<USEBIO><EVENT>", "not well-formed XML"),
        (b"", "not well-formed XML"),
        (b"<OTHER/>", "not <USEBIO>"),
        (b"<USEBIO/>", "no <EVENT>"),
        (
            b"<USEBIO><EVENT><BOARD><BOARD_NUMBER>x</BOARD_NUMBER><TRAVELLER_LINE/></BOARD>"
            b"</EVENT></USEBIO>",
            "'x' is not a board number",
        ),
        (
            b"<USEBIO><EVENT><BOARD><BOARD_NUMBER>4</BOARD_NUMBER><TRAVELLER_LINE>"
            b"<NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER>"
            b"<CONTRACT>4S</CONTRACT><PLAYED_BY>N</PLAYED_BY></TRAVELLER_LINE></BOARD>"
            b"</EVENT></USEBIO>",
            "BOARD 4 / TRAVELLER_LINE 1: 4S has no tricks",
        ),
    ],
)
def test_malformed_usebio_raises_event_file_error(xml: bytes, needle: str) -> None:
    with pytest.raises(EventFileError, match=needle):
        read_usebio(xml)


def test_entity_expansion_is_refused() -> None:
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE USEBIO [<!ENTITY a "aaaaaaaaaa">'
        b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><USEBIO>&b;</USEBIO>'
    )
    with pytest.raises(EventFileError, match="entity"):
        read_usebio(bomb)


def test_external_entities_are_refused() -> None:
    xxe = (
        b'<?xml version="1.0"?><!DOCTYPE USEBIO [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        b"<USEBIO>&x;</USEBIO>"
    )
    with pytest.raises(EventFileError):
        read_usebio(xxe)


_TAGS = st.sampled_from(
    [
        "<USEBIO>",
        "</USEBIO>",
        '<EVENT EVENT_TYPE="MP_PAIRS">',
        "</EVENT>",
        "<PARTICIPANTS>",
        "</PARTICIPANTS>",
        "<PAIR><PAIR_NUMBER>3 NS</PAIR_NUMBER></PAIR>",
        "<PAIR><PAIR_NUMBER>x</PAIR_NUMBER></PAIR>",
        "<PAIR><DIRECTION>Q</DIRECTION></PAIR>",
        "<WINNER_TYPE>2</WINNER_TYPE>",
        "<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>",
        "<BOARD><BOARD_NUMBER>0</BOARD_NUMBER>",
        "</BOARD>",
        "<TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER>",
        "<CONTRACT>4S</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>10</TRICKS>",
        "<CONTRACT>9S</CONTRACT>",
        "<SCORE>A6040</SCORE>",
        "<SCORE>A999</SCORE>",
        "<TRICKS>+1</TRICKS>",
        "</TRAVELLER_LINE>",
        '<SECTION SECTION_ID="B">',
        "</SECTION>",
        "&amp;",
        "<",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_TAGS, max_size=30))
def test_usebio_parser_raises_only_event_file_errors(parts: list[str]) -> None:
    with contextlib.suppress(EventFileError):
        read_usebio("".join(parts).encode())


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_usebio_parser_on_arbitrary_bytes(data: bytes) -> None:
    with contextlib.suppress(EventFileError):
        read_usebio(data)
