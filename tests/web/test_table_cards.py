"""The printable table card (issue 17): the TD console's page and `traveller cards`, in the five
languages, made from the one key grammar."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from protocol.languages import LANGUAGES
from server.ops.cli import app as cli_app
from tests.support.api import Club
from tests.support.web import web_login


def test_the_table_card_page_prints_one_card_with_both_devices(
    client: TestClient, club: Club
) -> None:
    web_login(client)
    sid = club.section_id
    page = client.get(f"/td/s/{sid}/table-cards")
    assert page.status_code == 200, page.text
    assert page.text.count('<article class="table-card"') == 1
    assert "tablecards.css" in page.text
    assert "<h2>Traveller: keys at the table</h2>" in page.text
    # The grammar's keys: the same declarer keys on both devices, each its own OK and reject.
    assert '<td colspan="2" class="cap">1 N  2 E  3 S  4 W</td>' in page.text
    assert re.search(r"Reject: back to North</td>\s*<td class=\"cap\">Backspace", page.text)
    assert '<td class="cap">BACK <span class="note">(the keys are kept)</span></td>' in page.text
    assert "4 4 3 1 0 ENT  =  4♠ by South, ten tricks: made" in page.text
    movement = client.get(f"/td/s/{sid}/movement").text
    assert f'href="/td/s/{sid}/table-cards?all=1"' in movement
    css = client.get("/static/tablecards.css")
    assert css.status_code == 200
    assert "@media print" in css.text
    assert "break-after: page" in css.text


def test_every_language_one_card_a_page(client: TestClient, club: Club) -> None:
    web_login(client)
    page = client.get(f"/td/s/{club.section_id}/table-cards?all=1").text
    langs = re.findall(r'<article class="table-card" lang="(\w+)">', page)
    assert langs == list(LANGUAGES)
    assert "<h2>Traveller: tasterne ved bordet</h2>" in page
    assert "1 N  2 Ø  3 S  4 V" in page  # Danish seat letters, the same keys
    assert "<h2>Traveller: die Tasten am Tisch</h2>" in page
    assert "1 С  2 В  3 Ю  4 З" in page


def test_the_card_in_danish_by_the_browsers_language(client: TestClient, club: Club) -> None:
    web_login(client)
    page = client.get(
        f"/td/s/{club.section_id}/table-cards", headers={"accept-language": "da"}
    ).text
    assert "Afvis: tilbage til Nord" in page
    assert "Reject: back to North" not in page


def test_the_card_needs_the_td(client: TestClient, club: Club) -> None:
    page = client.get(f"/td/s/{club.section_id}/table-cards", follow_redirects=False)
    assert page.status_code == 303
    assert "/td/login" in page.headers["location"]


@pytest.mark.parametrize("lang", ["en", "da", "nb", "de", "ru"])
def test_traveller_cards_prints_the_card(lang: str) -> None:
    result = CliRunner().invoke(cli_app, ["cards", "--lang", lang])
    assert result.exit_code == 0, result.output
    assert "4 4 3 1 0 Enter" in result.output
    assert "4 4 3 1 0 ENT" in result.output
    assert "UP n   DOWN n" in result.output


def test_traveller_cards_for_one_device_and_a_bad_language() -> None:
    keypad = CliRunner().invoke(cli_app, ["cards", "--device", "keypad", "--lang", "de"])
    assert keypad.exit_code == 0
    assert "Ablehnen: zurück an Nord" in keypad.output
    assert "Backspace" not in keypad.output
    every = CliRunner().invoke(cli_app, ["cards", "--lang", "all"])
    assert every.output.count("Traveller:") == 5
    bad = CliRunner().invoke(cli_app, ["cards", "--lang", "xx"])
    assert bad.exit_code == 2
    assert "unknown language xx" in bad.output
