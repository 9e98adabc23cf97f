"""PostgreSQL restarts mid-session: the workers reconnect, retrying terminals lose nothing, and
the fan-out listeners come back. Restarts the shared server, so it is marked to run last."""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from tests.deploy.test_fanout import (
    clients_per_worker,
    pair,
    setup_club,
    start_workers,
    table_socket,
    wait_confirmed,
)
from tests.support.processes import ServerProcess
from tests.support.wait import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.pg_restart, pytest.mark.slow]

VERSION = sorted(os.listdir("/etc/postgresql"))[0] if os.path.isdir("/etc/postgresql") else ""
PG_CTL = ["pg_ctlcluster", "--skip-systemctl-redirect", VERSION, "main"]


def pg_ready() -> bool:
    try:
        with psycopg.connect("postgresql://postgres@127.0.0.1:5432/test", connect_timeout=2):
            return True
    except psycopg.Error:
        return False


@pytest.fixture
def restartable(pg_url: str) -> Iterator[str]:
    """pg_url, with PostgreSQL started again after the test whatever happened (before the
    database is dropped)."""
    if not VERSION:
        pytest.skip("no local PostgreSQL cluster to restart (/etc/postgresql)")
    yield pg_url
    if not pg_ready():
        subprocess.run([*PG_CTL, "start"], check=False, timeout=60)
    wait_until(pg_ready, 60, "PostgreSQL to come back", every=0.5)


class Terminal:
    """A table terminal that keeps each command and resends it (same entry_id) until acked."""

    def __init__(self, server: ServerProcess, token: str) -> None:
        self.server = server
        self.headers = {"Authorization": f"Bearer {token}"}
        self.acked: dict[str, dict[str, Any]] = {}
        self.retries = 0
        self.failures: list[str] = []

    def send(self, command: dict[str, Any], timeout: float = 60.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with httpx.Client(base_url=self.server.base, timeout=10) as http:
                    r = http.post("/api/v1/table/commands", json=command, headers=self.headers)
                if r.status_code == 200:
                    body: dict[str, Any] = r.json()
                    self.acked[command["entry_id"]] = body
                    return body
                if r.status_code < 500:
                    raise AssertionError(f"refused: {r.status_code} {r.text}")
                self.failures.append(f"{r.status_code}")
            except httpx.TransportError as exc:
                self.failures.append(type(exc).__name__)
            self.retries += 1
            assert time.monotonic() < deadline, f"no ack in {timeout} s: {self.failures[-5:]}"
            time.sleep(0.2)

    def enter(self, board: int, contract: str = "3NT", tricks: int = 9) -> dict[str, Any]:
        return self.send(
            {
                "type": "enter_result",
                "entry_id": str(uuid.uuid4()),
                "board": board,
                "values": {"contract": contract, "declarer": "S", "tricks": tricks},
            }
        )

    def confirm(self, board: int, version: int) -> dict[str, Any]:
        return self.send(
            {
                "type": "confirm_result",
                "entry_id": str(uuid.uuid4()),
                "board": board,
                "version": version,
            }
        )


def boards_of(http: httpx.Client, token: str) -> list[int]:
    r = http.get("/api/v1/table/round", headers={"Authorization": f"Bearer {token}"})
    r.raise_for_status()
    return [b["board"] for b in r.json()["boards"]]


def test_postgres_restart_mid_session_loses_nothing_acknowledged(
    restartable: str, tmp_path: Path, servers: list[ServerProcess]
) -> None:
    server = start_workers(restartable, tmp_path, servers, workers=2)
    with httpx.Client(base_url=server.base, timeout=10) as http:
        td, section_id, codes = setup_club(http, tables=4)
        tokens = {n: pair(http, codes[str(n)]) for n in (1, 2, 3, 4)}
        boards = {n: boards_of(http, tokens[n]) for n in tokens}
    terminals = {n: Terminal(server, tokens[n]) for n in tokens}
    # Before: table 1 plays a board.
    ack = terminals[1].enter(boards[1][0])
    terminals[1].confirm(boards[1][0], ack["result"]["version"])

    # The restart runs while tables 2-4 keep entering and confirming.
    restart = threading.Thread(
        target=subprocess.run,
        args=([*PG_CTL, "restart"],),
        kwargs={"check": True, "timeout": 90, "capture_output": True},
    )
    t0 = time.monotonic()
    restart.start()
    while pg_ready() and restart.is_alive():  # play into the outage, not before it
        time.sleep(0.05)
    saw_outage = restart.is_alive()
    for n in (2, 3, 4):
        for board in boards[n]:
            ack = terminals[n].enter(board, contract="4H", tricks=10)
            terminals[n].confirm(board, ack["result"]["version"])
    restart.join(90)
    assert not restart.is_alive()
    outage_and_catch_up = time.monotonic() - t0
    assert pg_ready()
    if saw_outage:  # the first command met the stopped database, was refused and resent
        assert terminals[2].retries >= 1

    # Everything acknowledged is in the database, exactly as acknowledged.
    acked = [a for t in terminals.values() for a in t.acked.values()]
    assert len(acked) == 2 + 2 * 3 * len(boards[2])
    with psycopg.connect(restartable.replace("+psycopg", "")) as conn:
        rows = conn.execute(
            "SELECT table_number, board, state, version, ns_score FROM result"
        ).fetchall()
    stored = {(t, b): (s, v, score) for t, b, s, v, score in rows}
    final: dict[tuple[int, int], tuple[str, int, int | None]] = {}
    for a in acked:
        r = a["result"]
        key = (r["table"], r["board"])
        if key not in final or r["version"] >= final[key][1]:
            final[key] = (r["state"], r["version"], r["ns_score"])
    assert {k: v for k, v in stored.items() if k in final} == final
    assert all(state == "confirmed" for state, _, _ in final.values())
    assert len(final) == 1 + 3 * len(boards[2])

    # A terminal that never heard its ack sends again: a harmless duplicate.
    entry_id, first = next(iter(terminals[3].acked.items()))
    again = terminals[3].send(
        {
            "type": "enter_result",
            "entry_id": entry_id,
            "board": first["result"]["board"],
            "values": {"contract": "4H", "declarer": "S", "tricks": 10},
        }
    )
    assert again["duplicate"] is True

    # The fan-out listeners reconnected: a push made on one worker reaches the others.
    pinned = clients_per_worker(server, want=2)
    wait_until(
        lambda: all(server.health(c)["fanout"] == "postgres" for c in pinned.values()),
        30,
        "every worker's listener to come back",
        every=0.2,
    )
    with contextlib.ExitStack() as stack:
        sockets = [table_socket(stack, server, tokens[1]) for _ in range(6)]
        confirmed = set()
        for client, board in zip(pinned.values(), boards[1][1:], strict=False):
            headers = {"Authorization": f"Bearer {tokens[1]}"}
            command = {
                "type": "enter_result",
                "entry_id": str(uuid.uuid4()),
                "board": board,
                "values": {"contract": "2S", "declarer": "N", "tricks": 8},
            }
            r = client.post("/api/v1/table/commands", json=command, headers=headers)
            assert r.status_code == 200, r.text
            confirm = {
                "type": "confirm_result",
                "entry_id": str(uuid.uuid4()),
                "board": board,
                "version": r.json()["result"]["version"],
            }
            r = client.post("/api/v1/table/commands", json=confirm, headers=headers)
            assert r.status_code == 200, r.text
            confirmed.add(board)
        for ws in sockets:
            wait_confirmed(ws, confirmed)
    for client in pinned.values():
        client.close()
    retries = sum(t.retries for t in terminals.values())
    print(
        f"\nPostgreSQL restart: {retries} retries by the terminals, "
        f"{outage_and_catch_up:.1f} s from restart to all tables caught up; "
        f"failures seen: {sorted({f for t in terminals.values() for f in t.failures})}"
    )
    del td, section_id
