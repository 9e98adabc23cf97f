"""§ 262 through the API: pairing, entry, confirmation, rejection, correction, the round gate,
idempotent resends and conflicts, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, func, select

from server.core.models import Audit, ReceivedEntry, Result, TableToken, utcnow
from tests.support.api import Club, new_id, open_club


def counts(club: Club) -> tuple[int, int, int]:
    with Session(club.engine) as s:
        return (
            s.exec(select(func.count()).select_from(Result)).one(),
            s.exec(select(func.count()).select_from(Audit)).one(),
            s.exec(select(func.count()).select_from(ReceivedEntry)).one(),
        )


def test_pairing_with_unknown_code_is_refused(club: Club) -> None:
    r = club.client.post("/api/v1/table/pair", json={"code": "000000x"})
    assert r.status_code == 404
    assert r.json()["code"] == "pairing_code_unknown"
    assert "000000x" in r.json()["message"]


def test_round_info_shows_pairs_and_boards(club: Club) -> None:
    t1 = club.pair(1)
    assert t1.round()["round"] == 0
    club.start_round(1)
    info = t1.round()
    assert info["round"] == 1
    assert (info["ns"]["label"], info["ew"]["label"]) == ("1 NS", "1 EW")
    assert [b["board"] for b in info["boards"]] == [1, 2, 3]
    # Law 2 on the boards: board 2 dealer East, N/S vulnerable.
    assert info["boards"][1]["dealer"] == "E"
    assert info["boards"][1]["vulnerability"] == "NS"
    assert info["complete"] is False


def test_entry_before_the_round_starts_is_refused(club: Club) -> None:
    t1 = club.pair(1)
    r = t1.enter(1, "4S", "S", 10)
    assert r.status_code == 409
    assert r.json()["code"] == "round_not_started"


def test_enter_then_east_confirms(club: Club) -> None:
    club.start_round(1)
    t1 = club.pair(1)
    r = t1.enter(1, "4s", "S", "=")
    assert r.status_code == 200, r.text
    ack = r.json()
    assert ack["type"] == "result_ack"
    res = ack["result"]
    assert (res["state"], res["contract"], res["tricks"], res["ns_score"]) == (
        "entered",
        "4S",
        10,
        420,
    )
    assert res["description"] == "4♠ by South, made, N/S +420"
    r = t1.confirm(1, res["version"])
    assert r.status_code == 200, r.text
    assert r.json()["result"]["state"] == "confirmed"
    with Session(club.engine) as s:
        row = s.exec(select(Result)).one()
        assert row.entered_by == "table 1 N/S"
        assert row.confirmed_by == "table 1 E/W"
        assert row.confirmed_at is not None


def test_resending_the_same_entry_is_harmless(club: Club) -> None:
    club.start_round(1)
    t1 = club.pair(1)
    entry_id = new_id()
    first = t1.enter(2, "3NT", "E", 10, entry_id=entry_id).json()
    before = counts(club)
    again = t1.enter(2, "3NT", "E", 10, entry_id=entry_id)
    assert again.status_code == 200
    assert again.json()["duplicate"] is True
    assert again.json()["result"] == first["result"]
    assert counts(club) == before


def test_reusing_an_entry_id_for_other_content_is_refused(club: Club) -> None:
    club.start_round(1)
    t1 = club.pair(1)
    entry_id = new_id()
    t1.enter(2, "3NT", "E", 10, entry_id=entry_id)
    before = counts(club)
    r = t1.enter(2, "3NT", "E", 8, entry_id=entry_id)
    assert r.status_code == 409
    assert r.json()["code"] == "entry_id_reused"
    assert counts(club) == before


def test_a_different_second_entry_becomes_a_conflict_and_keeps_the_first(club: Club) -> None:
    club.start_round(1)
    t1 = club.pair(1)
    t1.enter(3, "2H", "N", 8)
    r = t1.enter(3, "2H", "N", 9)
    assert r.status_code == 200
    res = r.json()["result"]
    assert res["state"] == "conflict"
    assert res["tricks"] == 8  # never silently overwritten
    calls = club.td("GET", f"/api/v1/sections/{club.section_id}/calls").json()
    assert any("board 3" in c["reason"] for c in calls)
    with Session(club.engine) as s:
        actions = [a.action for a in s.exec(select(Audit).where(Audit.result_id != None))]  # noqa: E711
    assert actions == ["entered", "conflict"]


def test_the_same_result_keyed_twice_is_not_a_conflict(club: Club) -> None:
    club.start_round(1)
    t1 = club.pair(1)
    t1.enter(3, "2H", "N", 8)
    r = t1.enter(3, "2h", "N", "=")
    assert r.json()["result"]["state"] == "entered"


def test_reject_returns_the_board_to_north(club: Club) -> None:
    club.start_round(1)
    t1 = club.pair(1)
    v = t1.enter(1, "4S", "S", 10).json()["result"]["version"]
    r = t1.send(
        {
            "type": "reject_result",
            "entry_id": new_id(),
            "board": 1,
            "version": v,
            "reason": "it was 4H",
        }
    )
    assert r.json()["result"]["state"] == "rejected"
    # East cannot confirm a rejected entry.
    assert t1.confirm(1, v + 1).json()["code"] == "not_entered"
    again = t1.enter(1, "4H", "S", 10).json()["result"]
    assert (again["state"], again["contract"]) == ("entered", "4H")
    assert t1.confirm(1, again["version"]).json()["result"]["state"] == "confirmed"


def test_confirming_a_stale_version_is_refused(club: Club) -> None:
    club.start_round(1)
    t1 = club.pair(1)
    v = t1.enter(1, "4S", "S", 10).json()["result"]["version"]
    t1.send(
        {
            "type": "correct_result",
            "entry_id": new_id(),
            "board": 1,
            "version": v,
            "values": {"contract": "4S", "declarer": "S", "tricks": 9},
        }
    )
    r = t1.confirm(1, v)
    assert r.status_code == 409
    assert r.json()["code"] == "stale_version"


def test_correcting_a_confirmed_result_needs_a_new_confirmation_and_is_audited(club: Club) -> None:
    club.start_round(1)
    t1 = club.pair(1)
    v = t1.enter(1, "4S", "S", 10).json()["result"]["version"]
    v = t1.confirm(1, v).json()["result"]["version"]
    r = t1.send(
        {
            "type": "correct_result",
            "entry_id": new_id(),
            "board": 1,
            "version": v,
            "values": {"contract": "4S", "declarer": "S", "tricks": 11},
        }
    )
    res = r.json()["result"]
    assert (res["state"], res["tricks"], res["ns_score"]) == ("entered", 11, 450)
    trail = club.td("GET", f"/api/v1/results/{_result_id(club, 1)}/audit").json()
    assert [a["action"] for a in trail] == ["entered", "confirmed", "corrected"]
    assert trail[-1]["old"]["tricks"] == 10
    assert trail[-1]["new"]["tricks"] == 11
    assert trail[-1]["old"]["state"] == "confirmed"


def _result_id(club: Club, board: int) -> int:
    with Session(club.engine) as s:
        row = s.exec(select(Result).where(Result.board == board)).one()
        return row.id or 0


def test_round_gate_and_next_round(club: Club) -> None:
    club.start_round(1)
    t1 = club.pair(1)
    v = t1.enter(1, "PASS", None, 0).json()["result"]["version"]
    t1.confirm(1, v)
    r = t1.send({"type": "next_round"})
    assert r.status_code == 409
    assert r.json()["code"] == "round_incomplete"
    assert "2, 3" in r.json()["message"]
    for board in (2, 3):
        v = t1.enter(board, "1NT", "W", 7).json()["result"]["version"]
        t1.confirm(board, v)
    info = t1.round()
    assert info["complete"] is True
    # Where each pair goes next (Mitchell: E/W move up, N/S stay).
    assert {(n["pair"], n["table"]) for n in info["next"]} == {("1 NS", 1), ("1 EW", 2)}
    r = t1.send({"type": "next_round"})
    assert r.json()["code"] == "next_round_not_released"
    club.start_round(2)
    r = t1.send({"type": "next_round"})
    assert r.status_code == 200, r.text
    info = r.json()
    assert info["round"] == 2
    assert info["ew"]["label"] == "5 EW"  # E/W 5 comes up from table 5
    assert [b["board"] for b in info["boards"]] == [4, 5, 6]  # boards come down from table 2


def test_tables_move_independently(club: Club) -> None:
    club.start_round(1)
    club.start_round(2)
    t2 = club.pair(2)
    assert t2.round()["round"] == 1  # table 2 has not finished round 1 yet
    assert t2.enter(4, "3C", "N", 9).status_code == 200


def test_closed_round_refuses_table_entries(club: Club) -> None:
    club.start_round(1)
    t1 = club.pair(1)
    r = club.td("POST", f"/api/v1/sections/{club.section_id}/rounds/1/close")
    assert r.status_code == 200
    before = counts(club)
    r = t1.enter(1, "4S", "S", 10)
    assert r.status_code == 409
    assert r.json()["code"] == "round_closed"
    assert counts(club) == before


def test_bad_input_gets_clear_errors_and_changes_nothing(club: Club) -> None:
    club.start_round(1)
    t1 = club.pair(1)
    cases = [
        (t1.enter(1, "8S", "S", 10), 422, "invalid_level", "8"),
        (t1.enter(1, "0NT", "S", 10), 422, "invalid_level", "0"),
        (t1.enter(1, "4Z", "S", 10), 422, "invalid_strain", "Z"),
        (t1.enter(1, "4S", "S", 14), 422, "invalid_tricks", "14"),
        (t1.enter(1, "4S", "S", -1), 422, "invalid_tricks", "-1"),
        (t1.enter(1, "7NT", "S", "+1"), 422, "invalid_result", "+1"),
        (t1.enter(1, "1C", "S", "-8"), 422, "invalid_result", "-8"),
        (t1.enter(1, "4S", "Q", 10), 422, "invalid_request", "declarer"),
        (t1.enter(1, "4S", None, 10), 422, "invalid_seat", ""),
        (t1.enter(4, "4S", "S", 10), 409, "board_not_in_round", "Board 4"),
        (t1.enter(99, "4S", "S", 10), 404, "unknown_board", "99"),
        (t1.enter(1, "4S", "S", 10, values={"lead": "ZZ"}), 422, "invalid_card", "ZZ"),
        (t1.confirm(2, 1), 409, "not_entered", "Board 2"),
        (t1.send({"type": "enter_result", "board": 1}), 422, "invalid_request", "entry_id"),
        (t1.send({"type": "launch_missiles"}), 422, "invalid_request", ""),
    ]
    for response, status, code, named in cases:
        body = response.json()
        assert (response.status_code, body["code"]) == (status, code), body
        assert named in body["message"], body
        assert body["type"] == "error"
    assert counts(club)[0] == 0
    with Session(club.engine) as s:
        assert s.exec(select(func.count()).select_from(ReceivedEntry)).one() == 0


def test_a_table_cannot_touch_another_tables_boards(club: Club) -> None:
    club.start_round(1)
    t1, t2 = club.pair(1), club.pair(2)
    t1.enter(1, "4S", "S", 10)
    r = t2.enter(1, "4S", "S", 9)  # board 1 is at table 1 this round
    assert r.status_code == 409
    assert r.json()["code"] == "board_not_in_round"
    r = t2.confirm(1, 1)
    assert r.json()["code"] == "board_not_in_round"
    assert t1.round()["boards"][0]["state"] == "entered"


def test_tokens_unknown_revoked_and_expired(club: Club) -> None:
    club.start_round(1)
    t1 = club.pair(1)
    bad = club.client.get("/api/v1/table/round", headers={"Authorization": "Bearer nonsense"})
    assert (bad.status_code, bad.json()["code"]) == (401, "token_invalid")
    missing = club.client.get("/api/v1/table/round")
    assert (missing.status_code, missing.json()["code"]) == (401, "token_missing")
    with Session(club.engine) as s:
        row = s.exec(select(TableToken)).one()
        row.expires_at = utcnow() - timedelta(seconds=1)
        s.add(row)
        s.commit()
    r = t1.enter(1, "4S", "S", 10)
    assert (r.status_code, r.json()["code"]) == (401, "token_expired")
    with Session(club.engine) as s:
        row = s.exec(select(TableToken)).one()
        row.expires_at = utcnow() + timedelta(hours=1)
        row.revoked_at = utcnow()
        s.add(row)
        s.commit()
    r = t1.enter(1, "4S", "S", 10)
    assert (r.status_code, r.json()["code"]) == (401, "token_revoked")
    assert counts(club)[0] == 0


def test_td_endpoints_need_the_td(club: Club) -> None:
    r = club.client.post(f"/api/v1/sections/{club.section_id}/rounds/1/start")
    assert (r.status_code, r.json()["code"]) == (401, "token_missing")
    r = club.client.post("/api/v1/td/login", json={"password": "guess"})
    assert (r.status_code, r.json()["code"]) == (401, "td_password_wrong")
    t1 = club.pair(1)  # a table token is not a TD token
    r = club.client.get(f"/api/v1/sections/{club.section_id}/tables", headers=t1.headers)
    assert (r.status_code, r.json()["code"]) == (401, "td_login_required")


def test_td_settles_a_conflict_and_gives_an_adjusted_score(club: Club) -> None:
    club.start_round(1)
    t1 = club.pair(1)
    t1.enter(1, "4S", "S", 10)
    t1.enter(1, "4S", "S", 9)
    base = f"/api/v1/sections/{club.section_id}/results"
    r = club.td(
        "POST",
        f"{base}/set",
        json={
            "table": 1,
            "round": 1,
            "board": 1,
            "reason": "players agree 9 tricks",
            "values": {"contract": "4S", "declarer": "S", "tricks": 9},
        },
    )
    assert r.status_code == 200, r.text
    assert (r.json()[0]["state"], r.json()[0]["ns_score"]) == ("confirmed", -50)
    r = club.td(
        "POST",
        f"{base}/adjust",
        json={
            "table": 1,
            "round": 1,
            "board": 2,
            "ns_percent": 60,
            "ew_percent": 40,
            "reason": "fouled board",
        },
    )
    assert r.status_code == 200, r.text
    assert (r.json()[0]["state"], r.json()[0]["adjusted"]) == ("adjusted", "A60/40")
    r = club.td(
        "POST",
        f"{base}/adjust",
        json={
            "table": 1,
            "round": 1,
            "board": 3,
            "ns_percent": 60,
            "ew_percent": 40,
            "reason": " ",
        },
    )
    assert r.json()["code"] == "reason_required"
    # The table sees the TD's decisions and cannot overwrite them.
    info = t1.round()
    assert [b["state"] for b in info["boards"]] == ["confirmed", "adjusted", "missing"]
    r = t1.enter(2, "3NT", "N", 9)
    assert r.json()["code"] == "td_decided"
    trail = club.td("GET", f"/api/v1/results/{_result_id(club, 1)}/audit").json()
    assert [a["actor"] for a in trail] == ["table 1 N/S", "table 1 N/S", "td"]
    assert trail[-1]["reason"] == "players agree 9 tricks"


def test_section_state_for_the_td(club: Club) -> None:
    club.start_round(1)
    t1 = club.pair(1)
    v = t1.enter(1, "4S", "S", 10).json()["result"]["version"]
    t1.confirm(1, v)
    t1.enter(2, "4S", "S", 10)
    states = club.td("GET", f"/api/v1/sections/{club.section_id}/tables").json()
    first = states[0]
    assert (
        first["table"],
        first["round"],
        first["missing"],
        first["entered"],
        first["confirmed"],
        first["terminals_online"],
    ) == (1, 1, 1, 1, 1, 1)
    assert len(states) == 5
    assert states[1]["missing"] == 3


def test_terminals_online_counts_the_devices_online_not_the_devices_paired(club: Club) -> None:
    """A table whose only device has not been heard from for longer than the dashboard's
    online window (a terminal killed, a keypad's cable pulled) has no terminal online, as the
    dashboard's dot says, though its device is still paired."""
    from server.core.models import Section  # noqa: PLC0415
    from server.services.glance import dashboard  # noqa: PLC0415
    from server.services.td import actions as td  # noqa: PLC0415

    club.start_round(1)
    club.pair(1).enter(1, "4S", "S", 10)  # heard from just now: online
    states = club.td("GET", f"/api/v1/sections/{club.section_id}/tables").json()
    assert [s["terminals_online"] for s in states] == [1, 0, 0, 0, 0]
    later = utcnow() + timedelta(seconds=dashboard.ONLINE_SECONDS + 1)
    with Session(club.engine) as s:
        section = s.get(Section, club.section_id)
        assert section is not None
        quiet = td.section_state(s, section, now=later)
        assert [x.terminals_online for x in quiet] == [0, 0, 0, 0, 0]
        assert dashboard.pairing(s, section, now=later)[0].online is False
        socket = td.section_state(s, section, connected={1: 1}, now=later)
        assert [x.terminals_online for x in socket] == [1, 0, 0, 0, 0]


def test_pin_confirmation_when_the_event_asks_for_it(client: TestClient, engine: Engine) -> None:
    club = open_club(client, engine, tables=3, bpr=2, event={"confirm_pin_required": True})
    club.start_round(1)
    t1 = club.pair(1)
    info = t1.round()
    assert info["confirm_pin_required"] is True
    pins = {
        (p["number"], p["direction"]): p["pin"]
        for p in club.td("GET", f"/api/v1/sections/{club.section_id}/pairs").json()
    }
    ew_pin, ns_pin = pins[(1, "EW")], pins[(1, "NS")]
    v = t1.enter(1, "3NT", "N", 9).json()["result"]["version"]
    r = t1.confirm(1, v)
    assert (r.status_code, r.json()["code"]) == (403, "pin_required")
    wrong = "0000" if ew_pin != "0000" else "1111"
    r = t1.send(
        {"type": "confirm_result", "entry_id": new_id(), "board": 1, "version": v, "pin": wrong}
    )
    assert (r.status_code, r.json()["code"]) == (403, "pin_wrong")
    if ns_pin != ew_pin:  # N/S cannot confirm their own entry with their PIN
        r = t1.send(
            {
                "type": "confirm_result",
                "entry_id": new_id(),
                "board": 1,
                "version": v,
                "pin": ns_pin,
            }
        )
        assert r.json()["code"] == "pin_wrong"
    r = t1.send(
        {"type": "confirm_result", "entry_id": new_id(), "board": 1, "version": v, "pin": ew_pin}
    )
    assert r.json()["result"]["state"] == "confirmed"
