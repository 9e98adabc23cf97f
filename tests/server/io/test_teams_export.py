"""A teams section's PBN and USEBIO exports as a team event: each match's two rooms per board under
[HomeTeam]/[VisitTeam], [Round] and [Room], the match results (IMPs, VPs) and the VP ranking.
endplay's PBN reader opens it, and Traveller's reader (`traveller score`) scores it to the TD's
own standings (`services/team_matches.team_table`), mid-session too."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, select
from typer.testing import CliRunner

from server.core.models import Pair, Section, Team
from server.io.formats import load
from server.io.pbn import read_pbn
from server.io.pbn_syntax import quote
from server.io.teamfile import score_team_event
from server.scoring import to_decimal
from server.services.results import exports
from server.services.results.team_matches import TeamTable, team_table
from tests.support.io import score_cli
from tests.support.teams import play, round_robin
from tests.support.web import web_login

pbn = pytest.importorskip("endplay.parsers.pbn")  # the handrecords extra, as `traveller test`

NAMES = {1: "Aces", 2: "Kings of Oslo", 3: 'Queens "Q"', 4: "Jacks"}


def _teams_event(engine: Engine, *, finished: bool, kind: str = "pbn") -> tuple[str, TeamTable]:
    """Four teams, three rounds of two matches (2 boards a round): rounds 1 and 2 played but
    the closed room of match 2 in round 2, or (``finished``) every table of every round; the
    export and the TD's standings."""
    with Session(engine) as s:
        section = round_robin(s, 8)
        for team in s.exec(select(Team)):
            team.name = NAMES[team.number]
            s.add(team)
        for pair in s.exec(select(Pair)):
            pair.player1, pair.player2 = f"Ann {pair.id}", f"Bo {pair.id}"
            s.add(pair)
        play(s, section, 1, 1, "4S", 10)
        play(s, section, 1, 2, "4S", 9)
        play(s, section, 1, 3, "3NT", 8)
        play(s, section, 1, 4, "2H", 8)
        play(s, section, 2, 1, "6NT", 12)
        play(s, section, 2, 2, "3NT", 10)
        play(s, section, 2, 3, "1NT", 7)
        if finished:
            play(s, section, 2, 4, "3S", 10)
            for table, (contract, tricks) in enumerate(
                [("4H", 10), ("4H", 11), ("3NT", 6), ("2S", 8)], 1
            ):
                play(s, section, 3, table, contract, tricks)
        s.commit()
        s.refresh(section)
        table = team_table(s, section)
        made = exports.export(exports.load(s, section), kind)
    return made.content.decode(), table


def _dec(value: Fraction) -> float:
    return float(to_decimal(value, 2))


def _td_ranking(table: TeamTable) -> list[tuple[str, str, float]]:
    return [(table.names[int(str(s.team))], s.place, _dec(s.vp)) for s in table.standings]


def _td_matches(table: TeamTable) -> set[tuple[str, str, str, int, float, float, float, float]]:
    return {
        (
            str(m.round),
            table.names[m.home],
            table.names[m.away],
            m.result.boards,
            _dec(m.result.home_margin),
            _dec(m.result.away_margin),
            _dec(m.result.home_vp),
            _dec(m.result.away_vp),
        )
        for m in table.matches
        if m.result is not None
    }


def _file_matches(matches: list[dict[str, Any]]) -> set[tuple[Any, ...]]:
    return {
        (
            m["stage"],
            m["home"],
            m["away"],
            m["boards"],
            m["home_imps"],
            m["away_imps"],
            m["home_vp"],
            m["away_vp"],
        )
        for m in matches
        if m["boards"]  # a match with no board in both rooms yet: listed, without a result
    }


@pytest.mark.parametrize("finished", [True, False], ids=["finished", "mid-session"])
def test_a_teams_export_rescores_to_the_tds_standings(
    engine: Engine, client: TestClient, tmp_path: Path, finished: bool
) -> None:
    text, table = _teams_event(engine, finished=finished)
    assert len([m for m in table.matches if m.result is not None]) == (6 if finished else 3)

    boards = pbn.loads(text)  # endplay opens every table's game
    games = [(b.board_num, b.info["HomeTeam"], b.info["VisitTeam"], b.info["Room"]) for b in boards]
    assert len(games) == (24 if finished else 14)  # 2 boards at each table that played
    # endplay keeps a tag's PBN escapes (\\" for a quote) in the value it gives.
    escaped = {quote(name)[1:-1] for name in NAMES.values()}
    assert {g[1] for g in games} | {g[2] for g in games} == escaped
    assert {g[3] for g in games} == {"Open", "Closed"}
    assert boards[0].info["Competition"] == "Teams"
    # Each game names the four players at its table, as the TD's pairs give them.
    assert all(b.info["North"].startswith("Ann ") for b in boards)
    assert all(b.info["West"].startswith("Bo ") for b in boards)

    event = read_pbn(text)
    assert event.refused == []
    assert event.teams is not None
    assert event.provisional is not finished
    report = score_team_event(event)
    ranking = [(str(s.team), s.place, _dec(s.vp)) for s in report.standings]
    assert ranking == _td_ranking(table)

    path = tmp_path / "teams.pbn"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(score_cli(), ["score", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    scored = json.loads(result.stdout)
    assert scored["method"] == "teams"
    assert [(t["team"], t["place"], t["vp"]) for t in scored["teams"]] == _td_ranking(table)
    assert _file_matches(scored["matches"]) == _td_matches(table)
    # What the file published for each match (IMPs won by each team, VPs) is the TD's figure.
    published = {
        (m["stage"], m["home"], m["away"]): m["published"] for m in scored["matches"] if m["boards"]
    }
    assert published == {
        (str(m.round), table.names[m.home], table.names[m.away]): {
            "home_score": _dec(m.result.home_won),
            "away_score": _dec(m.result.away_won),
            "home_vp": _dec(m.result.home_vp),
            "away_vp": _dec(m.result.away_vp),
        }
        for m in table.matches
        if m.result is not None
    }
    # And its ranking ([TotalScoreTable]): each team's place and VPs as the TD ranks them.
    assert [
        (e.team, e.published_place, float(e.published_total or 0)) for e in event.teams.entries
    ] == (_td_ranking(table))


@pytest.mark.parametrize("finished", [True, False], ids=["finished", "mid-session"])
def test_a_teams_usebio_export_rescores_to_the_tds_standings(
    engine: Engine, client: TestClient, tmp_path: Path, finished: bool
) -> None:
    text, table = _teams_event(engine, finished=finished, kind="usebio")
    assert "<MATCH>" in text
    assert 'EVENT_TYPE="TEAMS"' in text
    path = tmp_path / "teams.xml"
    path.write_text(text, encoding="utf-8")
    event = load(path)
    assert event.refused == []
    assert event.teams is not None
    assert event.provisional is not finished
    result = CliRunner().invoke(score_cli(), ["score", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    scored = json.loads(result.stdout)
    assert scored["method"] == "teams"
    # The file names each team by its number (TEAM_ID) and gives its name (TEAM_NAME).
    names = {t["team"]: t["name"] for t in scored["teams"]}
    assert [(t["name"], t["place"], t["vp"]) for t in scored["teams"]] == _td_ranking(table)
    matches = [{**m, "home": names[m["home"]], "away": names[m["away"]]} for m in scored["matches"]]
    assert _file_matches(matches) == _td_matches(table)
    assert {(m["stage"], m["home"], m["away"]): m["published"] for m in matches} == {
        (str(m.round), table.names[m.home], table.names[m.away]): {
            "home_score": _dec(m.result.home_won),
            "away_score": _dec(m.result.away_won),
            "home_vp": _dec(m.result.home_vp),
            "away_vp": _dec(m.result.away_vp),
        }
        for m in table.matches
        if m.result is not None
    }
    ranking = [
        (e.name, e.published_place, float(e.published_total or 0)) for e in event.teams.entries
    ]
    assert ranking == _td_ranking(table)


def _three_teams(engine: Engine, kind: str) -> tuple[str, TeamTable]:
    """Three teams in a round robin (a bye each round): round 1 played in both rooms, round 2
    in one room only; the section exported as ``kind``, and the TD's standings."""
    with Session(engine) as s:
        section = round_robin(s, 6)
        for team in s.exec(select(Team)):
            team.name = NAMES[team.number]
            s.add(team)
        play(s, section, 1, 1, "4S", 10)
        play(s, section, 1, 2, "4S", 8)
        play(s, section, 2, 1, "3NT", 9)  # round 2: one room only, no board counts yet
        s.commit()
        s.refresh(section)
        table = team_table(s, section)
        text = exports.export(exports.load(s, section), kind).content.decode()
    assert set(table.byes) == {1, 2, 3}
    return text, table


def test_a_bye_is_written_and_scored_as_the_td_scores_it(
    engine: Engine, client: TestClient, tmp_path: Path
) -> None:
    """Three teams: each round one team has the bye, and the TD gives it the bye's VPs once the
    round has a match under way; the PBN file says who had it, and its reader does the same."""
    text, table = _three_teams(engine, "pbn")
    assert len([m for m in table.matches if m.result is not None]) == 1
    event = read_pbn(text)
    assert event.refused == []
    report = score_team_event(event)
    ranking = [(str(s.team), s.place, _dec(s.vp)) for s in report.standings]
    assert ranking == _td_ranking(table)
    assert ("1", table.names[table.byes[1]]) in [(b.stage, b.team) for b in event.teams.byes]


def test_a_bye_in_a_usebio_export_is_scored_as_the_td_scores_it(
    engine: Engine, client: TestClient, tmp_path: Path
) -> None:
    """The same three teams in USEBIO: the bye is a MATCH of one team and no board, and the
    reader gives that team the bye's VPs once its round is under way, as the TD does."""
    text, table = _three_teams(engine, "usebio")
    path = tmp_path / "teams.xml"
    path.write_text(text, encoding="utf-8")
    event = load(path)
    assert event.refused == []
    assert event.teams is not None
    assert len(event.teams.byes) == 3
    result = CliRunner().invoke(score_cli(), ["score", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    scored = json.loads(result.stdout)
    assert [(t["name"], t["place"], t["vp"]) for t in scored["teams"]] == _td_ranking(table)


def _teams_section(engine: Engine, *, finished: bool) -> tuple[int, TeamTable, dict[int, str]]:
    """The four teams of ``_teams_event``; the section's id, the TD's standings and each team's
    members as the TD named its pairs ("Ann 1 & Bo 1; Ann 5 & Bo 5")."""
    _teams_event(engine, finished=finished)
    with Session(engine) as s:
        section = s.exec(select(Section)).one()
        table = team_table(s, section)
        pairs = sorted(s.exec(select(Pair)), key=lambda p: (p.number, p.direction or ""))
    members: dict[int, list[str]] = {}
    for pair in pairs:
        members.setdefault(pair.number, []).append(f"{pair.player1} & {pair.player2}")
    return section.id or 0, table, {n: "; ".join(names) for n, names in members.items()}


def _csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.mark.parametrize("finished", [True, False], ids=["finished", "mid-session"])
def test_a_teams_ranking_csv_lists_the_tds_team_standings(
    engine: Engine, client: TestClient, finished: bool
) -> None:
    section_id, table, members = _teams_section(engine, finished=finished)
    won: dict[int, Fraction] = {}
    lost: dict[int, Fraction] = {}
    for m in table.matches:
        if m.result is None:
            continue
        for team, plus, minus in (
            (m.home, m.result.home_won, m.result.home_lost),
            (m.away, m.result.away_won, m.result.away_lost),
        ):
            won[team] = won.get(team, Fraction(0)) + plus
            lost[team] = lost.get(team, Fraction(0)) + minus
    web_login(client)
    response = client.get(f"/td/s/{section_id}/publish/export/ranking")
    assert response.status_code == 200
    text = response.text
    assert text.splitlines()[0] == "place,section,number,team,members,vp,imps_won,imps_lost,matches"
    assert [tuple(row.values()) for row in _csv(text)] == [
        (
            s.place,
            "A",
            str(s.team),
            table.names[int(str(s.team))],
            members[int(str(s.team))],
            f"{_dec(s.vp):.2f}",
            f"{_dec(won[int(str(s.team))]):.2f}",
            f"{_dec(lost[int(str(s.team))]):.2f}",
            str(s.matches),
        )
        for s in table.standings
    ]


@pytest.mark.parametrize("finished", [True, False], ids=["finished", "mid-session"])
def test_a_teams_travellers_csv_gives_both_rooms_and_the_home_teams_imps(
    engine: Engine, client: TestClient, finished: bool
) -> None:
    section_id, table, _ = _teams_section(engine, finished=finished)
    web_login(client)
    response = client.get(f"/td/s/{section_id}/publish/export/travellers")
    assert response.status_code == 200
    text = response.text
    assert text.splitlines()[0] == (
        "section,board,round,table,room,home,away,contract,declarer,tricks,score,home_imps,"
        "north,east,south,west,event"
    )
    rows = _csv(text)
    assert len(rows) == (24 if finished else 14)  # every table that played, 2 boards each
    assert {row["room"] for row in rows} == {"Open", "Closed"}
    # Each room's table and seating: the open room at the odd table seats the home team N/S.
    assert all(int(row["table"]) % 2 == (row["room"] == "Open") for row in rows)
    assert all(row["north"].startswith("Ann ") and row["west"].startswith("Bo ") for row in rows)
    for m in table.matches:
        home, away = table.names[m.home], table.names[m.away]
        match = (str(m.round), home, away)
        played = [r for r in rows if (r["round"], r["home"], r["away"]) == match]
        if m.result is None:
            assert all(r["home_imps"] == "" for r in played)  # one room only: no IMPs yet
            continue
        counted = {r["board"]: Fraction(r["home_imps"]) for r in played if r["home_imps"]}
        assert len(counted) == m.result.boards
        assert [r["home_imps"] for r in played if r["room"] == "Closed"] == [
            r["home_imps"] for r in played if r["room"] == "Open"
        ]  # a board's IMPs, given on both rooms' rows
        assert sum(counted.values()) == m.result.home_won - m.result.away_won
