"""The hand record on the public traveller (server/services/hand_view.py): the deal, the
makeable contracts and par appear with the traveller, never before it (fair play)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from protocol.bridge.par import par
from server.services import hands
from tests.server.test_table_players_hands import put_deal
from tests.support.api import Club
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
