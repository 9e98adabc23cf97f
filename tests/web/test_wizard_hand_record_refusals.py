"""Issue 16 in a real Chromium: a hand-record file with one broken board, given to the set-up
wizard, creates the event with the other deals and names the refused board in the notice, on a
desktop and on a phone (no sideways scroll); screenshots in /tmp/shots/wizard."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.web import LiveServer, login

pytestmark = pytest.mark.slow

SHOTS = Path("/tmp/shots/wizard")
HANDS = ("AKQJT98765432...", ".AKQJT98765432..", "..AKQJT98765432.", "...AKQJT98765432")
BROKEN = (
    f'[Event "Club"]\n[Board "1"]\n[Deal "N:{" ".join(HANDS)}"]\n\n'
    '[Event "Club"]\n[Board "two"]\n[Deal "N:- - - -"]\n\n'
)


@pytest.fixture(params=[(1366, 768), (390, 844)], ids=["desktop", "phone"])
def tab(request: Any, browser: Any, live_server: LiveServer) -> Iterator[Any]:
    width, height = request.param
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": width, "height": height}
    )
    context.set_default_timeout(8000)
    page = context.new_page()
    login(page)
    yield page
    context.close()


def test_a_broken_board_is_named_and_the_event_created(tab: Any, tmp_path: Path) -> None:
    pbn = tmp_path / "hands.pbn"
    pbn.write_text(BROKEN)
    tab.goto("/td/setup")
    tab.click("#wiz-propose")
    tab.click("#wiz-next")
    tab.set_input_files("#pbn_file", str(pbn))
    tab.click("#wiz-create")
    flash = tab.locator(".flash-ok")
    expect(flash).to_contain_text("Hand records: 1 read, 1 refused: line 6:")
    expect(flash).to_contain_text("'two' is not a board number")
    width = tab.viewport_size["width"]
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SHOTS / f"hand-records-refused-{width}.png"), full_page=True)
    assert tab.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )


def test_strict_mode_refuses_the_file_and_keeps_the_form(tab: Any, tmp_path: Path) -> None:
    """The TD ticks strict mode: the same file is refused with the same summary, nothing is
    created, and the form comes back with strict mode still ticked."""
    pbn = tmp_path / "hands.pbn"
    pbn.write_text(BROKEN)
    tab.goto("/td/setup")
    tab.click("#wiz-propose")
    tab.click("#wiz-next")
    tab.set_input_files("#pbn_file", str(pbn))
    tab.check("#strict_hand_records")
    tab.click("#wiz-create")
    error = tab.locator(".wiz-error")
    expect(error).to_contain_text("The hand-record file: 1 read, 1 refused: line 6:")
    expect(error).to_contain_text("Strict mode: nothing was created.")
    expect(tab.locator("#strict_hand_records")).to_be_checked()
    width = tab.viewport_size["width"]
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SHOTS / f"hand-records-strict-{width}.png"), full_page=True)
    assert tab.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )
