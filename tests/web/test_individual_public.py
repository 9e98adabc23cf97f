"""The public results of an individual: players ranked (page, live feed, projector and JSON) with
the TD's figures, a player's score card with partner and opponents, travellers naming the four
players, and the release rules of the pairs pages (nothing before every table has played it)."""

from __future__ import annotations

import html
import json
import re
from decimal import Decimal
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, select

from server.core.models import MovementAssignment
from tests.support.api import Club
from tests.support.movements import advance, movement_club, play_round


def _individual(client: TestClient, engine: Engine) -> Club:
    club = movement_club(client, engine, {"kind": "individual", "pairs": 8, "boards_per_round": 2})
    sid = club.section_id
    r = club.td("PUT", f"/api/v1/sections/{sid}/individual/players/3", json={"name": "Ann Berg"})
    assert r.status_code == 200, r.text
    return club


def _play(club: Club, rounds: int) -> None:
    tables = [club.pair(n) for n in range(1, club.section["tables"] + 1)]
    club.start_round(1)
    play_round(tables)
    for rnd in range(2, rounds + 1):
        advance(club, tables, rnd)
        play_round(tables)


def _seats(engine: Engine) -> dict[tuple[int, int], list[int]]:
    """(table, round) -> the players in N, E, S, W."""
    with Session(engine) as s:
        return {
            (a.table_number, a.round): [int(p) for p in (a.seats or "").split(",")]
            for a in s.exec(select(MovementAssignment))
        }


def _td_lines(club: Club) -> list[dict[str, Any]]:
    r = club.td("GET", f"/api/v1/sections/{club.section_id}/individual/ranking")
    assert r.status_code == 200, r.text
    return list(r.json()["lines"])


def _page_rows(text: str) -> list[tuple[str, str, str, str]]:
    """(player, place, name, percentage) of each row of the players' ranking."""
    rows = re.findall(
        r'<tr data-player="(\d+)" data-place="([^"]*)".*?<td class="names">(.*?)</td>\s*'
        r'<td class="num pct">(.*?)</td>',
        text,
        re.S,
    )
    return [(p, place, html.unescape(name), pct) for p, place, name, pct in rows]


def _pct(value: float | str) -> str:
    return f"{Decimal(str(value)):.2f}%"


def test_public_ranking_ranks_the_players_as_the_td_does(
    client: TestClient, engine: Engine
) -> None:
    club = _individual(client, engine)
    _play(club, club.section["rounds"])
    sid = club.section_id
    td = _td_lines(club)
    assert len(td) == 8
    assert all(line["boards"] > 0 for line in td)

    public = client.get(f"/api/v1/results/{sid}/ranking")
    assert public.status_code == 200, public.text
    body = public.json()
    assert body["kind"] == "individual"
    assert body["groups"] == []  # no partnerships in an individual's ranking
    got = [
        (p["place"], p["number"], p["name"], p["total"], p["percentage"], p["boards"])
        for p in body["players"]
    ]
    assert got == [
        (t["place"], t["number"], t["name"], t["total"], t["percentage"], t["boards"]) for t in td
    ]

    expected = [(str(t["number"]), t["place"], t["name"], _pct(t["percentage"])) for t in td]
    page = client.get(f"/results/{sid}")
    assert page.status_code == 200
    assert _page_rows(page.text) == expected
    assert "data-pair=" not in page.text  # partnerships are not ranked
    assert f'href="/results/{sid}/players/3"' in page.text
    german = client.get(f"/results/{sid}", headers={"accept-language": "de"})
    assert "Alle Spieler" in german.text
    assert _page_rows(german.text)[0][:3] == expected[0][:3]
    projector = client.get(f"/results/{sid}/projector")
    assert _page_rows(projector.text) == expected

    with client.websocket_connect(f"/results/{sid}/live") as ws:
        fragments = json.loads(ws.receive_text())["fragments"]
    assert _page_rows(fragments["ranking"]) == expected


def test_player_card_and_traveller_name_partner_and_opponents(
    client: TestClient, engine: Engine
) -> None:
    club = _individual(client, engine)
    _play(club, club.section["rounds"])
    sid = club.section_id
    seats = _seats(engine)

    card = client.get(f"/api/v1/results/{sid}/players/3")
    assert card.status_code == 200, card.text
    body = card.json()
    assert body["player"] == {"number": 3, "name": "Ann Berg"}
    td = next(t for t in _td_lines(club) if t["number"] == 3)
    assert body["line"]["place"] == td["place"]
    assert body["line"]["boards"] == td["boards"]
    assert len(body["lines"]) == td["boards"]
    assert sum(Decimal(str(x["value"])) for x in body["lines"]) == Decimal(str(td["total"]))
    for line in body["lines"]:
        n, e, s, w = seats[(line["table"], line["round"])]
        at = {"N": 0, "E": 1, "S": 2, "W": 3}[line["seat"]]
        assert [n, e, s, w][at] == 3
        partner = [n, e, s, w][(at + 2) % 4]
        opponents = {[n, e, s, w][(at + 1) % 4], [n, e, s, w][(at + 3) % 4]}
        assert line["partner"]["number"] == partner
        assert {p["number"] for p in line["opponents"]} == opponents

    page = client.get(f"/results/{sid}/players/3")
    assert page.status_code == 200
    assert "Ann Berg" in page.text
    rows = re.findall(
        r'<tr data-board="(\d+)">.*?<td class="partner">(.*?)</td>\s*<td class="opponents">'
        r"(.*?)</td>",
        page.text,
        re.S,
    )
    assert len(rows) == td["boards"]
    for (board, partner, opponents), line in zip(rows, body["lines"], strict=True):
        assert int(board) == line["board"]
        assert f'/players/{line["partner"]["number"]}"' in partner
        shown = {int(x) for x in re.findall(r"/players/(\d+)", opponents)}
        assert shown == {p["number"] for p in line["opponents"]}
    assert client.get(f"/results/{sid}/players/3/qr.svg").status_code == 200
    assert client.get(f"/results/{sid}/players/99").status_code == 404

    board = body["lines"][0]["board"]
    traveller = client.get(f"/results/{sid}/boards/{board}")
    assert traveller.status_code == 200
    tables = re.findall(r"<tr[^>]*>\s*<td>(.*?)</td>\s*<td>(.*?)</td>", traveller.text, re.S)
    assert tables
    played_at = [
        seats[key] for key, assignment in _boards_by_cell(engine).items() if board in assignment
    ]
    shown_seats = [[int(x) for x in re.findall(r"/players/(\d+)", ns + ew)] for ns, ew in tables]
    # Each line names N – S then E – W, every player linking to their card.
    assert sorted(shown_seats) == sorted([n, s, e, w] for n, e, s, w in played_at)


def _boards_by_cell(engine: Engine) -> dict[tuple[int, int], set[int]]:
    with Session(engine) as s:
        return {
            (a.table_number, a.round): {int(b) for b in a.boards.split(",") if b}
            for a in s.exec(select(MovementAssignment))
        }


def test_nothing_before_every_table_has_played_the_board(
    client: TestClient, engine: Engine
) -> None:
    club = _individual(client, engine)
    _play(club, 1)
    sid = club.section_id
    td = _td_lines(club)
    assert sum(t["boards"] for t in td) == 8 * 2  # the TD sees round 1 at both tables
    body = client.get(f"/api/v1/results/{sid}/ranking").json()
    shown = body["boards_shown"]
    assert 0 < len(shown) < body["boards_total"]
    # Each released board was played by the four players at each table.
    played = {b for cell in _boards_by_cell(engine).values() for b in cell}
    per_board = {
        b: sum(4 for cell in _boards_by_cell(engine).values() if b in cell) for b in played
    }
    assert sum(p["boards"] for p in body["players"]) == sum(per_board[b] for b in shown)
    card = client.get(f"/api/v1/results/{sid}/players/3").json()
    assert {line["board"] for line in card["lines"]} <= set(shown)
    hidden = next(b for b in range(1, body["boards_total"] + 1) if b not in shown)
    page = client.get(f"/results/{sid}/boards/{hidden}")
    assert 'id="traveller-hidden"' in page.text


def test_a_pairs_section_has_no_player_cards(client: TestClient, engine: Engine) -> None:
    club = movement_club(client, engine, {"kind": "mitchell", "tables": 3, "boards_per_round": 2})
    sid = club.section_id
    assert client.get(f"/api/v1/results/{sid}/ranking").json()["kind"] == "pairs"
    r = client.get(f"/api/v1/results/{sid}/players/1")
    assert (r.status_code, r.json()["code"]) == (422, "not_individual")
