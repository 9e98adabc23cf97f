"""Accessibility by a real engine: axe-core (tests/web/axe, `npm ci --prefix tests/web/axe`),
injected into Debian's Chromium, finds no serious or critical violation on any TD or public
page at 1366x768 and 390x844; every TD control is reached with the Tab key alone; the phone
menu is a button that says whether it is open. The summary is written to
$TRAVELLER_SCREENS/axe-summary.json (tests/support/web.py: SCREENS)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.env import IN_CI
from tests.support.web import SCREENS, LiveServer, login
from tests.web.test_phone_layout import LAPTOP, PHONE, Night, pages

# The phone layout's night, as this module's fixture.
from tests.web.test_phone_layout import night as night

pytestmark = pytest.mark.slow

AXE = Path(__file__).parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"
#: What axe must never find; "moderate" and "minor" findings go to the summary only.
BLOCKING = ("serious", "critical")
SUMMARY = SCREENS / "axe-summary.json"

RUN_AXE = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.length, targets: v.nodes.slice(0, 4).map(n => n.target.join(" ")),
    why: v.nodes.slice(0, 4).map(n => (n.any[0] || n.all[0] || n.none[0] || {}).message || ""),
  }));
}"""


def every_page(night: Night) -> dict[str, str]:
    """The phone layout's pages and the rest of the TD's: the wizard, the room, the changes,
    the keyed deals, the cards, the projector."""
    s = night.room.section_id
    td = f"/td/s/{s}"
    step1 = "name=Club+night&sections=1&pairs=14&minutes=180&per_board=7.5"
    return {
        **pages(night),
        "setup": "/td/setup",
        "setup-movements": f"/td/setup/movements?{step1}",
        "setup-details": f"/td/setup/details?{step1}&choice=mitchell",
        "room": f"{td}/room",
        "changes": f"{td}/changes",
        "deals": f"{td}/deals",
        "movement-cards": f"{td}/movement/cards",
        "table-cards": f"{td}/table-cards",
        "projector": f"/results/{s}/projector",
    }


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.exists():
        missing = f"{AXE} is missing (npm ci --prefix tests/web/axe)"
        if IN_CI:
            pytest.fail(f"CI=true but the accessibility tests cannot run: {missing}")
        pytest.skip(missing)
    return AXE.read_text()


@pytest.fixture(scope="module")
def contexts(browser: Any, live_server: LiveServer) -> Iterator[dict[str, Any]]:
    """A logged-in laptop and phone; CSP bypassed so that axe can be injected."""
    made = {}
    for name, size in (("1366x768", LAPTOP), ("390x844", PHONE)):
        context = browser.new_context(base_url=live_server.url, viewport=size, bypass_csp=True)
        context.set_default_timeout(8000)
        login(context.new_page())
        made[name] = context
    yield made
    for context in made.values():
        context.close()


def violations(tab: Any, axe_source: str) -> list[dict[str, Any]]:
    tab.add_script_tag(content=axe_source)
    return list(tab.evaluate(RUN_AXE))


def test_axe_finds_no_serious_or_critical_violation_on_any_page(
    night: Night, contexts: dict[str, Any], browser: Any, live_server: LiveServer, axe_source: str
) -> None:
    summary: dict[str, dict[str, list[dict[str, Any]]]] = {}
    blocking = []
    sizes = {"1366x768": LAPTOP, "390x844": PHONE}
    logged_out = {
        size: browser.new_context(base_url=live_server.url, viewport=viewport, bypass_csp=True)
        for size, viewport in sizes.items()
    }
    try:
        for size, context in contexts.items():
            tab = context.new_page()
            targets = [(name, path, tab) for name, path in every_page(night).items()]
            targets.append(("login", "/td/login", logged_out[size].new_page()))
            for name, path, on in targets:
                response = on.goto(path)
                assert response is not None
                assert response.status == 200, (name, path)
                on.wait_for_load_state("load")
                found = violations(on, axe_source)
                summary.setdefault(name, {})[size] = found
                blocking += [(name, size, v) for v in found if v["impact"] in BLOCKING]
            tab.close()
    finally:
        for context in logged_out.values():
            context.close()
    SUMMARY.parent.mkdir(parents=True, exist_ok=True)
    SUMMARY.write_text(json.dumps(summary, indent=1, ensure_ascii=False))
    assert len(summary) >= 30
    assert blocking == [], json.dumps(blocking, indent=1, ensure_ascii=False)


#: A control by what it is and says (fragments the live feed redraws keep it).
#: A radio group is one stop for Tab (the arrow keys choose within it), so one signature.
SIGNATURE = """e => e.type === 'radio' ? 'radio|' + e.name : [e.tagName, e.getAttribute('href'),
  e.getAttribute('name'), e.id, e.getAttribute('value'), (e.innerText || '').trim().slice(0, 40)
  ].join('|')"""
FOCUSABLE = f"""() => Array.from(document.querySelectorAll(
    'a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]'))
  .filter(e => !e.disabled && e.tabIndex >= 0
          && e.checkVisibility({{visibilityProperty: true, contentVisibilityAuto: true}})
          && !e.closest('details:not([open]) > :not(summary)'))
  .map({SIGNATURE})"""
ACTIVE = f"() => document.activeElement ? ({SIGNATURE})(document.activeElement) : null"


def test_every_td_control_is_reached_with_the_tab_key(
    night: Night, contexts: dict[str, Any]
) -> None:
    """Tab from the top of each TD page reaches every visible control (link, button, field);
    a control inside a closed <details> counts once its summary (reached too) opens it."""
    tab = contexts["1366x768"].new_page()
    unreached = {}
    for name, path in every_page(night).items():
        if not path.startswith("/td"):
            continue
        tab.goto(path)
        tab.wait_for_load_state("networkidle")
        controls = tab.evaluate(FOCUSABLE)
        wanted = set(controls)
        reached: set[str] = set()
        tab.evaluate("() => document.activeElement && document.activeElement.blur()")
        for _ in range(len(controls) + 10):
            tab.keyboard.press("Tab")
            reached.add(tab.evaluate(ACTIVE))
            if reached >= wanted:
                break
        if wanted - reached:
            unreached[name] = sorted(wanted - reached)
    tab.close()
    assert unreached == {}, json.dumps(unreached, indent=1, ensure_ascii=False)


def test_the_phone_menu_is_a_button_that_says_whether_it_is_open(
    night: Night, contexts: dict[str, Any]
) -> None:
    tab = contexts["390x844"].new_page()
    tab.goto(f"/td/s/{night.room.section_id}")
    button = tab.get_by_role("button", name="Menu")
    assert button.get_attribute("aria-expanded") == "false"
    assert button.get_attribute("aria-controls") == "topnav"
    end = tab.locator("#topnav a#nav-end")
    assert not end.is_visible()
    button.focus()
    tab.keyboard.press("Enter")  # the keyboard alone opens it
    assert button.get_attribute("aria-expanded") == "true"
    assert end.is_visible()
    tab.keyboard.press("Escape")
    assert button.get_attribute("aria-expanded") == "false"
    assert not end.is_visible()
    tab.keyboard.press("Space")
    assert end.is_visible()
    tab.close()
