"""A round-robin teams event set up in the wizard in a real Chromium: six teams proposed with
their rounds and boards, the team names typed, hand records from a Duplimate .dup file, the
event the server then holds; the phone layout; screenshots at 1366x768 and 390x844."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, col, select

from server.db import make_engine
from server.models import Board, Team
from tests.web.conftest import LiveServer
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
