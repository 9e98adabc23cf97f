"""A real Traveller server on loopback (uvicorn in a thread) with its Data Connector port, the
official Python client pointed at it, and helpers that act as the TD and as table terminals."""

from __future__ import annotations

import importlib.util
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx
import pytest
import uvicorn
from sqlalchemy import Engine

from server.app import create_app
from server.config import Settings
from server.db import make_engine

if TYPE_CHECKING:
    from bridgemate_dataconnector import DataConnectorClient

if importlib.util.find_spec("bridgemate_dataconnector") is None:
    # The official client is a test dependency (dev extra); without it only the pure
    # conversion tests run.
    collect_ignore = [
        "test_club_session.py",
        "test_protocol_answers.py",
        "test_validation.py",
        "scenario.py",
    ]

TD_PASSWORD = "dc-td-password"
CLUB_ID = "club-4711"
LICENCE = "licence-for-tests"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Served:
    """The running server: its main address, the Data Connector's own address, the database."""

    url: str
    dc_url: str
    engine: Engine


@pytest.fixture
def served(db_url: str) -> Iterator[Served]:
    engine = make_engine(db_url)
    port, dc_port = free_port(), free_port()
    settings = Settings(
        td_password=TD_PASSWORD,
        database_url="unused://",
        dc_club_id=CLUB_ID,
        dc_license=LICENCE,
        dc_port=dc_port,
    )
    config = uvicorn.Config(
        create_app(settings, engine=engine), host="127.0.0.1", port=port, log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive(), "the server stopped"
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield Served(f"http://127.0.0.1:{port}", f"http://127.0.0.1:{dc_port}", engine)
    finally:
        server.should_exit = True
        thread.join(15)
        engine.dispose()


@pytest.fixture
def dc(served: Served) -> DataConnectorClient:
    """The official client, as a scoring program configures it: club id, licence, address."""
    from bridgemate_dataconnector import DataConnectorClient, UrllibTransport

    transport = UrllibTransport(timeout_seconds=20)  # bounded: the default waits 100 s
    return DataConnectorClient(CLUB_ID, LICENCE, base_address=served.dc_url, transport=transport)


def new_guid() -> str:
    return uuid.uuid4().hex.upper()


class TD:
    """The tournament director at Traveller's TD API."""

    def __init__(self, url: str) -> None:
        self.http = httpx.Client(base_url=url, timeout=10)
        r = self.http.post("/api/v1/td/login", json={"password": TD_PASSWORD})
        assert r.status_code == 200, r.text
        self.http.headers["Authorization"] = f"Bearer {r.json()['token']}"

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        r = self.http.request(method, path, **kwargs)
        assert r.status_code < 300, r.text
        return r.json() if r.content else None

    def start_round(self, section_id: int, round_: int) -> None:
        self.call("POST", f"/api/v1/sections/{section_id}/rounds/{round_}/start")

    def terminal(self, section_id: int, table: int) -> Terminal:
        code = self.call("GET", f"/api/v1/sections/{section_id}")["pairing_codes"][str(table)]
        r = self.http.post("/api/v1/table/pair", json={"code": code, "device": f"t{table}"})
        assert r.status_code == 200, r.text
        return Terminal(self.http.base_url, r.json()["token"])


class Terminal:
    """A table terminal speaking the table API, as Traveller's terminals do."""

    def __init__(self, url: Any, token: str) -> None:
        self.http = httpx.Client(
            base_url=url, timeout=10, headers={"Authorization": f"Bearer {token}"}
        )

    def send(self, command: dict[str, Any]) -> dict[str, Any]:
        r = self.http.post("/api/v1/table/commands", json=command)
        assert r.status_code == 200, r.text
        data: dict[str, Any] = r.json()
        return data

    def play(
        self, board: int, contract: str, declarer: str | None, tricks: int, lead: str | None = None
    ) -> dict[str, Any]:
        """North enters, East confirms (§ 262B2-3)."""
        values = {"contract": contract, "declarer": declarer, "tricks": tricks, "lead": lead}
        entered = self.send(
            {
                "type": "enter_result",
                "entry_id": str(uuid.uuid4()),
                "board": board,
                "values": values,
            }
        )
        version = entered["result"]["version"]
        return self.send(
            {
                "type": "confirm_result",
                "entry_id": str(uuid.uuid4()),
                "board": board,
                "version": version,
            }
        )

    def next_round(self) -> dict[str, Any]:
        return self.send({"type": "next_round"})

    def call_td(self, reason: str) -> dict[str, Any]:
        return self.send({"type": "call_td", "entry_id": str(uuid.uuid4()), "reason": reason})
