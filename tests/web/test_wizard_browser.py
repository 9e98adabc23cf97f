"""The set-up wizard in a real Chromium: a 7-pair Howell and a 2-section Mitchell set up by
clicking, the event the server then holds, a refusal on the page, phone layout, screenshots."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from sqlmodel import Session, col, select

from server.core.db import make_engine
from server.core.models import Event, Pair, Section
from tests.support.web import LiveServer, login

pytestmark = pytest.mark.slow

SHOTS = Path("/tmp/shots/wizard")
PHONE = {"width": 390, "height": 844}


def held(server: LiveServer, name: str) -> tuple[Event, list[Section], list[Pair]]:
    """The event the server holds under that name, its sections and their pairs."""
    engine = make_engine(f"sqlite:///{server.database}")
    try:
        with Session(engine) as s:
            event = s.exec(select(Event).where(Event.name == name)).one()
            sections = list(
                s.exec(
                    select(Section)
                    .where(Section.event_id == event.id)
                    .order_by(col(Section.letter))
                )
            )
            ids = [x.id for x in sections]
            pairs = list(s.exec(select(Pair).where(col(Pair.section_id).in_(ids))))
            return event, sections, pairs
    finally:
        engine.dispose()


def shoot(tab: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SHOTS / name), full_page=True)


def no_sideways_scroll(tab: Any) -> bool:
    return bool(
        tab.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    )


@pytest.fixture
def phone(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    context = browser.new_context(base_url=live_server.url, viewport=PHONE)
    context.set_default_timeout(8000)
    tab = context.new_page()
    login(tab)
    yield tab
    context.close()


def set_up_a_7_pair_howell(
    td_page: Any, name: str, *, scoring: str = "imps", leads: bool = True
) -> int:
    """From the TD's home through the wizard: a 7-pair Howell, the first pair named; the new
    section's id (the whole-session test starts here too)."""
    td_page.goto("/td")
    td_page.click("#setup-wizard")
    td_page.fill("#name", name)
    td_page.fill("#pairs", "7")
    shoot(td_page, "1-start-1366.png")
    td_page.click("#wiz-propose")
    howell = td_page.locator('.wiz-option[data-key="howell"]')
    expect(howell).to_contain_text("7 rounds")
    expect(howell).to_contain_text("balance 100.0 %")
    expect(td_page.locator('.wiz-unfit li[data-key="hesitation"]')).to_contain_text(
        "for an even number of pairs"
    )
    shoot(td_page, "2-movements-1366.png")
    howell.click()
    td_page.click("#wiz-next")
    td_page.fill('input[name="n_A_1_1"]', "Anna Jensen")
    td_page.fill('input[name="n_A_1_2"]', "Bo Nielsen")
    td_page.select_option("#scoring", scoring)
    if leads:
        td_page.check('input[name="lead_required"]')
    shoot(td_page, "3-details-1366.png")
    td_page.click("#wiz-create")
    expect(td_page.locator(".flash-ok")).to_contain_text("Event created. Sections: 1.")
    shoot(td_page, "4-done-1366.png")
    return int(td_page.locator(".wiz-done li").first.get_attribute("data-section"))


def test_a_7_pair_howell_set_up_in_the_wizard(td_page: Any, live_server: LiveServer) -> None:
    name = f"Howell night {uuid.uuid4().hex[:6]}"
    section_id = set_up_a_7_pair_howell(td_page, name)
    event, sections, pairs = held(live_server, name)
    assert event.scoring == "imps"
    assert event.lead_required
    assert [(s.id, s.letter, s.movement_kind, s.tables, s.rounds) for s in sections] == [
        (section_id, "A", "howell", 4, 7)
    ]
    assert len(pairs) == 7
    named = {p.number: (p.player1, p.player2) for p in pairs}
    assert named[1] == ("Anna Jensen", "Bo Nielsen")
    td_page.click(f'li[data-section="{sections[0].id}"] >> text=Table cards')
    expect(td_page).to_have_url(f"{live_server.url}/td/s/{sections[0].id}/movement/cards?by=table")


def test_a_2_section_mitchell_set_up_in_the_wizard(td_page: Any, live_server: LiveServer) -> None:
    name = f"Two sections {uuid.uuid4().hex[:6]}"
    td_page.goto("/td/setup")
    td_page.fill("#name", name)
    td_page.fill("#pairs", "12")
    td_page.fill("#sections", "2")
    td_page.click("#wiz-propose")
    expect(td_page.locator('input[value="mitchell"]')).to_be_checked()
    td_page.click("#wiz-next")
    td_page.locator(".wiz-names summary").nth(1).click()  # section B's names, folded
    td_page.fill('input[name="n_B_2EW_1"]', "Carl Hansen")
    td_page.click("#wiz-create")
    expect(td_page.locator(".flash-ok")).to_contain_text("Event created. Sections: 2.")
    _event, sections, pairs = held(live_server, name)
    assert [(s.letter, s.movement_kind, s.tables) for s in sections] == [
        ("A", "mitchell", 6),
        ("B", "mitchell", 6),
    ]
    assert len(pairs) == 24
    b = sections[1].id
    assert [p.player1 for p in pairs if p.section_id == b and p.player1] == ["Carl Hansen"]


@pytest.fixture
def refusing_tab(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    """A TD's tab where the refusal's 422 is expected; script errors still fail the test."""
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1366, "height": 768})
    context.set_default_timeout(8000)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    login(tab)
    yield tab
    context.close()
    assert not errors


def test_markup_in_a_name_is_refused_on_the_page_and_nothing_is_stored(
    refusing_tab: Any, live_server: LiveServer
) -> None:
    td_page = refusing_tab
    name = f"Refused {uuid.uuid4().hex[:6]}"
    td_page.goto(
        f"/td/setup/details?name={name}&sections=1&pairs=8&minutes=210&per_board=7.5"
        "&choice=mitchell"
    )
    td_page.fill('input[name="n_A_2NS_1"]', "<script>x</script>")
    td_page.click("#wiz-create")
    expect(td_page.locator(".wiz-error")).to_contain_text(
        "Section A, pair 2NS: a name may not hold markup"
    )
    expect(td_page.locator('input[name="n_A_2NS_1"]')).to_have_value("<script>x</script>")
    shoot(td_page, "3-refused-1366.png")
    with pytest.raises(Exception, match="No row was found"):
        held(live_server, name)


def test_a_20_pair_mitchell_club_night_in_four_clicks(
    td_page: Any, live_server: LiveServer, record_property: Any
) -> None:
    """Every default taken: the wizard link, Propose, Next, Create (the figure is reported)."""
    started = time.monotonic()
    clicks = 0
    td_page.goto("/td")
    for target in ("#setup-wizard", "#wiz-propose", "#wiz-next", "#wiz-create"):
        td_page.click(target)
        clicks += 1
    expect(td_page.locator(".flash-ok")).to_contain_text("Event created. Sections: 1.")
    seconds = time.monotonic() - started
    record_property("wizard_20_pair_mitchell", f"{clicks} clicks, {seconds:.1f} s")
    print(f"\n20-pair Mitchell set-up: {clicks} clicks, {seconds:.1f} s")
    section_id = int(td_page.locator(".wiz-done li").first.get_attribute("data-section"))
    engine = make_engine(f"sqlite:///{live_server.database}")
    try:
        with Session(engine) as s:
            section = s.get(Section, section_id)
            assert section is not None
            assert (section.tables, section.rounds, section.boards_per_round) == (10, 9, 3)
    finally:
        engine.dispose()
    assert clicks == 4


def test_each_step_fits_a_phone_without_sideways_scroll(phone: Any) -> None:
    phone.goto("/td/setup")
    steps = [("1-start", None), ("2-movements", "#wiz-propose"), ("3-details", "#wiz-next")]
    for name, click in steps:
        if click:
            phone.click(click)
        shoot(phone, f"{name}-390.png")
        assert no_sideways_scroll(phone), name
    phone.locator(".wiz-names summary").first.click()
    shoot(phone, "3-details-names-390.png")
    assert no_sideways_scroll(phone)
    phone.fill('input[name="n_A_1NS_1"]', "Anna Jensen")
    phone.click("#wiz-create")
    expect(phone.locator(".flash-ok")).to_contain_text("Event created")
    shoot(phone, "4-done-390.png")
    assert no_sideways_scroll(phone)
