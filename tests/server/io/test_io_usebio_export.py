"""USEBIO 1.2 export: hand records (<HANDSET>) and each line's matchpoints or IMPs, checked by
reading the file back with the importer and scoring it again."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from decimal import Decimal
from importlib import metadata
from pathlib import Path

import pytest

from server.io import EventFileError
from server.io.formats import load
from server.io.handrecords import hands
from server.io.model import EventFile
from server.io.report import ScoreReport, decimal
from server.io.scorefile import score_event
from server.io.usebio import read_usebio, write_usebio
from server.scoring import Method
from tests.support.io import content


def _line_values(report: ScoreReport) -> dict[tuple[int, str, str], tuple[Decimal, Decimal]]:
    out = {}
    for board in report.boards:
        for row in board.rows:
            ns, ew = decimal(row.ns_value), decimal(row.ew_value)
            if ns is not None and ew is not None:
                out[(board.board, str(row.ns), str(row.ew))] = (
                    Decimal(f"{ns:g}"),
                    Decimal(f"{ew:g}"),
                )
    return out


def _published(event_lines: list) -> dict[tuple[int, str, str], tuple[Decimal, Decimal]]:  # type: ignore[type-arg]
    return {
        (ln.board, str(ln.ns), str(ln.ew)): ln.published_values
        for ln in event_lines
        if ln.published_values is not None
    }


@pytest.mark.parametrize(
    ("method", "tag"),
    [
        (Method.IMPS_ACROSS, "CROSS_IMP_POINTS"),
        (Method.CROSS_IMPS, "CROSS_IMP_POINTS"),
        (Method.BUTLER, "BUTLER_POINTS"),
        (Method.MATCHPOINTS, "MATCH_POINTS"),
    ],
)
def test_each_line_carries_its_score_in_the_method_unit_and_round_trips(
    data_dir: Path, method: Method, tag: str
) -> None:
    original = load(data_dir / "io" / "mitchell_3_tables.xml")
    report = score_event(original, method)
    data = write_usebio(original, report)
    root = ET.fromstring(data.split(b"\n", 2)[2])
    lines = root.findall("./EVENT/BOARD/TRAVELLER_LINE")
    assert lines
    assert all(line.find("NS_" + tag) is not None for line in lines)
    assert all(line.find("EW_" + tag) is not None for line in lines)
    again = read_usebio(data)
    assert again.method is method
    # What the file publishes per line is what we computed (to 0.01), and scoring the
    # re-imported travellers gives the same exact totals.
    assert _published(again.lines) == _line_values(report)
    rescored = score_event(again)
    assert [(p.key, p.total, p.place) for p in rescored.pairs] == [
        (p.key, p.total, p.place) for p in report.pairs
    ]
    assert content(again, rounds=False) == content(original, rounds=False)


def test_imps_across_the_field_line_values_are_not_matchpoints(data_dir: Path) -> None:
    # The same event in IMPs and in matchpoints publishes different line values: the IMP
    # export is not a relabelled matchpoint column.
    original = load(data_dir / "io" / "mitchell_3_tables.xml")
    imps = _line_values(score_event(original, Method.IMPS_ACROSS))
    mps = _line_values(score_event(original, Method.MATCHPOINTS))
    assert imps.keys() == mps.keys()
    assert imps != mps
    assert any(ns < 0 for ns, _ in imps.values())


def test_hand_records_are_exported_in_a_handset_and_read_back(data_dir: Path) -> None:
    original = load(data_dir / "io" / "howell_2_tables.pbn")
    deals = {n: b.deal for n, b in original.boards.items() if b.deal}
    assert deals, "the fixture has hand records"
    data = write_usebio(original, score_event(original, Method.IMPS_ACROSS))
    root = ET.fromstring(data.split(b"\n", 2)[2])
    assert [child.tag for child in root] == ["CLUB", "EVENT", "HANDSET"]
    boards = root.findall("./HANDSET/BOARD")
    assert [int(b.findtext("BOARD_NUMBER") or 0) for b in boards] == sorted(deals)
    for board in boards:
        seats = [h.findtext("DIRECTION") for h in board.findall("HAND")]
        assert seats == ["North", "East", "South", "West"]
        for hand in board.findall("HAND"):
            cards = "".join(hand.findtext(s) or "" for s in ("SPADES", "HEARTS", "DIAMONDS"))
            cards += hand.findtext("CLUBS") or ""
            assert len(cards) == 13
    again = read_usebio(data)
    assert {n: b.deal for n, b in again.boards.items() if b.deal} == deals
    for number, record in again.boards.items():
        assert record.dealer == original.boards[number].dealer
        assert record.vulnerable == original.boards[number].vulnerable
    north_board_1 = hands(deals[1])["N"]
    first = boards[0].find("HAND")
    assert first is not None
    assert first.findtext("SPADES") == north_board_1[0]
    assert first.findtext("CLUBS") == north_board_1[3]


def test_no_handset_without_hand_records(data_dir: Path) -> None:
    original = load(data_dir / "io" / "mitchell_3_tables.xml")
    assert not any(b.deal for b in original.boards.values())
    assert b"HANDSET" not in write_usebio(original, score_event(original))


def test_a_void_is_an_empty_suit_element_and_reads_back() -> None:
    xml = (
        b"<USEBIO Version='1.2'><EVENT EVENT_TYPE='MP_PAIRS'/><HANDSET><BOARD>"
        b"<BOARD_NUMBER>3</BOARD_NUMBER>"
        b"<HAND><DIRECTION>North</DIRECTION><SPADES>AKQJT98765432</SPADES><HEARTS/>"
        b"<DIAMONDS></DIAMONDS><CLUBS/></HAND>"
        b"<HAND><DIRECTION>East</DIRECTION><HEARTS>AKQJT98765432</HEARTS></HAND>"
        b"<HAND><DIRECTION>South</DIRECTION><DIAMONDS>AKQJT98765432</DIAMONDS></HAND>"
        b"<HAND><DIRECTION>West</DIRECTION><CLUBS>AKQJT98765432</CLUBS></HAND>"
        b"</BOARD></HANDSET></USEBIO>"
    )
    record = read_usebio(xml).boards[3]
    assert record.deal == "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"
    assert (record.dealer, record.vulnerable) == ("S", "EW")  # Law 2, board 3


@pytest.mark.parametrize(
    ("hand", "needle"),
    [
        (b"<DIRECTION>Up</DIRECTION><SPADES>AK</SPADES>", "'Up' is not a seat"),
        (b"<DIRECTION>North</DIRECTION><SPADES>AKX</SPADES>", "North: 'X' is not a rank in spades"),
        (b"<DIRECTION>North</DIRECTION><SPADES>AK</SPADES>", "North has 2 cards; a hand has 13"),
    ],
)
def test_a_bad_hand_record_is_a_clear_error(hand: bytes, needle: str) -> None:
    xml = (
        b"<USEBIO><EVENT/><HANDSET><BOARD><BOARD_NUMBER>2</BOARD_NUMBER><HAND>"
        + hand
        + b"</HAND></BOARD></HANDSET></USEBIO>"
    )
    with pytest.raises(EventFileError, match=needle):
        read_usebio(xml)


def _event_children(data: bytes) -> list[str]:
    root = ET.fromstring(data)
    event = root.find("EVENT")
    assert event is not None
    return [child.tag for child in event]


def test_the_header_is_as_usebio_1_2_and_other_programs_write_it(data_dir: Path) -> None:
    event = load(data_dir / "io" / "mitchell_3_tables.xml")
    assert event.club_id == "1"
    event.date = "2026-12-03"  # how a live section's date comes (ISO)
    data = write_usebio(event, score_event(event))
    root = ET.fromstring(data.split(b"\n", 2)[2])
    assert root.findtext("EVENT/DATE") == "03/12/2026"
    assert root.findtext("EVENT/PROGRAM_NAME") == "Traveller"
    assert root.findtext("EVENT/PROGRAM_VERSION") == metadata.version("traveller")
    assert root.findtext("EVENT/BOARDS_PLAYED") == str(len({ln.board for ln in event.lines}))
    assert root.findtext("CLUB/CLUB_ID_NUMBER") == "1"
    again = read_usebio(data)
    assert (again.date, again.club_id) == ("03/12/2026", "1")
    assert again.program == f"Traveller {metadata.version('traveller')}"


def test_the_dates_of_every_spelling_are_written_day_first() -> None:
    event = EventFile(name="Dates")
    for given in ("2026-12-03", "2026.12.03", "03/12/2026", "3/12/2026"):
        event.date = given
        root = ET.fromstring(write_usebio(event).split(b"\n", 2)[2])
        assert root.findtext("EVENT/DATE") == "03/12/2026"


def test_the_elements_keep_the_order_of_the_usebio_files_in_tests_data(data_dir: Path) -> None:
    """No copy of the USEBIO 1.2 DTD could be had, so the order is held against the USEBIO
    files in tests/data (the EBU-style order: program, description, date, methods, winners,
    participants, boards): every element the export shares with them comes in their order."""
    files = ("mitchell_3_tables.xml", "individual_minimal.xml")
    orders = [_event_children((data_dir / "io" / name).read_bytes()) for name in files]
    event = load(data_dir / "io" / "mitchell_3_tables.xml")
    written = _event_children(write_usebio(event, score_event(event)))
    assert {"PROGRAM_VERSION", "BOARDS_PLAYED"} <= set(written)
    for order in orders:
        shared = [tag for tag in dict.fromkeys(written) if tag in order]
        assert shared == [tag for tag in dict.fromkeys(order) if tag in shared]
        assert len(shared) >= 6
