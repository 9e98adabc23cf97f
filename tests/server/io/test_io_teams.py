"""Team events from PBN: both rooms of each match paired, IMPs and VPs, and `traveller score`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from server.io import EventFileError
from server.io.cli import app as io_app
from server.io.formats import load
from server.io.pbn import read_pbn
from server.io.teamfile import pair_rooms, score_team_event, team_to_csv, team_to_json
from server.scoring import victory_points

runner = CliRunner()

REALBRIDGE = "endplay-realbridge/example2_realbridge_2021_online_qual_open_R2.pbn"

# A two-board match in the PBN 2.1 export shape (as EBL/WBF files write it): [Room] tells the
# rooms apart and "#" repeats the previous game's value.
ROOMS_PBN = """% PBN 2.1
[Event "Club teams"]
[Date "2024.02.01"]
[Board "1"]
[Round "1"]
[HomeTeam "Home"]
[VisitTeam "Away"]
[Room "Open"]
[Contract "4S"]
[Declarer "N"]
[Result "10"]

[Board "1"]
[Round "#"]
[HomeTeam "#"]
[VisitTeam "#"]
[Room "Closed"]
[Contract "4S"]
[Declarer "N"]
[Result "9"]

[Board "2"]
[Round "1"]
[HomeTeam "Home"]
[VisitTeam "Away"]
[Room "Open"]
[Contract "3NT"]
[Declarer "S"]
[Result "9"]

[Board "2"]
[Round "1"]
[HomeTeam "Home"]
[VisitTeam "Away"]
[Room "Closed"]
[Contract "3NT"]
[Declarer "S"]
[Result "10"]
"""


def test_rooms_pbn_two_boards_home_10_minus_1_is_9_imps_16_4_vp() -> None:
    # Board 1: open N/S (Home) 4S= +420, closed N/S (Away) 4S-1 -50: IMP(470) = +10 Home.
    # Board 2 (N/S vulnerable): open 3NT= +600, closed 3NT+1 +630: IMP(-30) = -1 Home.
    # Home 10-1, net +9 over 2 boards: WBF VP 16.00-4.00.
    report = score_team_event(read_pbn(ROOMS_PBN))
    (match,) = report.matches
    assert (match.home, match.away, match.stage) == ("Home", "Away", "1")
    assert [p.home_imps for p in match.boards] == [10, -1]
    result = match.result
    assert (result.home_won, result.home_lost, result.boards) == (10, 1, 2)
    assert (result.home_vp, result.away_vp) == (16, 4) == victory_points(9, 2)
    assert [(s.team, s.place, s.vp) for s in report.standings] == [
        ("Home", "1", 16),
        ("Away", "2", 4),
    ]


def test_closed_room_seats_the_visiting_team_north_south() -> None:
    event = read_pbn(ROOMS_PBN)
    assert event.teams is not None
    closed = [ln for ln in event.teams.lines if ln.room == "Closed"]
    assert {(ln.ns_team, ln.ew_team) for ln in closed} == {("Away", "Home")}


def test_realbridge_rooms_without_room_tags_pair_by_the_seated_teams(data_dir: Path) -> None:
    # RealBridge names each table's own N/S team as [HomeTeam]: the two tables of a match name
    # the teams the other way round. Every IMP figure must equal the file's [ScoreIMP].
    event = load(data_dir / REALBRIDGE)
    assert event.teams is not None
    matches = pair_rooms(event.teams.lines)
    assert len(matches) == 15
    compared = 0
    for _stage, _home, _away, plays in matches:
        for play in plays:
            if play.home_imps is None:
                continue
            assert play.open is not None
            assert play.closed is not None
            assert play.open.published_ns_imps == play.home_imps
            assert play.closed.published_ns_imps == -play.home_imps
            compared += 1
    assert compared == 149  # 150 boards less SWITZERLAND's board with one table only
    report = score_team_event(event)
    for match in report.matches:
        result = match.result
        assert result.home_vp + result.away_vp == 20
        assert result.home_margin == sum(p.home_imps or 0 for p in match.boards)
    counts = sorted(m.result.boards for m in report.matches)
    assert counts == [9] + [10] * 14


def test_same_team_north_south_at_both_tables_without_room_is_refused() -> None:
    text = ROOMS_PBN.replace('[Room "Open"]\n', "").replace('[Room "Closed"]\n', "")
    with pytest.raises(EventFileError, match="both tables seat Home N/S"):
        score_team_event(read_pbn(text))


def test_an_unknown_room_refuses_its_table_and_the_rest_is_read() -> None:
    event = read_pbn(ROOMS_PBN.replace('[Room "Closed"]', '[Room "Kitchen"]', 1))
    (refused,) = event.refused
    lines = ROOMS_PBN.splitlines()
    closed_board_line = lines.index('[Board "1"]', lines.index('[Board "1"]') + 1) + 1
    assert (refused.line, refused.board) == (closed_board_line, 1)  # the game's [Board] line
    assert "[Room 'Kitchen'] is neither Open nor Closed" in refused.reason
    assert event.teams is not None
    assert len(event.teams.lines) == 3  # board 1's closed room left out
    report = score_team_event(event)
    (match,) = report.matches
    assert match.result.boards == 1  # board 1 has one table and leaves the match (§ 202B2)


def test_a_bad_contract_refuses_its_table_and_names_it() -> None:
    event = read_pbn(ROOMS_PBN.replace('[Contract "3NT"]', '[Contract "8NT"]', 1))
    (refused,) = event.refused
    assert refused.board == 2
    assert refused.line == ROOMS_PBN.splitlines().index('[Contract "3NT"]') + 1
    assert event.teams is not None
    assert len(event.teams.lines) == 3


def test_a_pairs_file_has_no_team_event(data_dir: Path) -> None:
    event = load(data_dir / "io" / "howell_2_tables.pbn")
    assert event.teams is None
    with pytest.raises(EventFileError, match="no team matches"):
        score_team_event(event)


def test_traveller_score_on_a_team_file_prints_the_vp_ranking(tmp_path: Path) -> None:
    path = tmp_path / "teams.pbn"
    path.write_text(ROOMS_PBN)
    result = runner.invoke(io_app, [str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["method"] == "teams"
    assert [(t["team"], t["vp"], t["imps_won"], t["imps_lost"]) for t in data["teams"]] == [
        ("Home", 16.0, 10.0, 1.0),
        ("Away", 4.0, 1.0, 10.0),
    ]
    assert [r["home_imps"] for r in data["matches"][0]["results"]] == [10.0, -1.0]
    text = runner.invoke(io_app, [str(path)])
    assert "Home v Away (1): IMPs 10.00-1.00 over 2 boards, VP 16.00-4.00" in text.stdout
    integer = runner.invoke(io_app, [str(path), "--format", "json", "--integer-vp"])
    assert json.loads(integer.stdout)["vp_scale"] == "integer"


def test_team_csv_ranking() -> None:
    report = score_team_event(read_pbn(ROOMS_PBN))
    assert team_to_csv(report).splitlines() == [
        "place,team,vp,imps_won,imps_lost,matches",
        "1,Home,16.00,10.00,1.00,1",
        "2,Away,4.00,1.00,10.00,1",
    ]
    assert team_to_json(report)["matches"][0]["boards"] == 2


def test_a_pairs_method_still_scores_a_team_file_as_pairs(data_dir: Path) -> None:
    result = runner.invoke(
        io_app, [str(data_dir / REALBRIDGE), "--method", "imps", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["method"] == "imps"


def test_traveller_score_reads_the_rest_of_a_team_file_and_names_the_bad_table(
    tmp_path: Path,
) -> None:
    path = tmp_path / "teams.pbn"
    path.write_text(ROOMS_PBN.replace('[Contract "3NT"]', '[Contract "8NT"]', 1))
    result = runner.invoke(io_app, [str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert "3 lines read, 1 refused:" in result.stderr
    assert "board 2: '8' in '8NT' is not a contract level" in result.stderr
    data = json.loads(result.stdout)
    assert data["matches"][0]["boards"] == 1  # board 2 has one table left and leaves the match
    strict = runner.invoke(io_app, [str(path), "--strict"])
    assert strict.exit_code == 1
    assert "lines refused (--strict)" in strict.stderr
