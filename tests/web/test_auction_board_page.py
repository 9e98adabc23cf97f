"""The TD's board page shows a table's auction (issue 20) and the result editor takes one,
checked as at the table (SQLite and PostgreSQL)."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, select

from server.core.models import Event
from server.web.routes.boards import auction_grid
from tests.support.api import Club, new_id
from tests.support.web import web_login
from tests.web.test_web_forms import board_url, post
from tests.web.test_wizard_forms import STEP1, create, events


def test_the_auction_grid_starts_in_the_dealers_column() -> None:
    assert auction_grid("N", "1C 1NT! P 3NT P P P") == [
        ["", "1C", "1NT!", "P"],
        ["3NT", "P", "P", "P"],
    ]
    assert auction_grid("W", "P P P P") == [["P", "P", "P", "P"]]
    assert auction_grid("S", "1H P P P") == [["", "", "", "1H"], ["P", "P", "P", ""]]


def cells(page: str) -> list[str]:
    """The calls shown in the page's auction table, in order."""
    found = re.search(r'<table class="auction".*?<tbody>(.*?)</tbody>', page, re.S)
    assert found is not None, "no auction table on the page"
    return [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td>(.*?)</td>", found.group(1))]


def test_the_board_page_shows_the_tables_auction_and_the_td_changes_it(
    client: TestClient, club: Club
) -> None:
    r = club.td("PATCH", f"/api/v1/events/{club.event_id}", json={"auction_entry": "optional"})
    assert r.status_code == 200, r.text
    table = club.pair(1)
    values = {"contract": "3NT", "declarer": "E", "tricks": 9, "auction": "1C 1NT! P 3NT P P P"}
    r = table.send({"type": "enter_result", "entry_id": new_id(), "board": 1, "values": values})
    assert r.status_code == 200, r.text

    csrf = web_login(client)
    page = client.get(board_url(club, 1, 1, 1)).text
    assert cells(page) == ["", "1♣", "1NT!", "P", "3NT", "P", "P", "P"]
    assert 'value="1C 1NT! P 3NT P P P"' in page  # the editor starts from the stored auction

    url = board_url(club, 1, 1, 1)
    page = post(
        client,
        f"{url}/set",
        csrf,
        contract="3NT",
        declarer="W",
        tricks="9",
        auction="1c 1nt p 3nt p p p",
        reason="auction checked",
    ).text
    assert "flash-error" in page
    assert "the auction ends in 3NT E" in page
    page = post(
        client,
        f"{url}/set",
        csrf,
        contract="4S",
        declarer="E",
        tricks="10",
        auction="1c 1s p 4s p p p",
        reason="asked the players",
    ).text
    assert "flash-error" not in page
    assert cells(page) == ["", "1♣", "1♠", "P", "4♠", "P", "P", "P"]
    # The contract left out: it follows from the auction, and the notice says so.
    page = post(
        client,
        f"{url}/set",
        csrf,
        contract="",
        declarer="",
        tricks="8",
        auction="1c 1s p 2s p p p",
        reason="from the players' auction",
    ).text
    assert "flash-error" not in page
    assert "set to 2S." in page
    assert "set to ." not in page
    assert cells(page) == ["", "1♣", "1♠", "P", "2♠", "P", "P", "P"]


def test_the_set_up_wizard_sets_the_auction_entry(client: TestClient, engine: Engine) -> None:
    csrf = web_login(client)
    page = client.get("/td/setup/details", params={**STEP1, "choice": "mitchell"})
    assert '<option value="off" selected>' in page.text.split('name="auction_entry"', 1)[1]
    r = create(client, csrf, auction_entry="sometimes")
    assert r.status_code == 422
    assert events(engine) == []
    r = create(client, csrf, auction_entry="required")
    assert r.status_code == 303, r.text
    with Session(engine) as s:
        assert s.exec(select(Event)).one().auction_entry == "required"
