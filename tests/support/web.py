"""The web tests' helpers: the live server's rooms (an event of their own) and simulated table
terminals, the TD's login (the form in-process, the page in Chromium), and screenshots."""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient

from tests.support.env import TD_PASSWORD

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
#: Where the reference screenshots go for people to look at (besides the test's tmp dir).
SCREENS = Path(os.environ.get("TRAVELLER_SCREENS", "/tmp/traveller-screens"))


@dataclass
class LiveServer:
    """The app served by uvicorn in a background thread."""

    url: str
    database: Path

    @property
    def ws(self) -> str:
        return self.url.replace("http://", "ws://")


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


def web_login(client: TestClient, password: str = TD_PASSWORD) -> str:
    """Log in through the login form as a browser would; returns the session's CSRF token."""
    form = client.get("/td/login")
    nonce = form.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    r = client.post("/td/login", data={"password": password, "csrf": nonce}, follow_redirects=False)
    assert r.status_code == 303, r.text
    page = client.get("/td")
    return page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]


def chromium_missing() -> str | None:
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is not installed (apt-get install chromium chromium-driver)"
    try:
        import playwright.sync_api  # noqa: F401, PLC0415 (optional: is it installed?)
    except ImportError as exc:
        return f"the playwright package is not installed ({exc})"
    return None


#: Refusals the tests provoke on purpose (a wrong password) are not page errors.
EXPECTED_STATUSES = ("status of 401", "status of 403", "status of 429")


def is_page_error(msg: Any) -> bool:
    return msg.type == "error" and not any(s in msg.text for s in EXPECTED_STATUSES)


def login(tab: Any, next_path: str = "/td") -> None:
    tab.goto(f"/td/login?next={next_path}")
    tab.fill("#password", TD_PASSWORD)
    tab.click("button[type=submit]")
    tab.wait_for_url(f"**{next_path}")


def save_screen(tab: Any, tmp_path: Path, name: str) -> Path:
    """A screenshot in the test's tmp dir and in the shared reference folder."""
    path = tmp_path / name
    tab.screenshot(path=str(path), full_page=False)
    SCREENS.mkdir(parents=True, exist_ok=True)
    (SCREENS / name).write_bytes(path.read_bytes())
    return path


def overflow(tab: Any) -> int:
    """How many pixels the page is wider than the window (0: no sideways scroll)."""
    width: int = tab.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    return max(width, 0)


def scrolling_inside(tab: Any) -> list[str]:
    """Every element that scrolls sideways on its own (``overflow-x`` auto or scroll, wider
    inside than it shows): a table that only fits by scrolling in its card is no fit."""
    found: list[str] = tab.evaluate(
        """[...document.querySelectorAll('body *')].filter(e => {
             const x = getComputedStyle(e).overflowX;
             return (x === 'auto' || x === 'scroll') && e.scrollWidth > e.clientWidth + 1;
           }).map(e => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}`
             + `${e.className ? '.' + String(e.className).split(' ').join('.') : ''}`
             + ` by ${e.scrollWidth - e.clientWidth}px`)"""
    )
    return found
