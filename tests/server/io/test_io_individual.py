"""Individual events read from USEBIO and PBN files: every line read with its four players,
scored per player (individual matchpoints) with the file's names and matching its published
totals; a line that names some players and not all, or nobody, is refused with its place;
and a file whose traveller lines yield nothing never exits 0."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from server.io import EventFileError
from server.io.csv_io import write_travellers_csv
from server.io.formats import load, parse_bytes
from server.io.scorefile import score_event
from server.io.usebio import write_usebio
from tests.support.io import score_cli

runner = CliRunner()
FILES = ("individual_minimal.xml", "individual_minimal.pbn")


@pytest.mark.parametrize("name", FILES)
def test_individual_reads_every_line_with_its_four_players(data_dir: Path, name: str) -> None:
    event = load(data_dir / "io" / name)
    assert event.individual
    assert not event.refused
    assert len(event.lines) == 8
    assert all(line.ns is None and line.ew is None for line in event.lines)
    assert [line.players for line in event.lines if line.board == 3] == [(1, 6, 8, 3), (5, 2, 4, 7)]
    assert {p.number: p.name for p in event.players}[6] == "Finn Holm"


@pytest.mark.parametrize("name", FILES)
def test_individual_scores_per_player_to_the_published_totals(data_dir: Path, name: str) -> None:
    event = load(data_dir / "io" / name)
    report = score_event(event)
    assert report.partnerships is not None
    published = {
        p.number: (p.published_total, p.published_percentage, p.name) for p in event.players
    }
    scored = {
        line.key.number: (
            Decimal(f"{float(line.total):.2f}"),
            Decimal(f"{float(line.percentage or 0):.2f}"),
            line.names[0],
        )
        for line in report.pairs
    }
    assert scored == published
    assert len(scored) == 8
    # The places too: the file's "1" for a tie of two is Traveller's "1=".
    places = {line.key.number: line.place.rstrip("=") for line in report.pairs}
    assert places == {p.number: (p.published_place or "").rstrip("=") for p in event.players}
    # And every line's matchpoints are the file's.
    rows = {
        (b.board, report.side(row.ns)): (row.ns_value, row.ew_value)
        for b in report.boards
        for row in b.rows
    }
    for line in event.lines:
        assert line.players is not None
        assert line.published_values is not None
        north, _, south, _ = line.players
        assert rows[(line.board, f"{north}-{south}")] == line.published_values


def test_cli_prints_players_with_their_names(data_dir: Path) -> None:
    path = data_dir / "io" / "individual_minimal.pbn"
    result = runner.invoke(score_cli(), ["score", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["individual"] is True
    assert [(p["number"], p["names"], p["percentage"]) for p in data["players"][:2]] == [
        (1, ["Ann Berg"], 87.5),
        (8, ["Hans Juul"], 87.5),
    ]
    assert data["boards"][0]["results"][0]["ns"] == "1-3"
    text = runner.invoke(score_cli(), ["score", str(path)])
    assert re.search(r"1=\s+1\s+7\.00\s+87\.50\s+Ann Berg", text.stdout)


def _usebio(data_dir: Path) -> str:
    return (data_dir / "io" / "individual_minimal.xml").read_text()


def test_usebio_line_without_all_four_players_is_refused_with_its_place(data_dir: Path) -> None:
    text = _usebio(data_dir).replace("<W_PLAYER_NUMBER>7</W_PLAYER_NUMBER>", "", 1)
    event = parse_bytes(text.encode(), ".xml")
    assert len(event.lines) == 7
    (refusal,) = event.refused
    assert refusal.element == "BOARD 3 / TRAVELLER_LINE 2"
    assert "W_PLAYER_NUMBER" in refusal.reason
    assert refusal.line is not None
    assert text.splitlines()[refusal.line - 1].strip() == "<TRAVELLER_LINE>"


def test_usebio_non_ascii_player_number_is_refused(data_dir: Path) -> None:
    text = _usebio(data_dir).replace(
        "<N_PLAYER_NUMBER>5</N_PLAYER_NUMBER>", "<N_PLAYER_NUMBER>²</N_PLAYER_NUMBER>", 1
    )
    event = parse_bytes(text.encode(), ".xml")
    assert [r.element for r in event.refused] == ["BOARD 1 / TRAVELLER_LINE 2"]


def test_pbn_row_without_all_four_players_is_refused_with_its_line(data_dir: Path) -> None:
    lines = (data_dir / "io" / "individual_minimal.pbn").read_text().splitlines()
    row = next(i for i, text in enumerate(lines) if text.startswith(" 2  2  5  2  4  7 3C"))
    lines[row] = " 2  2  5  2  4  - 3C" + lines[row][len(" 2  2  5  2  4  7 3C") :]
    event = parse_bytes("\n".join(lines).encode(), ".pbn")
    assert len(event.lines) == 7
    (refusal,) = event.refused
    assert refusal.line == row + 1
    assert refusal.board == 3
    assert "PlayerId_West" in refusal.reason


@pytest.mark.parametrize("name", FILES)
def test_lines_naming_nobody_are_refused_and_the_file_never_exits_0(
    data_dir: Path, name: str, tmp_path: Path
) -> None:
    """The rule for every reader: a traveller whose lines yield nothing read exits 2."""
    text = (data_dir / "io" / name).read_text()
    text = re.sub(r"<[NESW]_PLAYER_NUMBER>\d+</[NESW]_PLAYER_NUMBER>", "", text)
    text = text.replace("PlayerId_North", "North").replace("PlayerId_East", "East")
    text = text.replace("PlayerId_South", "South").replace("PlayerId_West", "West")
    with pytest.raises(EventFileError, match="names no pair and no players"):
        parse_bytes(text.encode(), Path(name).suffix)
    path = tmp_path / name
    path.write_text(text)
    result = runner.invoke(score_cli(), ["score", str(path)])
    assert result.exit_code == 2
    assert "names no pair and no players" in result.output


@pytest.mark.parametrize("name", FILES)
def test_the_usebio_export_of_an_individual_reads_back_the_same(data_dir: Path, name: str) -> None:
    event = load(data_dir / "io" / name)
    report = score_event(event)
    data = write_usebio(event, report)
    assert b'EVENT_TYPE="INDIVIDUAL"' in data
    again = parse_bytes(data, ".xml")
    assert again.refused == []
    assert [line.players for line in again.lines] == [
        line.players for line in sorted(event.lines, key=lambda ln: ln.board)
    ]
    published = {p.number: (p.published_total, p.published_percentage) for p in again.players}
    rescored = score_event(again)
    assert published == {
        line.key.number: (
            Decimal(f"{float(line.total):.2f}"),
            Decimal(f"{float(line.percentage or 0):.2f}"),
        )
        for line in rescored.pairs
    }
    assert [(p.key, p.names, p.place) for p in rescored.pairs] == [
        (p.key, p.names, p.place) for p in report.pairs
    ]


@pytest.mark.parametrize("name", FILES)
def test_the_csv_travellers_of_an_individual_read_back_the_same(data_dir: Path, name: str) -> None:
    event = load(data_dir / "io" / name)
    report = score_event(event)
    text = write_travellers_csv(event, report)
    assert text.splitlines()[0].split(",")[4:8] == ["north", "east", "south", "west"]
    again = parse_bytes(text.encode(), ".csv")
    assert again.refused == []
    assert again.individual
    assert {p.number: p.name for p in again.players} == {p.number: p.name for p in event.players}
    rescored = score_event(again)
    assert [(p.key, p.names, p.total, p.place) for p in rescored.pairs] == [
        (p.key, p.names, p.total, p.place) for p in report.pairs
    ]


def test_a_csv_row_with_three_players_is_refused_with_its_line(data_dir: Path) -> None:
    event = load(data_dir / "io" / "individual_minimal.xml")
    rows = write_travellers_csv(event, score_event(event)).splitlines()
    cells = rows[3].split(",")
    cells[7] = ""  # West
    rows[3] = ",".join(cells)
    again = parse_bytes("\n".join(rows).encode(), ".csv")
    assert len(again.lines) == 7
    (refusal,) = again.refused
    assert (refusal.line, refusal.board) == (4, 2)
    assert "west" in refusal.reason


def test_csv_rows_naming_nobody_are_refused_with_their_lines(tmp_path: Path) -> None:
    text = "board,ns,ew,contract,declarer,tricks\n1,,,4S,N,10\n2,,,3NT,S,9\n"
    with pytest.raises(EventFileError, match="names no pair and no players"):
        parse_bytes(text.encode(), ".csv")
    path = tmp_path / "nobody.csv"
    path.write_text(text)
    result = runner.invoke(score_cli(), ["score", str(path)])
    assert result.exit_code == 2
    assert "line 2" in result.output
