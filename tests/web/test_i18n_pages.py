"""The public pages in Danish: chosen by Accept-Language or by the switcher (remembered)."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from tests.server.conftest import Club
from tests.web.conftest import web_login

#: A percentage as Danish writes it: decimal comma, a (no-break) space before the sign.
DANISH_PERCENT = re.compile(r"\d{1,3},\d\d\xa0%")


def play_round_one(client: TestClient, club: Club) -> None:
    """Every table enters and confirms its round-1 boards; the TD publishes provisionally."""
    for number in range(1, 6):
        table = club.pair(number)
        for status in table.round()["boards"]:
            tricks = 9 if (number + status["board"]) % 2 else 8
            ack = table.enter(status["board"], "3NT", "N", tricks).json()
            table.confirm(status["board"], ack["result"]["version"])
    csrf = web_login(client)
    r = client.post(
        f"/td/s/{club.section_id}/publish",
        data={"csrf": csrf, "status": "provisional", "period": "hours", "amount": "72"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text


def test_ranking_in_danish_by_accept_language(client: TestClient, club: Club) -> None:
    play_round_one(client, club)
    client.cookies.clear()
    base = f"/results/{club.section_id}"
    page = client.get(base, headers={"accept-language": "da-DK,da;q=0.9,en;q=0.5"}).text
    assert '<html lang="da">' in page
    for word in ("Resultater", "Spillere", "Foreløbig", "Nord-Syd", "parpoint"):
        assert word in page, word
    assert DANISH_PERCENT.search(page), "no percentage written the Danish way"
    assert "Final results" not in page
    assert "Players" not in page
    card = client.get(f"{base}/pairs/1NS", headers={"accept-language": "da"}).text
    assert "Par 1" in card
    assert DANISH_PERCENT.search(card)
    english = client.get(base, headers={"accept-language": "en-GB"}).text
    assert "Players" in english
    assert re.search(r"\d{1,3}\.\d\d%", english)


def test_the_switcher_sets_and_remembers_the_language(client: TestClient, club: Club) -> None:
    play_round_one(client, club)
    client.cookies.clear()
    base = f"/results/{club.section_id}"
    page = client.get(base, headers={"accept-language": "de"})
    assert "Spieler" in page.text
    assert 'href="?lang=da"' in page.text
    page = client.get(f"{base}?lang=da", headers={"accept-language": "de"})
    assert page.cookies.get("traveller_lang") == "da"
    assert "Spillere" in page.text
    again = client.get(f"{base}/boards/1", headers={"accept-language": "de"}).text
    assert "Spil 1" in again
    assert "Kontrakt" in again
    assert ">Ø-V<" in again
    client.cookies.clear()
    russian = client.get(f"{base}?lang=ru").text
    assert "Игроки" in russian
    assert "Проектор" in russian


def test_the_event_language_is_the_default(client: TestClient, club: Club) -> None:
    event_id = club.td("GET", f"/api/v1/sections/{club.section_id}").json()["event_id"]
    r = club.td("PATCH", f"/api/v1/events/{event_id}", json={"language": "nb"})
    assert r.status_code == 200, r.text
    assert r.json()["language"] == "nb"
    client.cookies.clear()
    base = f"/results/{club.section_id}"
    assert '<html lang="nb">' in client.get(base).text
    assert "Resultatliste" in client.get(f"{base}/boards/1").text
    assert '<html lang="de">' in client.get(base, headers={"accept-language": "de"}).text
    assert (
        club.td("PATCH", f"/api/v1/events/{event_id}", json={"language": "fr"}).status_code == 422
    )
