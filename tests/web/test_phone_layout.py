"""The TD walking the room with a phone: every TD and public page fits 390 px with no sideways
scroll, the TD's navigation sits behind a menu button (shown open without JavaScript), the public
traveller and score card keep every column; screenshots at 1366x768 and 390x844."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from server.core.db import make_engine, transact
from server.services.event import setup
from server.services.td import publication
from tests.support.env import TD_PASSWORD
from tests.support.web import LiveServer, Room, login, open_room, overflow, scrolling_inside

pytestmark = pytest.mark.slow

SHOTS = Path("/tmp/shots/phone")
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1366, "height": 768}
LONG_NAMES = [
    ("Annemarie Christiansen-Vestergaard", "Bartholomæus Østergaard-Nielsen"),
    ("Konstantin Aleksandrovich Rimsky", "Margarethe von Hohenzollern-Sigmaringen"),
    ("Ingeborg Skovgaard Frederiksen", "Wolfgang Amadeus Brandenburger"),
    ("Hildegard Mortensen-Kjærsgaard", "Christoffer Bjørnstjerne Lindholm"),
]


@dataclass
class Night:
    """A 4-table Mitchell in round 2 (round 1 played, round 2 half done, a TD call) and an
    individual section beside it, on the live server."""

    room: Room
    individual: int


def _name_long(room: Room) -> None:
    index = 0
    for number in range(1, 5):
        for direction in ("NS", "EW"):
            first, second = LONG_NAMES[index % len(LONG_NAMES)]
            index += 1
            room.td(
                "PUT",
                f"/api/v1/sections/{room.section_id}/pairs/{number}{direction}",
                json={"player1": first, "player2": second},
            )


def _individual(room: Room) -> int:
    """Section B: an 8-player individual with its first round played."""
    section = room.td(
        "POST",
        f"/api/v1/events/{room.event_id}/sections",
        json={"letter": "B", "movement": {"kind": "individual", "pairs": 8, "boards_per_round": 2}},
    )
    codes = {int(k): v for k, v in section["pairing_codes"].items()}
    other = Room(room.http, room.td_headers, room.event_id, section["id"], codes)
    other.td(
        "PUT",
        f"/api/v1/sections/{section['id']}/individual/players/3",
        json={"name": "Wilhelmina Charlotta Augusta Lindqvist-Rosenberg"},
    )
    other.start_round(1)
    for number in codes:
        other.table(number).play_round()
    return int(section["id"])


def _publish(server: LiveServer, section_id: int) -> None:
    engine = make_engine(f"sqlite:///{server.database}")
    try:
        transact(
            engine,
            lambda s: publication.publish(
                s, setup.get_section(s, section_id), status="provisional"
            ),
        )
    finally:
        engine.dispose()


@pytest.fixture(scope="module")
def night(live_server: LiveServer) -> Iterator[Night]:
    room = open_room(live_server, name="Thursday evening club championship pairs", tables=4, bpr=2)
    _name_long(room)
    room.start_round(1)
    for number in range(1, 5):
        room.table(number).play_round(tricks=8 + number % 3)
    room.start_round(2)
    for number in range(1, 5):
        terminal = room.table(number)
        terminal.next_round()
        if number % 2:
            terminal.play(terminal.boards()[0], "4H", "S", 10)
    room.table(3).send({"type": "call_td", "entry_id": "phone-call-t3", "reason": "revoke"})
    # Published: the public sees every board, so the traveller and the score card are full.
    _publish(live_server, room.section_id)
    individual = _individual(room)
    yield Night(room, individual)
    room.http.close()


def pages(night: Night) -> dict[str, str]:
    """Every page the TD and the players open, by a short name for the screenshots."""
    s, i = night.room.section_id, night.individual
    td = f"/td/s/{s}"
    return {
        "td-home": "/td",
        "dashboard": td,
        "table": f"{td}/tables/1",
        "board": f"{td}/tables/1/rounds/1/boards/1",
        "calls": f"{td}#calls",
        "pairing": f"{td}/pairing",
        "movement": f"{td}/movement",
        "players": f"{td}/players",
        "penalties": f"{td}/penalties",
        "ranking-td": f"{td}/ranking",
        "audit": f"{td}/audit",
        "publish": f"{td}/publish",
        "end": f"{td}/end",
        "sheet": f"{td}/end/sheet",
        "home": "/results",
        "ranking": f"/results/{s}",
        "traveller": f"/results/{s}/boards/1",
        "score-card": f"/results/{s}/pairs/1NS",
        "player-card": f"/results/{i}/players/3",
        "individual-ranking": f"/results/{i}",
    }


@pytest.fixture(scope="module")
def contexts(browser: Any, live_server: LiveServer) -> Iterator[dict[str, Any]]:
    """A logged-in phone and laptop (one login each, shared by the module's tests)."""
    made = {}
    for name, size in (("phone", PHONE), ("laptop", LAPTOP)):
        context = browser.new_context(base_url=live_server.url, viewport=size)
        context.set_default_timeout(8000)
        login(context.new_page())
        made[name] = context
    yield made
    for context in made.values():
        context.close()


def shoot(tab: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SHOTS / name), full_page=True)


def test_every_page_fits_a_390_px_phone(night: Night, contexts: dict[str, Any]) -> None:
    tab = contexts["phone"].new_page()
    wide = {}
    for name, path in pages(night).items():
        r = tab.goto(path)
        assert r is not None
        assert r.status == 200, (name, path)
        tab.wait_for_load_state("load")
        shoot(tab, f"{name}-390.png")
        if overflow(tab):
            wide[name] = overflow(tab)
        inside = scrolling_inside(tab)
        if inside:
            wide[f"{name} (inside)"] = inside
    assert wide == {}, f"pages wider than 390 px, or scrolling inside: {wide}"
    tab.close()


def test_every_page_on_a_laptop_keeps_its_top_navigation(
    night: Night, contexts: dict[str, Any]
) -> None:
    tab = contexts["laptop"].new_page()
    for name, path in pages(night).items():
        tab.goto(path)
        shoot(tab, f"{name}-1366.png")
        assert overflow(tab) == 0, name
        assert not tab.locator(".nav-button").is_visible(), name
        if path.startswith("/td/s/") and name != "sheet":
            assert tab.locator("#topnav a#nav-end").is_visible(), name
    tab.close()


def test_the_event_name_is_not_cut_in_the_td_top_bar_on_a_laptop(
    night: Night, contexts: dict[str, Any]
) -> None:
    """A 40-character event name beside the TD's navigation at 1366 px: shown whole."""
    tab = contexts["laptop"].new_page()
    for path in (f"/td/s/{night.room.section_id}", f"/td/s/{night.room.section_id}/pairing"):
        tab.goto(path)
        event = tab.locator(".topbar .context .event")
        assert event.inner_text() == "Thursday evening club championship pairs"
        cut = event.evaluate(
            "e => e.scrollWidth > e.clientWidth || e.scrollHeight > e.clientHeight + 1"
        )
        assert not cut, path
        assert tab.locator("#topnav a#nav-end").is_visible()
        bar = tab.locator(".topbar").bounding_box()
        assert bar is not None
        assert bar["height"] <= 56  # still one bar, not a second row
    shoot(tab, "topbar-event-1366.png")
    tab.close()


def test_without_javascript_the_td_navigation_is_shown_open(
    browser: Any, live_server: LiveServer, night: Night
) -> None:
    context = browser.new_context(
        base_url=live_server.url, viewport=PHONE, java_script_enabled=False
    )
    try:
        tab = context.new_page()
        tab.goto("/td/login?next=/td")
        tab.fill("#password", TD_PASSWORD)
        tab.click("button[type=submit]")
        tab.goto(f"/td/s/{night.room.section_id}")
        end = tab.locator("#topnav a#nav-end")
        # Without JavaScript the menu button could not open anything: it stays hidden and the
        # navigation is shown open.
        assert not tab.locator(".nav-button").is_visible()
        assert end.is_visible()
        shoot(tab, "menu-open-390.png")
        end.click()
        tab.wait_for_url(f"**/td/s/{night.room.section_id}/end")
        assert tab.locator("#end-backup-now").is_visible()
    finally:
        context.close()


def fits(tab: Any, table: str) -> bool:
    """The table is no wider than its card: it needs no scrolling of its own either."""
    return bool(
        tab.evaluate(
            f"""() => {{
              const t = document.querySelector({table!r}), card = t.parentElement;
              return t.getBoundingClientRect().right <= card.getBoundingClientRect().right
                && card.scrollWidth <= card.clientWidth;
            }}"""
        )
    )


def _visible_headers(tab: Any, table: str) -> list[str]:
    cells = tab.locator(f"{table} thead th")
    return [cells.nth(n).inner_text() for n in range(cells.count()) if cells.nth(n).is_visible()]


def test_the_public_traveller_and_score_card_keep_every_column_on_a_phone(
    night: Night, contexts: dict[str, Any]
) -> None:
    tab = contexts["phone"].new_page()
    s = night.room.section_id
    tab.goto(f"/results/{s}/boards/1")
    assert fits(tab, "table.traveller")
    assert len(_visible_headers(tab, "table.traveller")) == 10
    row = tab.locator("table.traveller tbody tr").first
    assert sum(row.locator("td").nth(n).is_visible() for n in range(10)) == 10
    assert overflow(tab) == 0
    tab.goto(f"/results/{s}/pairs/1NS")
    assert fits(tab, "table.scorecard")
    assert len(_visible_headers(tab, "table.scorecard")) == 10  # Rd ... MP and %
    assert overflow(tab) == 0
    tab.close()


@pytest.mark.parametrize("tables", [5, 7])
def test_a_club_nights_rounds_all_fit_a_phones_grid(
    live_server: LiveServer, contexts: dict[str, Any], tables: int
) -> None:
    """A Mitchell of five or seven tables (as many rounds): every round column shows at 390 px,
    and the grid needs no scrolling of its own."""
    room = open_room(live_server, name=f"{tables}-table Mitchell", tables=tables, bpr=3)
    try:
        room.start_round(1)
    finally:
        room.http.close()
    tab = contexts["phone"].new_page()
    tab.goto(f"/td/s/{room.section_id}")
    tab.wait_for_load_state("load")
    shoot(tab, f"dashboard-{tables}-rounds-390.png")
    assert tab.locator(".grid thead th.r").count() == tables
    assert fits(tab, "table.grid")
    assert overflow(tab) == 0
    tab.close()


def test_a_long_movement_scrolls_its_grid_to_the_current_round_on_a_phone(
    live_server: LiveServer, contexts: dict[str, Any]
) -> None:
    """Twelve rounds do not fit 390 px: the grid scrolls in its card (the page does not), the
    current round shows, and the table numbers stay at the left edge."""
    room = open_room(live_server, name="Twelve-table Mitchell", tables=12, bpr=2)
    try:
        for number in range(1, 10):
            room.start_round(number)
    finally:
        room.http.close()
    tab = contexts["phone"].new_page()
    tab.goto(f"/td/s/{room.section_id}")
    tab.wait_for_load_state("load")
    shoot(tab, "dashboard-12-rounds-390.png")
    assert overflow(tab) == 0
    where = tab.evaluate(
        """() => {
          const wrap = document.querySelector('.grid-scroll').getBoundingClientRect();
          const cur = document.querySelector('.grid thead th.r.cur');
          const table = document.querySelector('.grid thead th.t').getBoundingClientRect();
          const first = document.querySelector('.grid tbody th.t').getBoundingClientRect();
          const c = cur.getBoundingClientRect();
          return {round: cur.textContent.trim(), wrapLeft: wrap.left, wrapRight: wrap.right,
                  tableLeft: table.left, tableRight: table.right, rowLeft: first.left,
                  curLeft: c.left, curRight: c.right,
                  scrolled: document.querySelector('.grid-scroll').scrollLeft};
        }"""
    )
    assert where["round"].endswith("9")
    assert where["scrolled"] > 0, "the grid scrolled to round 9"
    assert where["tableRight"] <= where["curLeft"], "round 9 is not under the table numbers"
    assert where["curRight"] <= where["wrapRight"] + 0.5, "round 9 is inside the card"
    # The table numbers stay at the card's left edge while the rounds scroll.
    assert abs(where["tableLeft"] - where["wrapLeft"]) < 1
    assert abs(where["rowLeft"] - where["wrapLeft"]) < 1
    tab.close()


def test_the_results_sheet_prints_one_part_a_page(night: Night, contexts: dict[str, Any]) -> None:
    """Chromium's own PDF of the sheet: the ranking, the travellers, then one page a pair."""
    tab = contexts["laptop"].new_page()
    tab.goto(f"/td/s/{night.room.section_id}/end/sheet")
    cards = tab.locator(".sheet-card").count()
    assert cards == 8
    tab.emulate_media(media="print")
    assert not tab.locator(".topbar").is_visible()
    assert not tab.locator(".no-print").is_visible()
    shoot(tab, "sheet-print-1366.png")
    SHOTS.mkdir(parents=True, exist_ok=True)
    pdf = tab.pdf(path=str(SHOTS / "results-sheet.pdf"), format="A4", print_background=True)
    pages_ = pdf.count(b"/Type /Page") - pdf.count(b"/Type /Pages")
    assert pages_ >= 2 + cards  # ranking, travellers, a page for each pair's card
    tab.close()


def test_one_click_backup_downloads_the_database(
    night: Night, contexts: dict[str, Any], tmp_path: Path
) -> None:
    tab = contexts["phone"].new_page()
    tab.goto(f"/td/s/{night.room.section_id}/end")
    with tab.expect_download() as info:
        tab.click("#end-backup-now")
    saved = tmp_path / info.value.suggested_filename
    info.value.save_as(saved)
    conn = sqlite3.connect(saved)
    try:
        assert conn.execute("PRAGMA quick_check").fetchone() == ("ok",)
        (count,) = conn.execute(
            "SELECT count(*) FROM result WHERE section_id = ?", (night.room.section_id,)
        ).fetchone()
    finally:
        conn.close()
    assert count >= 8  # round 1's boards at four tables, and more
    tab.goto(f"/td/s/{night.room.section_id}/audit")
    assert "Backup taken" in tab.content()
    tab.close()
