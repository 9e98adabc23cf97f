"""USEBIO team events: matches in IMPs and VPs, team-pair ids, point-a-board, `traveller score`.

The files are minimal ones that reproduce each class (no USEBIO team file under a licence we
may commit was found; tests/data/io/README.md). Each board's IMPs were worked out by hand from
the Law 78B table and are written in the file as the published figures, so the comparison
below checks the reader's seating of the two rooms, not the engine against itself.
"""

from __future__ import annotations

import contextlib
import json
import xml.etree.ElementTree as ET
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from server.io import EventFileError
from server.io.cli import app as io_app
from server.io.formats import load, parse_bytes
from server.io.teamfile import score_team_event, team_to_csv, team_to_json, team_to_text
from server.io.usebio import read_usebio
from server.io.usebio_teams import is_team_event
from server.scoring import victory_points

runner = CliRunner()

SWISS = "io/usebio_teams_minimal.xml"
PAIR_IDS = "io/usebio_teams_pair_ids.xml"
POINT_A_BOARD = "io/usebio_teams_point_a_board.xml"


def _published_imps(event_file: Path) -> dict[tuple[str | None, str, int], Decimal]:
    """(round, home team, board) -> the IMPs the file publishes for the home team."""
    event = load(event_file)
    assert event.teams is not None
    out = {}
    for line in event.teams.lines:
        if line.room == "Open" and line.published_ns_imps is not None:
            out[(line.stage, line.ns_team, line.board)] = line.published_ns_imps
    return out


def test_swiss_teams_file_is_read_as_team_matches(data_dir: Path) -> None:
    event = load(data_dir / SWISS)
    assert event.teams is not None
    assert event.refused == []
    assert event.lines == []  # a team event, not a pairs traveller
    assert event.program == "hand-written test fixture"
    assert [e.team for e in event.teams.entries] == ["1", "2", "3", "4"]
    assert event.teams.entries[0].name == "Sharks"
    assert event.teams.entries[0].pairs == ("1-1", "1-2")
    assert "Di Four" in event.teams.entries[0].players
    assert event.teams.entries[3].published_total == Decimal("36.28")
    # Six boards in four matches, two rooms each: the MATCH's TEAM sits N/S in the open room.
    assert len(event.teams.lines) == 12
    open_room = [ln for ln in event.teams.lines if ln.room == "Open"]
    assert {(ln.stage, ln.ns_team, ln.ew_team) for ln in open_room} == {
        ("1", "1", "2"),
        ("1", "3", "4"),
        ("2", "1", "3"),
        ("2", "4", "2"),
    }
    first = next(ln for ln in event.teams.lines if ln.board == 1 and ln.room == "Closed")
    assert (first.ns_team, first.ew_team, first.contract, first.declarer, first.tricks) == (
        "2",
        "1",
        "4S",
        "N",
        9,
    )
    assert first.published_ns_score == -50
    assert first.published_ns_imps == Decimal(-10)  # the closed room's N/S team is the away team


def test_match_without_direction_is_seated_by_its_pair_numbers(data_dir: Path) -> None:
    event = load(data_dir / SWISS)
    assert event.teams is not None
    board3 = [ln for ln in event.teams.lines if ln.stage == "2" and "4" in (ln.ns_team, ln.ew_team)]
    assert {(ln.room, ln.ns_team, ln.ew_team, ln.contract) for ln in board3} == {
        ("Open", "4", "2", "1NT"),
        ("Closed", "2", "4", "3NT"),
    }


def test_swiss_teams_imps_agree_with_the_published_board_imps(data_dir: Path) -> None:
    report = score_team_event(load(data_dir / SWISS))
    published = _published_imps(data_dir / SWISS)
    ours = {(m.stage, m.home, p.board): p.home_imps for m in report.matches for p in m.boards}
    assert len(published) == 6
    assert {k: Fraction(v) for k, v in published.items()} == ours


def test_swiss_teams_vps_and_ranking(data_dir: Path) -> None:
    report = score_team_event(load(data_dir / SWISS))
    by_match = {(m.stage, m.home, m.away): m.result for m in report.matches}
    # Margins from the hand-worked board IMPs: 10-1, 0-12, 0-0 (one board), 12-0 (one board).
    expected = {("1", "1", "2"): (9, 2), ("1", "3", "4"): (-12, 2)}
    expected |= {("2", "1", "3"): (0, 1), ("2", "4", "2"): (12, 1)}
    for key, (margin, boards) in expected.items():
        result = by_match[key]
        assert result.boards == boards
        assert result.home_margin == margin
        assert (result.home_vp, result.away_vp) == victory_points(margin, boards)
    vp = {s.team: s.vp for s in report.standings}
    assert vp["1"] == victory_points(9, 2)[0] + 10
    assert vp["4"] == victory_points(12, 2)[0] + victory_points(12, 1)[0]
    assert [s.team for s in report.standings] == ["4", "1", "3", "2"]
    # The published VPs and team totals (two decimals) agree with ours.
    event = report.event
    assert event.teams is not None
    for record in event.teams.published:
        ours = by_match[(record.stage, record.home, record.away)]
        assert record.home_vp == Decimal(str(float(ours.home_vp)))
        assert record.away_vp == Decimal(str(float(ours.away_vp)))
    for entry in event.teams.entries:
        assert entry.published_total == round(
            Decimal(vp[entry.team].numerator) / vp[entry.team].denominator, 2
        )


def test_team_pair_ids_such_as_1_1_2_are_read(data_dir: Path) -> None:
    event = load(data_dir / PAIR_IDS)
    assert event.teams is not None
    assert event.refused == []
    assert len(event.teams.lines) == 8
    report = score_team_event(event)
    by_home = {m.home: m for m in report.matches}
    # By hand (Law 78B): board 1 450 v 200 = +6, board 2 0 v -100 = +3; 3 v 4: +10, -2.
    assert [p.home_imps for p in by_home["1"].boards] == [6, 3]
    assert [p.home_imps for p in by_home["3"].boards] == [10, -2]
    assert by_home["1"].away == "2"
    assert by_home["3"].result.home_vp == victory_points(8, 2)[0]
    assert team_to_json(report)["teams"][0]["name"] == "North Stars"


def test_point_a_board_is_scored_board_a_match(data_dir: Path) -> None:
    event = load(data_dir / POINT_A_BOARD)
    assert event.teams is not None
    assert event.teams.board_a_match
    assert event.teams.scoring == "PAB/PAB"
    report = score_team_event(event)
    (match,) = report.matches
    # Boards: 450 v 420 (2), 600 v 600 (1), 140 v 110 (2): 5-1, as the file publishes.
    assert [p.home_points for p in match.boards] == [2, 1, 2]
    assert (match.result.home_vp, match.result.away_vp) == (5, 1)
    (published,) = event.teams.published
    assert (published.home_score, published.away_score) == (Decimal(5), Decimal(1))
    assert [(s.team, s.vp) for s in report.standings] == [("1", 5), ("2", 1)]
    data = team_to_json(report)
    assert data["method"] == "board-a-match"
    assert data["teams"][0]["points"] == 5.0
    assert "imps_won" not in data["teams"][0]
    assert "board-a-match" in team_to_text(report)
    assert team_to_csv(report).splitlines()[0] == "place,team,points,matches"


@pytest.mark.parametrize("method", ["BAM", "POINT_A_BOARD", "Board-a-Match"])
def test_board_a_match_spellings(data_dir: Path, method: str) -> None:
    xml = (data_dir / POINT_A_BOARD).read_text().replace(">PAB<", f">{method}<")
    event = read_usebio(xml.encode())
    assert event.teams is not None
    assert event.teams.board_a_match


def test_imps_event_is_not_board_a_match(data_dir: Path) -> None:
    event = load(data_dir / SWISS)
    assert event.teams is not None
    assert not event.teams.board_a_match
    assert team_to_json(score_team_event(event))["method"] == "teams"


def test_traveller_score_scores_a_usebio_team_file(data_dir: Path) -> None:
    result = runner.invoke(io_app, [str(data_dir / SWISS), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["method"] == "teams"
    assert [t["team"] for t in data["teams"]] == ["4", "1", "3", "2"]
    first = next(m for m in data["matches"] if (m["stage"], m["home"]) == ("1", "1"))
    assert first["published"] == {
        "home_score": 10.0,
        "away_score": 1.0,
        "home_vp": 16.0,
        "away_vp": 4.0,
    }
    assert first["home_vp"] == 16.0
    text = runner.invoke(io_app, [str(data_dir / POINT_A_BOARD)])
    assert text.exit_code == 0, text.output
    assert "5.00 Pts 1 Sharks" in text.output


def test_pairs_files_are_not_taken_for_team_events(data_dir: Path) -> None:
    event = load(data_dir / "io/mitchell_3_tables.xml")
    assert event.teams is None
    assert event.lines


# --- bad input: refused with the element named, the rest read --------------------------------

_HEAD = """<?xml version="1.0"?>
<USEBIO Version="1.2"><EVENT EVENT_TYPE="SWISS_TEAMS">
<PARTICIPANTS><TEAM TEAM_ID="1"/><TEAM TEAM_ID="2"/><TEAM TEAM_ID="3"/></PARTICIPANTS>
"""
_GOOD_MATCH = """<MATCH><ROUND_NUMBER>1</ROUND_NUMBER><TEAM>1</TEAM><OPPOSING_TEAM>2</OPPOSING_TEAM>
<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>
<TRAVELLER_LINE><DIRECTION>NS</DIRECTION><CONTRACT>4S</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>10</TRICKS></TRAVELLER_LINE>
<TRAVELLER_LINE><DIRECTION>EW</DIRECTION><CONTRACT>4S</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>9</TRICKS></TRAVELLER_LINE>
</BOARD>
{extra}
</MATCH>"""
_TAIL = "</EVENT></USEBIO>"


def _read(extra_board: str = "", extra_match: str = "") -> tuple[list[str], int]:
    xml = _HEAD + _GOOD_MATCH.format(extra=extra_board) + extra_match + _TAIL
    event = parse_bytes(xml.encode(), ".xml")
    assert event.teams is not None
    return [str(r) for r in event.refused], len(event.teams.lines)


def test_unknown_team_is_refused_with_the_match_named() -> None:
    refused, lines = _read(
        extra_match="<MATCH><ROUND_NUMBER>2</ROUND_NUMBER><TEAM>1</TEAM>"
        "<OPPOSING_TEAM>9</OPPOSING_TEAM></MATCH>"
    )
    assert refused == [
        "MATCH 2 (round 2): team '9' is not in PARTICIPANTS; the match is not scored"
    ]
    assert lines == 2


def test_board_without_both_rooms_is_refused_and_leaves_the_match() -> None:
    one_room = (
        "<BOARD><BOARD_NUMBER>2</BOARD_NUMBER><TRAVELLER_LINE><DIRECTION>NS</DIRECTION>"
        "<CONTRACT>3NT</CONTRACT><PLAYED_BY>S</PLAYED_BY><TRICKS>9</TRICKS></TRAVELLER_LINE></BOARD>"
    )
    refused, lines = _read(extra_board=one_room)
    assert len(refused) == 1
    assert refused[0].startswith("MATCH 1 (round 1) / BOARD 2 / TRAVELLER_LINE 1: 1 v 2: only")
    assert "both rooms" in refused[0]
    assert lines == 2
    xml = _HEAD + _GOOD_MATCH.format(extra=one_room) + _TAIL
    report = score_team_event(parse_bytes(xml.encode(), ".xml"))
    assert report.matches[0].result.boards == 1


def test_broken_line_is_refused_and_its_board_leaves_the_match() -> None:
    broken = (
        "<BOARD><BOARD_NUMBER>3</BOARD_NUMBER>"
        "<TRAVELLER_LINE><DIRECTION>NS</DIRECTION><CONTRACT>5Q</CONTRACT><PLAYED_BY>S</PLAYED_BY>"
        "<TRICKS>9</TRICKS></TRAVELLER_LINE>"
        "<TRAVELLER_LINE><DIRECTION>EW</DIRECTION><CONTRACT>3NT</CONTRACT><PLAYED_BY>S</PLAYED_BY>"
        "<TRICKS>9</TRICKS></TRAVELLER_LINE></BOARD>"
    )
    refused, lines = _read(extra_board=broken)
    assert refused[0].startswith("MATCH 1 (round 1) / BOARD 3 / TRAVELLER_LINE 1: ")
    assert "5Q" in refused[0]
    assert refused[1].startswith("MATCH 1 (round 1) / BOARD 3 / TRAVELLER_LINE 2: 1 v 2: only")
    assert lines == 2


def test_three_tables_on_one_board_are_refused() -> None:
    line = (
        "<TRAVELLER_LINE><DIRECTION>{}</DIRECTION><CONTRACT>1NT</CONTRACT><PLAYED_BY>S</PLAYED_BY>"
        "<TRICKS>7</TRICKS></TRAVELLER_LINE>"
    )
    tables = "".join(line.format(seat) for seat in ("NS", "EW", "NS"))
    board = f"<BOARD><BOARD_NUMBER>4</BOARD_NUMBER>{tables}</BOARD>"
    refused, lines = _read(extra_board=board)
    assert refused == [
        "MATCH 1 (round 1) / BOARD 4 / TRAVELLER_LINE 1: "
        "1 v 2: 3 tables for one board (expected two)"
    ]
    assert lines == 2


def test_unknown_team_pair_id_is_refused_with_the_line_named(data_dir: Path) -> None:
    xml = (
        (data_dir / PAIR_IDS)
        .read_text()
        .replace(
            "<NS_PAIR_NUMBER>4-1-1</NS_PAIR_NUMBER>", "<NS_PAIR_NUMBER>9-1-1</NS_PAIR_NUMBER>", 1
        )
    )
    event = read_usebio(xml.encode())
    assert event.teams is not None
    refused = [str(r) for r in event.refused]
    assert refused[0] == "BOARD 1 / TRAVELLER_LINE 4: NS_PAIR_NUMBER '9-1-1' is no team's pair"
    # Its board's other table in that match now has one room only: refused too, named.
    assert refused[1].startswith("BOARD 1 / TRAVELLER_LINE 3: 3 v 4: only")
    assert len(event.teams.lines) == 6


def test_score_without_contract_is_refused_not_dropped() -> None:
    line = (
        "<BOARD><BOARD_NUMBER>5</BOARD_NUMBER>"
        "<TRAVELLER_LINE><DIRECTION>NS</DIRECTION><SCORE>420</SCORE></TRAVELLER_LINE>"
        "<TRAVELLER_LINE><DIRECTION>EW</DIRECTION><CONTRACT>4S</CONTRACT><PLAYED_BY>N</PLAYED_BY>"
        "<TRICKS>10</TRICKS></TRAVELLER_LINE></BOARD>"
    )
    refused, _ = _read(extra_board=line)
    assert "the score 420 without a contract" in refused[0]
    assert "BOARD 5 / TRAVELLER_LINE 1" in refused[0]


@pytest.mark.parametrize("score", ["--5", "\u00b2", "420x"])
def test_odd_score_text_is_kept_out_of_the_published_score(score: str) -> None:
    board = (
        "<BOARD><BOARD_NUMBER>\u00b2</BOARD_NUMBER></BOARD>"
        "<BOARD><BOARD_NUMBER>6</BOARD_NUMBER>"
        f"<TRAVELLER_LINE><DIRECTION>NS</DIRECTION><CONTRACT>1NT</CONTRACT><PLAYED_BY>S</PLAYED_BY>"
        f"<TRICKS>7</TRICKS><SCORE>{score}</SCORE></TRAVELLER_LINE>"
        "<TRAVELLER_LINE><DIRECTION>EW</DIRECTION><CONTRACT>1NT</CONTRACT><PLAYED_BY>S</PLAYED_BY>"
        "<TRICKS>7</TRICKS></TRAVELLER_LINE></BOARD>"
    )
    xml = _HEAD + _GOOD_MATCH.format(extra=board) + _TAIL
    event = parse_bytes(xml.encode(), ".xml")
    assert event.teams is not None
    assert [str(r) for r in event.refused] == [
        "MATCH 1 (round 1) / BOARD #2: '\u00b2' is not a board number"
    ]
    board6 = [ln for ln in event.teams.lines if ln.board == 6]
    assert len(board6) == 2
    assert all(ln.published_ns_score is None for ln in board6)


def test_team_file_with_nothing_readable_is_an_error() -> None:
    xml = _HEAD + "<MATCH><TEAM>1</TEAM><OPPOSING_TEAM>7</OPPOSING_TEAM></MATCH>" + _TAIL
    with pytest.raises(EventFileError, match="no team match with both rooms"):
        parse_bytes(xml.encode(), ".xml")


@pytest.mark.parametrize(
    ("snippet", "teams"),
    [
        ('<EVENT EVENT_TYPE="TEAMS_OF_FOUR"/>', True),
        (
            '<EVENT EVENT_TYPE="MP_PAIRS"><PARTICIPANTS><TEAM TEAM_ID="1"/></PARTICIPANTS></EVENT>',
            True,
        ),
        ("<EVENT><MATCH><TEAM>1</TEAM></MATCH></EVENT>", True),
        (
            '<EVENT EVENT_TYPE="MP_PAIRS">'
            "<MATCH><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER></MATCH></EVENT>",
            False,
        ),
        ('<EVENT EVENT_TYPE="BUTLER_PAIRS"/>', False),
    ],
)
def test_is_team_event(snippet: str, teams: bool) -> None:
    assert is_team_event(ET.fromstring(snippet)) is teams


# --- robustness: a broken team file never crashes the reader or the scorer --------------------

_TEAM_TAGS = st.sampled_from(
    [
        "<USEBIO>",
        "</USEBIO>",
        '<EVENT EVENT_TYPE="SWISS_TEAMS">',
        "<EVENT>",
        "</EVENT>",
        "<BOARD_SCORING_METHOD>PAB</BOARD_SCORING_METHOD>",
        "<MATCH_SCORING_METHOD>VPS</MATCH_SCORING_METHOD>",
        "<PARTICIPANTS>",
        "</PARTICIPANTS>",
        '<TEAM TEAM_ID="1"><PAIR><PAIR_NUMBER>1-1</PAIR_NUMBER></PAIR></TEAM>',
        '<TEAM TEAM_ID="2"/>',
        "<MATCH>",
        "</MATCH>",
        "<ROUND_NUMBER>1</ROUND_NUMBER>",
        "<TEAM>1</TEAM>",
        "<TEAM>2</TEAM>",
        "<OPPOSING_TEAM>2</OPPOSING_TEAM>",
        "<OPPOSING_TEAM>1</OPPOSING_TEAM>",
        "<TEAM_SCORE>1e9999</TEAM_SCORE>",
        "<TEAM_VICTORY_POINTS>x</TEAM_VICTORY_POINTS>",
        "<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>",
        "<BOARD><BOARD_NUMBER>²</BOARD_NUMBER>",
        "<IMPS>3</IMPS>",
        "</BOARD>",
        "<TRAVELLER_LINE>",
        "</TRAVELLER_LINE>",
        "<DIRECTION>NS</DIRECTION>",
        "<DIRECTION>EW</DIRECTION>",
        "<DIRECTION>Q</DIRECTION>",
        "<NS_PAIR_NUMBER>1-1-2</NS_PAIR_NUMBER>",
        "<EW_PAIR_NUMBER>2-1</EW_PAIR_NUMBER>",
        "<CONTRACT>4S</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>10</TRICKS>",
        "<CONTRACT>9S</CONTRACT>",
        "<SCORE>--5</SCORE>",
        "<SCORE>²</SCORE>",
        "<SCORE>A6040</SCORE>",
        '<SECTION SECTION_ID="B">',
        "</SECTION>",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEAM_TAGS, max_size=40))
def test_team_reader_and_scorer_raise_only_event_file_errors(parts: list[str]) -> None:
    with contextlib.suppress(EventFileError):
        event = read_usebio("".join(parts).encode())
        if event.teams is not None:
            team_to_text(score_team_event(event))
