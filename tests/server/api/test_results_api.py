"""The results JSON API: ranking, traveller and score card, public and TD views, in OpenAPI."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from tests.support.api import Club, Table, open_club


def play(table: Table, board: int, contract: str, declarer: str | None, tricks: int) -> None:
    r = table.enter(board, contract, declarer, tricks)
    assert r.status_code == 200, r.text
    r = table.confirm(board, r.json()["result"]["version"])
    assert r.status_code == 200, r.text


def board_of(table: Table) -> int:
    boards = [b["board"] for b in table.round()["boards"]]
    assert len(boards) == 1
    return int(boards[0])


# Every board is played at each of the three tables: table 1 always makes 4S, table 2 goes one
# down in 4S and table 3 makes 3NT, so on every board N/S at table 1 beat both others (4 of a
# top of 4: 100 %), table 3 beats table 2 (2: 50 %) and table 2 scores 0.
CONTRACTS = {1: ("4S", "S", 10), 2: ("4S", "S", 9), 3: ("3NT", "N", 9)}


def played_session(client: TestClient, engine: Engine) -> tuple[Club, list[Table], list[int]]:
    club = open_club(client, engine, tables=3, bpr=1)
    tables = [club.pair(n) for n in (1, 2, 3)]
    first: list[int] = []
    for round_no in (1, 2, 3):
        club.start_round(round_no)
        for table in tables:
            if round_no > 1:
                assert table.send({"type": "next_round"}).status_code == 200
            board = board_of(table)
            if round_no == 1:
                first.append(board)
            play(table, board, *CONTRACTS[table.number])
    return club, tables, first


def _lines(ranking: dict[str, Any]) -> dict[str, tuple[str, float | None]]:
    return {
        line["pair"]["key"]: (line["place"], line["percentage"])
        for group in ranking["groups"]
        for line in group["lines"]
    }


def test_public_and_td_ranking_traveller_and_card_of_a_played_mitchell(
    client: TestClient, engine: Engine
) -> None:
    club, _tables, boards = played_session(client, engine)
    ranking = client.get(f"/api/v1/results/{club.section_id}/ranking")
    assert ranking.status_code == 200, ranking.text
    data = ranking.json()
    assert (data["method"], data["unit"], data["boards_total"]) == ("mp", "MP", 3)
    assert sorted(data["boards_shown"]) == sorted(boards)
    lines = _lines(data)
    # N/S stay at their table: 100 %, 0 %, 50 %. Every E/W pair meets each table once:
    # 0 + 2 + 4 of 12 = 50 %, all tied first.
    assert lines["1NS"] == ("1", 100.0)
    assert lines["3NS"] == ("2", 50.0)
    assert lines["2NS"] == ("3", 0.0)
    assert {lines[k] for k in ("1EW", "2EW", "3EW")} == {("1=", 50.0)}

    traveller = client.get(f"/api/v1/results/{club.section_id}/boards/{boards[0]}").json()
    assert traveller["visible"] is True
    rows = sorted(
        (line["table"], line["ns_value"], line["ns_percent"]) for line in traveller["lines"]
    )
    assert rows == [(1, 4.0, 100.0), (2, 0.0, 0.0), (3, 2.0, 50.0)]

    card = client.get(f"/api/v1/results/{club.section_id}/pairs/1NS").json()
    assert card["pair"]["label"] == "1 NS"
    assert card["line"]["percentage"] == 100.0
    assert [(row["value"], row["percent"]) for row in card["lines"]] == [(4.0, 100.0)] * 3
    assert {row["opponents"]["direction"] for row in card["lines"]} == {"EW"}

    td = club.td("GET", f"/api/v1/sections/{club.section_id}/ranking").json()
    assert _lines(td) == lines
    td_card = club.td("GET", f"/api/v1/sections/{club.section_id}/pairs/2NS/card").json()
    assert [row["percent"] for row in td_card["lines"]] == [0.0] * 3


def test_public_traveller_hides_a_board_until_every_table_has_played_it(
    client: TestClient, engine: Engine
) -> None:
    club = open_club(client, engine, tables=3, bpr=1)
    table = club.pair(1)
    club.start_round(1)
    board = board_of(table)
    play(table, board, "4S", "S", 10)
    public = client.get(f"/api/v1/results/{club.section_id}/boards/{board}").json()
    assert (public["visible"], public["lines"]) == (False, [])
    td = club.td("GET", f"/api/v1/sections/{club.section_id}/boards/{board}/traveller").json()
    assert td["visible"] is True
    assert [(line["table"], line["contract"], line["result"]) for line in td["lines"]] == [
        (1, "4♠", "=")
    ]
    assert client.get(f"/api/v1/results/{club.section_id}/ranking").json()["boards_shown"] == []


def test_unknown_section_board_or_pair_is_404_and_the_td_view_needs_a_token(
    client: TestClient, engine: Engine
) -> None:
    club = open_club(client, engine, tables=3, bpr=1)
    sid = club.section_id
    for path in (
        f"/api/v1/results/{sid + 99}/ranking",
        f"/api/v1/results/{sid}/boards/99",
        f"/api/v1/results/{sid}/pairs/9NS",
    ):
        r = client.get(path)
        assert r.status_code == 404, (path, r.text)
        assert r.json()["type"] == "error"
    assert client.get(f"/api/v1/sections/{sid}/ranking").status_code == 401


def test_the_results_api_is_documented_in_openapi(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in (
        "/api/v1/results/{section_id}/ranking",
        "/api/v1/results/{section_id}/boards/{board}",
        "/api/v1/results/{section_id}/pairs/{key}",
        "/api/v1/sections/{section_id}/ranking",
        "/api/v1/sections/{section_id}/boards/{board}/traveller",
        "/api/v1/sections/{section_id}/pairs/{key}/card",
    ):
        operation = paths[path]["get"]
        assert "results" in operation["tags"]
        assert "$ref" in operation["responses"]["200"]["content"]["application/json"]["schema"]
        assert "404" in operation["responses"]
