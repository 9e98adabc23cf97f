"""The terminal's extras on the server: event settings, board reports after confirmation, the
ranking at the session's end (SQLite and PostgreSQL)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, select

from server.core.models import Audit, Board, ReceivedEntry, Result
from tests.support.api import Club, Table, open_club

DEAL = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"


def play(table: Table, board: int, contract: str, declarer: str | None, tricks: int) -> None:
    """Enter and confirm one board."""
    r = table.enter(board, contract, declarer, tricks)
    assert r.status_code == 200, r.text
    r = table.confirm(board, r.json()["result"]["version"])
    assert r.status_code == 200, r.text


def boards_of(table: Table) -> list[int]:
    return [b["board"] for b in table.round()["boards"]]


def next_round(table: Table) -> dict[str, Any]:
    r = table.send({"type": "next_round"})
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def report(table: Table, board: int) -> Any:
    return table.send({"type": "get_board_report", "board": board})


def test_event_settings_through_the_td_api(client: TestClient, engine: Engine) -> None:
    club = open_club(
        client, engine, event={"after_confirm": "score", "player_numbers": "every_round"}
    )
    event = club.td("GET", f"/api/v1/events/{club.event_id}").json()
    assert (event["after_confirm"], event["show_ranking"], event["player_numbers"]) == (
        "score",
        False,
        "every_round",
    )
    r = club.td("PATCH", f"/api/v1/events/{club.event_id}", json={"show_ranking": True})
    assert r.status_code == 200, r.text
    assert r.json()["show_ranking"] is True
    assert r.json()["after_confirm"] == "score"
    bad = club.td("PATCH", f"/api/v1/events/{club.event_id}", json={"after_confirm": "all"})
    assert bad.status_code == 422
    t1 = club.pair(1)
    settings = t1.send({"type": "get_table_settings"}).json()
    assert settings == {
        "v": 1,
        "type": "table_settings",
        "after_confirm": "score",
        "show_ranking": True,
        "player_numbers": "every_round",
        "hand_records": False,
        "auction_entry": "off",
        "play_entry": "off",
        "deal_entry": False,
    }
    with Session(engine) as s:
        actions = [a.action for a in s.exec(select(Audit))]
    assert "event_settings" in actions


def test_the_section_shows_its_td_code(club: Club) -> None:
    code = club.section["td_code"]
    assert len(code) == 4
    assert code.isdigit()
    again = club.td("GET", f"/api/v1/sections/{club.section_id}").json()
    assert again["td_code"] == code


def test_a_settings_change_is_pushed_to_the_terminals(club: Club) -> None:
    t1 = club.pair(1)
    with club.client.websocket_connect("/api/v1/table/ws") as ws:
        ws.send_text(f'{{"type": "hello", "token": "{t1.token}"}}')
        assert ws.receive_json()["type"] == "round_info"
        r = club.td("PATCH", f"/api/v1/events/{club.event_id}", json={"after_confirm": "traveller"})
        assert r.status_code == 200
        pushed = ws.receive_json()
        assert pushed["type"] == "settings_changed"
        assert pushed["settings"]["after_confirm"] == "traveller"


def test_no_report_of_a_board_the_table_has_not_played(client: TestClient, engine: Engine) -> None:
    club = open_club(client, engine, event={"after_confirm": "traveller"})
    club.start_round(1)
    t1, t2 = club.pair(1), club.pair(2)
    first, second = boards_of(t1)[:2]
    other = boards_of(t2)[0]
    assert other not in boards_of(t1)
    # Entered but not yet confirmed: nothing is shown.
    r = t1.enter(first, "4S", "S", 10)
    assert report(t1, first).json()["code"] == "board_not_played_here"
    t1.confirm(first, r.json()["result"]["version"])
    # A board of this round not yet played, and another table's board: refused.
    for board in (second, other):
        refused = report(t1, board)
        assert refused.status_code == 409
        assert refused.json()["code"] == "board_not_played_here"
    shown = report(t1, first).json()
    assert shown["type"] == "board_report"
    assert shown["show"] == "traveller"
    assert [(row["table"], row["ours"], row["contract"]) for row in shown["rows"]] == [
        (1, True, "4♠")
    ]
    assert shown["results"] == 1


def test_the_traveller_grows_as_tables_play_the_board(client: TestClient, engine: Engine) -> None:
    club = open_club(client, engine, tables=3, bpr=1, event={"after_confirm": "traveller"})
    club.start_round(1)
    tables = [club.pair(n) for n in (1, 2, 3)]
    board = boards_of(tables[0])[0]
    play(tables[0], board, "4S", "S", 10)
    for t in tables[1:]:
        play(t, boards_of(t)[0], "3NT", "N", 9)
    club.start_round(2)
    for t in tables:
        next_round(t)
    # The board moved to another table in round 2: it plays it one trick worse.
    there = next(t for t in tables if boards_of(t) == [board])
    assert there is not tables[0]
    play(there, board, "4S", "S", 9)
    shown = report(there, board).json()
    assert shown["results"] == 2
    ours = next(row for row in shown["rows"] if row["ours"])
    # Bottom of two results, factored up to the field of three (Neuberg): 12.5 %.
    assert (ours["table"], ours["ns_percent"], shown["ns_percent"]) == (there.number, 13.0, 13.0)
    theirs = next(row for row in shown["rows"] if not row["ours"])
    assert (theirs["table"], theirs["ns_percent"]) == (1, 88.0)
    # Table 1 now seats an E/W pair that has not played the board: nothing of it is shown
    # there (Law 16), though table 1 played it in round 1; nor the other tables' boards.
    assert report(tables[0], board).json()["code"] == "board_not_played_here"
    assert report(tables[0], boards_of(tables[1])[0]).status_code == 409


def test_score_with_the_deal_and_nothing_without_it(client: TestClient, engine: Engine) -> None:
    club = open_club(client, engine, event={"after_confirm": "score"})
    club.start_round(1)
    t1 = club.pair(1)
    board = boards_of(t1)[0]
    with Session(engine) as s:
        row = s.exec(select(Board).where(Board.number == board)).one()
        row.deal = DEAL
        s.add(row)
        s.commit()
    play(t1, board, "4S", "S", 10)
    shown = report(t1, board).json()
    assert (shown["show"], shown["rows"], shown["results"]) == ("score", [], 1)
    # The only result so far, scored by the scoring engine's small-group rule.
    assert shown["ns_percent"] is not None
    assert shown["ew_percent"] is not None
    assert shown["deal"] == DEAL
    club.td("PATCH", f"/api/v1/events/{club.event_id}", json={"after_confirm": "nothing"})
    quiet = report(t1, board).json()
    assert (quiet["show"], quiet["ns_percent"], quiet["rows"]) == ("nothing", None, [])
    # "Nothing" after a board means nothing: not the deal either (H2).
    assert (quiet["deal"], quiet["dd_tricks"], quiet["results"]) == (None, None, 0)
    settings = t1.send({"type": "get_table_settings"}).json()
    assert settings["hand_records"] is True


def test_the_ranking_at_the_end_of_the_session(client: TestClient, engine: Engine) -> None:
    club = open_club(client, engine, tables=3, bpr=1)
    tables = [club.pair(n) for n in (1, 2, 3)]
    club.start_round(1)
    assert tables[0].send({"type": "get_ranking"}).json()["code"] == "ranking_not_shown"
    club.td("PATCH", f"/api/v1/events/{club.event_id}", json={"show_ranking": True})
    assert tables[0].send({"type": "get_ranking"}).json()["code"] == "session_not_over"
    contracts = [("4S", "S", 10), ("4S", "S", 9), ("3NT", "N", 9)]
    for round_no in range(1, 4):
        if round_no > 1:
            club.start_round(round_no)
            for t in tables:
                next_round(t)
        for t, played in zip(tables, contracts, strict=True):
            play(t, boards_of(t)[0], *played)
    ranking = tables[0].send({"type": "get_ranking"}).json()
    assert ranking["type"] == "ranking_report"
    assert (ranking["boards_shown"], ranking["boards_total"], ranking["final"]) == (3, 3, True)
    titles = [g["title"] for g in ranking["groups"]]
    assert len(titles) == 2
    ours = [row["pair"] for g in ranking["groups"] for row in g["rows"] if row["ours"]]
    assert len(ours) == 2
    assert all(row["percent"] is not None for g in ranking["groups"] for row in g["rows"])


def test_queries_are_not_stored(club: Club) -> None:
    club.start_round(1)
    t1 = club.pair(1)
    for command in ({"type": "get_table_settings"}, {"type": "get_ranking"}):
        t1.send(command)
    values = {"contract": "3NT", "declarer": "N", "tricks": 9}
    r = t1.send({"type": "check_entry", "board": 1, "values": values})
    assert r.json() == {"v": 1, "type": "entry_checked", "board": 1, "warning": None}
    with Session(club.engine) as s:
        assert s.exec(select(ReceivedEntry)).all() == []
        assert s.exec(select(Result)).all() == []
