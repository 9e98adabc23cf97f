"""The dashboard in a real Chromium while results arrive (issue 18, item 3): each result comes
as a delta (the table's grid row, the totals), applied in place without a reload; the page then
reads as a freshly loaded one; and a delta the page cannot place makes it ask for the whole
page. Screenshots at 1366x768 and 390x844 go to the reference folder (tests.support.web)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.web import LiveServer, Room, login, open_room, overflow, save_screen

pytestmark = pytest.mark.slow
#: Playwright is a dev tool: without it this module is skipped (the browser fixture says why).
expect = pytest.importorskip("playwright.sync_api").expect


def grid_state(tab: Any) -> dict[str, Any]:
    """What the TD reads on the dashboard: every cell's state and counts, the tiles."""
    state: dict[str, Any] = tab.evaluate(
        """() => ({
            cells: [...document.querySelectorAll('[data-fragment="grid"] td.cell')].map(c =>
                [c.closest('tr').dataset.table, c.dataset.round, c.dataset.status,
                 c.dataset.confirmed || '', c.dataset.entered || '', c.textContent.trim()]),
            tiles: [...document.querySelectorAll('.tile')].map(t => [t.className,
                t.querySelector('.value') ? t.querySelector('.value').textContent : '']),
            missing: document.querySelector('[data-fragment="missing"]').textContent.trim(),
        })"""
    )
    return state


def deltas(tab: Any) -> int:
    return int(tab.evaluate("document.body.getAttribute('data-deltas') || '0'"))


def busy_room(live_server: LiveServer) -> Room:
    room = open_room(live_server, name="Tuesday pairs", tables=12, bpr=3, rounds=4)
    room.name_pairs()
    room.start_round(1)
    return room


def open_dashboard(browser: Any, live_server: LiveServer, room: Room, size: dict[str, int]) -> Any:
    context = browser.new_context(base_url=live_server.url, viewport=size)
    context.set_default_timeout(8000)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.errors = errors
    login(tab, f"/td/s/{room.section_id}")
    expect(tab.locator("#live-status")).to_have_class("live-dot on")
    tab.evaluate("window.__same_page = true")
    return tab


def test_results_arrive_as_deltas_and_the_page_reads_as_a_fresh_one(
    browser: Any, live_server: LiveServer, tmp_path: Path
) -> None:
    room = busy_room(live_server)
    tab = open_dashboard(browser, live_server, room, {"width": 1366, "height": 768})
    # Table 1 plays its round through; table 2 enters a board, not yet confirmed.
    room.table(1).play_round()
    first = room.table(2).boards()[0]
    room.table(2).enter(first)
    expect(tab.locator('tr[data-table="1"] td.cell[data-round="1"]')).to_have_attribute(
        "data-status", "complete"
    )
    expect(tab.locator('tr[data-table="2"] td.cell[data-round="1"]')).to_have_attribute(
        "data-entered", "1"
    )
    expect(tab.locator('[data-total="entered"]')).to_have_text("1")
    assert tab.evaluate("window.__same_page === true")  # no reload
    assert deltas(tab) > 0  # they came as deltas, not as whole pages
    # results keep arriving while the screenshot is taken
    for number in (3, 4, 5):
        room.table(number).play_round()
    room.table(6).enter(room.table(6).boards()[0])
    expect(tab.locator('tr[data-table="5"] td.cell[data-round="1"]')).to_have_attribute(
        "data-status", "complete"
    )
    expect(tab.locator('[data-total="entered"]')).to_have_text("2")
    save_screen(tab, tmp_path, "dashboard-deltas-1366.png")
    live = grid_state(tab)
    tab.reload()
    expect(tab.locator("#live-status")).to_have_class("live-dot on")
    assert grid_state(tab) == live  # what the deltas built is what a fresh page shows
    assert tab.errors == []
    tab.context.close()


def test_a_delta_the_page_cannot_place_brings_the_whole_page(
    browser: Any, live_server: LiveServer, tmp_path: Path
) -> None:
    room = busy_room(live_server)
    tab = open_dashboard(browser, live_server, room, {"width": 390, "height": 844})
    room.table(1).play_round()
    expect(tab.locator('tr[data-table="1"] td.cell[data-round="1"]')).to_have_attribute(
        "data-status", "complete"
    )
    save_screen(tab, tmp_path, "dashboard-deltas-390.png")
    assert overflow(tab) == 0  # the phone page does not scroll sideways
    tab.evaluate("document.querySelector('tr[data-table=\"7\"]').remove()")
    room.table(7).play_round()  # its row is not on the page: the page asks for all of it
    expect(tab.locator('tr[data-table="7"] td.cell[data-round="1"]')).to_have_attribute(
        "data-status", "complete"
    )
    assert int(tab.evaluate("document.body.getAttribute('data-refreshes') || '0'")) >= 1
    assert tab.evaluate("window.__same_page === true")
    assert tab.errors == []
    tab.context.close()
