"""At a glance, in real headless Chromium: a TD call from a table (through the API) raises the
alert with its count on the dashboard and on the other TD pages, beeps once, and goes when
acknowledged; the room view and the Players page, with screenshots at 1366x768 and 390x844."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.support.web import Room

SHOTS = Path("/tmp/shots/glance")


def shoot(tab: Any, name: str) -> None:
    """Screenshots of the page at the laptop's and at a phone's size."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width, height in ((1366, 768), (390, 844)):
        tab.set_viewport_size({"width": width, "height": height})
        tab.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
    tab.set_viewport_size({"width": 1366, "height": 768})


def calls_now(tab: Any) -> int:
    return int(tab.evaluate("fetch('/td/calls.json').then(r => r.json()).then(d => d.count)"))


def test_a_td_call_raises_the_alert_with_its_count(td_page: Any, room: Room) -> None:
    td_page.goto(f"/td/s/{room.section_id}")
    expect(td_page.locator("#live-status")).to_have_class("live-dot on")
    before = calls_now(td_page)  # other tests' sections may have calls open too
    expect(td_page.locator("body")).to_have_attribute("data-calls", str(before))
    room.table(2).send({"type": "call_td", "entry_id": "call-glance-table-2", "reason": "revoke"})
    alert = td_page.locator("#call-alert .call-alert-box")
    expect(alert).to_be_visible()
    expect(alert).to_have_attribute("data-count", str(before + 1))
    expect(alert.locator(".call-alert-text")).to_contain_text(f"{before + 1} TD call")
    expect(td_page.locator('[data-total="calls"]')).to_have_text("1")
    expect(td_page.locator("#calls")).to_contain_text("revoke")
    expect(td_page.locator("body")).to_have_attribute("data-beeps", "1")
    shoot(td_page, "dashboard-call")
    # The sound can be switched off, and the choice is kept.
    alert.locator(".call-alert-sound").click()
    expect(alert.locator(".call-alert-sound")).to_have_text("Sound off")
    assert td_page.evaluate("localStorage.getItem('traveller-call-sound')") == "off"
    # On every TD page, not only the dashboard.
    td_page.goto(f"/td/s/{room.section_id}/players")
    expect(td_page.locator("#call-alert .call-alert-box")).to_have_attribute(
        "data-count", str(before + 1)
    )
    shoot(td_page, "players")
    td_page.goto(f"/td/s/{room.section_id}")
    td_page.locator("#calls button", has_text="Acknowledge").first.click()
    expect(td_page.locator('[data-total="calls"]')).to_have_text("0")
    expect(td_page.locator("body")).to_have_attribute("data-calls", str(before))


def test_the_room_view_lists_a_late_table_live(td_page: Any, room: Room) -> None:
    td_page.goto(f"/td/s/{room.section_id}/room")
    expect(td_page.locator("#live-status")).to_have_class("live-dot on")
    expect(td_page.locator(".room-clear")).to_be_visible()
    room.td("POST", f"/api/v1/sections/{room.section_id}/rounds/1/close")
    # The live feed moves: the room view asks for its body again and names the tables.
    expect(td_page.locator('.room-table[data-table="1"]')).to_be_visible()
    expect(td_page.locator(".room-head [data-total='missing']")).to_contain_text("6 boards")
    shoot(td_page, "room")
    td_page.goto("/td")
    shoot(td_page, "home")
