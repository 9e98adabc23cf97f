"""What the TD must see at a glance (issue 15, item 4): calls that stay open until acknowledged
and close with their conflict, the alert on every TD page, the "not played" TD code, the
counters agreeing with the legend and the missing-entries panel, and the room view."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import TypeVar

from fastapi.testclient import TestClient
from sqlmodel import Session, select

from protocol.messages import EntryValues
from server.core.db import transact
from server.core.models import Section, TDCall, utcnow
from server.services.event import setup
from server.services.glance import dashboard, room
from server.services.td import actions as td
from server.services.td import round_control
from tests.support.api import Club, Table
from tests.support.web import web_login

T = TypeVar("T")


def run(club: Club, work: Callable[[Session, Section], T]) -> T:
    return transact(club.engine, lambda s: work(s, setup.get_section(s, club.section_id)))


def open_calls(club: Club) -> list[TDCall]:
    return run(club, lambda s, sec: td.open_calls(s, sec))


def conflict(club: Club, table: int = 2) -> tuple[Table, int]:
    """Two different entries of one board at ``table``: a conflict, which calls the TD."""
    t = club.pair(table)
    board = t.round()["boards"][0]["board"]
    assert t.enter(board, "3NT", "N", 9).status_code == 200
    assert t.enter(board, "4S", "S", 10).status_code == 200
    return t, board


def settle_with(club: Club, table: int, board: int) -> None:
    def work(s: Session, section: Section) -> object:
        result = td.board_result(s, section, table, 1, board)
        values = EntryValues(contract="3NT", declarer="N", tricks=9)
        return td.set_result(s, result=result, values=values, reason="the first entry")

    run(club, work)


def make_late(club: Club, table: int) -> None:
    """A 10-minute round that ``table`` has been sitting in for 11 minutes."""

    def work(s: Session, section: Section) -> None:
        round_control.set_round_time(s, section, 10)
        row = setup.find_table(s, section, table)
        row.round_entered_at = utcnow() - timedelta(minutes=11)
        s.add(row)

    run(club, work)


def play_all(t: Table, boards: int | None = None) -> None:
    for b in t.round()["boards"][:boards]:
        ack = t.enter(b["board"], "3NT", "N", 9).json()
        assert t.confirm(b["board"], ack["result"]["version"]).status_code == 200


# ------------------------------------------------------------------------------- TD calls


def test_a_conflict_call_closes_when_the_td_settles_the_board(club: Club) -> None:
    _, board = conflict(club, table=2)
    club.pair(4).send({"type": "call_td", "entry_id": "call-table-4-help", "reason": "help"})
    reasons = {(c.table_number, c.reason) for c in open_calls(club)}
    assert (2, f"conflicting entries for board {board}") in reasons
    settle_with(club, 2, board)
    # The conflict's call is closed; the other table's call stays until acknowledged.
    assert [(c.table_number, c.reason) for c in open_calls(club)] == [(4, "help")]


def test_a_call_stays_open_until_acknowledged(club: Club) -> None:
    t = club.pair(3)
    t.send({"type": "call_td", "entry_id": "call-table-3-slow", "reason": "slow play"})
    play_all(t)  # the table finishing its round does not close the call
    [call] = open_calls(club)
    assert call.table_number == 3
    run(club, lambda s, sec: td.acknowledge_call(s, call.id or 0))
    assert open_calls(club) == []


def test_settling_a_board_with_no_conflict_leaves_the_calls_open(club: Club) -> None:
    t = club.pair(2)
    board = t.round()["boards"][0]["board"]
    t.send({"type": "call_td", "entry_id": "call-table-2-rev", "reason": "revoke on board"})
    settle_with(club, 2, board)
    assert [c.reason for c in open_calls(club)] == ["revoke on board"]


def test_the_alert_counts_open_calls_on_every_td_page(client: TestClient, club: Club) -> None:
    assert client.get("/td/calls.json", follow_redirects=False).status_code in (303, 401)
    web_login(client)
    quiet = client.get("/td/calls.json").json()
    assert (quiet["count"], quiet["alert"].strip()) == (0, "")
    _, board = conflict(club, table=2)
    club.pair(5).send({"type": "call_td", "entry_id": "call-table-5-help", "reason": "help"})
    data = client.get("/td/calls.json").json()
    assert data["count"] == 2
    assert data["sections"] == {str(club.section_id): 2}
    assert "2 TD calls waiting" in data["alert"]
    assert f'href="/td/s/{club.section_id}#calls"' in data["alert"]
    assert 'data-count="2"' in data["alert"]
    german = client.get("/td/calls.json?lang=de").json()["alert"]
    assert "2 TL-Rufe warten" in german
    settle_with(club, 2, board)
    one = client.get("/td/calls.json").json()
    assert one["count"] == 1
    assert "1 TD call waiting" in one["alert"]
    # live.js (on every TD page) asks for it, beeps and shows it
    script = client.get("/static/live.js")
    if script.status_code != 200:
        page = client.get("/td").text
        src = re.search(r'src="([^"]*live\.js[^"]*)"', page)
        assert src is not None
        script = client.get(src.group(1))
    assert "/td/calls.json" in script.text
    assert "createOscillator" in script.text


# ------------------------------------------------------------------------------- the dashboard


def test_the_dashboard_shows_the_sections_not_played_code(client: TestClient, club: Club) -> None:
    web_login(client)
    code = club.section["td_code"]
    page = client.get(f"/td/s/{club.section_id}").text
    assert re.search(rf'id="td-code">{re.escape(code)}<', page)
    assert "TD code" in page
    assert "marks a board not played" in page


def missing_panel(page: str) -> int:
    panel = page.split('data-fragment="missing"', 1)[1].split("</aside>", 1)[0]
    listed = panel.count('<li class="')
    more = re.search(r"and (\d+) more", panel)
    return listed + (int(more.group(1)) if more else 0)


def tile(page: str, name: str) -> int:
    found = re.search(rf'data-total="{name}">(\d+)<', page)
    assert found is not None
    return int(found.group(1))


def statuses(page: str, table: int) -> dict[str, str]:
    row = page.split(f'data-table="{table}"', 1)[1].split("</tr>", 1)[0]
    return dict(re.findall(r'<td class="cell[^"]*" data-round="(\w+)" data-status="(\w+)"', row))


def test_missing_tile_panel_and_red_cells_agree(client: TestClient, club: Club) -> None:
    web_login(client)
    url = f"/td/s/{club.section_id}"
    play_all(club.pair(1), boards=2)  # table 1: 2 of 3 boards in
    play_all(club.pair(2))
    page = client.get(url).text
    # In time, nothing is missing yet: no red, the tile and the panel both say none.
    assert statuses(page, 1)["1"] == "playing"
    assert (tile(page, "missing"), missing_panel(page)) == (0, 0)
    run(club, lambda s, sec: td.close_round(s, sec, 1))
    page = client.get(url).text
    assert statuses(page, 1)["1"] == "missing"
    assert statuses(page, 2)["1"] == "complete"
    # Every table but 2 has boards out: 1 on table 1, 3 on tables 3 to 5.
    assert tile(page, "missing") == missing_panel(page) == 1 + 3 * 3
    # Boards of future rounds are not red.
    assert set(list(statuses(page, 1).values())[1:]) == {"future"}
    # A red "2/3" is on the grid, and the legend explains it.
    row = page.split('data-table="1"', 1)[1].split("</tr>", 1)[0]
    cell = row.split('<td class="cell s-missing', 1)[1].split("</td>", 1)[0]
    assert re.search(r">\s*2/3\s*</a>", cell)
    legend = page.split('class="legend"', 1)[1].split("</div>", 1)[0]
    assert re.search(r's-missing">2/3</span>[^<]*overdue', legend)


def test_a_late_table_is_red_and_counted_once(club: Club) -> None:
    make_late(club, 3)
    seen = run(club, lambda s, sec: dashboard.overview(s, sec))
    rows = {r.table: r for r in seen.grid.rows}
    red = {t for t, r in rows.items() if r.cells[0].status in ("missing", "left")}
    assert red == {3}
    assert seen.grid.totals["missing"] == len(seen.missing) == 3
    assert all(c.status == "future" for r in rows.values() for c in r.cells[1:])


# ------------------------------------------------------------------------------- the room view


def test_the_room_view_names_late_tables_and_missing_entries(
    client: TestClient, club: Club
) -> None:
    url = f"/td/s/{club.section_id}/room"
    assert client.get(url, follow_redirects=False).status_code == 303  # TD login first
    web_login(client)
    play_all(club.pair(1))
    club.pair(4).send({"type": "call_td", "entry_id": "call-table-4-room", "reason": "help"})

    make_late(club, 2)
    view = run(club, lambda s, sec: room.room_view(dashboard.overview(s, sec)))
    assert [(t.table, t.late, t.missing, t.calls) for t in view.tables] == [
        (2, True, 3, 0),
        (4, False, 0, 1),
    ]
    page = client.get(url).text
    assert f'data-live="/td/s/{club.section_id}/live"' in page
    assert "data-room-body" in page
    cards = dict(re.findall(r'data-table="(\d+)">(.*?)</li>', page, re.S))
    assert set(cards) == {"2", "4"}
    assert "Late" in cards["2"]
    assert "3 entries missing" in cards["2"]
    assert "TD call" in cards["4"]
    assert "3 boards missing" in page
    now = client.get(f"{url}/now")
    assert now.status_code == 200
    assert 'data-table="2"' in now.text
    assert "<html" not in now.text


def test_the_room_view_says_all_clear(client: TestClient, club: Club) -> None:
    web_login(client)
    page = client.get(f"/td/s/{club.section_id}/room?lang=da").text
    assert 'class="room-clear"' in page
    assert "All tables on time" not in page  # in Danish


def test_calls_count_in_the_view_matches_open_calls(club: Club) -> None:
    t = club.pair(1)
    t.send({"type": "call_td", "entry_id": "call-table-1-a", "reason": "a"})
    t.send({"type": "call_td", "entry_id": "call-table-1-b", "reason": "b"})
    stored = transact(club.engine, lambda s: list(s.exec(select(TDCall))))
    assert len(stored) == 2
    waiting = transact(club.engine, td.calls_waiting)
    assert waiting == {club.section_id: 2}


def test_a_call_without_a_reason_is_worded_in_the_dashboards_language(
    client: TestClient, club: Club
) -> None:
    """A keypad calls the TD with no reason: the page words it, in the TD's language."""
    club.pair(4).send({"type": "call_td", "entry_id": "call-table-4-keypad"})
    web_login(client)
    for lang, words in (
        ("da", "Bordet tilkalder turneringslederen (ingen grund angivet)."),
        ("en", "The table calls the TD (no reason given)."),
    ):
        page = client.get(f"/td/s/{club.section_id}", params={"lang": lang}).text
        call = page.split('<li class="call"', 1)[1].split("</li>", 1)[0]
        reason = re.search(r'<div class="reason">([^<]*)</div>', call)
        assert reason is not None
        assert reason.group(1) == words
