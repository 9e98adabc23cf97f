"""Bridgemate .bws import: the table mapping on plain rows, and refusal of foreign files.

No real .bws file was available to test against; the rows below follow the documented
Bridgemate table layout (Section, RoundData, ReceivedData, PlayerNumbers).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from server.io import EventFileError
from server.io.bws import from_tables, read_bws, rows_of
from server.io.scorefile import score_event


def _mitchell() -> dict[str, list[dict[str, Any]]]:
    rounds = [
        {
            "Section": 1,
            "Table": t,
            "Round": r,
            "NSPair": t,
            "EWPair": (t + r - 2) % 2 + 1,
            "LowBoard": 2 * r - 1,
            "HighBoard": 2 * r,
        }
        for r in (1, 2)
        for t in (1, 2)
    ]
    received = [
        {
            "ID": 1,
            "Section": 1,
            "Table": 1,
            "Round": 1,
            "Board": 1,
            "PairNS": 1,
            "PairEW": 1,
            "Declarer": 1,
            "NS/EW": "N",
            "Contract": "4 S",
            "Result": "+1",
            "LeadCard": "HA",
            "Erased": False,
        },
        {
            "ID": 2,
            "Section": 1,
            "Table": 2,
            "Round": 1,
            "Board": 1,
            "PairNS": 2,
            "PairEW": 2,
            "Declarer": 2,
            "NS/EW": "E",
            "Contract": "3 NT x",
            "Result": "-2",
            "LeadCard": "",
            "Erased": False,
        },
        {
            "ID": 3,
            "Section": 1,
            "Table": 2,
            "Round": 1,
            "Board": 1,
            "PairNS": 2,
            "PairEW": 2,
            "Declarer": 2,
            "NS/EW": "E",
            "Contract": "7 NT",
            "Result": "=",
            "LeadCard": "",
            "Erased": True,
        },
        {
            "ID": 4,
            "Section": 1,
            "Table": 1,
            "Round": 2,
            "Board": 3,
            "PairNS": 1,
            "PairEW": 2,
            "Declarer": 0,
            "NS/EW": "",
            "Contract": "PASS",
            "Result": "",
            "Erased": False,
        },
        {
            "ID": 5,
            "Section": 1,
            "Table": 2,
            "Round": 2,
            "Board": 3,
            "PairNS": 2,
            "PairEW": 1,
            "Declarer": 2,
            "NS/EW": "S",
            "Contract": "1 C",
            "Result": "=",
            "Erased": False,
        },
    ]
    players = [
        {"Section": 1, "Table": 1, "Direction": "N", "Number": "1001", "Name": "Ann North"},
        {"Section": 1, "Table": 1, "Direction": "S", "Number": "1002", "Name": "Bob South"},
    ]
    return {
        "Section": [{"ID": 1, "Letter": "A "}],
        "RoundData": rounds,
        "ReceivedData": received,
        "PlayerNumbers": players,
    }


def test_mitchell_tables_map_to_an_event() -> None:
    data = from_tables(_mitchell())
    event = data.event
    assert event.winners == 2
    assert len(data.movement) == 4
    assert [str(p.key) for p in event.pairs] == ["1 EW", "2 EW", "1 NS", "2 NS"]
    assert next(p for p in event.pairs if str(p.key) == "1 NS").names == ("Ann North", "Bob South")
    got = [
        (ln.board, str(ln.ns), str(ln.ew), ln.contract, ln.declarer, ln.tricks)
        for ln in event.lines
    ]
    assert got == [
        (1, "1 NS", "1 EW", "4S", "N", 11),
        (1, "2 NS", "2 EW", "3NTX", "E", 7),
        (3, "1 NS", "2 EW", "PASS", None, 0),
        (3, "2 NS", "1 EW", "1C", "S", 7),
    ]
    report = score_event(event)
    assert {str(p.key): p.percentage for p in report.pairs}["1 NS"] == 50


def test_rows_of_turns_columns_into_rows() -> None:
    assert rows_of({"a": [1, 2], "b": ["x", "y"]}) == [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]


def test_bad_result_is_refused_with_its_row_and_board_and_the_rest_read() -> None:
    tables = _mitchell()
    tables["ReceivedData"][0]["Contract"] = "9 S"
    whole = len(from_tables(_mitchell()).event.lines)
    event = from_tables(tables).event
    assert len(event.lines) == whole - 1
    [refusal] = event.refused
    assert refusal.board == 1
    assert str(refusal).startswith("ReceivedData row 1 (board 1): ")


def test_a_file_with_every_result_refused_names_the_first(tmp_path: Path) -> None:
    tables = _mitchell()
    for row in tables["ReceivedData"]:
        row["Contract"] = "9 S"
    with pytest.raises(EventFileError, match=r"ReceivedData row 1 \(board 1\).*nothing usable"):
        read_bws(tmp_path / "x.bws", reader=lambda _: tables)


def test_reader_is_injectable(tmp_path: Path) -> None:
    event = read_bws(tmp_path / "x.bws", reader=lambda _: _mitchell())
    assert event.source == "bws"


def test_a_file_that_is_not_access_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "fake.bws"
    path.write_bytes(b"this is not an Access database at all" * 10)
    with pytest.raises(EventFileError, match=r"fake\.bws"):
        read_bws(path)


def _rows(table: str, column: str, where: tuple[int, int, int], items: str) -> list[dict[str, Any]]:
    """BiddingData or PlayData rows for one table's board: "N:1S E:PASS ..." in Counter order."""
    number, round_, board = where
    return [
        {
            "ID": index,
            "Section": 1,
            "Table": number,
            "Round": round_,
            "Board": board,
            "Counter": index,
            "Direction": item.split(":")[0],
            column: item.split(":")[1],
            "Erased": False,
        }
        for index, item in enumerate(items.split(), start=1)
    ]


def test_bidding_and_play_data_are_read_onto_their_results() -> None:
    tables = _mitchell()
    bids = _rows("BiddingData", "Bid", (1, 1, 1), "N:1S E:PASS S:4S W:PASS N:PASS E:PASS")
    corrected = dict(bids[2], Bid="3S", Erased=True)  # South's first try, corrected at the table
    tables["BiddingData"] = [bids[3], corrected, *bids[:3], *bids[4:]]  # stored out of order
    tables["PlayData"] = list(reversed(_rows("PlayData", "Card", (1, 1, 1), "E:HA S:H2 W:H3 N:H4")))
    data = from_tables(tables)
    assert data.event.refused == []
    line = next(ln for ln in data.event.lines if ln.board == 1 and ln.table == 1)
    assert (line.contract, line.declarer, line.tricks) == ("4S", "N", 11)
    assert line.auction == "1S P 4S P P P"
    assert line.play == "HA H2 H3 H4 =11"  # the rest claimed: the result's eleven tricks
    assert all(ln.auction is None and ln.play is None for ln in data.event.lines if ln is not line)


@pytest.mark.parametrize(
    ("table", "column", "where", "items", "says"),
    [
        ("BiddingData", "Bid", (2, 2, 3), "S:1C W:1C", "insufficient"),
        ("BiddingData", "Bid", (2, 2, 3), "S:1C W:PASS E:PASS", "is E's, but N is next"),
        ("BiddingData", "Bid", (2, 2, 3), "S:1D W:PASS N:PASS E:PASS", "ends in 1D by S"),
        ("PlayData", "Card", (2, 2, 3), "W:HA W:H2", "is W's, but N is next"),
        ("PlayData", "Card", (1, 2, 4), "W:HA", "no result in ReceivedData"),
    ],
)
def test_broken_bidding_or_play_data_is_refused_with_its_place_and_the_result_kept(
    table: str, column: str, where: tuple[int, int, int], items: str, says: str
) -> None:
    tables = _mitchell()
    tables[table] = _rows(table, column, where, items)
    event = from_tables(tables).event
    (refusal,) = event.refused
    assert says in refusal.reason
    number, round_, board = where
    assert refusal.element == f"{table} (table {number}, round {round_}, board {board})"
    assert len(event.lines) == 4  # every result is still read
    assert all(ln.auction is None and ln.play is None for ln in event.lines)
