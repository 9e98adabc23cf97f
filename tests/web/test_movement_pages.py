"""The TD's movement page (the grid and balance figures) and printable guide cards."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from server.movements import mitchell
from tests.support.api import Club
from tests.support.movements import movement_club
from tests.support.web import web_login


def test_movement_page_shows_the_grid_and_balance(client: TestClient, club: Club) -> None:
    web_login(client)
    sid = club.section_id
    page = client.get(f"/td/s/{sid}/movement")
    assert page.status_code == 200, page.text
    m = mitchell(5, boards_per_round=3)
    # Every cell of the grid: round r, table t, N/S - E/W and the boards.
    rows = re.findall(r"<tr><th>(\d+)</th>(.*?)</tr>", page.text, re.S)
    assert len(rows) == m.rounds
    for round_text, cells in rows:
        shown = re.findall(r"<strong>(.*?)</strong> – <strong>(.*?)</strong>", cells)
        expected = [(str(a.ns), str(a.ew)) for a in m.in_round(int(round_text))]
        assert shown == expected
    assert "Balance (one winner)" in page.text
    assert f'href="/td/s/{sid}/movement"' in page.text  # the nav links the page


def test_guide_cards_one_per_table_and_pair_with_print_css(client: TestClient, club: Club) -> None:
    web_login(client)
    sid = club.section_id
    tables = client.get(f"/td/s/{sid}/movement/cards?by=table&size=a4")
    assert tables.status_code == 200
    assert tables.text.count('<article class="guide-card">') == 5
    assert "size-a4" in tables.text
    assert "guidecards.css" in tables.text
    pairs = client.get(f"/td/s/{sid}/movement/cards?by=pair")
    assert pairs.text.count('<article class="guide-card">') == 10
    css = client.get("/static/guidecards.css")
    assert css.status_code == 200
    assert "@media print" in css.text
    assert "break-after: page" in css.text
    assert "A5" in css.text
    assert "A4" in css.text
    bad = client.get(f"/td/s/{sid}/movement/cards?by=nobody")
    assert bad.status_code in (400, 422)


def test_individual_movement_page_shows_seats_and_player_cards(
    client: TestClient, engine: Engine
) -> None:
    club = movement_club(client, engine, {"kind": "individual", "pairs": 8})
    web_login(client)
    page = client.get(f"/td/s/{club.section_id}/movement")
    assert page.status_code == 200
    assert page.text.count("<small>N ") == 14  # 2 tables x 7 rounds, every seat named
    assert "player against player" in page.text
    cards = client.get(f"/td/s/{club.section_id}/movement/cards?by=player")
    assert cards.text.count('<article class="guide-card">') == 8


def test_guide_cards_in_danish(client: TestClient, club: Club) -> None:
    web_login(client)
    base = f"/td/s/{club.section_id}/movement/cards"
    tables = client.get(f"{base}?by=table", headers={"accept-language": "da"}).text
    heads = re.findall(r"<th>(.*?)</th>", tables)
    assert heads[:7] == ["Runde", "N-S", "Ø-V", "Spil", "N-S til", "Ø-V til", "Spil til"]
    assert re.search(r"<h2>[^<]* · Bord 1</h2>", tables)
    assert "slut" in tables  # the last round: pairs and boards go nowhere
    assert "Boards to" not in tables
    assert " EW<" not in tables  # "3 Ø-V", never "3 EW"
    pairs = client.get(f"{base}?by=pair", headers={"accept-language": "da"}).text
    assert re.search(r"<h2>[^<]* · Par 1NS</h2>", pairs), pairs[:2000]
    assert "<th>Modstandere</th>" in pairs
    assert "<td>Ø-V</td>" in pairs
    english = client.get(f"{base}?by=table", headers={"accept-language": "en"}).text
    assert "<th>Boards to</th>" in english
