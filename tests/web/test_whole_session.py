"""A whole club night run from the browser, as a TD would (issue 15): a 7-pair Howell set up in
the wizard, cut to three rounds, a late pair seated and a pair that left removed on the changes
page, round 2 started with a double click (no round skipped), a TD call raising the alert,
results published provisionally while one is missing (warned, confirmed), a result corrected
after publication (audited, its § X79 deadline shown), the results made final and exported:
the USEBIO, PBN and CSV files downloaded hold the corrected result. The tables play through
the table API (``tests/web/conftest.py``'s terminals), every TD step is a click in Chromium.

The 2-section Mitchell and the 20-pair Mitchell are set up in ``test_wizard_browser.py``."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.env import TD_PASSWORD
from tests.support.web import LiveServer, Room, Terminal
from tests.web.test_browser import expect, set_result_on_the_page
from tests.web.test_wizard_browser import set_up_a_7_pair_howell

pytestmark = pytest.mark.slow

SHOTS = Path(os.environ.get("TRAVELLER_SESSION_SHOTS", "/tmp/shots/session"))


def shoot(tab: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def codes_on_the_pairing_page(tab: Any, section_id: int) -> dict[int, str]:
    """The pairing codes as the TD reads them to the tables."""
    tab.goto(f"/td/s/{section_id}/pairing")
    rows = tab.locator("table.pairing tbody tr")
    return {
        int(rows.nth(n).get_attribute("data-table")): rows.nth(n).locator("code").inner_text()
        for n in range(rows.count())
    }


def room_of(server: LiveServer, section_id: int, codes: dict[int, str]) -> Room:
    """The tables' side (and a TD API client for reading the state back)."""
    http = httpx.Client(base_url=server.url, timeout=10)
    r = http.post("/api/v1/td/login", json={"password": TD_PASSWORD})
    assert r.status_code == 200, r.text
    headers = {"Authorization": f"Bearer {r.json()['token']}"}
    section = http.get(f"/api/v1/sections/{section_id}", headers=headers).json()
    return Room(http, headers, section["event_id"], section_id, codes)


def current_round(room: Room) -> int:
    return int(room.td("GET", f"/api/v1/sections/{room.section_id}")["current_round"])


def change(tab: Any, section_id: int, kind: str, reason: str, **fields: str) -> None:
    """One change on the changes page: its form, the preview, then Apply."""
    tab.goto(f"/td/s/{section_id}/changes")
    form = tab.locator(f"#change-{kind}")
    for name, value in fields.items():
        field = form.locator(f"[name={name}]")
        if field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    form.locator("button[type=submit]").click()
    expect(tab.locator("#apply-change")).to_be_visible()
    tab.fill("#chg-reason", reason)
    tab.click("#apply-change")
    expect(tab.locator(".flash-ok")).to_contain_text("Movement changed")


def seated(terminal: Terminal) -> bool:
    """Whether the table has a round to play (a sit-out table has no boards)."""
    return bool(terminal.boards())


def download(tab: Any, selector: str, into: Path) -> str:
    with tab.expect_download() as info:
        tab.click(selector)
    path = into / info.value.suggested_filename
    info.value.save_as(path)
    return path.read_text(encoding="utf-8")


def test_a_whole_club_night_from_the_browser(
    td_page: Any, live_server: LiveServer, tmp_path: Path
) -> None:
    tab = td_page
    questions: list[str] = []

    def answer(dialog: Any) -> None:
        questions.append(dialog.message)
        dialog.accept()

    tab.on("dialog", answer)

    # Set up: the wizard, then three rounds only (a short night).
    section_id = set_up_a_7_pair_howell(
        tab, f"Club night {uuid.uuid4().hex[:6]}", scoring="mp", leads=False
    )
    base = f"/td/s/{section_id}"
    change(tab, section_id, "stop_after", "short night", rounds="3")
    room = room_of(live_server, section_id, codes_on_the_pairing_page(tab, section_id))
    assert room.td("GET", f"/api/v1/sections/{section_id}")["rounds"] == 3
    tables = sorted(room.codes)
    assert len(tables) == 4  # 7 pairs: four tables, one pair sits out each round

    # Round 1: started from the dashboard; the tables pair and play.
    tab.goto(base)
    expect(tab.locator("#start-round")).to_have_text("Start round 1")
    tab.click("#start-round")
    expect(tab.locator(".flash-ok")).to_contain_text("Round 1 started")
    played_first = {}
    for number in tables:
        terminal = room.table(number)
        if terminal.boards():
            played_first[number] = terminal.boards()[0]
        terminal.play_round()
    corrected_table = min(played_first)
    first = played_first[corrected_table]

    # A late pair arrives: seated in the sit-out's place from round 2. A pair leaves after
    # round 2: its opponents sit out in round 3.
    change(tab, section_id, "late_pair", "Karen and Lars came late", pair="8")
    change(tab, section_id, "pair_left", "Pair 3 went home", pair="3", from_round="3")
    pairs = room.td("GET", f"/api/v1/sections/{section_id}/movement")["pairs"]
    assert "8" in pairs

    # A double click on "Start round 2" starts round 2 once; "Start round 3" then asks (every
    # table is still in round 1), and the TD cancels.
    tab.goto(base)
    expect(tab.locator("#start-round")).to_have_text("Start round 2")
    tab.dblclick("#start-round")
    expect(tab.locator(".flash-ok")).to_contain_text("Round 2 started")
    assert current_round(room) == 2
    tab.dblclick("#start-round")
    expect(tab.locator("#confirm-step")).to_contain_text("Start round 3 anyway?")
    tab.click("#confirm-no")
    expect(tab.locator("#start-round")).to_have_text("Start round 3")
    assert current_round(room) == 2

    # Round 2, and a TD call from table 2: the alert shows with its count, on any TD page.
    for number in tables:
        terminal = room.table(number)
        assert terminal.next_round()["type"] != "error"
        terminal.play_round()
    tab.goto(f"{base}/players")
    before = int(tab.evaluate("fetch('/td/calls.json').then(r => r.json()).then(d => d.count)"))
    room.table(2).send({"type": "call_td", "entry_id": f"call-{uuid.uuid4()}", "reason": "revoke"})
    tab.goto(base)
    alert = tab.locator("#call-alert .call-alert-box")
    expect(alert).to_be_visible()
    expect(alert).to_have_attribute("data-count", str(before + 1))
    expect(tab.locator("#calls")).to_contain_text("revoke")
    shoot(tab, "dashboard-call")
    tab.locator("#calls button", has_text="Acknowledge").first.click()
    expect(tab.locator('[data-total="calls"]')).to_have_text("0")

    # Round 3: every table finished round 2, so it starts without a question. One board is
    # still missing when the TD publishes: named, asked, confirmed.
    expect(tab.locator("#start-round")).to_have_text("Start round 3")
    tab.click("#start-round")
    expect(tab.locator(".flash-ok")).to_contain_text("Round 3 started")
    late: tuple[Terminal, int] | None = None
    for number in tables:
        terminal = room.table(number)
        terminal.next_round()
        boards = terminal.boards()
        if boards and late is None:
            late = (terminal, boards[-1])
            boards = boards[:-1]
        for board in boards:
            terminal.play(board)
    assert late is not None
    tab.goto(f"{base}/publish")
    expect(tab.locator("#unsettled")).to_contain_text(f"Board {late[1]}, table {late[0].number}")
    tab.locator("#publish-provisional button[type=submit]").click()
    expect(tab.locator(".flash-ok")).to_contain_text("Published as provisional")
    assert questions[-1] == "1 board has no finished result. Publish anyway?"
    late[0].play(late[1])  # the last table finishes

    # A correction after publication: a table's first board of round 1 was 3NT by North
    # making nine; it was 4S by South making ten. Audited, with its own § X79 deadline.
    tab.goto(f"{base}/tables/{corrected_table}/rounds/1/boards/{first}")
    expect(tab.locator("#deadline")).to_contain_text("corrections open until")
    set_result_on_the_page(tab, "4S", "S", "10", "scoring error: 4S by South, ten tricks")
    expect(tab.locator(".flash-ok")).to_be_visible()
    expect(tab.locator("#trail")).to_contain_text("scoring error: 4S by South, ten tricks")
    shoot(tab, "board-corrected")
    tab.goto(f"{base}/audit")
    expect(tab.locator("#audit")).to_contain_text("scoring error: 4S by South, ten tricks")
    expect(tab.locator("#audit")).to_contain_text("Karen and Lars came late")
    tab.goto(f"{base}/publish")
    expect(tab.locator("#published-changes")).to_contain_text(
        f"Board {first}, table {corrected_table}"
    )
    expect(tab.locator("#published-changes")).to_contain_text("open to corrections until")
    shoot(tab, "publish-after-correction")

    # Every table has played its boards: nothing is missing, not even at the sit-out tables
    # (the phantom's seat, the seat of the pair that left).
    tab.goto(base)
    expect(tab.locator("#missing")).to_contain_text("Nothing overdue.")
    expect(tab.locator('[data-total="missing"]')).to_have_text("0")

    # Final, and the exports from the end-of-session page hold the corrected result.
    tab.goto(f"{base}/end")
    tab.locator("#publish-final button[type=submit]").click()
    expect(tab.locator(".flash-ok")).to_contain_text("Published as final")
    assert questions[-1] == "Mark the results final?"
    tab.goto(f"{base}/end")
    expect(tab.locator("#publish-final")).to_have_count(0)  # final already: no second click
    shoot(tab, "end-final")
    usebio = download(tab, "a[data-export=usebio]", tmp_path)
    pbn = download(tab, "a[data-export=pbn]", tmp_path)
    travellers = download(tab, "a[data-export=travellers]", tmp_path)
    ranking = download(tab, "a[data-export=ranking]", tmp_path)
    for name, text in (("USEBIO", usebio), ("PBN", pbn), ("travellers CSV", travellers)):
        assert text.count("4S") == 1, name  # the corrected result, once
    assert "3NT" in travellers  # every other board as played
    board_lines = [line for line in travellers.splitlines() if "4S" in line]
    assert len(board_lines) == 1
    assert any(score in board_lines[0] for score in ("420", "620")), board_lines
    # Every other board was 3NT made at every table: only the correction moves a pair off
    # 50 %, in the ranking CSV and in the USEBIO file alike.
    percentages = {line.split(",")[6] for line in ranking.splitlines()[1:]}
    assert max(percentages, key=float) != "50.00"
    assert f"<PERCENTAGE>{max(percentages, key=float)}</PERCENTAGE>" in usebio
    room.http.close()


def test_a_20_pair_mitchell_from_the_wizard_to_round_1_ready(
    td_page: Any, live_server: LiveServer, record_property: Any
) -> None:
    """The figure the issue asks for: clicks and seconds from ``/td/setup`` to round 1 started
    on the dashboard, every default taken (the wizard proposes 20 pairs, a Mitchell). Reported
    (``record_property``, printed), never asserted as a time: the seconds are the browser's
    and the server's, a person's reading time comes on top."""
    tab = td_page
    started = time.monotonic()
    clicks = 0
    tab.goto("/td/setup")
    for target in ("#wiz-propose", "#wiz-next", "#wiz-create"):
        tab.click(target)
        clicks += 1
    expect(tab.locator(".flash-ok")).to_contain_text("Event created. Sections: 1.")
    section = tab.locator(".wiz-done li").first
    section_id = int(section.get_attribute("data-section"))
    section.locator("a.primary").click()
    clicks += 1
    tab.click("#start-round")
    clicks += 1
    expect(tab.locator(".flash-ok")).to_contain_text("Round 1 started")
    seconds = time.monotonic() - started
    figure = f"{clicks} clicks, {seconds:.1f} s"
    record_property("wizard_20_pair_mitchell_to_round_1", figure)
    print(f"\n20-pair Mitchell, /td/setup to round 1 started: {figure}")
    room = room_of(live_server, section_id, {})
    try:
        held = room.td("GET", f"/api/v1/sections/{section_id}")
    finally:
        room.http.close()
    assert (held["tables"], held["current_round"]) == (10, 1)
    assert clicks == 5
