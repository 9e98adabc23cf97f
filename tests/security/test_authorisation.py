"""The authorisation matrix: a table token reaches only its own table and never the TD side;
expired and revoked tokens are refused, and a revoked token's open socket is closed; TD
passwords and pairing codes cannot be guessed (per-address back-off; the overall limits are in
test_guessing.py); a pairing code works once; N/S cannot confirm as E/W without the PIN, nor
guess it (five wrong PINs lock the terminal's confirmations)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, select
from starlette.websockets import WebSocketDisconnect

from server.app import create_app
from server.core.config import Settings
from server.core.db import make_engine
from server.core.models import BridgeTable, Result, TableToken, utcnow
from server.services import round_control, setup, tokens
from tests.support.api import Club, Table, new_id, open_club
from tests.support.env import TD_PASSWORD


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    eng = make_engine(f"sqlite:///{tmp_path / 'auth.db'}")
    yield eng
    eng.dispose()


@pytest.fixture
def client(engine: Engine) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(td_password=TD_PASSWORD), engine=engine)) as c:
        yield c


@pytest.fixture
def club(client: TestClient, engine: Engine) -> Club:
    made = open_club(client, engine, tables=3, bpr=2)
    made.start_round(1)
    return made


def test_a_table_token_reaches_only_its_own_table(club: Club) -> None:
    t1, t2 = club.pair(1), club.pair(2)
    assert t1.round()["table"] == 1
    theirs = [b["board"] for b in t2.round()["boards"]]
    r = t1.enter(theirs[0], "3NT", "N", 9)
    assert (r.status_code, r.json()["code"]) == (409, "board_not_in_round")
    entered = t2.enter(theirs[0], "3NT", "N", 9).json()["result"]
    r = t1.confirm(theirs[0], entered["version"])
    assert (r.status_code, r.json()["code"]) == (409, "board_not_in_round")
    with Session(club.engine) as s:
        rows = s.exec(select(Result)).all()
    assert [(r.table_number, r.state) for r in rows] == [(2, "entered")]
    # Table 1's websocket never hears about table 2's board.
    with club.client.websocket_connect("/api/v1/table/ws") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": t1.token}))
        assert json.loads(ws.receive_text())["table"] == 1
        t2.confirm(theirs[0], entered["version"])
        ws.send_text('{"type": "get_round"}')
        assert json.loads(ws.receive_text())["type"] == "round_info"


def test_a_table_token_cannot_reach_any_td_endpoint(club: Club) -> None:
    t1 = club.pair(1)
    schema = club.client.get("/openapi.json").json()
    tried = 0
    for path, ops in schema["paths"].items():
        for method, op in ops.items():
            if "td" not in op.get("tags", []) or path.endswith("/td/login"):
                continue
            url = re.sub(r"\{pair\}", "1NS", re.sub(r"\{[a-z_]+\}", "1", path))
            r = club.client.request(method.upper(), url, headers=t1.headers, json={})
            assert r.status_code == 401, f"{method} {path}: {r.status_code}"
            assert r.json()["code"] == "td_login_required"
            tried += 1
    assert tried >= 10
    # And a TD token is no table token.
    r = club.client.get("/api/v1/table/round", headers=club.td_headers)
    assert (r.status_code, r.json()["code"]) == (401, "token_invalid")


def test_expired_and_revoked_tokens_are_refused(club: Club) -> None:
    t1, t2 = club.pair(1), club.pair(2)
    with Session(club.engine) as s:
        row = s.exec(select(TableToken).where(TableToken.token_hash == tokens.digest(t1.token)))
        token = row.one()
        token.expires_at = utcnow() - timedelta(seconds=1)
        s.add(token)
        table2 = s.exec(select(BridgeTable).where(BridgeTable.number == 2)).one()
        assert tokens.revoke_table_tokens(s, table2) == 1
        s.commit()
    for table, code in ((t1, "token_expired"), (t2, "token_revoked")):
        r = table.enter(1, "3NT", "N", 9)
        assert (r.status_code, r.json()["code"]) == (401, code)
        assert table.client.get("/api/v1/table/round", headers=table.headers).status_code == 401
        with club.client.websocket_connect("/api/v1/table/ws") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": table.token}))
            assert json.loads(ws.receive_text())["code"] == code


def test_td_login_is_rate_limited_per_address(client: TestClient) -> None:
    for _ in range(5):
        r = client.post("/api/v1/td/login", json={"password": "guess-" + new_id()[:8]})
        assert (r.status_code, r.json()["code"]) == (401, "td_password_wrong")
    r = client.post("/api/v1/td/login", json={"password": TD_PASSWORD})
    assert (r.status_code, r.json()["code"]) == (429, "rate_limited")
    assert "try again in" in r.json()["message"]
    other = TestClient(client.app, client=("10.0.0.9", 40000))
    assert other.post("/api/v1/td/login", json={"password": TD_PASSWORD}).status_code == 200


def test_pairing_codes_cannot_be_brute_forced(club: Club) -> None:
    real = club.section["pairing_codes"]["1"]
    guesses = [f"{n:010d}" for n in range(10**10 - 1, 10**10 - 7, -1) if f"{n:010d}" != real][:5]
    for guess in guesses:
        r = club.client.post("/api/v1/table/pair", json={"code": guess})
        assert r.status_code in (404, 200)
        if r.status_code == 200:  # pragma: no cover - hit another table's code by chance
            continue
        assert r.json()["code"] == "pairing_code_unknown"
    r = club.client.post("/api/v1/table/pair", json={"code": real})
    assert (r.status_code, r.json()["code"]) == (429, "rate_limited")
    other = TestClient(club.client.app, client=("10.0.0.7", 40000))
    assert other.post("/api/v1/table/pair", json={"code": real}).status_code == 200


def test_a_pairing_code_works_once(club: Club) -> None:
    code = club.section["pairing_codes"]["1"]
    first = club.client.post("/api/v1/table/pair", json={"code": code})
    assert first.status_code == 200
    again = club.client.post("/api/v1/table/pair", json={"code": code})
    assert (again.status_code, again.json()["code"]) == (404, "pairing_code_unknown")
    assert "works once" in again.json()["message"]
    # The TD sees the table's fresh code and reads it out for a second device.
    section = club.td("GET", f"/api/v1/sections/{club.section_id}").json()
    fresh = section["pairing_codes"]["1"]
    assert fresh != code
    second = club.client.post("/api/v1/table/pair", json={"code": fresh})
    assert second.status_code == 200
    assert second.json()["table"] == 1
    # Both devices of the table keep working.
    for reply in (first, second):
        headers = {"Authorization": f"Bearer {reply.json()['token']}"}
        assert club.client.get("/api/v1/table/round", headers=headers).status_code == 200


def test_ns_cannot_confirm_its_own_entry_as_ew_without_the_pin(
    client: TestClient, engine: Engine
) -> None:
    club = open_club(client, engine, tables=3, bpr=2, event={"confirm_pin_required": True})
    club.start_round(1)
    t1 = club.pair(1)
    board = t1.round()["boards"][0]["board"]
    version = t1.enter(board, "4S", "N", 10).json()["result"]["version"]
    r = t1.confirm(board, version)
    assert (r.status_code, r.json()["code"]) == (403, "pin_required")
    pairs = club.td("GET", f"/api/v1/sections/{club.section_id}/pairs").json()
    ns_pin = next(p["pin"] for p in pairs if (p["number"], p["direction"]) == (1, "NS"))
    ew_pin = next(p["pin"] for p in pairs if (p["number"], p["direction"]) == (1, "EW"))

    def confirm(pin: str) -> Any:
        command = {"type": "confirm_result", "entry_id": new_id(), "board": board}
        return t1.send({**command, "version": version, "pin": pin})

    wrong = [p for p in (ns_pin, "0000", "1111", "2222", "3333", "4444") if p != ew_pin][:5]
    for pin in wrong:  # N/S keys its own PIN, then guesses
        r = confirm(pin)
        assert (r.status_code, r.json()["code"]) == (403, "pin_wrong")
    r = confirm(ew_pin)  # five wrong PINs: the terminal is locked out, even with the right one
    assert (r.status_code, r.json()["code"]) == (429, "pin_locked")
    with Session(engine) as s:
        assert s.exec(select(Result)).one().state == "entered"


def move_to_new_device(club: Club, table: int) -> str:
    """The TD's 'new device' for a table (its terminals' tokens revoked); its fresh code."""
    with Session(club.engine) as s:
        code = round_control.move_to_new_device(s, setup.get_section(s, club.section_id), table)
        s.commit()
    return code


def test_moving_a_table_closes_the_old_devices_socket_before_its_next_push(club: Club) -> None:
    old = club.pair(1)
    board = old.round()["boards"][0]["board"]
    with club.client.websocket_connect("/api/v1/table/ws") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": old.token}))
        assert json.loads(ws.receive_text())["table"] == 1
        code = move_to_new_device(club, 1)
        r = club.client.post("/api/v1/table/pair", json={"code": code, "device": "new"})
        new = Table(club.client, r.json()["token"], 1)
        assert new.enter(board, "3NT", "N", 9).status_code == 200  # pushed to table 1
        refusal = json.loads(ws.receive_text())
        assert (refusal["type"], refusal["code"]) == ("error", "token_revoked")
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == 4401


def test_an_old_devices_command_after_the_move_closes_its_socket(club: Club) -> None:
    old = club.pair(1)
    with club.client.websocket_connect("/api/v1/table/ws") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": old.token}))
        assert json.loads(ws.receive_text())["table"] == 1
        move_to_new_device(club, 1)
        ws.send_text('{"type": "get_round"}')
        ws.send_text('{"type": "get_round"}')
        assert json.loads(ws.receive_text())["code"] == "token_revoked"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == 4401


@pytest.mark.timeout(60)
def test_a_quiet_old_socket_is_closed_after_the_move(engine: Engine) -> None:
    settings = Settings(td_password=TD_PASSWORD, token_check_seconds=0.2)
    with TestClient(create_app(settings, engine=engine)) as client:
        club = open_club(client, engine, tables=3, bpr=2)
        club.start_round(1)
        old, other = club.pair(1), club.pair(2)
        with (
            client.websocket_connect("/api/v1/table/ws") as ws,
            client.websocket_connect("/api/v1/table/ws") as still,
        ):
            ws.send_text(json.dumps({"type": "hello", "token": old.token}))
            still.send_text(json.dumps({"type": "hello", "token": other.token}))
            assert json.loads(ws.receive_text())["table"] == 1
            assert json.loads(still.receive_text())["table"] == 2
            move_to_new_device(club, 1)  # nothing is pushed to table 1
            assert json.loads(ws.receive_text())["code"] == "token_revoked"
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_text()
            assert closed.value.code == 4401
            still.send_text('{"type": "get_round"}')  # table 2's terminal carries on
            assert json.loads(still.receive_text())["type"] == "round_info"
