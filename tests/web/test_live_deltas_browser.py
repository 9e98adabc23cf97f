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


def press_while_the_whole_page_comes(tab: Any, room: Room, selector: str) -> None:
    """Open the dashboard with its socket's first messages held back; press the mouse on
    ``selector``; let the messages in (the whole page: it is applied); check that the element
    pressed is still on the page; leave the mouse released to the caller."""
    held: list[Any] = [None]  # while it holds a first item, the server's messages wait
    sockets: list[Any] = []

    def hold_until_released(route: Any) -> None:
        server = route.connect_to_server()
        sockets.append(route)
        server.on_message(lambda message: route.send(message) if not held else held.append(message))
        route.on_message(server.send)

    tab.route_web_socket("**/live", hold_until_released)
    tab.goto(f"/td/s/{room.section_id}")
    expect(tab.locator("#live-status")).to_have_class("live-dot on")
    for _ in range(50):
        if len(held) > 1:
            break
        tab.wait_for_timeout(100)
    assert len(held) > 1, "the server sent nothing on the live socket"
    assert tab.evaluate("document.body.getAttribute('data-updates')") is None
    tab.wait_for_timeout(1100)  # the page's clock has ticked its timers since it was loaded
    target = tab.locator(selector)
    target.evaluate("el => { window.__pressed = el; }")
    box = target.bounding_box()
    tab.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    tab.mouse.down()
    messages = held[1:]
    held.clear()
    for message in messages:
        sockets[0].send(message)
    tab.wait_for_function("document.body.getAttribute('data-updates') !== null")
    assert target.evaluate("el => el === window.__pressed")  # not replaced


def test_a_press_on_a_button_survives_the_whole_page_that_comes_when_the_socket_opens(
    td_page: Any, room: Room
) -> None:
    """The socket's first message is the whole page, mostly what was just loaded. It arrives
    here between the press and the release on "Close round 1": a fragment that has not changed
    is left as it is, so the button is still the one pressed and the click happens."""
    press_while_the_whole_page_comes(td_page, room, "form[action$='/rounds/close'] button")
    questions: list[str] = []

    def answer(dialog: Any) -> None:
        questions.append(dialog.message)
        dialog.accept()

    td_page.once("dialog", answer)
    td_page.mouse.up()
    expect(td_page.locator(".flash-ok")).to_contain_text("Round 1 closed")
    assert questions == ["Close round 1 to table entries?"]


def test_a_press_on_a_grid_cell_survives_the_whole_page_that_comes_when_the_socket_opens(
    td_page: Any, room: Room
) -> None:
    """The same on the grid, whose timers the page has moved on since it was loaded: the
    page's own changes (the timers, a late row) are made to the new fragment before it is
    compared, so the cell pressed stays and its link is followed."""
    cell = 'tr[data-table="2"] td.cell[data-round="1"] a'
    press_while_the_whole_page_comes(td_page, room, cell)
    td_page.mouse.up()
    td_page.wait_for_url(f"**/td/s/{room.section_id}/tables/2#round-1")
