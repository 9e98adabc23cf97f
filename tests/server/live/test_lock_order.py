"""Table locks in table order from every transport (issue 18): HTTP and websocket commands go
through the one table desk, which hands the group writer the table's id, so the commands of one
batch take their table locks in ascending table id whichever way they came in (the order that
keeps two PostgreSQL workers' batches from deadlocking)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from sqlmodel import Session, select

from protocol.messages import EnterResult, EntryValues
from server.core.db import Job
from server.core.models import BridgeTable
from server.live import table_desk
from server.live.runtime import Runtime
from server.services import tokens
from tests.support.api import Club, new_id
from tests.support.wait import wait_until

WAIT = 10.0  # seconds a step may take before the test gives up (never a timing assertion)


def enter(board: int) -> dict[str, Any]:
    values = EntryValues(contract="4S", declarer="S", tricks=10)
    return EnterResult(entry_id=new_id(), board=board, values=values).model_dump(mode="json")


class Spy:
    """Records the order each command was submitted with and the table each one locked."""

    def __init__(self, runtime: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
        self.orders: list[int] = []
        self.locked: list[int] = []
        self.lock = threading.Lock()
        writer = runtime.writer
        start = writer._start  # every command passes here, from a thread or a coroutine

        def spied_start(job: Job[Any]) -> None:
            start(job)  # queued before it counts as submitted (see wait_for)
            with self.lock:
                self.orders.append(job.order)

        real = table_desk.outcome_for

        def spied_outcome(
            session: Session, ident: tokens.TableIdentity, command: Any, *opened: Any
        ) -> Any:
            with self.lock:
                self.locked.append(ident.table.id or 0)  # the table's lock is held by now
            return real(session, ident, command, *opened)

        monkeypatch.setattr(writer, "_start", spied_start)
        monkeypatch.setattr(table_desk, "outcome_for", spied_outcome)

    def wait_for(self, submitted: int) -> None:
        wait_until(
            lambda: len(self.orders) >= submitted,
            WAIT,
            f"{submitted} commands submitted",
            every=0.01,
        )


def table_ids(club: Club) -> dict[int, int]:
    with Session(club.engine) as s:
        rows = s.exec(select(BridgeTable).where(BridgeTable.section_id == club.section_id)).all()
        return {t.number: t.id or 0 for t in rows}


def first_board(club: Club, token: str) -> int:
    r = club.client.get("/api/v1/table/round", headers={"Authorization": f"Bearer {token}"})
    return int(r.json()["boards"][0]["board"])


def by_websocket(club: Club, token: str, command: dict[str, Any], replies: list[Any]) -> None:
    with club.client.websocket_connect("/api/v1/table/ws") as ws:
        ws.send_json({"type": "hello", "token": token})
        assert ws.receive_json()["type"] == "round_info"
        ws.send_json(command)
        replies.append(ws.receive_json())


def by_http(club: Club, token: str, command: dict[str, Any], replies: list[Any]) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    replies.append(club.client.post("/api/v1/table/commands", json=command, headers=headers).json())


def test_http_and_websocket_commands_take_table_locks_in_table_order(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    club.start_round(1)
    runtime: Runtime = club.client.app.state.runtime  # type: ignore[attr-defined]
    assert runtime.desk.writer is runtime.writer  # group commit is on (the default)
    ids = table_ids(club)
    token = {n: club.pair(n).token for n in (1, 2, 3)}
    board = {n: first_board(club, token[n]) for n in (1, 2, 3)}
    spy = Spy(runtime, monkeypatch)

    # Each transport hands the writer the table's id (HTTP passed 0 before issue 18).
    replies: list[Any] = []
    by_http(club, token[3], enter(board[3]), replies)
    by_websocket(club, token[3], enter(board[3] + 1), replies)
    assert spy.orders == [ids[3], ids[3]]
    assert [r["type"] for r in replies] == ["result_ack", "result_ack"]

    # One batch with commands from both transports, arriving as tables 3, 2, 1: the writer
    # is held by a job of its own until all three wait, then they run in table order.
    spy.orders.clear()
    spy.locked.clear()
    running, release = threading.Event(), threading.Event()

    def hold(session: Session) -> bool:
        running.set()
        return release.wait(WAIT)

    held = runtime.writer.submit(hold, 0)
    spy.wait_for(1)
    # The writer must have taken the holding job as a batch of its own before the first command
    # is sent: else it can take both in one batch, and table 3 runs before the 1 and 2 behind it.
    assert running.wait(WAIT), "the writer never started the holding job"
    replies.clear()
    sends = [
        (by_http, 3, board[3] + 2),
        (by_websocket, 2, board[2]),
        (by_http, 1, board[1]),
    ]
    threads = []
    for number, (send, table, b) in enumerate(sends, start=2):
        thread = threading.Thread(target=send, args=(club, token[table], enter(b), replies))
        thread.start()
        threads.append(thread)
        spy.wait_for(number)  # this command waits in the writer's queue before the next comes
    release.set()
    held.result(WAIT)
    for thread in threads:
        thread.join(WAIT)
    assert [r["type"] for r in replies] == ["result_ack"] * 3, replies
    assert spy.orders == [0, ids[3], ids[2], ids[1]]
    assert spy.locked == sorted(spy.locked) == sorted([ids[1], ids[2], ids[3]])
