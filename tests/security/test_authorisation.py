"""The authorisation matrix: a table token reaches only its own table and never the TD side
(the TD console's JSON routes refuse it, a missing or expired TD token, a section that is not
there, another event's terminal or penalty, an oversized or malformed upload, and change
nothing);
expired and revoked tokens are refused, and a revoked token's open socket is closed; TD
passwords and pairing codes cannot be guessed (per-address back-off; the overall limits are in
test_guessing.py); a pairing code works once; N/S cannot confirm as E/W without the PIN, nor
guess it (five wrong PINs lock the terminal's confirmations)."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, select
from starlette.websockets import WebSocketDisconnect

from server.core.config import Settings
from server.core.models import (
    Audit,
    Board,
    BridgeTable,
    Member,
    Result,
    Sanction,
    TableToken,
    TDSession,
    utcnow,
)
from server.services import tokens
from server.services.event import setup, uploads
from server.services.td import round_control
from tests.support.api import Club, Table, new_id, open_club
from tests.support.app_factory import AppFactory, app_client
from tests.support.env import TD_PASSWORD


@pytest.fixture
def engine(apps: AppFactory, tmp_path: Path) -> Engine:
    return apps.engine(f"sqlite:///{tmp_path / 'auth.db'}")


@pytest.fixture
def client(apps: AppFactory, engine: Engine) -> TestClient:
    return apps.client(engine)


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
    with app_client(engine, settings) as client:
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


# ----------------------------------------------- the TD console's actions as JSON routes

DEALS = Path(__file__).resolve().parents[1] / "data" / "dealing-machines"
#: Every JSON route twinning a TD console action (tests/server/api/test_console_twins.py), with
#: a body it would take: ("json", {...}), ("form", {...}) or ("file", name).
S = "/api/v1/sections/{section}"
CONSOLE_ROUTES: list[tuple[str, str, tuple[str, Any]]] = [
    ("POST", S + "/publish", ("json", {"status": "final", "confirmed": True})),
    ("GET", S + "/exports/pbn", ("json", None)),
    ("POST", S + "/backup", ("json", None)),
    ("POST", S + "/hand-records", ("file", "bigdeal_8.pbn")),
    ("GET", S + "/deals", ("json", None)),
    ("POST", S + "/deals/1/resolve", ("json", {"choice": "keyed", "reason": "x"})),
    ("POST", S + "/rounds/1/reopen", ("json", None)),
    ("PUT", S + "/round-time", ("json", {"minutes": 20})),
    ("POST", S + "/tables/1/release", ("json", {"reason": "x"})),
    ("POST", S + "/tables/1/new-device", ("json", None)),
    ("GET", S + "/terminals", ("json", None)),
    ("POST", S + "/terminals/1/revoke", ("json", None)),
    ("POST", S + "/teams/pair-next-round", ("json", None)),
    ("GET", S + "/penalties", ("json", None)),
    ("POST", S + "/penalties/offence", ("json", {"pair": "1NS"})),
    ("POST", S + "/penalties/deduct", ("json", {"pair": "1NS", "reason": "x"})),
    ("POST", S + "/penalties/1/withdraw", ("json", {"reason": "x"})),
    ("GET", S + "/results/entries?table=1&round=1&board=1", ("json", None)),
    (
        "POST",
        S + "/results/choose",
        ("json", {"table": 1, "round": 1, "board": 1, "entry_id": "x", "reason": "x"}),
    ),
    ("POST", "/api/v1/members/import", ("form", {"text": "1,Anna Berg"})),
    ("GET", "/api/v1/members", ("json", None)),
    ("POST", "/api/v1/td/logout", ("json", None)),
]


def _call(
    client: TestClient, route: tuple[str, str, tuple[str, Any]], section: int, **headers: str
) -> Any:
    method, path, (kind, body) = route
    url = path.replace("{section}", str(section))
    if kind == "file":
        files = {"file": (body, (DEALS / body).read_bytes())}
        return client.request(method, url, files=files, headers=headers)
    if kind == "form":
        return client.request(method, url, data=body, headers=headers)
    return client.request(method, url, json=body, headers=headers)


def _what_changes(engine: Engine) -> tuple[int, ...]:
    """Counts of every row a console action writes: nothing refused may change them."""
    with Session(engine) as s:
        rows = [len(s.exec(select(m)).all()) for m in (Audit, Member, Result, Sanction, TDSession)]
        rows.append(len([b for b in s.exec(select(Board)) if b.deal]))
        rows.append(len([t for t in s.exec(select(TableToken)) if t.revoked_at is not None]))
        return tuple(rows)


def _expired_td_token(club: Club) -> str:
    r = club.client.post("/api/v1/td/login", json={"password": TD_PASSWORD})
    token: str = r.json()["token"]
    with Session(club.engine) as s:
        row = s.exec(select(TDSession).where(TDSession.token_hash == tokens.digest(token))).one()
        row.expires_at = utcnow() - timedelta(seconds=1)
        s.add(row)
        s.commit()
    return token


@pytest.mark.parametrize("route", CONSOLE_ROUTES, ids=lambda r: f"{r[0]} {r[1]}")
def test_the_console_routes_refuse_anything_but_a_live_td_token(
    club: Club, route: tuple[str, str, tuple[str, Any]]
) -> None:
    table = club.pair(1)
    expired = _expired_td_token(club)
    before = _what_changes(club.engine)
    for headers, code in (
        ({"Authorization": f"Bearer {table.token}"}, "td_login_required"),
        ({}, "token_missing"),
        ({"Authorization": f"Bearer {expired}"}, "td_login_required"),
        ({"Authorization": "Basic dGQ6dGQ="}, "token_missing"),
    ):
        r = _call(club.client, route, club.section_id, **headers)
        assert (r.status_code, r.json()["code"]) == (401, code), (headers, r.text)
    assert _what_changes(club.engine) == before


@pytest.mark.parametrize(
    "route", [r for r in CONSOLE_ROUTES if "{section}" in r[1]], ids=lambda r: f"{r[0]} {r[1]}"
)
def test_the_console_routes_refuse_a_section_that_is_not_there(
    club: Club, route: tuple[str, str, tuple[str, Any]]
) -> None:
    before = _what_changes(club.engine)
    r = _call(club.client, route, 999, **club.td_headers)
    assert (r.status_code, r.json()["code"]) == (404, "unknown_section"), r.text
    assert _what_changes(club.engine) == before


def test_another_events_terminal_penalty_or_entry_is_out_of_reach(club: Club) -> None:
    """The TD of one section cannot touch, through it, what belongs to another event's."""
    other = open_club(club.client, club.engine, tables=3, bpr=2)
    other.start_round(1)
    theirs = other.pair(1)
    base = f"/api/v1/sections/{other.section_id}"
    terminal = other.td("GET", f"{base}/terminals").json()[0]["id"]
    penalty = other.td(
        "POST", f"{base}/penalties/deduct", json={"pair": "1NS", "reason": "noise"}
    ).json()["id"]
    board = theirs.round()["boards"][0]["board"]
    theirs.enter(board, "2H", "E", 8)
    theirs.enter(board, "2S", "E", 8)
    at = {"table": 1, "round": 1, "board": board}
    entry = other.td("GET", f"{base}/results/entries", params=at).json()[1]["entry_id"]
    before = _what_changes(club.engine)
    mine = f"/api/v1/sections/{club.section_id}"
    for method, path, body, status, code in (
        ("POST", f"{mine}/terminals/{terminal}/revoke", None, 404, "unknown_terminal"),
        ("POST", f"{mine}/penalties/{penalty}/withdraw", {"reason": "x"}, 404, "unknown_sanction"),
        (
            "POST",
            f"{mine}/results/choose",
            {**at, "entry_id": entry, "reason": "x"},
            404,
            "unknown_entry",
        ),
    ):
        r = club.td(method, path, json=body)
        assert (r.status_code, r.json()["code"]) == (status, code), r.text
    assert _what_changes(club.engine) == before
    assert theirs.round()["table"] == 1  # its terminal still works


def test_oversized_and_malformed_uploads_are_refused_whole(
    client: TestClient, engine: Engine
) -> None:
    club = open_club(client, engine, tables=4, bpr=2)
    hand_records = f"/api/v1/sections/{club.section_id}/hand-records"
    good = (DEALS / "bigdeal_8.pbn").read_bytes()
    before = _what_changes(engine)
    for files, status, code in (
        ({"file": ("big.pbn", good + b" " * uploads.MAX_FILE)}, 422, "file_too_big"),
        ({"file": ("x.pbn", b'[Board "1"]\n[Deal "N:AKQ"]\n')}, 422, "bad_hand_records"),
        ({"file": ("x.dup", b"\x00\x01 not a dealing machine's file")}, 422, "bad_hand_records"),
        ({"file": ("x.pbn", b"\xff\xfe\x00garbage")}, 422, "bad_hand_records"),
    ):
        r = club.td("POST", hand_records, files=files)
        assert (r.status_code, r.json()["code"]) == (status, code), r.text
    for files, data, code in (
        ({"file": ("big.csv", b"1,a\n" * (uploads.MAX_MEMBER_LIST // 4 + 1))}, {}, "file_too_big"),
        ({"file": ("bad.csv", b'1,"Anna\n' + b"x" * 200_000)}, {}, "invalid_member_list"),
        (None, {"text": "\n \n"}, "no_member_list"),
    ):
        r = club.td("POST", "/api/v1/members/import", files=files, data=data)
        assert (r.status_code, r.json()["code"]) == (422, code), r.text
    assert _what_changes(engine) == before


def test_a_body_over_the_servers_limit_is_refused_before_it_is_read(engine: Engine) -> None:
    settings = Settings(td_password=TD_PASSWORD, max_body_bytes=200_000)
    with app_client(engine, settings) as client:
        club = open_club(client, engine, tables=4, bpr=2)
        before = _what_changes(engine)
        for url in (f"/api/v1/sections/{club.section_id}/hand-records", "/api/v1/members/import"):
            r = club.td("POST", url, files={"file": ("big", b"1,a\n" * 60_000)})
            assert (r.status_code, r.json()["code"]) == (413, "body_too_large"), r.text
        assert _what_changes(engine) == before
