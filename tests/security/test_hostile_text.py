"""M5 of issue 14: hostile names and texts. Control, bidi and other formatting characters are
refused where text enters (TD API, web forms, the table's SetPlayers, the member import, TD
calls, reasons) with a 4xx and nothing changed; the exports escape what each format needs, and
`traveller score` reads Traveller's own exports back with the same names and scores."""

# ruff: noqa: F811  (the server fixtures, imported, are parameters here)
from __future__ import annotations

import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from protocol.text import neutral, refusal
from server.db import transact
from server.models import Audit, Event, Member, Pair, TDCall
from server.services.members import import_members
from tests.server.conftest import Club, client, club, engine, open_club  # noqa: F401
from tests.web.conftest import web_login

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
    assert all("control or formatting" in p for p in report.problems)


def test_the_web_forms_refuse_hostile_names(client: TestClient, club: Club) -> None:
    csrf = web_login(client)
    base = f"/td/s/{club.section_id}"
    pair_id = client.get(f"{base}/players").text.split(f"{base}/pairs/")[1].split('"')[0]
    for data in (
        {"player1": "Anna \u202eneseJ", "player2": "Bo"},
        {"player1": "Anna", "player2": "Bo\x00"},
    ):
        r = client.post(f"{base}/pairs/{pair_id}", data={"csrf": csrf, **data})
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
