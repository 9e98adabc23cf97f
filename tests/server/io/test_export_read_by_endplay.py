"""Every PBN export variant read back by endplay's PBN reader (a reader nobody here wrote) and
by Traveller's own: without and with hand records, with auctions and play, with hostile
names, and an individual. Each opens in endplay with its deals, its table columns (one
backslash in the specs, the widths kept) and its calls; scored again by `traveller score`
it gives the figures it was written with, and its JSON shows each table's auction and play."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from server.io.formats import load
from server.io.handrecords import normalise_deal
from server.io.model import EventFile, PairEntry
from server.io.pbn import read_pbn, write_pbn
from server.io.pbn_play import read_explanations
from server.io.pbn_syntax import split_games
from server.io.report import ScoreReport
from server.io.scorefile import score_event
from tests.support.io import pairs_event, score_cli

pbn = pytest.importorskip("endplay.parsers.pbn")  # the handrecords extra, as `traveller test`

REALBRIDGE = "endplay-realbridge/example2_realbridge_2021_online_qual_open_R2.pbn"


def _figures(report: ScoreReport) -> list[tuple[str, Any, Any, str]]:
    return [(str(p.key), p.total, p.percentage, p.place) for p in report.pairs]


def _written(event: EventFile) -> tuple[str, ScoreReport, list[Any]]:
    report = score_event(event)
    text = write_pbn(event, report)
    return text, report, pbn.loads(text)


def _headers(board: Any, tag: str) -> list[tuple[str, str]]:
    return [(h["name"], h["minwidth"]) for h in board.info[tag]["headers"]]


def test_without_hand_records_every_board_opens_with_no_cards(data_dir: Path) -> None:
    event = load(data_dir / "io" / "mitchell_3_tables.xml")
    assert not any(record.deal for record in event.boards.values())
    text, report, boards = _written(event)
    assert [b.board_num for b in boards] == sorted({line.board for line in event.lines})
    assert all(b.deal.to_pbn() == "N:... ... ... ..." for b in boards)
    # The column specs keep their widths: "MP_NS\6R" is the column MP_NS, at least 6 wide.
    assert ("MP_NS", "6") in _headers(boards[0], "ScoreTable")
    assert ("TotalScoreMP", "7") in _headers(boards[0], "TotalScoreTable")
    again = read_pbn(text)
    assert again.refused == []
    assert not any(record.deal for record in again.boards.values())
    assert _figures(score_event(again)) == _figures(report)


def test_with_hand_records_endplay_reads_the_same_deals(data_dir: Path) -> None:
    event = load(data_dir / "io" / "howell_2_tables.pbn")
    text, report, boards = _written(event)
    deals = {b.board_num: normalise_deal(b.deal.to_pbn()) for b in boards}
    assert deals == {n: r.deal for n, r in event.boards.items()}
    assert all(deals.values())
    # Each line's matchpoints in the file are those `traveller score` gives it again.
    columns = [name for name, _ in _headers(boards[0], "ScoreTable")]
    written = {
        (b.board_num, row[columns.index("PairId_NS")]): row[columns.index("MP_NS")]
        for b in boards
        if "ScoreTable" in b.info
        for row in b.info["ScoreTable"]["rows"]
    }
    rescored = score_event(read_pbn(text))
    assert written == {
        (t.board, str(row.ns.number)): f"{float(row.ns_value):.2f}"
        for t in rescored.boards
        for row in t.rows
        if row.ns is not None and row.ns_value is not None
    }
    assert _figures(rescored) == _figures(report)


def test_auctions_alerts_and_play_are_read_by_endplay(data_dir: Path) -> None:
    real = load(data_dir / REALBRIDGE)
    assert real.teams is not None
    games = split_games((data_dir / REALBRIDGE).read_text())
    event = pairs_event(real.teams.lines, games)
    text, report, boards = _written(event)
    by_table = [b for b in boards if b.auction]
    assert len(by_table) == sum(1 for ln in event.lines if ln.auction)
    ours = [ln for ln in event.lines if ln.auction]
    alerts = 0
    for board, line in zip(by_table, ours, strict=True):
        assert line.auction is not None
        assert len(board.auction) == len(line.auction.split())
        alerted = [i for i, call in enumerate(line.auction.split()) if call.endswith("!")]
        assert [i for i, call in enumerate(board.auction) if call.alertable] == alerted
        alerts += len(alerted)
    assert alerts > 200  # the real file's tables alerted 213 auctions
    played = [b for b in boards if b.play]
    assert len(played) == sum(1 for ln in event.lines if ln.play and ln.auction)
    assert _figures(score_event(read_pbn(text))) == _figures(report)


HOSTILE = ('Ann "the Ace" \\ Berg]', "Bo\nDahl %x", '[Event "x"]', "Øy; Ærø – ½")


def test_hostile_names_open_in_endplay_and_read_back_as_written(data_dir: Path) -> None:
    event = load(data_dir / "io" / "howell_2_tables.pbn")
    first, second = event.pairs[0], event.pairs[1]
    event.pairs[0] = PairEntry(first.key, HOSTILE[:2])
    event.pairs[1] = PairEntry(second.key, HOSTILE[2:])
    text, report, boards = _written(event)
    assert len(boards) == len(event.boards)
    again = read_pbn(text)
    assert again.refused == []
    names = {p.key: p.names for p in again.pairs}
    assert names[first.key] == ('Ann "the Ace" \\ Berg]', "Bo Dahl %x")
    assert names[second.key] == HOSTILE[2:]
    assert _figures(score_event(again)) == _figures(report)


def test_score_json_shows_each_tables_auction_and_play(data_dir: Path, tmp_path: Path) -> None:
    real = load(data_dir / REALBRIDGE)
    assert real.teams is not None
    event = pairs_event(real.teams.lines, split_games((data_dir / REALBRIDGE).read_text()))
    path = tmp_path / "played.pbn"
    path.write_text(write_pbn(event, score_event(event)))
    result = CliRunner().invoke(score_cli(), ["score", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    shown = {
        (board["board"], row["ns"]): (row["auction"], row["play"])
        for board in json.loads(result.stdout)["boards"]
        for row in board["results"]
    }
    assert shown == {(ln.board, str(ln.ns)): (ln.auction, ln.play) for ln in event.lines}
    assert sum(1 for auction, _ in shown.values() if auction) == 279


@pytest.mark.parametrize("name", ["individual_minimal.xml", "individual_minimal.pbn"])
def test_an_individual_opens_in_endplay_and_rescores_per_player(data_dir: Path, name: str) -> None:
    event = load(data_dir / "io" / name)
    text, report, boards = _written(event)
    assert [b.board_num for b in boards] == [1, 2, 3, 4]
    columns = [column for column, _ in _headers(boards[0], "ScoreTable")]
    seats = ["PlayerId_North", "PlayerId_East", "PlayerId_South", "PlayerId_West"]
    assert columns[2:6] == seats
    rows = [row for b in boards for row in b.info["ScoreTable"]["rows"]]
    assert [tuple(int(row[columns.index(s)]) for s in seats) for row in rows] == [
        line.players for line in sorted(event.lines, key=lambda ln: ln.board)
    ]
    totals = [name for name, _ in _headers(boards[0], "TotalScoreTable")]
    assert totals[:2] == ["Rank", "PlayerId"]
    again = read_pbn(text)
    assert again.individual
    assert again.refused == []
    assert _figures(score_event(again)) == _figures(report)
    assert [p.names for p in score_event(again).pairs] == [p.names for p in report.pairs]


def test_a_real_individual_opens_in_endplay_and_rescores_to_ruters_figures(data_dir: Path) -> None:
    """Ruter's real individual (tests/data/published), exported again: endplay opens its 27
    boards with their deals, and `traveller score` of the file gives every player's figures."""
    event = load(data_dir / "published" / "ruter_nesodden_bk_2022-10-04_hostsingel_individual.pbn")
    text, report, boards = _written(event)
    assert [b.board_num for b in boards] == list(range(1, 28))
    assert all(normalise_deal(b.deal.to_pbn()) == event.boards[b.board_num].deal for b in boards)
    rows = [row for b in boards for row in b.info["ScoreTable"]["rows"]]
    assert len(rows) == 135
    again = read_pbn(text)
    assert again.individual
    assert again.refused == []
    assert _figures(score_event(again)) == _figures(report)
    assert len(report.pairs) == 20


def test_alert_explanations_are_written_as_notes_and_read_back(
    data_dir: Path, tmp_path: Path
) -> None:
    """A table's explanations go out as the calls' [Note]s ("Alert" where it keyed none); endplay
    and Traveller's reader both read them back, and `traveller score --format json` shows them."""
    event = load(data_dir / "io" / "howell_2_tables.pbn")
    line = next(ln for ln in event.lines if ln.board == 1 and ln.contract == "6NT")
    assert (event.boards[1].dealer, line.declarer) == ("N", "S")
    line.auction = "1C! P 1NT! P 6NT P P P"  # South named notrump first: South declares
    line.alerts = {3: 'range "12-14" \\ balanced'}
    text, report, boards = _written(event)
    assert '[Note "1:Alert"]' in text
    assert '[Note "2:range \\"12-14\\" \\\\ balanced"]' in text
    played = next(b for b in boards if b.auction)
    assert [c.announcement for c in played.auction if c.alertable] == [
        "Alert",
        'range \\"12-14\\" \\\\ balanced',  # endplay keeps PBN's escapes as written
    ]
    again = read_pbn(text)
    assert again.refused == []
    (back,) = [ln for ln in again.lines if ln.auction]
    assert back.auction == line.auction
    assert back.alerts == {3: 'range "12-14" \\ balanced'}
    assert _figures(score_event(again)) == _figures(report)
    path = tmp_path / "alerts.pbn"
    path.write_text(text)
    result = CliRunner().invoke(score_cli(), ["score", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = [row for b in json.loads(result.stdout)["boards"] for row in b["results"]]
    assert [row["alerts"] for row in rows if row["auction"]] == [{"3": 'range "12-14" \\ balanced'}]


def test_a_hostile_note_is_read_as_one_safe_line() -> None:
    """Another program's note with a line break or a bidi override is read as one safe line;
    a note the auction does not refer to is left out."""
    game = split_games(
        '[Board "1"]\n[Dealer "N"]\n[Declarer "N"]\n[Contract "1NT"]\n[Result "7"]\n'
        '[Auction "N"]\n1NT =1= Pass Pass Pass\n[Note "1:weak\u202e\tno-trump"]\n'
        '[Note "2:not referred to"]\n'
    )[0]
    assert read_explanations(game) == {1: "weak no-trump"}
