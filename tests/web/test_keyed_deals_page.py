"""The TD's side of issue 20's table entry: the Deals page shows the deals keyed at the tables
and settles a conflict (audited); the result editor takes the play; the set-up wizard sets the
play and deal entry (SQLite and PostgreSQL)."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, select

from server.core.models import Audit, Board, Event, Result
from tests.support.api import Club, new_id
from tests.support.deals import DEAL, OTHER, enter_deal, later, seat_at
from tests.support.web import web_login
from tests.web.test_web_forms import board_url, post
from tests.web.test_wizard_forms import create, events


def deals_url(club: Club) -> str:
    return f"/td/s/{club.section_id}/deals"


def test_the_deals_page_shows_a_conflict_and_the_td_settles_it(
    client: TestClient, club: Club
) -> None:
    r = club.td("PATCH", f"/api/v1/events/{club.event_id}", json={"deal_entry": True})
    assert r.status_code == 200, r.text
    csrf = web_login(client)
    page = client.get(deals_url(club)).text
    assert "No deal has been keyed at a table yet." in page
    assert f'href="{deals_url(club)}"' in page  # in the section's menu

    assert enter_deal(club.pair(1), 1, DEAL).json()["state"] == "keyed"
    number, round_ = later(club.engine, 1)
    seat_at(club.engine, number, round_)
    other = new_id()
    assert enter_deal(club.pair(number), 1, OTHER, other).json()["state"] == "conflict"

    page = client.get(deals_url(club)).text
    assert 'id="deal-1"' in page
    assert "conflict" in page
    assert f'value="check:{other}"' in page  # the checking table's deal may be taken
    page = post(client, f"{deals_url(club)}/1/resolve", csrf, choice="keyed", reason="").text
    assert "flash-error" in page  # a reason is asked for
    with Session(club.engine) as s:
        assert s.exec(select(Board.deal).where(Board.number == 1)).one() is None
    page = post(
        client, f"{deals_url(club)}/1/resolve", csrf, choice=f"check:{other}", reason="board seen"
    ).text
    assert "flash-error" not in page
    assert "Board 1: the deal is set." in page
    with Session(club.engine) as s:
        assert s.exec(select(Board.deal).where(Board.number == 1)).one() == OTHER
        row = s.exec(select(Audit).where(Audit.action == "deal_resolved")).one()
    assert (row.reason, json.loads(row.new or "{}")["choice"]) == ("board seen", "check")
    assert f'action="{deals_url(club)}/1/resolve"' not in client.get(deals_url(club)).text


def test_the_deals_page_is_not_in_the_menu_without_deal_entry(
    client: TestClient, club: Club
) -> None:
    web_login(client)
    page = client.get(f"/td/s/{club.section_id}").text
    assert f'href="{deals_url(club)}"' not in page


def test_the_result_editor_takes_the_play(client: TestClient, club: Club) -> None:
    r = club.td("PATCH", f"/api/v1/events/{club.event_id}", json={"play_entry": "optional"})
    assert r.status_code == 200, r.text
    csrf = web_login(client)
    url = board_url(club, 1, 1, 1)
    assert 'name="play"' in client.get(url).text
    page = post(
        client,
        f"{url}/set",
        csrf,
        contract="7NT",
        declarer="N",
        tricks="13",
        play="st st",
        reason="slip",
    ).text
    assert "flash-error" in page
    assert "ST has already been played" in page
    page = post(
        client,
        f"{url}/set",
        csrf,
        contract="7NT",
        declarer="N",
        tricks="13",
        play="st s6 s2 sa =13",
        reason="the play as the players told it",
    ).text
    assert "flash-error" not in page
    assert 'value="ST S6 S2 SA =13"' in page  # the editor shows the stored play
    with Session(club.engine) as s:
        stored = s.exec(select(Result).where(Result.board == 1)).one()
    assert stored.play == "ST S6 S2 SA =13"


def test_the_set_up_wizard_sets_the_play_and_deal_entry(client: TestClient, engine: Engine) -> None:
    csrf = web_login(client)
    r = create(client, csrf, play_entry="required")
    assert r.status_code == 422
    assert events(engine) == []
    r = create(client, csrf, play_entry="optional", deal_entry="on")
    assert r.status_code == 303, r.text
    with Session(engine) as s:
        event = s.exec(select(Event)).one()
    assert (event.play_entry, event.deal_entry) == ("optional", True)
