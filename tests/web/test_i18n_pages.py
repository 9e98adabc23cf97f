"""The public pages in Danish: chosen by Accept-Language or by the switcher (remembered)."""

from __future__ import annotations

import json
import re
from urllib.parse import quote, unquote

from fastapi.testclient import TestClient

from server.web.auth import COOKIE
from server.web.respond import FLASH_COOKIE
from tests.support.api import Club
from tests.support.web import web_login

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


# ---------------------------------------------------------------- the TD's pages (issue 11)


def test_the_td_dashboard_in_danish_and_english(client: TestClient, club: Club) -> None:
    web_login(client)
    base = f"/td/s/{club.section_id}"
    page = client.get(base, headers={"accept-language": "da"}).text
    assert '<html lang="da">' in page
    for word in ("Oversigt", "Manglende indtastninger", "Start runde 2", "Række A", "Borde"):
        assert word in page, word
    assert "Missing entries" not in page
    english = client.get(base, headers={"accept-language": "en"}).text
    assert "Missing entries" in english
    assert "Start round 2" in english
    for path, word in [
        ("/pairing", "Flyt til en ny enhed"),
        ("/penalties", "Advarsler og straffe"),
        ("/players", "Importér medlemslisten"),
        ("/tables/1", "Rundens afslutning"),
        ("/tables/1/rounds/1/boards/1", "Ret resultatet"),
        ("/audit", "Hver indtastning, bekræftelse og TL-handling, nyeste først."),
        ("/publish", "Offentliggør som foreløbige"),
        ("/ranking", "(TL-visning)"),
        ("/movement", "Udskriv vejledningskort:"),
        ("/movement/cards?by=table&size=a5", "Vejledningskort"),
    ]:
        r = client.get(base + path, headers={"accept-language": "da"})
        assert r.status_code == 200, path
        assert word in r.text, path
    assert "Åbn oversigten" in client.get("/td", headers={"accept-language": "da"}).text


def test_the_td_live_fragments_come_in_each_watchers_language(
    client: TestClient, club: Club
) -> None:
    web_login(client)
    cookie = f"{COOKIE}={client.cookies.get(COOKIE)}"
    path = f"/td/s/{club.section_id}/live"
    with (
        client.websocket_connect(path, headers={"cookie": cookie, "accept-language": "ru"}) as ru,
        client.websocket_connect(path, headers={"cookie": cookie, "accept-language": "en"}) as en,
    ):
        russian = json.loads(ru.receive_text())["fragments"]
        english = json.loads(en.receive_text())["fragments"]
    assert "Стол" in russian["grid"]
    assert "Нет ожидающих вызовов." in russian["calls"]
    assert "Table" in english["grid"]
    assert "No calls waiting." in english["calls"]


def test_a_notice_after_an_action_in_the_td_language(client: TestClient, club: Club) -> None:
    csrf = web_login(client)
    r = client.post(
        f"/td/s/{club.section_id}/rounds/start",
        data={"csrf": csrf, "round": "2", "confirmed": "yes"},
        headers={"accept-language": "de"},
    )
    assert r.status_code == 200
    assert "Runde 2 gestartet." in r.text


def test_a_notice_through_a_td_form_in_danish_with_its_parameters(
    client: TestClient, club: Club
) -> None:
    csrf = web_login(client)
    base = f"/td/s/{club.section_id}"
    r = client.post(f"{base}/tables/2/new-device", data={"csrf": csrf}, follow_redirects=False)
    flash = json.loads(unquote(r.cookies[FLASH_COOKIE]))
    assert flash["notice"]["template"] == (
        "Table {table}: old terminals withdrawn; pair the new device with {code}."
    )
    code = flash["notice"]["params"]["code"]
    assert flash["notice"]["params"]["table"] == "2"
    danish = client.get(r.headers["location"], headers={"accept-language": "da"}).text
    assert f"Bord 2: gamle terminaler er trukket tilbage; par den nye enhed med {code}." in danish


def test_a_forged_notice_shows_its_own_english_text_escaped(client: TestClient, club: Club) -> None:
    web_login(client)
    forged = {
        "kind": "ok",
        "text": "<b>Round 9 started.</b>",
        "notice": {"template": "<b>Round {round} started.</b>", "params": {"round": "9"}},
    }
    client.cookies.set(FLASH_COOKIE, quote(json.dumps(forged)))
    page = client.get(f"/td/s/{club.section_id}", headers={"accept-language": "da"}).text
    assert "&lt;b&gt;Round 9 started.&lt;/b&gt;" in page
    assert "<b>Round 9" not in page
    assert "Runde 9" not in page


def test_the_login_page_in_russian(client: TestClient) -> None:
    form = client.get("/td/login", headers={"accept-language": "ru"})
    assert "Войти" in form.text
    nonce = form.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    r = client.post(
        "/td/login",
        data={"password": "not-the-password", "csrf": nonce},
        headers={"accept-language": "ru"},
    )
    assert r.status_code == 401
    assert "Неверный пароль судьи." in r.text


def test_notices_built_outside_the_route_in_german(client: TestClient, club: Club) -> None:
    csrf = web_login(client)
    base = f"/td/s/{club.section_id}"
    german = {"accept-language": "de"}
    r = client.post(
        f"{base}/players/import",
        data={"csrf": csrf},
        files={"file": ("members.csv", b"101,Anna Jensen\n102\n", "text/csv")},
        follow_redirects=False,
    )
    page = client.get(r.headers["location"], headers=german).text
    assert (
        "Mitglieder: 1 hinzugefügt, 0 aktualisiert. Übersprungene Zeilen: 1 "
        "(Zeile 2: erwartet Nummer,Name…)." in page
    )
    r = client.post(
        f"{base}/penalties/offence",
        data={"csrf": csrf, "pair": "1NS", "kind": "262C2"},
        follow_redirects=False,
    )
    assert "Verwarnung erfasst." in client.get(r.headers["location"], headers=german).text
    r = client.post(
        f"{base}/penalties/deduct",
        data={"csrf": csrf, "pair": "1NS", "times": "1", "reason": "§ 211"},
        follow_redirects=False,
    )
    assert "Abzug von 0.80 erfasst." in client.get(r.headers["location"], headers=german).text
    board = client.get(f"{base}/tables/1/rounds/1/boards/1", headers=german).text
    assert "Durchschn.+ / Durchschn.−" in board
    assert "Ave+" not in board
