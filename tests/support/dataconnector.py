"""The Data Connector tests' helpers: the served app and its Data Connector port, and the TD
and the table terminals speaking Traveller's own APIs."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import httpx
from sqlalchemy import Engine

from tests.support.env import TD_PASSWORD

CLUB_ID = "club-4711"
LICENCE = "licence-for-tests"


@dataclass
class Served:
    """The running server: its main address, the Data Connector's own address, the database."""

    url: str
    dc_url: str
    engine: Engine


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
