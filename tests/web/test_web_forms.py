"""The TD's forms and the public pages over HTTP (the browser tests cover the live parts)."""

from __future__ import annotations

import csv
import io
from typing import Any

from fastapi.testclient import TestClient

from tests.support.api import Club
from tests.support.web import web_login


def post(client: TestClient, url: str, csrf: str, **data: Any) -> Any:
    r = client.post(url, data={"csrf": csrf, **data}, follow_redirects=False)
    assert r.status_code == 303, r.text
    return client.get(r.headers["location"])


def board_url(club: Club, table: int, round_: int, board: int) -> str:
    return f"/td/s/{club.section_id}/tables/{table}/rounds/{round_}/boards/{board}"


def test_td_sets_adjusts_and_marks_a_board_with_reasons(client: TestClient, club: Club) -> None:
    csrf = web_login(client)
    url = board_url(club, 1, 1, 1)
    page = post(client, f"{url}/set", csrf, contract="4s", declarer="S", tricks="=", reason="")
    assert "Give a reason" in page.text
    page = post(client, f"{url}/set", csrf, contract="4s", declarer="S", tricks="=", reason="slip")
    assert "set to 4S" in page.text
    assert "4♠ by South, made" in page.text
    page = post(client, f"{url}/adjust", csrf, preset="60/40", reason="fouled board")
    assert "Adjusted score A60/40" in page.text
    assert "fouled board" in page.text
    page = post(client, f"{url}/adjust", csrf, ns_percent="45", ew_percent="55", reason="split")
    assert "A45/55" in page.text
    page = post(client, f"{url}/not-played", csrf, reason="no time")
    assert "Not played" in page.text
    page = post(client, f"{url}/set", csrf, contract="9NT", declarer="N", tricks="9", reason="x")
    assert "flash-error" in page.text
    r = client.get(board_url(club, 1, 1, 9))
    assert r.status_code == 404
    assert "not played at table 1" in r.text


def test_td_keeps_one_of_two_conflicting_entries(client: TestClient, club: Club) -> None:
    csrf = web_login(client)
    table = club.pair(2)
    board = table.round()["boards"][0]["board"]
    table.enter(board, "2H", "E", 8)
    table.enter(board, "2S", "E", 8)
    page = client.get(board_url(club, 2, 1, board))
    entry = page.text.split('name="entry_id" value="')[2].split('"')[0]
    page = post(
        client, f"{board_url(club, 2, 1, board)}/choose", csrf, entry_id=entry, reason="asked"
    )
    assert "resolved" in page.text
    assert "2♠ by East" in page.text
    assert club.td("GET", f"/api/v1/sections/{club.section_id}/results").json()[0]["state"] == (
        "confirmed"
    )


def test_rounds_calls_pairing_players_penalties_and_publishing(
    client: TestClient, club: Club
) -> None:
    csrf = web_login(client)
    base = f"/td/s/{club.section_id}"
    page = post(client, f"{base}/rounds/start", csrf, round="2", confirmed="yes")
    assert "Round 2 started" in page.text
    page = post(client, f"{base}/rounds/start", csrf, round="2", confirmed="yes")
    assert "flash-error" in page.text
    page = post(client, f"{base}/tables/3/release", csrf, reason="moved on")
    assert "Table 3 moved on" in page.text
    club.pair(4).send({"type": "call_td", "entry_id": "call-abcdefgh", "reason": "help"})
    page = client.get(base)
    call_id = page.text.split(f"{base}/calls/")[1].split("/")[0]
    page = post(client, f"{base}/calls/{call_id}/ack", csrf)
    assert "Call acknowledged" in page.text
    assert f"/calls/{call_id}/ack" not in page.text
    page = post(client, f"{base}/tables/5/new-device", csrf)
    assert "pair the new device with" in page.text
    r = client.post(
        f"{base}/players/import",
        data={"csrf": csrf},
        files={"file": ("members.csv", b"101,Anna Jensen\n102,Bo Nielsen\n", "text/csv")},
        follow_redirects=False,
    )
    assert "2 added" in client.get(r.headers["location"]).text
    pair_id = client.get(f"{base}/players").text.split('data-pair="')[1].split('"')[0]
    fields = {f"member1_{pair_id}": "101", f"player2_{pair_id}": "Guest"}
    page = post(client, f"{base}/pairs", csrf, **fields)
    assert "saved" in page.text
    assert "Anna Jensen" in page.text
    page = post(client, f"{base}/penalties/offence", csrf, pair="1NS", kind="262C2")
    assert "Warning recorded" in page.text
    page = post(client, f"{base}/penalties/deduct", csrf, pair="1NS", times="1", reason="§ 211")
    assert "Deduction of 0.80 recorded" in page.text
    page = post(
        client,
        f"{base}/publish",
        csrf,
        status="provisional",
        period="minutes",
        amount="3",
        confirmed="yes",
    )
    assert "at least 5 minutes" in page.text
    page = post(client, f"{base}/publish", csrf, status="provisional", amount="72", confirmed="yes")
    assert "Published as provisional" in page.text
    assert "open until" in page.text
    audit = client.get(f"{base}/audit?pair=1NS").text
    assert "Penalty" in audit
    assert "Warning" in audit
    assert client.get(f"{base}/audit?table=3").status_code == 200


def test_create_an_event_from_the_td_home(client: TestClient) -> None:
    csrf = web_login(client)
    page = post(client, "/td/events", csrf, name="Friday teams trial", tables="4")
    assert "Event created" in page.text
    assert "Friday teams trial" in page.text


def test_a_bad_form_value_comes_back_as_a_notice(client: TestClient, club: Club) -> None:
    csrf = web_login(client)
    url = f"{board_url(club, 1, 1, 1)}/adjust"
    r = client.post(
        url,
        data={"csrf": csrf, "ns_percent": "140", "ew_percent": "40", "reason": "x"},
        headers={"referer": f"http://testserver{board_url(club, 1, 1, 1)}"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    assert r.headers["location"] == board_url(club, 1, 1, 1)


def test_public_pages_show_nothing_before_it_is_due(client: TestClient, club: Club) -> None:
    table = club.pair(1)
    for status in table.round()["boards"]:
        ack = table.enter(status["board"], "3NT", "N", 9).json()
        table.confirm(status["board"], ack["result"]["version"])
    base = f"/results/{club.section_id}"
    ranking = client.get(base).text
    assert "after 0 of 15 boards" in ranking
    assert "400" not in ranking
    board = client.get(f"{base}/boards/1").text
    assert "Still being played" in board
    assert "3NT" not in board
    card = client.get(f"{base}/pairs/1NS").text
    assert "Boards appear here once every table has played them" in card
    assert client.get(f"{base}/pairs/9XX").status_code == 404
    qr = client.get(f"{base}/pairs/1NS/qr.svg")
    assert qr.headers["content-type"] == "image/svg+xml"
    assert qr.text.startswith("<svg")
    assert client.get(f"{base}/projector").status_code == 200
    assert client.get("/", follow_redirects=False).headers["location"] == "/results"
    assert "Monday pairs" in client.get("/results").text
    assert client.get("/results/999").status_code == 404


def test_the_ranking_says_every_board_is_shown_once_published(
    client: TestClient, club: Club
) -> None:
    base = f"/results/{club.section_id}"
    live = client.get(base).text
    assert "A board's results appear once every table has played it." in live
    csrf = web_login(client)
    post(
        client,
        f"/td/s/{club.section_id}/publish",
        csrf,
        status="provisional",
        amount="72",
        confirmed="yes",
    )
    published = client.get(base).text
    assert "A board's results appear once every table has played it." not in published
    assert "The results are published: every board's results are shown." in published
    assert 'class="chip pending"' not in published  # as it says: every board links


def test_exports_download_the_scored_results(client: TestClient, club: Club) -> None:
    web_login(client)
    table = club.pair(1)
    for status in table.round()["boards"]:
        ack = table.enter(status["board"], "4S", "S", 10).json()
        table.confirm(status["board"], ack["result"]["version"])
    base = f"/td/s/{club.section_id}/publish/export"
    usebio = client.get(f"{base}/usebio")
    assert usebio.status_code == 200
    assert "attachment" in usebio.headers["content-disposition"]
    assert b"<USEBIO" in usebio.content
    assert "[Contract" in client.get(f"{base}/pbn").text
    assert "4S" in client.get(f"{base}/travellers").text
    assert client.get(f"{base}/ranking").text.count("\n") >= 10
    assert client.get(f"{base}/excel").status_code == 404


def test_the_csv_exports_name_the_section_and_the_event(client: TestClient, club: Club) -> None:
    web_login(client)
    table = club.pair(1)
    for status in table.round()["boards"]:
        ack = table.enter(status["board"], "4S", "S", 10).json()
        table.confirm(status["board"], ack["result"]["version"])
    base = f"/td/s/{club.section_id}/publish/export"
    travellers = list(csv.DictReader(io.StringIO(client.get(f"{base}/travellers").text)))
    assert travellers
    assert {row["section"] for row in travellers} == {"A"}
    assert {row["event"] for row in travellers} == {"Monday pairs A"}
    ranking = list(csv.DictReader(io.StringIO(client.get(f"{base}/ranking").text)))
    assert len(ranking) >= 10
    assert {row["section"] for row in ranking} == {"A"}
