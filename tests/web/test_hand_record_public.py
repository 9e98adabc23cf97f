"""The hand record on the public traveller (server/services/results/hand_view.py): the deal, the
makeable contracts and par appear with the traveller, never before it (fair play)."""

from __future__ import annotations

import threading

import pytest
from fastapi.testclient import TestClient

from protocol.bridge.par import par
from server.io import handrecords
from server.services import hands
from tests.support.api import Club
from tests.support.deals import put_deal
from tests.support.web import web_login
from tests.web.test_web_forms import post

# A real deal: board 12 of the RealBridge "2021 Online Qual: Open R2" (tests/data/README.md),
# put on board 1 here (so with board 1's dealer and vulnerability, Law 2).
DEAL = "N:KT.JT865.AQT6.A5 A74.AQ2.K8752.92 QJ983.K943.J.Q73 652.7.943.KJT864"
NORTH_HEARTS = "J 10 8 6 5"


def _play_board_one(club: Club) -> None:
    """Table 1 plays its round-1 boards (the web fixture's club has started round 1)."""
    table = club.pair(1)
    for status in table.round()["boards"]:
        ack = table.enter(status["board"], "4H", "S", 10).json()
        table.confirm(status["board"], ack["result"]["version"])


def test_the_deal_is_not_on_the_public_page_before_the_traveller(
    client: TestClient, club: Club
) -> None:
    put_deal(club.engine, 1, DEAL)
    _play_board_one(club)  # one table of five has played it
    page = client.get(f"/results/{club.section_id}/boards/1").text
    assert "Still being played" in page
    assert "hand-record" not in page
    assert NORTH_HEARTS not in page


def test_the_hand_record_comes_with_the_published_traveller(client: TestClient, club: Club) -> None:
    put_deal(club.engine, 1, DEAL)
    _play_board_one(club)
    csrf = web_login(client)
    base = f"/td/s/{club.section_id}"
    published = post(
        client, f"{base}/publish", csrf, status="provisional", amount="72", confirmed="yes"
    )
    assert "Published as provisional" in published.text
    page = client.get(f"/results/{club.section_id}/boards/1").text
    assert 'id="hand-record"' in page
    assert NORTH_HEARTS in page  # ranks high to low, the ten as 10
    assert "Q J 9 8 3" in page  # South's spades
    tricks = hands.dd_tricks(DEAL)  # solves it (and caches it) when endplay is there
    if tricks is None:
        pytest.skip("no double-dummy solver (the optional endplay package)")
    page = client.get(f"/results/{club.section_id}/boards/1").text
    assert "Makeable contracts" in page
    assert f"Par: {par(tricks, 'NONE', 'N')}" in page  # board 1: dealer North, none vulnerable


def _published_board_one(client: TestClient, club: Club, deal: str = DEAL) -> str:
    put_deal(club.engine, 1, deal)
    _play_board_one(club)
    csrf = web_login(client)
    post(
        client,
        f"/td/s/{club.section_id}/publish",
        csrf,
        status="provisional",
        amount="72",
        confirmed="yes",
    )
    return f"/results/{club.section_id}/boards/1"


def test_without_a_solver_the_hand_record_says_so_and_promises_nothing(
    client: TestClient, club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runtime install has no double-dummy solver: the page must not wait for one."""
    monkeypatch.setattr(handrecords, "solver_available", lambda: False)
    url = _published_board_one(client, club)
    for _ in range(2):  # a reload changes nothing: nothing is being made
        page = client.get(url).text
        assert NORTH_HEARTS in page
        assert 'id="dd-not-installed"' in page
        assert "the double-dummy solver is not installed on this server" in page
        assert "reload in a moment" not in page
        assert "Makeable contracts" not in page


def test_a_deal_the_solver_refuses_is_not_promised_again(
    client: TestClient, club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(deal: str) -> dict[str, dict[str, int]]:
        raise RuntimeError("the solver refuses this deal")

    monkeypatch.setattr(handrecords, "solver_available", lambda: True)
    monkeypatch.setattr(handrecords, "dd_table", refuse)
    monkeypatch.setattr(hands, "_refused", set())
    monkeypatch.setattr(hands, "_warming", set())
    monkeypatch.setattr(hands, "_done", set())
    # The same hands turned a seat: a deal no other test has solved (and cached) in this process.
    turned = "N:" + " ".join(DEAL[2:].split()[1:] + DEAL[2:].split()[:1])
    url = _published_board_one(client, club, turned)
    client.get(url)  # the solve starts in the background (if the entries have not started it)
    for thread in threading.enumerate():
        if thread.name == "double-dummy":
            thread.join(10)
    assert hands.analysis_state(turned) == hands.DoubleDummy.REFUSED
    page = client.get(url).text
    assert "the double-dummy solver could not analyse this deal" in page
    assert "reload in a moment" not in page


def test_a_lone_result_says_why_both_sides_have_60_percent(client: TestClient, club: Club) -> None:
    url = _published_board_one(client, club)  # one table of five has played board 1
    page = client.get(url).text
    assert (
        "The only result on this board: a lone result scores 60 % for each side (§ X78B)." in page
    )
    danish = client.get(url, params={"lang": "da"}).text
    assert "et enkelt resultat giver 60 % til hver side (§ X78B)" in danish
