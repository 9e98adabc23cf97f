"""Exports made mid-session (2 of 5 rounds played) say they are provisional inside the file
and over how many tables each board is scored (the movement's 5, as the live ranking: boards
played twice are factored up, § X78B), so the figures they carry are the live ranking's and
the ones `traveller score` of the same file gives: every pair's total and percentage (PBN,
USEBIO) and every line's matchpoints (PBN)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from decimal import Decimal

import pytest
from fastapi.testclient import TestClient

from server.io.pbn import read_pbn
from server.io.pbn_syntax import split_games, table_rows
from server.io.scorefile import score_event
from server.io.usebio import read_usebio
from tests.support.api import Club
from tests.support.web import web_login


def _play_two_rounds(club: Club) -> None:
    tables = [club.pair(n) for n in range(1, 6)]
    for round_ in (1, 2):
        if round_ == 2:
            club.start_round(2)
            for t in tables:
                assert t.send({"type": "next_round"}).json()["round"] == 2
        for number, t in enumerate(tables, start=1):
            for b in t.round()["boards"]:
                tricks = 8 + (number + b["board"] + round_) % 4  # results that differ
                ack = t.enter(b["board"], "4S", "S", tricks).json()
                assert t.confirm(b["board"], ack["result"]["version"]).status_code == 200


def _two(value: object) -> Decimal:
    return Decimal(f"{float(value):.2f}")  # type: ignore[arg-type]


Figures = dict[tuple[str | None, int], tuple[Decimal, Decimal]]


def _live(club: Club) -> Figures:
    """The TD's live ranking: (direction, pair) -> (total, percentage)."""
    ranking = club.td("GET", f"/api/v1/sections/{club.section_id}/ranking").json()
    return {
        (line["pair"]["direction"], line["pair"]["number"]): (
            _two(line["total"]),
            _two(line["percentage"]),
        )
        for group in ranking["groups"]
        for line in group["lines"]
    }


@pytest.fixture
def exported(client: TestClient, club: Club) -> dict[str, bytes]:
    web_login(client)
    _play_two_rounds(club)
    files = {}
    for kind in ("pbn", "usebio"):
        r = client.get(f"/td/s/{club.section_id}/publish/export/{kind}")
        assert r.status_code == 200
        files[kind] = r.content
    return files


@pytest.fixture
def live(exported: dict[str, bytes], club: Club) -> Figures:
    return _live(club)


def test_the_pbn_export_says_provisional_and_rescores_to_its_figures(
    exported: dict[str, bytes], live: Figures
) -> None:
    text = exported["pbn"].decode()
    games = split_games(text)
    assert games[0].tags["Provisional"] == "Yes"
    assert games[0].tags["TablesPerBoard"] == "5"
    endplay = pytest.importorskip("endplay.parsers.pbn")  # another program's reader opens it
    assert len(endplay.loads(text)) == len(games)
    event = read_pbn(text)
    assert event.provisional
    assert any("provisional" in note for note in event.notes)
    report = score_event(event)
    written = {
        (row["Direction"], int(row["PairId"])): (
            _two(row["TotalScoreMP"]),
            _two(row["TotalPercentage"]),
        )
        for _, row in table_rows(games[0], "TotalScoreTable")
    }
    rescored = {
        (p.direction, p.key.number): (_two(p.total), _two(p.percentage)) for p in report.pairs
    }
    assert written == rescored == live
    assert len(written) == 10
    lines = {
        (b.board, row.ns.number): _two(row.ns_value)
        for b in report.boards
        for row in b.rows
        if row.ns is not None and row.ns_value is not None
    }
    in_file = {
        (int(game.tags["Board"]), int(row["PairId_NS"])): _two(row["MP_NS"])
        for game in games
        if "ScoreTable" in game.tags
        for _, row in table_rows(game, "ScoreTable")
    }
    assert in_file == lines
    assert len(lines) == 30  # 15 boards, each played twice


def test_the_usebio_export_says_provisional_and_rescores_to_its_figures(
    exported: dict[str, bytes], live: Figures
) -> None:
    data = exported["usebio"]
    assert b"<!-- provisional:" in data
    assert b'<?traveller provisional="yes" tables-per-board="5"?>' in data
    root = ET.fromstring(data)
    written = {
        (pair.findtext("DIRECTION"), int(pair.findtext("PAIR_NUMBER") or 0)): (
            _two(pair.findtext("TOTAL_SCORE")),
            _two(pair.findtext("PERCENTAGE")),
        )
        for pair in root.iter("PAIR")
    }
    report = score_event(read_usebio(data))
    rescored = {
        (p.key.direction, p.key.number): (_two(p.total), _two(p.percentage)) for p in report.pairs
    }
    assert written == rescored == live
    assert len(written) == 10
