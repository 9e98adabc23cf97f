"""Web fixtures: the real server under uvicorn on a loopback port, a Chromium driven by
Playwright, and the in-process app for the page tests (helpers: tests/support/web.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from server.app import create_app
from server.core.config import Settings
from tests.support.api import Club, open_club
from tests.support.app_factory import AppFactory
from tests.support.env import IN_CI, TD_PASSWORD
from tests.support.live import ThreadServer
from tests.support.web import (
    CHROMIUM,
    CHROMIUM_ARGS,
    LiveServer,
    Room,
    chromium_missing,
    is_page_error,
    login,
    open_room,
)

# The helpers' old home: new tests import them from tests.support.
from tests.support.web import Terminal as Terminal
from tests.support.web import save_screen as save_screen
from tests.support.web import web_login as web_login


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("web") / "traveller.db"
    app = create_app(Settings(td_password=TD_PASSWORD, database_url=f"sqlite:///{db}"))
    with ThreadServer(app, lifespan="on") as served:
        yield LiveServer(served.url, db)


@pytest.fixture
def room(live_server: LiveServer) -> Iterator[Room]:
    """A 3-table Mitchell, 2 boards a round, with names; round 1 started."""
    made = open_room(live_server)
    made.name_pairs()
    made.start_round(1)
    yield made
    made.http.close()


# ------------------------------------------------------------------ in-process app (no browser)


@pytest.fixture
def engine(apps: AppFactory, tmp_path: Path) -> Engine:
    """SQLite for the page tests; the read models also run on PostgreSQL (``db_engine``)."""
    return apps.engine(f"sqlite:///{tmp_path / 'web.db'}")


@pytest.fixture
def db_engine(apps: AppFactory, db_url: str) -> Engine:
    """The same test on SQLite and PostgreSQL."""
    return apps.engine(db_url)


@pytest.fixture
def client(apps: AppFactory, engine: Engine) -> TestClient:
    return apps.client(engine)


@pytest.fixture
def club(client: TestClient, engine: Engine) -> Club:
    """A 5-table Mitchell, 3 boards a round, round 1 started (TD API and table API)."""
    made = open_club(client, engine)
    made.start_round(1)
    return made


# ------------------------------------------------------------------------------- the browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright (never a downloaded browser).

    One a module, not a session: while Playwright's sync API is open it marks its event loop
    as running in the main thread, so a later test's `asyncio.run()` in the same process (an
    xdist worker takes tests of any module) would fail with "cannot be called from a running
    event loop"."""
    missing = chromium_missing()
    if missing is not None:
        if IN_CI:
            pytest.fail(f"CI=true but the browser tests cannot run: {missing}")
        pytest.skip(f"browser tests skipped: {missing}")
    # Optional: without playwright (chromium_missing above) the browser tests skip, the rest run.
    from playwright.sync_api import sync_playwright  # noqa: PLC0415

    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1366, "height": 768})
    context.set_default_timeout(8000)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.on("console", lambda msg: errors.append(msg.text) if is_page_error(msg) else None)
    yield tab
    context.close()
    assert not errors, f"the page reported errors: {errors}"


@pytest.fixture
def td_page(page: Any) -> Any:
    """A tab with the TD logged in."""
    login(page)
    return page
