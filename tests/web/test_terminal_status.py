"""The TD's pairing page: online, offline with N queued (as the terminal last reported), last
seen; the table side's ``table_status`` message that reports the outbox."""

from __future__ import annotations

from datetime import timedelta

from fastapi.testclient import TestClient
from sqlmodel import select

from server.core.db import transact
from server.core.models import TableToken, utcnow
from server.services.event import setup
from server.services.glance import dashboard
from tests.support.api import Club
from tests.support.web import web_login


def _age_terminals(club: Club, minutes: int) -> None:
    def work(s: object) -> None:
        for token in s.exec(select(TableToken)):  # type: ignore[attr-defined]
            token.last_seen = utcnow() - timedelta(minutes=minutes)
            s.add(token)  # type: ignore[attr-defined]

    transact(club.engine, work)


def test_a_terminal_reports_its_outbox_and_the_pairing_rows_show_it(club: Club) -> None:
    table = club.pair(2)
    reply = table.send({"type": "table_status", "queued": 3})
    assert reply.status_code == 200
    assert reply.json()["type"] == "ack"

    def rows(now_offset: int) -> dict[int, dashboard.PairingRow]:
        def work(s: object) -> list[dashboard.PairingRow]:
            section = setup.get_section(s, club.section_id)  # type: ignore[arg-type]
            now = utcnow() + timedelta(minutes=now_offset)
            return dashboard.pairing(s, section, now=now)  # type: ignore[arg-type]

        return {r.table: r for r in transact(club.engine, work)}

    now = rows(0)
    assert now[2].online
    assert now[2].queued == 3
    assert now[2].terminals[0].queued_at is not None
    assert now[1].queued == 0
    later = rows(10)  # nothing heard for ten minutes: offline, with 3 queued last known
    assert not later[2].online
    assert later[2].queued == 3
    assert table.send({"type": "table_status", "queued": 0}).json()["type"] == "ack"
    assert rows(0)[2].queued == 0


def test_a_bad_status_is_refused(club: Club) -> None:
    table = club.pair(1)
    r = table.send({"type": "table_status", "queued": -1})
    assert r.status_code == 422


def test_the_td_api_lists_the_queued_commands(club: Club) -> None:
    club.pair(4).send({"type": "table_status", "queued": 5})
    states = club.td("GET", f"/api/v1/sections/{club.section_id}/tables").json()
    assert {s["table"]: s["queued"] for s in states}[4] == 5
    assert {s["table"]: s["queued"] for s in states}[3] == 0


def test_the_pairing_page_says_offline_with_n_queued(client: TestClient, club: Club) -> None:
    club.pair(3).send({"type": "table_status", "queued": 4})
    club.pair(5)
    web_login(client)
    online = client.get(f"/td/s/{club.section_id}/pairing").text
    assert "sending 4 queued" in online
    _age_terminals(club, 10)
    page = client.get(f"/td/s/{club.section_id}/pairing").text
    row = page.split('<tr data-table="3">', 1)[1].split("</tr>", 1)[0]
    assert 'data-status="offline"' in row
    assert "with 4 queued" in row
    assert "last seen" in row
    quiet = page.split('<tr data-table="5">', 1)[1].split("</tr>", 1)[0]
    assert 'data-status="offline"' in quiet
    assert 'data-queued="0"' in quiet
    assert "term-queued" not in quiet


def test_the_live_grid_shows_which_tables_hold_unsent_results(
    client: TestClient, club: Club
) -> None:
    """§ 262C: results stored at a table but not yet at the server are on the TD's grid."""
    club.pair(3).send({"type": "table_status", "queued": 2})
    club.pair(5)

    def work(s: object) -> dashboard.Grid:
        section = setup.get_section(s, club.section_id)  # type: ignore[arg-type]
        return dashboard.grid(s, section)  # type: ignore[arg-type]

    grid = transact(club.engine, work)
    assert {r.table: r.unsent for r in grid.rows if r.unsent} == {3: 2}
    assert grid.totals["unsent"] == 1
    web_login(client)
    _age_terminals(club, 10)  # table 3's terminal is offline now, still holding them
    page = client.get(f"/td/s/{club.section_id}").text
    row = page.split('data-table="3"', 1)[1].split("</tr>", 1)[0]
    assert 'data-unsent="2"' in row
    assert "2 unsent" in row
    assert "stored at the table, not yet here" in row
    quiet = page.split('data-table="5"', 1)[1].split("</tr>", 1)[0]
    assert 'data-unsent="0"' in quiet
    assert "unsent" not in quiet.replace('data-unsent="0"', "")
    assert '<span class="value" data-total="unsent">1</span>' in page


def test_the_pairing_page_says_what_a_code_does(client: TestClient, club: Club) -> None:
    """Each code works once: the page must not promise that a code pairs a second device."""
    used = club.section["pairing_codes"]["3"]
    club.pair(3)
    web_login(client)
    page = client.get(f"/td/s/{club.section_id}/pairing").text
    assert "A code can pair a second device" not in page
    assert "Each code works once" in page
    row = page.split('<tr data-table="3">', 1)[1].split("</tr>", 1)[0]
    assert used not in row  # the page shows the next code, as it says
    again = club.client.post("/api/v1/table/pair", json={"code": used, "device": "spare"})
    assert again.status_code in (400, 404), again.text
    assert "works once" in again.json()["message"]


def test_a_connected_terminal_quiet_for_ten_minutes_reads_online_not_last_seen(
    client: TestClient, club: Club
) -> None:
    """ "Last seen" means the link: a terminal whose socket is open is online, however long ago
    its last key; its line on the pairing page does not say when it was last heard of."""
    token = club.pair(2).token
    web_login(client)
    with client.websocket_connect("/api/v1/table/ws") as ws:
        ws.send_json({"type": "hello", "token": token})
        assert ws.receive_json()["type"] == "round_info"
        _age_terminals(club, 10)
        page = client.get(f"/td/s/{club.section_id}/pairing").text
    row = page.split('<tr data-table="2">', 1)[1].split("</tr>", 1)[0]
    assert 'data-status="online"' in row
    terminal = row.split('class="pr-terminals"', 1)[1]
    assert "last seen" not in terminal
    assert "online" in terminal
