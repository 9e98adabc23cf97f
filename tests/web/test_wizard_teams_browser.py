"""Teams events set up in the wizard in a real Chromium: a six-team round robin (team names, hand
records from a Duplimate .dup file, the event the server then holds) and a four-team Swiss
played through the table API and paired from the standings; the phone layout; screenshots at
1366x768 and 390x844."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlmodel import Session, col, select

from server.core.db import make_engine
from server.core.models import Board, BridgeTable, MovementAssignment, Pair, Team
from tests.support.env import TD_PASSWORD
from tests.support.web import LiveServer, Room, login
from tests.web.test_wizard_browser import expect, held, no_sideways_scroll, phone  # noqa: F401

pytestmark = pytest.mark.slow

SHOTS = Path(os.environ.get("TRAVELLER_WIZARD_SCREENS", "/tmp/traveller-screens/wizard"))
DUP = Path(__file__).resolve().parents[1] / "data" / "dealing-machines" / "bigdeal_8.dup"


def shoot(tab: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SHOTS / name), full_page=True)


def test_a_round_robin_of_six_teams_set_up_in_the_wizard(
    td_page: Any, live_server: LiveServer
) -> None:
    name = f"Teams night {uuid.uuid4().hex[:6]}"
    td_page.set_viewport_size({"width": 1366, "height": 768})
    td_page.goto("/td/setup")
    td_page.fill("#name", name)
    td_page.fill("#pairs", "12")
    td_page.click("#wiz-propose")
    rr = td_page.locator('.wiz-option[data-key="teams-round-robin"]')
    expect(rr).to_contain_text("Round robin, 6 teams")
    expect(rr).to_contain_text("6 tables")
    expect(rr).to_contain_text("5 rounds")
    expect(rr).to_contain_text("5 boards a round")
    expect(td_page.locator('.wiz-option[data-key="teams-swiss"]')).to_contain_text(
        "Swiss teams, 6 teams, 4 rounds"
    )
    rr.click()
    shoot(td_page, "teams-2-movements-1366.png")
    td_page.click("#wiz-next")
    expect(td_page.locator("#scoring")).to_have_value("imps")
    td_page.fill('input[name="team_1"]', "Aces")
    td_page.fill('input[name="team_6"]', "Bo's four")
    td_page.fill('input[name="n_A_1NS_1"]', "Anna Jensen")
    td_page.set_input_files("#pbn_file", str(DUP))
    shoot(td_page, "teams-3-details-1366.png")
    td_page.click("#wiz-create")
    expect(td_page.locator(".flash-ok")).to_contain_text("Event created. Sections: 1; deals: 8.")
    shoot(td_page, "teams-4-done-1366.png")
    event, sections, pairs = held(live_server, name)
    assert event.scoring == "imps"
    assert [(s.movement_kind, s.tables, s.rounds, s.boards_per_round) for s in sections] == [
        ("teams", 6, 5, 5)
    ]
    engine = make_engine(f"sqlite:///{live_server.database}")
    try:
        with Session(engine) as s:
            teams = {t.number: t for t in s.exec(select(Team).where(Team.event_id == event.id))}
            dealt = s.exec(
                select(Board).where(
                    Board.section_id == sections[0].id, col(Board.deal).is_not(None)
                )
            ).all()
    finally:
        engine.dispose()
    assert (teams[1].name, teams[6].name, len(teams)) == ("Aces", "Bo's four", 6)
    assert {p.team_id for p in pairs} == {t.id for t in teams.values()}
    assert sorted(b.number for b in dealt) == list(range(1, 9))
    td_page.goto(f"/td/s/{sections[0].id}/movement")
    shoot(td_page, "teams-5-movement-1366.png")


def test_the_teams_steps_fit_a_phone(phone: Any) -> None:  # noqa: F811
    phone.goto("/td/setup?name=Teams&sections=1&pairs=12&minutes=210&per_board=7.5")
    phone.click("#wiz-propose")
    phone.locator('.wiz-option[data-key="teams-round-robin"]').click()
    shoot(phone, "teams-2-movements-390.png")
    assert no_sideways_scroll(phone)
    phone.click("#wiz-next")
    expect(phone.locator('input[name="team_6"]')).to_be_visible()
    shoot(phone, "teams-3-details-390.png")
    assert no_sideways_scroll(phone)


def test_a_swiss_set_up_played_through_the_tables_and_paired_from_the_standings(
    td_page: Any, live_server: LiveServer, browser: Any
) -> None:
    """Four teams, 2-board matches: round 1 by team number, played by the four table clients
    through the API, then round 2 paired on the matches page from the VP standings."""
    name = f"Swiss night {uuid.uuid4().hex[:6]}"
    td_page.set_viewport_size({"width": 1366, "height": 768})
    td_page.goto("/td/setup")
    td_page.fill("#name", name)
    td_page.fill("#pairs", "8")
    td_page.fill("#bpr", "2")
    td_page.click("#wiz-propose")
    swiss = td_page.locator('.wiz-option[data-key="teams-swiss"]')
    expect(swiss).to_contain_text("Swiss teams, 4 teams, 3 rounds")
    swiss.click()
    td_page.click("#wiz-next")
    td_page.fill('input[name="team_1"]', "Aces")
    td_page.click("#wiz-create")
    expect(td_page.locator(".flash-ok")).to_contain_text("Event created. Sections: 1.")
    _event, sections, _pairs = held(live_server, name)
    sid = sections[0].id or 0
    td_page.goto(f"/td/s/{sid}")
    td_page.click("#start-round")
    expect(td_page.locator(".flash-ok")).to_contain_text("Round 1 started.")
    room = _room(live_server, sid)
    try:
        for table, (contract, tricks) in {
            1: ("4S", 10),  # team 1 (home, N/S) makes 4S ...
            2: ("4S", 9),  # ... team 2's N/S go one down in the closed room
            3: ("3NT", 9),
            4: ("3NT", 9),
        }.items():
            terminal = room.table(table)
            for board in terminal.boards():
                terminal.play(board, contract, "N", tricks)
    finally:
        room.http.close()
    td_page.goto(f"/td/s/{sid}/teams")
    expect(td_page.locator("#team-standings tr[data-team]").first).to_contain_text("Aces")
    shoot(td_page, "swiss-1-standings-1366.png")
    td_page.click("#swiss-pair")
    expect(td_page.locator(".flash-ok")).to_contain_text(
        "The next round is paired from the standings."
    )
    expect(td_page.locator('#team-matches tr[data-round="2"]')).to_have_count(2)
    expect(td_page.locator('#team-matches tr[data-unpaired="3"]')).to_have_count(1)
    expect(td_page.locator("#swiss-pair")).to_have_text("Pair round 2 again")
    shoot(td_page, "swiss-2-paired-1366.png")
    engine = make_engine(f"sqlite:///{live_server.database}")
    try:
        with Session(engine) as s:
            numbers = {p.id: p.number for p in s.exec(select(Pair).where(Pair.section_id == sid))}
            second = {
                frozenset((numbers[c.ns_pair_id], numbers[c.ew_pair_id]))
                for c in s.exec(
                    select(MovementAssignment).where(
                        MovementAssignment.section_id == sid, MovementAssignment.round == 2
                    )
                )
                if c.table_number % 2 == 1 and c.ns_pair_id and c.ew_pair_id
            }
    finally:
        engine.dispose()
    assert second == {frozenset((1, 3)), frozenset((2, 4))}  # the winner meets a drawer
    context = browser.new_context(base_url=live_server.url, viewport={"width": 390, "height": 844})
    try:
        tab = context.new_page()
        login(tab)
        tab.goto(f"/td/s/{sid}/teams")
        shoot(tab, "swiss-2-paired-390.png")
        assert no_sideways_scroll(tab)
    finally:
        context.close()


def _room(server: LiveServer, section_id: int) -> Room:
    http = httpx.Client(base_url=server.url, timeout=10)
    r = http.post("/api/v1/td/login", json={"password": TD_PASSWORD})
    assert r.status_code == 200, r.text
    engine = make_engine(f"sqlite:///{server.database}")
    try:
        with Session(engine) as s:
            codes = {
                t.number: t.pairing_code
                for t in s.exec(select(BridgeTable).where(BridgeTable.section_id == section_id))
            }
    finally:
        engine.dispose()
    headers = {"Authorization": f"Bearer {r.json()['token']}"}
    return Room(http, headers, 0, section_id, codes)
