"""The TD console's actions as JSON: each route does what the console's form does (the same
service), refuses what it refuses with the same code and message, audits the same, and a
refusal changes nothing."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from server.core.models import Audit, Board, Member, Result, Sanction, Section, utcnow
from server.services.event import uploads
from tests.support.api import Club, open_club
from tests.support.app_factory import AppFactory
from tests.support.env import ROOT
from tests.support.web import web_login

DEALS = ROOT / "tests" / "data" / "dealing-machines"


@pytest.fixture
def engine(apps: AppFactory, db_url: str) -> Engine:
    """The same tests on SQLite and on PostgreSQL."""
    return apps.engine(db_url)


@pytest.fixture
def client(apps: AppFactory, engine: Engine) -> TestClient:
    return apps.client(engine)


@pytest.fixture
def club(client: TestClient, engine: Engine) -> Club:
    """4 tables, 2 boards a round: boards 1-8, as the dealing-machine files hold."""
    return open_club(client, engine, tables=4, bpr=2)


def _audits(engine: Engine, action: str) -> list[Audit]:
    with Session(engine) as s:
        return list(s.exec(select(Audit).where(Audit.action == action).order_by(col(Audit.id))))


def _refused(r: Any, status: int, code: str) -> str:
    assert (r.status_code, r.json()["code"]) == (status, code), r.text
    message: str = r.json()["message"]
    return message


def _web_refusal(client: TestClient, url: str, csrf: str, **data: Any) -> str:
    """The console form's refusal: the notice its redirect carries."""
    r = client.post(url, data={"csrf": csrf, **data}, follow_redirects=False)
    assert r.status_code == 303, r.text
    flash = json.loads(unquote(r.cookies["traveller_flash"]))
    assert flash["kind"] == "error", flash
    text: str = flash["text"]
    return text


# ------------------------------------------------------------------ publishing and exports


def test_publishing_asks_first_then_publishes_with_the_deadline(club: Club) -> None:
    base = f"/api/v1/sections/{club.section_id}"
    club.start_round(1)
    r = club.td("POST", f"{base}/publish", json={"status": "provisional", "minutes": 30})
    message = _refused(r, 409, "confirmation_needed")
    assert "8 boards" in message
    with Session(club.engine) as s:
        assert s.get(Section, club.section_id).publication == "live"  # type: ignore[union-attr]
    r = club.td("POST", f"{base}/publish", json={"status": "provisional", "minutes": 3})
    _refused(r, 409, "confirmation_needed")  # asked before the deadline is looked at
    r = club.td(
        "POST", f"{base}/publish", json={"status": "provisional", "minutes": 3, "confirmed": True}
    )
    assert "at least 5 minutes" in _refused(r, 422, "deadline_too_short")
    r = club.td("POST", f"{base}/publish", json={"hours": 2, "minutes": 30, "confirmed": True})
    _refused(r, 422, "invalid_deadline")
    r = club.td("POST", f"{base}/publish", json={"status": "gone", "confirmed": True})
    _refused(r, 422, "invalid_status")
    assert _audits(club.engine, "published") == []
    before = utcnow()
    r = club.td(
        "POST", f"{base}/publish", json={"status": "provisional", "minutes": 30, "confirmed": True}
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["publication"] == "provisional"
    assert len(body["unsettled"]) == 8
    with Session(club.engine) as s:
        until = s.get(Section, club.section_id).corrections_until  # type: ignore[union-attr]
    assert until is not None
    assert timedelta(minutes=29) < until.replace(tzinfo=None) - before.replace(tzinfo=None)
    assert [
        json.loads(a.new or "{}")["publication"] for a in _audits(club.engine, "published")
    ] == ["provisional"]
    r = club.td("POST", f"{base}/publish", json={"status": "live"})
    _refused(r, 409, "confirmation_needed")  # un-publishing asks too
    r = club.td("POST", f"{base}/publish", json={"status": "live", "confirmed": True})
    assert r.json()["publication"] == "live"


def test_the_exports_are_the_consoles_files(client: TestClient, club: Club) -> None:
    csrf = web_login(client)
    assert csrf
    for kind in ("usebio", "pbn", "ranking", "travellers"):
        api = club.td("GET", f"/api/v1/sections/{club.section_id}/exports/{kind}")
        assert api.status_code == 200, api.text
        web = client.get(f"/td/s/{club.section_id}/publish/export/{kind}")
        assert web.status_code == 200
        assert api.headers["content-disposition"] == web.headers["content-disposition"]
        assert api.headers["content-type"] == web.headers["content-type"]
        if kind != "usebio":  # USEBIO carries the moment it was made
            assert api.content == web.content
        assert api.content
    r = club.td("GET", f"/api/v1/sections/{club.section_id}/exports/xls")
    _refused(r, 404, "unknown_export")


def test_the_backup_is_a_copy_of_the_database_and_audited(
    club: Club, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAVELLER_BACKUP_DIR", str(tmp_path / "backups"))
    r = club.td("POST", f"/api/v1/sections/{club.section_id}/backup")
    assert r.status_code == 200, r.text
    sqlite = club.engine.dialect.name == "sqlite"
    assert r.content.startswith(b"SQLite format 3" if sqlite else b"PGDMP")  # pg_dump's archive
    [made] = _audits(club.engine, "backup")
    assert json.loads(made.new or "{}")["bytes"] == len(r.content)
    r = club.td("POST", "/api/v1/sections/999/backup")
    _refused(r, 404, "unknown_section")
    assert len(_audits(club.engine, "backup")) == 1


# ------------------------------------------------------------------------ hand records


def _deals(engine: Engine, section_id: int) -> dict[int, str | None]:
    with Session(engine) as s:
        rows = s.exec(select(Board).where(Board.section_id == section_id))
        return {b.number: b.deal for b in rows}


def _load(club: Club, name: str, data: bytes, **form: str) -> Any:
    return club.td(
        "POST",
        f"/api/v1/sections/{club.section_id}/hand-records",
        files={"file": (name, data)},
        data=form,
    )


def test_hand_records_load_into_a_section_and_are_audited(club: Club) -> None:
    pbn = (DEALS / "bigdeal_8.pbn").read_bytes()
    r = _load(club, "week.pbn", pbn)
    assert r.status_code == 200, r.text
    assert r.json() == {"read": 8, "stored": 8, "refused": [], "not_in_section": []}
    deals = _deals(club.engine, club.section_id)
    assert all(deals[n] for n in range(1, 9))
    assert len(_audits(club.engine, "deal_set")) == 8
    # The dealing machine's own file of the same deals changes nothing.
    r = _load(club, "week.dup", (DEALS / "bigdeal_8.dup").read_bytes())
    assert r.status_code == 200, r.text
    assert (r.json()["read"], r.json()["stored"]) == (8, 0)
    assert _deals(club.engine, club.section_id) == deals


def test_other_deals_are_refused_unless_replaced_and_the_old_one_is_audited(club: Club) -> None:
    pbn = (DEALS / "bigdeal_8.pbn").read_text()
    assert _load(club, "a.pbn", pbn.encode()).status_code == 200
    before = _deals(club.engine, club.section_id)
    # The same deals moved one board on: every board would change.
    moved = pbn
    for n in range(1, 9):
        moved = moved.replace(f'[Board "{n}"]', f'[Board "#{n % 8 + 1}"]')
    moved = moved.replace('[Board "#', '[Board "')
    r = _load(club, "b.pbn", moved.encode())
    assert "replace" in _refused(r, 409, "deals_already_set")
    assert _deals(club.engine, club.section_id) == before
    r = _load(club, "b.pbn", moved.encode(), replace="true")
    assert r.status_code == 200, r.text
    assert r.json()["stored"] == 8
    after = _deals(club.engine, club.section_id)
    assert after[2] == before[1]
    replaced = [json.loads(a.old or "null") for a in _audits(club.engine, "deal_set")[8:]]
    assert {o["board"]: o["deal"] for o in replaced} == before


def test_a_bad_hand_record_file_stores_nothing(club: Club) -> None:
    r = _load(club, "x.pbn", b"this is no hand record")
    _refused(r, 422, "bad_hand_records")
    r = _load(club, "x.pbn", b"% PBN\n" + b" " * (uploads.MAX_FILE + 1))
    _refused(r, 422, "file_too_big")
    pbn = (DEALS / "bigdeal_8.pbn").read_text()
    broken = pbn.replace(
        "N:A92.A9874.J8542. 8753.T.QT6.KJ543 K64.KQJ5.A.QT762 QJT.632.K973.A98",
        "N:A92.A9874.J8542. 8753.T.QT6.KJ543 K64.KQJ5.A.QT762 QJT.632.K973.A9",
    )
    r = _load(club, "x.pbn", broken.encode(), strict="true")
    assert "Strict mode" in _refused(r, 422, "hand_records_refused")
    assert set(_deals(club.engine, club.section_id).values()) == {None}
    assert _audits(club.engine, "deal_set") == []
    # Not strict: the readable boards are stored and the refused one named with its place.
    r = _load(club, "x.pbn", broken.encode())
    assert r.status_code == 200, r.text
    assert (r.json()["stored"], len(r.json()["refused"])) == (7, 1)
    assert _deals(club.engine, club.section_id)[1] is None


def test_boards_the_section_does_not_play_are_named(client: TestClient, engine: Engine) -> None:
    small = open_club(client, engine, tables=3, bpr=2)  # boards 1-6
    r = _load(small, "w.pbn", (DEALS / "bigdeal_8.pbn").read_bytes())
    assert r.status_code == 200, r.text
    assert (r.json()["stored"], r.json()["not_in_section"]) == (6, [7, 8])


# ------------------------------------------------------------------------------ members


def test_the_member_list_imports_as_on_the_players_page(client: TestClient, club: Club) -> None:
    r = club.td("POST", "/api/v1/members/import", data={"text": "number,name\n101,Anna Berg\n"})
    assert r.status_code == 200, r.text
    assert r.json() == {"added": 1, "updated": 0, "problems": []}
    r = club.td(
        "POST",
        "/api/v1/members/import",
        files={"file": ("members.csv", b"101,Anna Berg-Holm\n102,Bo Dahl\nbad\n")},
    )
    assert (r.json()["added"], r.json()["updated"]) == (1, 1)
    assert r.json()["problems"] == ["line 3: expected number,name"]
    assert [m["name"] for m in club.td("GET", "/api/v1/members").json()] == [
        "Anna Berg-Holm",
        "Bo Dahl",
    ]
    csrf = web_login(client)
    players = f"/td/s/{club.section_id}/players/import"
    for data, files, code, status in (
        ({"text": "  "}, None, "no_member_list", 422),
        (
            {},
            {"file": ("big.csv", b"1,a\n" * (uploads.MAX_MEMBER_LIST // 4 + 1))},
            "file_too_big",
            422,
        ),
    ):
        r = club.td("POST", "/api/v1/members/import", data=data, files=files)
        message = _refused(r, status, code)
        web = client.post(players, data={"csrf": csrf, **data}, files=files, follow_redirects=False)
        assert json.loads(unquote(web.cookies["traveller_flash"]))["text"] == message
    with Session(club.engine) as s:
        assert len(s.exec(select(Member)).all()) == 2


# ---------------------------------------------------------------------------- penalties


def test_offences_warn_then_deduct_and_can_be_withdrawn(club: Club) -> None:
    base = f"/api/v1/sections/{club.section_id}/penalties"
    first = club.td("POST", f"{base}/offence", json={"pair": "1NS", "kind": "213B"})
    assert first.status_code == 201, first.text
    assert (first.json()["warning"], first.json()["amount"]) == (True, "0.00")
    second = club.td("POST", f"{base}/offence", json={"pair": "1NS", "kind": "213B"})
    assert second.json()["warning"] is False
    assert float(second.json()["amount"]) > 0
    r = club.td("POST", f"{base}/deduct", json={"pair": "2EW", "reason": ""})
    _refused(r, 422, "reason_required")
    r = club.td("POST", f"{base}/deduct", json={"pair": "2EW", "amount": "lots", "reason": "x"})
    _refused(r, 422, "invalid_amount")
    r = club.td("POST", f"{base}/offence", json={"pair": "1NS", "kind": "999"})
    _refused(r, 422, "unknown_offence")
    r = club.td("POST", f"{base}/deduct", json={"pair": "2EW", "times": 2, "reason": "noise"})
    assert r.status_code == 201, r.text
    listed = club.td("GET", base).json()
    assert [x["id"] for x in listed] == [r.json()["id"], second.json()["id"], first.json()["id"]]
    sanction = r.json()["id"]
    assert club.td("POST", f"{base}/{sanction}/withdraw", json={"reason": "x"}).status_code == 204
    assert next(x for x in club.td("GET", base).json() if x["id"] == sanction)["withdrawn"]
    assert len(_audits(club.engine, "sanction_withdrawn")) == 1


# ---------------------------------------------------------------------- running the room


def test_round_time_reopen_and_release(client: TestClient, club: Club) -> None:
    base = f"/api/v1/sections/{club.section_id}"
    r = club.td("PUT", f"{base}/round-time", json={"minutes": 21})
    assert r.json() == {"section_id": club.section_id, "round_minutes": 21}
    r = club.td("PUT", f"{base}/round-time", json={"minutes": 0})
    _refused(r, 422, "invalid_round_time")
    assert club.td("PUT", f"{base}/round-time", json={"minutes": None}).json()["round_minutes"] is (
        None
    )
    assert [json.loads(a.new or "{}") for a in _audits(club.engine, "round_time")] == [
        {"round_minutes": 21},
        {"round_minutes": None},
    ]
    club.start_round(1)
    _refused(club.td("POST", f"{base}/rounds/1/reopen"), 409, "round_not_closed")
    assert club.td("POST", f"{base}/rounds/1/close").json()["closed_rounds"] == 1
    assert club.td("POST", f"{base}/rounds/1/reopen").json()["closed_rounds"] == 0
    _refused(club.td("POST", f"{base}/rounds/1/start"), 409, "round_already_started")
    club.start_round(2)
    csrf = web_login(client)
    web = _web_refusal(client, f"/td/s/{club.section_id}/tables/3/release", csrf, reason="")
    r = club.td("POST", f"{base}/tables/3/release", json={"reason": ""})
    assert _refused(r, 422, "reason_required") == web
    r = club.td("POST", f"{base}/tables/3/release", json={"reason": "boards later"})
    assert r.status_code == 200, r.text
    assert (r.json()["table"], r.json()["round"]) == (3, 2)
    r = club.td("POST", f"{base}/tables/3/release", json={"reason": "again"})
    _refused(r, 409, "next_round_not_released")
    assert len(_audits(club.engine, "gate_override")) == 1


def test_a_new_device_and_withdrawing_a_terminal(client: TestClient, club: Club) -> None:
    base = f"/api/v1/sections/{club.section_id}"
    club.start_round(1)
    old, other = club.pair(1), club.pair(2)
    r = club.td("POST", f"{base}/tables/1/new-device")
    assert r.status_code == 200, r.text
    code = r.json()["pairing_code"]
    assert code != club.section["pairing_codes"]["1"]
    _refused(old.client.get("/api/v1/table/round", headers=old.headers), 401, "token_revoked")
    assert client.post("/api/v1/table/pair", json={"code": code}).status_code == 200
    terminals = club.td("GET", f"{base}/terminals").json()
    mine = next(t for t in terminals if t["table"] == 2 and t["revoked_at"] is None)
    other_club = open_club(client, club.engine, tables=3, bpr=2)
    r = other_club.td(
        "POST", f"/api/v1/sections/{other_club.section_id}/terminals/{mine['id']}/revoke"
    )
    _refused(r, 404, "unknown_terminal")  # a terminal of another event's section
    assert other.round()["table"] == 2
    assert club.td("POST", f"{base}/terminals/{mine['id']}/revoke").status_code == 204
    _refused(other.client.get("/api/v1/table/round", headers=other.headers), 401, "token_revoked")
    assert len(_audits(club.engine, "terminal_revoked")) == 1


def test_choosing_between_conflicting_entries(client: TestClient, club: Club) -> None:
    base = f"/api/v1/sections/{club.section_id}/results"
    club.start_round(1)
    table = club.pair(2)
    board = table.round()["boards"][0]["board"]
    table.enter(board, "2H", "E", 8)
    table.enter(board, "2S", "E", 8)
    at = {"table": 2, "round": 1, "board": board}
    entries = club.td("GET", f"{base}/entries", params=at).json()
    assert [e["contract"] for e in entries] == ["2H", "2S"]
    csrf = web_login(client)
    web = _web_refusal(
        client,
        f"/td/s/{club.section_id}/tables/2/rounds/1/boards/{board}/choose",
        csrf,
        entry_id="nope",
        reason="asked",
    )
    r = club.td("POST", f"{base}/choose", json={**at, "entry_id": "nope", "reason": "asked"})
    assert _refused(r, 404, "unknown_entry") == web
    chosen = entries[1]["entry_id"]
    r = club.td("POST", f"{base}/choose", json={**at, "entry_id": chosen, "reason": ""})
    _refused(r, 422, "reason_required")
    with Session(club.engine) as s:
        assert s.exec(select(Result)).one().state == "conflict"
    r = club.td("POST", f"{base}/choose", json={**at, "entry_id": chosen, "reason": "asked"})
    assert r.status_code == 200, r.text
    assert [(x["state"], x["contract"]) for x in r.json()] == [("confirmed", "2S")]
    r = club.td("GET", f"{base}/entries", params={**at, "board": 99})
    _refused(r, 404, "board_not_in_round")


def test_resolving_a_deal_refuses_as_the_console_does(client: TestClient, club: Club) -> None:
    base = f"/api/v1/sections/{club.section_id}/deals"
    csrf = web_login(client)
    web = _web_refusal(client, f"/td/s/{club.section_id}/deals/1/resolve", csrf, choice="keyed")
    r = club.td("POST", f"{base}/1/resolve", json={"choice": "keyed"})
    assert _refused(r, 422, "reason_required") == web
    web = _web_refusal(
        client, f"/td/s/{club.section_id}/deals/1/resolve", csrf, choice="keyed", reason="x"
    )
    r = club.td("POST", f"{base}/1/resolve", json={"choice": "keyed", "reason": "x"})
    assert _refused(r, 409, "no_deal_conflict") == web
    _refused(
        club.td("POST", "/api/v1/sections/999/deals/1/resolve", json={}), 404, "unknown_section"
    )


def test_pairing_a_swiss_round_is_refused_for_pairs(club: Club) -> None:
    r = club.td("POST", f"/api/v1/sections/{club.section_id}/teams/pair-next-round")
    _refused(r, 422, "not_swiss")


def test_logging_out_ends_the_token(club: Club) -> None:
    assert club.td("POST", "/api/v1/td/logout").status_code == 204
    r = club.td("GET", f"/api/v1/sections/{club.section_id}")
    _refused(r, 401, "td_login_required")


def test_a_sanction_of_another_section_is_not_found(client: TestClient, club: Club) -> None:
    other = open_club(client, club.engine, tables=3, bpr=2)
    made = other.td(
        "POST",
        f"/api/v1/sections/{other.section_id}/penalties/deduct",
        json={"pair": "1NS", "reason": "noise"},
    )
    assert made.status_code == 201, made.text
    r = club.td(
        "POST",
        f"/api/v1/sections/{club.section_id}/penalties/{made.json()['id']}/withdraw",
        json={"reason": "x"},
    )
    _refused(r, 404, "unknown_sanction")
    with Session(club.engine) as s:
        assert s.exec(select(Sanction)).one().withdrawn_at is None


def test_a_refusal_is_in_the_tds_language(club: Club) -> None:
    club.start_round(1)
    r = club.client.post(
        f"/api/v1/sections/{club.section_id}/publish",
        json={"status": "final"},
        headers={**club.td_headers, "accept-language": "de"},
    )
    message = _refused(r, 409, "confirmation_needed")
    assert message.startswith("8 Boards fehlen")


def test_a_keyed_deal_in_conflict_is_settled_through_the_api(
    client: TestClient, engine: Engine
) -> None:
    deal = "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432"
    other = "N:AKQT.AKQ.AKQ.AKQ J987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432"
    club = open_club(client, engine, tables=3, bpr=2, event={"deal_entry": True})
    club.start_round(1)
    club.start_round(2)
    base = f"/api/v1/sections/{club.section_id}"

    tables = {t: club.pair(t) for t in (1, 2, 3)}

    def key(table: int, board: int, pbn: str) -> str:
        command = {"type": "enter_deal", "entry_id": f"deal-t{table}-b{board}", "board": board}
        reply = tables[table].send({**command, "deal": pbn}).json()
        assert "state" in reply, reply
        state: str = reply["state"]
        return state

    board = tables[1].round()["boards"][0]["board"]
    assert key(1, board, deal) == "keyed"
    for t in tables:  # every table on to round 2, as the TD may
        assert (
            club.td("POST", f"{base}/tables/{t}/release", json={"reason": "on"}).status_code == 200
        )
    later = next(t for t in tables if board in [b["board"] for b in tables[t].round()["boards"]])
    assert key(later, board, other) == "conflict"
    [found] = club.td("GET", f"{base}/deals").json()
    assert (found["board"], found["state"]) == (board, "conflict")
    taken = next(c["entry_id"] for c in found["checks"] if c.get("kind") == "deal")
    r = club.td(
        "POST",
        f"{base}/deals/{board}/resolve",
        json={"choice": "check", "entry_id": taken, "reason": "checked the board"},
    )
    assert r.status_code == 200, r.text
    assert r.json() == {"board": board, "deal": other}
    assert _deals(engine, club.section_id)[board] == other
    [resolved] = _audits(engine, "deal_resolved")
    assert resolved.reason == "checked the board"
    r = club.td("POST", f"{base}/deals/{board}/resolve", json={"choice": "keyed", "reason": "x"})
    _refused(r, 409, "no_deal_conflict")
