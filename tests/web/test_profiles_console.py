"""The TD console's one profile select (set-up wizard, event settings): shown, stored, refused."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import urlencode

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, select

from server.core.models import Event
from tests.support.web import LiveServer, login, web_login
from tests.web.test_wizard_browser import PHONE, expect, held, no_sideways_scroll, shoot
from tests.web.test_wizard_forms import STEP1, create, events


def test_the_settings_offer_every_profile_with_dbf_chosen(client: TestClient) -> None:
    web_login(client)
    page = client.get("/td/setup/details", params={**STEP1, "choice": "mitchell"})
    assert page.status_code == 200
    assert 'name="scoring_profile"' in page.text
    assert '<option value="dbf" selected>DBf (Danmarks Bridgeforbund)' in page.text
    for name, title in (("ffb", "FFB / Magic Contest"), ("abf", "ABF / Compscore")):
        assert f'<option value="{name}" >{title}</option>' in page.text


def test_the_chosen_profile_is_stored_on_the_event(client: TestClient, engine: Engine) -> None:
    csrf = web_login(client)
    r = create(client, csrf, scoring="butler", scoring_profile="abf")
    assert r.status_code == 303, r.text
    with Session(engine) as s:
        event = s.exec(select(Event)).one()
    assert (event.scoring, event.scoring_profile) == ("butler", "abf")


def test_an_unknown_profile_is_refused_and_nothing_is_stored(
    client: TestClient, engine: Engine
) -> None:
    csrf = web_login(client)
    r = create(client, csrf, scoring_profile="fbb")
    assert r.status_code == 422
    assert "scoring_profile: &#39;fbb&#39; is not one of dbf, ebu" in r.text
    assert events(engine) == []


@pytest.mark.slow
def test_the_profile_is_chosen_by_clicking_in_chromium(
    td_page: Any, browser: Any, live_server: LiveServer
) -> None:
    name = f"Compscore night {uuid.uuid4().hex[:6]}"
    td_page.goto("/td/setup")
    td_page.fill("#name", name)
    td_page.fill("#pairs", "12")
    td_page.click("#wiz-propose")
    td_page.click("#wiz-next")
    profile = td_page.locator("#scoring_profile")
    assert profile.input_value() == "dbf"
    td_page.select_option("#scoring", "butler")
    td_page.select_option("#scoring_profile", "abf")
    shoot(td_page, "profile-details-1366.png")
    td_page.click("#wiz-create")
    expect(td_page.locator(".flash-ok")).to_contain_text("Event created. Sections: 1.")
    event, _sections, _pairs = held(live_server, name)
    assert (event.scoring, event.scoring_profile) == ("butler", "abf")
    context = browser.new_context(base_url=live_server.url, viewport=PHONE)
    try:
        context.set_default_timeout(8000)
        tab = context.new_page()
        login(tab)
        tab.goto(f"/td/setup/details?{urlencode({**STEP1, 'choice': 'mitchell'})}")
        expect(tab.locator("#scoring_profile")).to_be_visible()
        assert no_sideways_scroll(tab)
        shoot(tab, "profile-details-390.png")
    finally:
        context.close()
