"""Safe actions in the TD's console (issue 15, item 3): publishing with results missing,
starting a round while tables are still playing, closing a round with entries missing and
un-publishing all ask first (on a page: no JavaScript needed), and a double click on "Start
round" never starts the round after."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.core.errors import ConflictError
from server.core.models import utcnow
from server.services.td import publication
from tests.support.api import Club
from tests.support.web import web_login
from tests.web.test_dashboard_services import play, run
from tests.web.test_web_forms import post


def section(club: Club) -> dict[str, Any]:
    data: dict[str, Any] = club.td("GET", f"/api/v1/sections/{club.section_id}").json()
    return data


def publication_of(club: Club) -> str:
    return run(club, lambda _s, sec: sec.publication)


def ask(client: TestClient, url: str, csrf: str, **data: str) -> str:
    """Post a form that should ask first: the confirmation page, nothing done."""
    r = client.post(url, data={"csrf": csrf, **data}, follow_redirects=False)
    assert r.status_code == 200, r.text
    assert 'id="confirm-step"' in r.text
    return r.text


def test_start_round_while_tables_still_play_asks_then_starts_once(
    client: TestClient, club: Club
) -> None:
    csrf = web_login(client)
    start = f"/td/s/{club.section_id}/rounds/start"
    play(club, 1)  # table 1 has finished round 1; the others are still playing it
    page = ask(client, start, csrf, round="2")
    assert "Start round 2 anyway?" in page
    assert "Table 2: round 1, 3 boards unfinished" in page
    assert "Table 1:" not in page
    assert 'name="confirmed" value="yes"' in page
    assert section(club)["current_round"] == 1
    page = post(client, start, csrf, round="2", confirmed="yes").text
    assert "Round 2 started" in page
    page = post(client, start, csrf, round="2", confirmed="yes").text  # the same click again
    assert "flash-error" in page
    assert "Round 2 has already started" in page
    assert section(club)["current_round"] == 2


def test_a_double_click_on_start_round_never_skips_a_round(client: TestClient, club: Club) -> None:
    """The first click starts round 2; the second lands on the reloaded button, "Start round
    3", while every table is still in round 1: it asks, and round 3 is not started."""
    csrf = web_login(client)
    start = f"/td/s/{club.section_id}/rounds/start"
    for number in range(1, 6):
        play(club, number)
    post(client, start, csrf, round="2")  # every table finished: no question
    assert section(club)["current_round"] == 2
    page = ask(client, start, csrf, round="3")
    assert "Table 1: has finished round 1 but not yet moved on" in page
    ask(client, start, csrf, round="3")
    assert section(club)["current_round"] == 2


def test_start_round_after_every_table_finished_does_not_ask(
    client: TestClient, club: Club
) -> None:
    csrf = web_login(client)
    for number in range(1, 6):
        play(club, number)
    r = client.post(
        f"/td/s/{club.section_id}/rounds/start",
        data={"csrf": csrf, "round": "2"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    assert section(club)["current_round"] == 2


def test_closing_a_round_with_entries_missing_names_them_and_asks(
    client: TestClient, club: Club
) -> None:
    csrf = web_login(client)
    close = f"/td/s/{club.section_id}/rounds/close"
    for number in range(1, 5):
        play(club, number)
    page = ask(client, close, csrf, round="1")
    assert "Close round 1 to table entries anyway?" in page
    assert page.count("table 5, round 1") == 3
    assert "table 4, round 1" not in page
    assert section(club)["closed_rounds"] == 0
    page = post(client, close, csrf, round="1", confirmed="yes").text
    assert "Round 1 closed to table entries" in page
    assert section(club)["closed_rounds"] == 1


def test_closing_a_round_with_every_entry_in_does_not_ask(client: TestClient, club: Club) -> None:
    csrf = web_login(client)
    for number in range(1, 6):
        play(club, number)
    page = post(client, f"/td/s/{club.section_id}/rounds/close", csrf, round="1").text
    assert "Round 1 closed to table entries" in page


def test_publishing_with_results_missing_or_in_conflict_names_them_and_asks(
    client: TestClient, club: Club
) -> None:
    csrf = web_login(client)
    url = f"/td/s/{club.section_id}/publish"
    for number in (1, 3, 4, 5):
        play(club, number)
    table = club.pair(2)
    first, *rest = [b["board"] for b in table.round()["boards"]]
    table.enter(first, "2H", "E", 8)
    table.enter(first, "2S", "E", 8)  # a second, different entry: a conflict
    shown = client.get(url).text
    assert 'id="unsettled"' in shown
    assert "data-confirm=" in shown
    page = ask(client, url, csrf, status="provisional", period="hours", amount="72")
    assert "Publish anyway?" in page
    assert f"Board {first}, table 2, round 1" in page
    assert "Conflict" in page
    for board in rest:
        assert f"Board {board}, table 2, round 1" in page
    assert "table 1, round 1" not in page
    assert publication_of(club) == "live"
    page = post(client, url, csrf, status="provisional", amount="72", confirmed="yes").text
    assert "Published as provisional" in page
    assert publication_of(club) == "provisional"


def test_publishing_with_every_result_in_does_not_ask(client: TestClient, club: Club) -> None:
    csrf = web_login(client)
    for number in range(1, 6):
        play(club, number)
    page = post(client, f"/td/s/{club.section_id}/publish", csrf, status="final").text
    assert "Published as final" in page


def test_un_publishing_asks_and_is_an_undo(client: TestClient, club: Club) -> None:
    csrf = web_login(client)
    url = f"/td/s/{club.section_id}/publish"
    for number in range(1, 6):
        play(club, number)
    post(client, url, csrf, status="provisional", period="hours", amount="72")
    assert 'id="unpublish"' in client.get(url).text
    page = ask(client, url, csrf, status="live")
    assert "Take the published results back to live?" in page
    assert publication_of(club) == "provisional"
    page = post(client, url, csrf, status="live", confirmed="yes").text
    assert "Results are live again" in page
    assert publication_of(club) == "live"
    assert run(club, lambda _s, sec: sec.corrections_until) is None


def test_final_results_stay_final_once_the_correction_period_is_over(
    client: TestClient, club: Club
) -> None:
    csrf = web_login(client)
    long_ago = utcnow() - timedelta(hours=2)
    run(club, lambda s, sec: publication.publish(s, sec, status="final", minutes=5, now=long_ago))
    with pytest.raises(ConflictError, match="final results stay final"):
        run(club, lambda s, sec: publication.publish(s, sec, status="live"))
    page = post(client, f"/td/s/{club.section_id}/publish", csrf, status="live", confirmed="yes")
    assert "final results stay final" in page.text
    assert publication_of(club) == "final"


def test_closing_a_round_can_be_undone_by_reopening_it(client: TestClient, club: Club) -> None:
    csrf = web_login(client)
    base = f"/td/s/{club.section_id}"
    table = club.pair(5)
    board = table.round()["boards"][0]["board"]
    post(client, f"{base}/rounds/close", csrf, round="1", confirmed="yes")
    assert table.enter(board, "3NT", "N", 9).json()["code"] == "round_closed"
    assert 'id="reopen-round"' in client.get(base).text
    page = post(client, f"{base}/rounds/reopen", csrf, round="1").text
    assert "Round 1 reopened to table entries" in page
    assert section(club)["closed_rounds"] == 0
    assert table.enter(board, "3NT", "N", 9).json()["type"] == "result_ack"
    page = post(client, f"{base}/rounds/reopen", csrf, round="1").text
    assert "flash-error" in page
    assert "Round reopened" in client.get(f"{base}/audit").text
