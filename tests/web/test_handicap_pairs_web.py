"""Handicap pairs on the TD console and the public pages: the Players page sets a pair's
handicap (bad input refused, nothing stored); the rankings show the handicapped percentage
beside the raw one, in real Chromium at 1366 and 390 px without sideways scroll."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import col, select

from server.core.db import make_engine, transact
from server.core.models import Audit
from server.services.event import setup
from server.services.results import standings
from tests.support.api import Club
from tests.support.web import LiveServer, Room, login, web_login
from tests.web.test_glance_fixes import pairs_of
from tests.web.test_wizard_browser import PHONE, expect, no_sideways_scroll

SCREENS = Path("/work/notes/screens/handicap")
DESKTOP = {"width": 1366, "height": 768}


def handicap_audits(club: Club) -> list[Audit]:
    return transact(
        club.engine,
        lambda s: list(s.exec(select(Audit).where(col(Audit.action) == "pair_handicap")).all()),
    )


def test_the_players_page_sets_a_handicap_and_audits_it(client: TestClient, club: Club) -> None:
    csrf = web_login(client)
    page = client.get(f"/td/s/{club.section_id}/players").text
    assert ">Handicap</th>" in page
    first, second = sorted(pairs_of(club))[:2]
    assert f'name="handicap_{first}" value=""' in page
    data = {"csrf": csrf, f"handicap_{first}": "2.5", f"handicap_{second}": ""}
    r = client.post(f"/td/s/{club.section_id}/pairs", data=data, follow_redirects=False)
    assert r.status_code == 303
    assert "Pair names saved: 1." in client.get(r.headers["location"]).text
    now = pairs_of(club)
    assert now[first].handicap == "2.5"
    assert now[second].handicap is None
    (row,) = handicap_audits(club)
    assert json.loads(row.new or "{}")["handicap"] == "2.5"
    assert json.loads(row.old or "{}")["handicap"] is None
    page = client.get(f"/td/s/{club.section_id}/players").text
    assert f'name="handicap_{first}" value="2.5"' in page
    audit_page = client.get(f"/td/s/{club.section_id}/audit")
    assert audit_page.status_code == 200
    assert "Pair handicap" in audit_page.text


@pytest.mark.parametrize("text", ["abc", "150", "1e400"])
def test_a_bad_handicap_on_the_players_page_changes_nothing(
    client: TestClient, club: Club, text: str
) -> None:
    csrf = web_login(client)
    first, second = sorted(pairs_of(club))[:2]
    data = {
        "csrf": csrf,
        f"player1_{first}": "Anna Jensen",
        f"handicap_{first}": "3",
        f"handicap_{second}": text,
    }
    r = client.post(f"/td/s/{club.section_id}/pairs", data=data, follow_redirects=False)
    assert r.status_code == 303
    page = client.get(r.headers["location"]).text
    assert "flash-error" in page
    label = standings.pair_name(pairs_of(club)[second]).key
    assert f"Pair {label}: &#39;{text}&#39; is not a handicap." in page
    assert "between -100 and 100" in page
    now = pairs_of(club)
    assert (now[first].player1, now[first].handicap, now[second].handicap) == ("", None, None)
    assert handicap_audits(club) == []


def play_session(room: Room) -> None:
    """All three rounds of the 3-table Mitchell in 3NT by North, the tricks varying with the
    table and the board (so the percentages differ)."""
    rounds = room.td("GET", f"/api/v1/sections/{room.section_id}")["rounds"]
    for round_ in range(1, rounds + 1):
        if round_ > 1:
            room.start_round(round_)
        for number in (1, 2, 3):
            terminal = room.table(number)
            if round_ > 1:
                terminal.next_round()
            for board in terminal.boards():
                terminal.play(board, tricks=7 + (number * board) % 5)


def set_handicaps(room: Room, handicaps: dict[str, str]) -> None:
    pairs = room.td("GET", f"/api/v1/sections/{room.section_id}/pairs")
    for p in pairs:
        key = f"{p['number']}{p['direction']}"
        if key in handicaps:
            body = {"player1": p["player1"], "player2": p["player2"], "handicap": handicaps[key]}
            room.td("PUT", f"/api/v1/sections/{room.section_id}/pairs/{key}", json=body)


def live_ranking(server: LiveServer, section_id: int) -> standings.Ranking:
    engine = make_engine(f"sqlite:///{server.database}")
    try:
        return transact(
            engine, lambda s: standings.ranking(s, setup.get_section(s, section_id), public=True)
        )
    finally:
        engine.dispose()


def tables_fit(tab: Any) -> bool:
    """Every ranking table ends inside the window (a card may clip what the page would not
    scroll to)."""
    return bool(
        tab.evaluate(
            "[...document.querySelectorAll('table.ranking')].every("
            "t => t.getBoundingClientRect().right <= document.documentElement.clientWidth "
            "&& t.scrollWidth <= t.clientWidth + 1)"
        )
    )


def cell(tab: Any, pair: str, css: str) -> str:
    text: str = tab.locator(f'tr[data-pair="{pair}"] td.{css}').inner_text()
    return text.strip()


@pytest.mark.slow
def test_the_rankings_show_the_handicapped_percentage_in_chromium(
    browser: Any, live_server: LiveServer, room: Room
) -> None:
    play_session(room)
    set_handicaps(room, {"1NS": "4", "2EW": "-2.5", "3NS": "1"})
    ranking = live_ranking(live_server, room.section_id)
    assert ranking.handicaps
    lines = {line.pair.key: line for line in ranking.lines}
    assert lines["1NS"].handicapped is not None
    assert lines["1NS"].percent is not None
    assert lines["1NS"].handicapped - lines["1NS"].percent == Decimal(2)
    SCREENS.mkdir(parents=True, exist_ok=True)
    for name, viewport in (("1366", DESKTOP), ("390", PHONE)):
        context = browser.new_context(base_url=live_server.url, viewport=viewport)
        try:
            context.set_default_timeout(8000)
            tab = context.new_page()
            tab.goto(f"/results/{room.section_id}")
            heads = tab.locator("table.ranking").first.locator("th")
            expect(heads.filter(has_text=re.compile(r"^Hcp %$"))).to_be_visible()
            # The published column: raw + half the handicap, to two decimals.
            assert cell(tab, "1NS", "hcp-pct") == f"{lines['1NS'].handicapped:.2f}%"
            assert cell(tab, "2EW", "hcp-pct") == f"{lines['2EW'].handicapped:.2f}%"
            assert cell(tab, "2NS", "hcp-pct") == "–"  # no handicap
            raw = tab.locator('tr[data-pair="1NS"] td.pct').first.inner_text().strip()
            assert raw == f"{lines['1NS'].percent:.2f}%"
            if name == "1366":
                assert tab.locator('tr[data-pair="1NS"] td.hcp').inner_text().strip() == "4"
            else:
                assert no_sideways_scroll(tab)
                expect(tab.locator('tr[data-pair="1NS"] td.hcp-pct')).to_be_visible()
            assert tables_fit(tab)
            tab.screenshot(path=str(SCREENS / f"public-ranking-{name}.png"), full_page=True)
            tab.goto(f"/results/{room.section_id}/projector")
            expect(tab.locator("#ranking th", has_text="Hcp %").first).to_be_visible()
            if name == "1366":  # the projector is for a wide screen
                assert no_sideways_scroll(tab)
                assert tables_fit(tab)
            tab.screenshot(path=str(SCREENS / f"projector-{name}.png"), full_page=True)
            login(tab)
            tab.goto(f"/td/s/{room.section_id}/ranking")
            expect(tab.locator("th", has_text="Hcp %").first).to_be_visible()
            assert tables_fit(tab)
            tab.screenshot(path=str(SCREENS / f"td-ranking-{name}.png"), full_page=True)
            tab.goto(f"/td/s/{room.section_id}/players")
            expect(tab.locator("input[name^=handicap_]").first).to_be_visible()
            if name == "390":
                assert no_sideways_scroll(tab)
            tab.screenshot(path=str(SCREENS / f"td-players-{name}.png"), full_page=True)
        finally:
            context.close()


@pytest.mark.slow
def test_a_section_without_handicaps_has_no_handicap_column_in_chromium(
    browser: Any, live_server: LiveServer, room: Room
) -> None:
    play_session(room)
    context = browser.new_context(base_url=live_server.url, viewport=PHONE)
    try:
        tab = context.new_page()
        tab.goto(f"/results/{room.section_id}")
        expect(tab.locator('tr[data-pair="1NS"] td.pct')).to_be_visible()
        assert tab.locator("th", has_text="Hcp").count() == 0
        assert tab.locator("td.hcp-pct").count() == 0
        assert no_sideways_scroll(tab)
    finally:
        context.close()
