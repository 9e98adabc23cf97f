"""A club on the TD API with a movement of the test's choosing, and every table playing its
rounds through the table API (3NT by North, tricks varying by board and table)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from tests.support.api import Club, Table, open_club


def movement_club(client: TestClient, engine: Engine, movement: dict[str, Any]) -> Club:
    """A club whose one section has ``movement`` (a Howell, an individual, a web Mitchell...)."""
    return open_club(client, engine, event={"name": "Movement night"}, movement=movement)


def play_round(tables: list[Table]) -> int:
    """Every table enters and confirms every board of its round; returns boards played."""
    played = 0
    for t in tables:
        info = t.round()
        for b in info["boards"]:
            if b["state"] != "missing":
                continue
            ack = t.enter(b["board"], "3NT", "N", 9 + (b["board"] + t.number) % 3)
            assert ack.status_code == 200, ack.text
            v = ack.json()["result"]["version"]
            assert t.confirm(b["board"], v).json()["result"]["state"] == "confirmed"
            played += 1
        assert t.round()["complete"] is True
    return played


def advance(club: Club, tables: list[Table], next_round: int) -> None:
    club.start_round(next_round)
    for t in tables:
        r = t.send({"type": "next_round"})
        assert r.status_code == 200, r.text
        assert r.json()["round"] == next_round


def play_all(club: Club) -> tuple[list[Table], int]:
    section = club.section
    tables = [club.pair(n) for n in range(1, section["tables"] + 1)]
    club.start_round(1)
    played = 0
    for rnd in range(1, section["rounds"] + 1):
        played += play_round(tables)
        if rnd < section["rounds"]:
            advance(club, tables, rnd + 1)
    return tables, played
