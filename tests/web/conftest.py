"""Web fixtures: the real server under uvicorn on a loopback port, a Chromium driven by
Playwright, and helpers that play the TD (JSON API) and the table terminals (table API)."""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from server.app import create_app
from server.config import Settings
from server.db import make_engine
from tests.server.conftest import TD_PASSWORD as API_TD_PASSWORD
from tests.server.conftest import Club, open_club

TD_PASSWORD = "web-td-password"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
#: Where the reference screenshots go for people to look at (besides the test's tmp dir).
SCREENS = Path(os.environ.get("TRAVELLER_SCREENS", "/tmp/traveller-screens"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class LiveServer:
    """The app served by uvicorn in a background thread."""

    url: str
    database: Path

    @property
    def ws(self) -> str:
        return self.url.replace("http://", "ws://")


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    import uvicorn

    db = tmp_path_factory.mktemp("web") / "traveller.db"
    app = create_app(Settings(td_password=TD_PASSWORD, database_url=f"sqlite:///{db}"))
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the test server did not start")
        time.sleep(0.02)
    yield LiveServer(f"http://127.0.0.1:{port}", db)
    server.should_exit = True
    thread.join(timeout=10)


@dataclass
class Terminal:
    """A table's terminal, simulated through the table API."""

    http: httpx.Client
    token: str
    number: int

    def send(self, command: dict[str, Any]) -> dict[str, Any]:
        r = self.http.post(
            "/api/v1/table/commands",
            json=command,
            headers={"Authorization": f"Bearer {self.token}"},
        )
        assert r.status_code == 200, r.text
        data: dict[str, Any] = r.json()
        return data

    def round(self) -> dict[str, Any]:
        r = self.http.get("/api/v1/table/round", headers={"Authorization": f"Bearer {self.token}"})
        assert r.status_code == 200, r.text
        data: dict[str, Any] = r.json()
        return data

    def boards(self) -> list[int]:
        return [b["board"] for b in self.round()["boards"]]

    def enter(
        self, board: int, contract: str = "3NT", declarer: str | None = "N", tricks: Any = 9
    ) -> dict[str, Any]:
        reply = self.send(
            {
                "type": "enter_result",
                "entry_id": str(uuid.uuid4()),
                "board": board,
                "values": {"contract": contract, "declarer": declarer, "tricks": tricks},
            }
        )
        assert reply["type"] == "result_ack", reply
        return reply

    def confirm(self, board: int, version: int) -> dict[str, Any]:
        reply = self.send(
            {
                "type": "confirm_result",
                "entry_id": str(uuid.uuid4()),
                "board": board,
                "version": version,
            }
        )
        assert reply["type"] == "result_ack", reply
        return reply

    def play(
        self, board: int, contract: str = "3NT", declarer: str | None = "N", tricks: Any = 9
    ) -> None:
        """North enters, East confirms."""
        ack = self.enter(board, contract, declarer, tricks)
        self.confirm(board, ack["result"]["version"])

    def play_round(self, tricks: int = 9) -> None:
        for board in self.boards():
            self.play(board, tricks=tricks)

    def next_round(self) -> dict[str, Any]:
        return self.send({"type": "next_round"})


@dataclass
class Room:
    """An event of its own on the live server: the TD's API client and the tables."""

    http: httpx.Client
    td_headers: dict[str, str]
    event_id: int
    section_id: int
    codes: dict[int, str]
    terminals: dict[int, Terminal] = field(default_factory=dict)

    def td(self, method: str, path: str, **kwargs: Any) -> Any:
        r = self.http.request(method, path, headers=self.td_headers, **kwargs)
        assert r.status_code < 300, r.text
        return r.json() if r.content else None

    def table(self, number: int) -> Terminal:
        if number not in self.terminals:
            r = self.http.post(
                "/api/v1/table/pair", json={"code": self.codes[number], "device": f"t{number}"}
            )
            assert r.status_code == 200, r.text
            self.terminals[number] = Terminal(self.http, r.json()["token"], number)
        return self.terminals[number]

    def start_round(self, round_: int) -> None:
        self.td("POST", f"/api/v1/sections/{self.section_id}/rounds/{round_}/start")

    def name_pairs(self) -> None:
        names = [
            ("Anna Jensen", "Bo Nielsen"),
            ("Carl Hansen", "Dorte Pedersen"),
            ("Erik Andersen", "Frida Christensen"),
            ("Gitte Larsen", "Hans Sørensen"),
            ("Ida Rasmussen", "Jens Jørgensen"),
            ("Karen Petersen", "Lars Madsen"),
            ("Mette Kristensen", "Niels Olsen"),
            ("Ole Thomsen", "Pia Poulsen"),
            ("Rikke Johansen", "Søren Møller"),
            ("Tove Mortensen", "Ulrik Knudsen"),
            ("Vibeke Holm", "Anders Dahl"),
            ("Birgit Lund", "Claus Vestergaard"),
            ("Dorthe Winther", "Esben Krog"),
            ("Freja Bach", "Gunnar Friis"),
            ("Helle Skov", "Ib Lauridsen"),
            ("Jette Bruun", "Kim Bertelsen"),
        ]
        section = self.td("GET", f"/api/v1/sections/{self.section_id}")
        index = 0
        for number in range(1, section["tables"] + 1):
            for direction in ("NS", "EW"):
                first, second = names[index % len(names)]
                index += 1
                self.td(
                    "PUT",
                    f"/api/v1/sections/{self.section_id}/pairs/{number}{direction}",
                    json={"player1": first, "player2": second},
                )


def open_room(
    server: LiveServer,
    *,
    name: str = "Monday pairs",
    tables: int = 3,
    bpr: int = 2,
    rounds: int | None = None,
) -> Room:
    http = httpx.Client(base_url=server.url, timeout=10)
    r = http.post("/api/v1/td/login", json={"password": TD_PASSWORD})
    assert r.status_code == 200, r.text
    headers = {"Authorization": f"Bearer {r.json()['token']}"}
    r = http.post("/api/v1/events", json={"name": name}, headers=headers)
    assert r.status_code == 201, r.text
    event_id = r.json()["id"]
    r = http.post(
        f"/api/v1/events/{event_id}/sections",
        json={
            "letter": "A",
            "movement": {"tables": tables, "boards_per_round": bpr, "rounds": rounds},
        },
        headers=headers,
    )
    assert r.status_code == 201, r.text
    section = r.json()
    codes = {int(k): v for k, v in section["pairing_codes"].items()}
    return Room(http, headers, event_id, section["id"], codes)


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
def engine(tmp_path: Path) -> Iterator[Engine]:
    """SQLite for the page tests; the read models also run on PostgreSQL (``db_engine``)."""
    eng = make_engine(f"sqlite:///{tmp_path / 'web.db'}")
    yield eng
    eng.dispose()


@pytest.fixture
def db_engine(db_url: str) -> Iterator[Engine]:
    """The same test on SQLite and PostgreSQL."""
    eng = make_engine(db_url)
    yield eng
    eng.dispose()


@pytest.fixture
def client(engine: Engine) -> Iterator[TestClient]:
    app = create_app(Settings(td_password=API_TD_PASSWORD, database_url="unused://"), engine=engine)
    with TestClient(app) as c:
        yield c


@pytest.fixture
def club(client: TestClient, engine: Engine) -> Club:
    """A 5-table Mitchell, 3 boards a round, round 1 started (TD API and table API)."""
    made = open_club(client, engine)
    made.start_round(1)
    return made


def web_login(client: TestClient, password: str = API_TD_PASSWORD) -> str:
    """Log in through the login form as a browser would; returns the session's CSRF token."""
    form = client.get("/td/login")
    nonce = form.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    r = client.post("/td/login", data={"password": password, "csrf": nonce}, follow_redirects=False)
    assert r.status_code == 303, r.text
    page = client.get("/td")
    return page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]


# ------------------------------------------------------------------------------- the browser


def _chromium_missing() -> str | None:
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is not installed (apt-get install chromium chromium-driver)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:
        return f"the playwright package is not installed ({exc})"
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright (never a downloaded browser)."""
    missing = _chromium_missing()
    if missing is not None:
        if IN_CI:
            pytest.fail(f"CI=true but the browser tests cannot run: {missing}")
        pytest.skip(f"browser tests skipped: {missing}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


#: Refusals the tests provoke on purpose (a wrong password) are not page errors.
EXPECTED_STATUSES = ("status of 401", "status of 403", "status of 429")


def _is_error(msg: Any) -> bool:
    return msg.type == "error" and not any(s in msg.text for s in EXPECTED_STATUSES)


@pytest.fixture
def page(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1366, "height": 768})
    context.set_default_timeout(8000)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.on("console", lambda msg: errors.append(msg.text) if _is_error(msg) else None)
    yield tab
    context.close()
    assert not errors, f"the page reported errors: {errors}"


def login(tab: Any, next_path: str = "/td") -> None:
    tab.goto(f"/td/login?next={next_path}")
    tab.fill("#password", TD_PASSWORD)
    tab.click("button[type=submit]")
    tab.wait_for_url(f"**{next_path}")


@pytest.fixture
def td_page(page: Any) -> Any:
    """A tab with the TD logged in."""
    login(page)
    return page


def save_screen(tab: Any, tmp_path: Path, name: str) -> Path:
    """A screenshot in the test's tmp dir and in the shared reference folder."""
    path = tmp_path / name
    tab.screenshot(path=str(path), full_page=False)
    SCREENS.mkdir(parents=True, exist_ok=True)
    (SCREENS / name).write_bytes(path.read_bytes())
    return path
