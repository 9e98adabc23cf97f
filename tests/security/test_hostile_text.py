"""M5 of issue 14: hostile names and texts. Control, bidi and other formatting characters are
refused where text enters (TD API, web forms, the table's SetPlayers, the member import, TD
calls, reasons) with a 4xx and nothing changed; the exports escape what each format needs, and
`traveller score` reads Traveller's own exports back with the same names and scores."""

# ruff: noqa: F811  (the server fixtures, imported, are parameters here)
from __future__ import annotations

import csv
import io
import json
import uuid
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select
from typer.testing import CliRunner

from protocol.text import neutral, refusal
from server.core.db import transact
from server.core.models import Audit, Event, Member, Pair, TDCall
from server.io.cli import app as score_app
from server.services.event import setup
from server.services.event.members import import_members
from server.services.results import exports, standings
from tests.support.api import Club, client, club, engine, open_club  # noqa: F401 (fixtures)
from tests.support.web import web_login

REFUSED = {
    "NUL": "Anna\x00Jensen",
    "ESC": "\x1b[31mAnna",
    "DEL": "Anna\x7f",
    "C1 CSI": "Anna\x9b31m",
    "RLO": "Anna \u202eneseJ",
    "LRE": "\u202aAnna",
    "PDF": "Anna\u202c",
    "RLI": "Anna \u2067x\u2069",
    "FSI": "\u2068Anna",
    "zero-width space": "An\u200bna",
    "BOM": "\ufeffAnna",
    "right-to-left mark": "Anna\u200f",
    "line feed": "Anna\nJensen",
    "carriage return": "Anna\rJensen",
    "tab": "Anna\tJensen",
    "line separator": "Anna\u2028Jensen",
    "non-character": "Anna\ufffe",
}
TAKEN = [
    "Ærø Østergård",
    "Łukasz Żółć",
    "Иван Петров",
    "李小龍",
    "مریم‌خانم",  # a zero-width non-joiner, as Persian writes it
    '=HYPERLINK("http://x","y")',  # taken as typed; the CSV export neutralises it
    'O"Brien \\ Back',
    '[Event "fake"]',
]


@pytest.mark.parametrize("text", REFUSED.values(), ids=REFUSED.keys())
def test_the_rule_refuses_control_bidi_and_format_characters(text: str) -> None:
    assert refusal(text) is not None
    cleaned = neutral(text)
    assert refusal(cleaned) is None
    assert "Anna" in cleaned


@pytest.mark.parametrize("text", TAKEN)
def test_the_rule_takes_names_in_every_script(text: str) -> None:
    assert refusal(text) is None
    assert neutral(text) == text


def _names(club: Club, number: int = 1, direction: str = "NS") -> tuple[str, str]:
    def read(s: Session) -> tuple[str, str]:
        pair = s.exec(
            select(Pair).where(
                Pair.section_id == club.section_id,
                Pair.number == number,
                Pair.direction == direction,
            )
        ).one()
        return pair.player1, pair.player2

    return transact(club.engine, read)


def _refused(r: Any) -> dict[str, Any]:
    assert r.status_code == 422, r.text
    body: dict[str, Any] = r.json()
    assert body["type"] == "error"
    assert body["code"] in ("invalid_request", "invalid_message", "invalid_text")
    assert body["message"]
    return body


@pytest.mark.parametrize("text", REFUSED.values(), ids=REFUSED.keys())
def test_the_td_api_refuses_a_hostile_pair_name(club: Club, text: str) -> None:
    path = f"/api/v1/sections/{club.section_id}/pairs/1NS"
    ok = club.td("PUT", path, json={"player1": "Anna Jensen", "player2": "Bo Nielsen"})
    assert ok.status_code == 200, ok.text
    _refused(club.td("PUT", path, json={"player1": text, "player2": "Bo Nielsen"}))
    _refused(club.td("PUT", path, json={"player1": "Anna", "player2": "Bo", "member1": text}))
    assert _names(club) == ("Anna Jensen", "Bo Nielsen")


def test_the_td_api_refuses_hostile_event_names_and_reasons(club: Club) -> None:
    _refused(club.td("POST", "/api/v1/events", json={"name": "Monday \u202epairs"}))
    _refused(club.td("PATCH", f"/api/v1/events/{club.event_id}", json={"name": "a\nb"}))
    names = transact(club.engine, lambda s: [e.name for e in s.exec(select(Event))])
    assert names == ["Monday pairs"]
    club.start_round(1)
    body = {"table": 1, "round": 1, "board": 1, "reason": "fouled\x00board"}
    _refused(club.td("POST", f"/api/v1/sections/{club.section_id}/results/not-played", json=body))
    body |= {"ns_percent": 60, "ew_percent": 40, "reason": "\u2066x"}
    _refused(club.td("POST", f"/api/v1/sections/{club.section_id}/results/adjust", json=body))
    results = club.td("GET", f"/api/v1/sections/{club.section_id}/results").json()
    assert all(r["state"] not in ("not_played", "adjusted") for r in results)


def test_the_table_cannot_name_a_visitor_with_control_characters(club: Club) -> None:
    club.td("PATCH", f"/api/v1/events/{club.event_id}", json={"player_numbers": "first_round"})
    club.start_round(1)
    table = club.pair(1)
    for text in ("Vera\x1b[2J", "Vera \u202eaneV", "Vera\nVisitor"):
        r = table.send(
            {
                "type": "set_players",
                "entry_id": str(uuid.uuid4()),
                "seat": "NS",
                "players": [{"name": text}, {"name": "Bo"}],
            }
        )
        _refused(r)
    assert _names(club) == ("", "")
    r = table.send({"type": "call_td", "entry_id": str(uuid.uuid4()), "reason": "help\u202e!pleh"})
    _refused(r)
    assert transact(club.engine, lambda s: list(s.exec(select(TDCall)))) == []
    ok = table.send(
        {
            "type": "set_players",
            "entry_id": str(uuid.uuid4()),
            "seat": "NS",
            "players": [{"name": "Łukasz Żółć"}, {"name": "Ærø Østergård"}],
        }
    )
    assert ok.status_code == 200, ok.text
    assert _names(club) == ("Łukasz Żółć", "Ærø Østergård")


def test_the_member_import_skips_hostile_lines(club: Club) -> None:
    text = 'number,name\n101,Anna Jensen\n102,Bo\x1bNielsen\n103,"Cai\nDahl"\n104,\u202eX\n'
    with Session(club.engine) as s:
        report = import_members(s, text)
        s.commit()
        stored = {m.number: m.name for m in s.exec(select(Member))}
    assert stored == {"101": "Anna Jensen"}
    assert report.added == 1
    assert len(report.problems) == 3
    assert all("control or formatting" in str(p) for p in report.problems)


def test_the_web_forms_refuse_hostile_names(client: TestClient, club: Club) -> None:
    csrf = web_login(client)
    base = f"/td/s/{club.section_id}"
    page = client.get(f"{base}/players").text
    pair_id = page.split('name="player1_')[1].split('"')[0]
    for data in (
        {"player1": "Anna \u202eneseJ", "player2": "Bo"},
        {"player1": "Anna", "player2": "Bo\x00"},
    ):
        fields = {f"{key}_{pair_id}": value for key, value in data.items()}
        r = client.post(f"{base}/pairs", data={"csrf": csrf, **fields})
        assert r.status_code == 200
        assert "flash-error" in r.text
        assert "control or formatting character" in r.text
    r = client.post("/td/events", data={"csrf": csrf, "name": "Friday\x1b", "tables": "4"})
    assert "flash-error" in r.text
    r = client.post(
        f"{base}/penalties/deduct",
        data={"csrf": csrf, "pair": "1NS", "times": "1", "reason": "slow\u202eplay"},
    )
    assert "flash-error" in r.text
    audit = transact(
        club.engine, lambda s: list(s.exec(select(Audit).where(Audit.action == "pair_names")))
    )
    assert audit == []
    names = transact(club.engine, lambda s: [e.name for e in s.exec(select(Event))])
    assert names == ["Monday pairs"]


# --- exports: escaped for each format, and read back by `traveller score` ------------------

HOSTILE_NAMES = {
    ("1", "NS"): ('=HYPERLINK("http://x","y")', "+1"),
    ("2", "NS"): ("@SUM(A1)", 'O"Brien \\ Back\\'),
    ("3", "NS"): ("]", '[Event "fake"]'),
    ("1", "EW"): ("Ærø Østergård", "Łukasz Żółć"),
    ("2", "EW"): ("Иван Петров", "-5; not a comment {nor this}"),
}
LEGACY = ('Anna\nJensen\r\n[Event "fake"]', "Bo\x1b[31m Nielsen\u202e\x07")
"""Pair 3 E/W, stored straight into the database as a row from before the input check (no NUL:
PostgreSQL never stored one)."""
PLAYS = [("3NT", "N", 10), ("4S", "S", 9), ("2H", "E", 8), ("3NTX", "W", 7), ("1C", "N", 7)]


@pytest.fixture
def hostile(client: TestClient, engine: Any) -> Club:
    """A 3-table Mitchell played to the end by pairs with hostile (and one legacy) names."""
    club = open_club(client, engine, tables=3, bpr=2)
    for (number, direction), (first, second) in HOSTILE_NAMES.items():
        r = club.td(
            "PUT",
            f"/api/v1/sections/{club.section_id}/pairs/{number}{direction}",
            json={"player1": first, "player2": second},
        )
        assert r.status_code == 200, r.text

    def legacy(s: Session) -> None:
        pair = s.exec(
            select(Pair).where(
                Pair.section_id == club.section_id, Pair.number == 3, Pair.direction == "EW"
            )
        ).one()
        pair.player1, pair.player2 = LEGACY
        s.add(pair)

    transact(engine, legacy)
    tables = [club.pair(n) for n in (1, 2, 3)]
    played = 0
    for round_ in (1, 2, 3):
        club.start_round(round_)
        for table in tables:
            if round_ > 1:
                table.send({"type": "next_round"})
            for board in table.round()["boards"]:
                contract, declarer, tricks = PLAYS[played % len(PLAYS)]
                played += 1
                ack = table.enter(board["board"], contract, declarer, tricks).json()
                table.confirm(board["board"], ack["result"]["version"])
    return club


def _expected_names() -> dict[str, tuple[str, ...]]:
    names = {f"{n}{d}": pair for (n, d), pair in HOSTILE_NAMES.items()}
    names["3EW"] = tuple(neutral(name) for name in LEGACY)
    return names


EXPORTS = [("pbn", ".pbn"), ("usebio", ".xml"), ("travellers", ".csv")]


@pytest.mark.parametrize(("kind", "suffix"), EXPORTS, ids=[k for k, _ in EXPORTS])
def test_traveller_score_reads_its_own_exports_back(
    hostile: Club, tmp_path: Any, kind: str, suffix: str
) -> None:
    """The export of an event with hostile names, read by `traveller score`: the same names
    (a legacy name made single-line and clean) and the same totals as the live ranking."""
    data = transact(
        hostile.engine, lambda s: standings.load(s, setup.get_section(s, hostile.section_id))
    )
    live = {line.pair.key: line.total for line in standings.rank(data, public=False).lines}
    assert len(live) == 6
    made = exports.export(data, kind)
    path = tmp_path / f"export{suffix}"
    path.write_bytes(made.content)
    result = CliRunner().invoke(score_app, [str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    pairs = {f"{p['number']}{p['direction']}": p for p in json.loads(result.stdout)["pairs"]}
    assert {key: tuple(p["names"]) for key, p in pairs.items()} == _expected_names()
    assert {key: p["total"] for key, p in pairs.items()} == {
        key: float(total) for key, total in live.items()
    }


def test_the_exports_neutralise_what_each_format_needs(hostile: Club) -> None:
    data = transact(
        hostile.engine, lambda s: standings.load(s, setup.get_section(s, hostile.section_id))
    )
    for kind in ("travellers", "ranking"):
        text = exports.export(data, kind).content.decode()
        cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
        names = [c for c in cells if any(ch.isalpha() for ch in c) and c[:1] in "=+-@'"]
        assert names, kind
        assert all(c.startswith("'") for c in names), names  # no cell starts a formula
        assert "\x1b" not in text
        assert "\u202e" not in text
    pbn = exports.export(data, "pbn").content.decode()
    tags = [line for line in pbn.splitlines() if line.startswith("[")]
    assert sum(line.startswith("[Event ") for line in tags) == 6  # one a board, no fake one
    assert all(line.endswith("]") for line in tags)
    assert neutral(LEGACY[0]) == 'Anna Jensen [Event "fake"]'
    assert neutral(LEGACY[1]) == "Bo[31m Nielsen"
    assert '"Anna Jensen [Event \\"fake\\"] - Bo[31m Nielsen"' in pbn
    assert "\x1b" not in pbn
    usebio = exports.export(data, "usebio").content
    root = ET.fromstring(usebio)  # well-formed XML 1.0
    players = [p.text for p in root.iter("PLAYER_NAME")]
    assert 'Anna Jensen [Event "fake"]' in players
    assert '=HYPERLINK("http://x","y")' in players


def test_the_board_forms_refuse_a_hostile_reason(client: TestClient, club: Club) -> None:
    csrf = web_login(client)
    url = f"/td/s/{club.section_id}/tables/1/rounds/1/boards/1"
    for reason in ("fouled\u202eboard", "fouled\nboard", "\x1b[2J"):
        r = client.post(f"{url}/not-played", data={"csrf": csrf, "reason": reason})
        assert "flash-error" in r.text
    r = client.post(f"{url}/not-played", data={"csrf": csrf, "reason": "no time"})
    assert "marked not played" in r.text
    results = club.td("GET", f"/api/v1/sections/{club.section_id}/results").json()
    assert [r["state"] for r in results if r["board"] == 1 and r["table"] == 1] == ["not_played"]


def test_traveller_score_never_prints_a_files_control_characters(tmp_path: Any) -> None:
    """A foreign file's names reach the TD's terminal cleaned: no ESC sequence (which could
    retitle or clear the terminal), no bidi override."""
    path = tmp_path / "foreign.pbn"
    path.write_text(
        '[Event "Club\x1b]0;owned\x07 night"]\n[Board "1"]\n[Dealer "N"]\n[Vulnerable "None"]\n'
        '[TotalScoreTable "Rank\\2R;PairId\\2R;Names\\40L"]\n'
        '1 1 "Anna\u202e - \x1b[2JBo"\n2 2 "Cai - Dag"\n'
        '[ScoreTable "PairId_NS\\2R;PairId_EW\\2R;Contract\\5L;Declarer\\1R;Result\\2R"]\n'
        "1 2 3NT N 9\n"
    )
    result = CliRunner().invoke(score_app, [str(path)])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output
    assert "\u202e" not in result.output
    assert "Club]0;owned night" in result.output
    assert "Anna & [2JBo" in result.output
