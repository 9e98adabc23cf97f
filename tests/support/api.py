"""A club on the server's TD API and tables on its table API, through an in-process
TestClient; and the fixtures that make them (`engine` on `db_url`, `client`, `club`), for the
conftests and the test modules that use them by name."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from tests.support.app_factory import AppFactory
from tests.support.env import TD_PASSWORD


def new_id() -> str:
    return str(uuid.uuid4())


@dataclass
class Table:
    """A paired table terminal speaking the HTTP API."""

    client: TestClient
    token: str
    number: int

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def send(self, command: dict[str, Any]) -> Any:
        return self.client.post("/api/v1/table/commands", json=command, headers=self.headers)

    def round(self) -> dict[str, Any]:
        r = self.client.get("/api/v1/table/round", headers=self.headers)
        assert r.status_code == 200, r.text
        data: dict[str, Any] = r.json()
        return data

    def enter(
        self,
        board: int,
        contract: str,
        declarer: str | None,
        tricks: int | str,
        entry_id: str | None = None,
        **extra: Any,
    ) -> Any:
        values = {"contract": contract, "declarer": declarer, "tricks": tricks}
        values.update(extra.pop("values", {}))
        return self.send(
            {
                "type": "enter_result",
                "entry_id": entry_id or new_id(),
                "board": board,
                "values": values,
                **extra,
            }
        )

    def confirm(self, board: int, version: int, entry_id: str | None = None) -> Any:
        return self.send(
            {
                "type": "confirm_result",
                "entry_id": entry_id or new_id(),
                "board": board,
                "version": version,
            }
        )


@dataclass
class Club:
    """A served event: the TD's client, its section and paired tables."""

    client: TestClient
    engine: Engine
    td_headers: dict[str, str]
    event_id: int
    section: dict[str, Any]

    @property
    def section_id(self) -> int:
        return int(self.section["id"])

    def td(self, method: str, path: str, **kwargs: Any) -> Any:
        return self.client.request(method, path, headers=self.td_headers, **kwargs)

    def pair(self, table: int) -> Table:
        code = self.section["pairing_codes"][str(table)]
        r = self.client.post("/api/v1/table/pair", json={"code": code, "device": f"t{table}"})
        assert r.status_code == 200, r.text
        return Table(self.client, r.json()["token"], table)

    def start_round(self, round_: int) -> None:
        r = self.td("POST", f"/api/v1/sections/{self.section_id}/rounds/{round_}/start")
        assert r.status_code == 200, r.text


@pytest.fixture
def engine(apps: AppFactory, db_url: str) -> Engine:
    return apps.engine(db_url)


@pytest.fixture
def client(apps: AppFactory, engine: Engine) -> TestClient:
    return apps.client(engine)


def open_club(
    client: TestClient,
    engine: Engine,
    *,
    tables: int = 5,
    bpr: int = 3,
    event: dict[str, Any] | None = None,
    movement: dict[str, Any] | None = None,
) -> Club:
    """An event with one section, its movement ``movement`` or else a Mitchell of ``tables``
    tables and ``bpr`` boards a round; the event's fields from ``event``."""
    r = client.post("/api/v1/td/login", json={"password": TD_PASSWORD})
    assert r.status_code == 200, r.text
    headers = {"Authorization": f"Bearer {r.json()['token']}"}
    r = client.post(
        "/api/v1/events", json={"name": "Monday pairs", **(event or {})}, headers=headers
    )
    assert r.status_code == 201, r.text
    event_id = r.json()["id"]
    r = client.post(
        f"/api/v1/events/{event_id}/sections",
        json={
            "letter": "A",
            "movement": movement or {"tables": tables, "boards_per_round": bpr},
        },
        headers=headers,
    )
    assert r.status_code == 201, r.text
    return Club(client, engine, headers, event_id, r.json())


@pytest.fixture
def club(client: TestClient, engine: Engine) -> Club:
    """A 5-table Mitchell with 3 boards a round, round 1 not yet started."""
    return open_club(client, engine)
