"""Duplicate, out-of-order and replayed messages on the real websocket: each command takes effect
once, a resend is answered with the stored outcome, and the exactly-once check holds."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

from sqlmodel import Session, func, select
from websockets.asyncio.client import ClientConnection, connect

from benchmarks.outbox import values_for
from benchmarks.procs import ServerProcess
from benchmarks.verify import verify
from protocol.messages import parse_server_message
from server.core.db import make_engine, migrate
from server.core.models import Audit
from tests.support.faults import open_club


async def _hello(url: str, token: str) -> tuple[ClientConnection, Any]:
    ws = await connect(url)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    return ws, parse_server_message(await ws.recv())


async def _replies(ws: ClientConnection, count: int) -> list[Any]:
    """The next ``count`` replies (acks and errors), skipping pushes."""
    out: list[Any] = []
    while len(out) < count:
        message = parse_server_message(await asyncio.wait_for(ws.recv(), 10))
        if message.type in ("result_ack", "ack", "error"):
            out.append(message)
    return out


def _enter(table: int, board: int, entry_id: str | None = None) -> dict[str, Any]:
    values = values_for(table, board).model_dump()
    return {
        "type": "enter_result",
        "entry_id": entry_id or str(uuid.uuid4()),
        "board": board,
        "values": values,
    }


def _confirm(board: int, version: int, entry_id: str | None = None) -> dict[str, Any]:
    entry = entry_id or str(uuid.uuid4())
    return {"type": "confirm_result", "entry_id": entry, "board": board, "version": version}


def _audit_rows(url: str) -> int:
    engine = make_engine(url)
    try:
        with Session(engine) as s:
            return int(s.exec(select(func.count()).select_from(Audit)).one())
    finally:
        engine.dispose()


async def test_duplicates_out_of_order_and_replays(server: ServerProcess, sqlite_url: str) -> None:
    club = await open_club(server.base_url, tables=3, boards_per_round=3)
    a1, info = await _hello(server.ws_url, club.tokens[1])
    a2, _ = await _hello(server.ws_url, club.tokens[1])  # the table's second device
    b, info_b = await _hello(server.ws_url, club.tokens[2])
    boards = [s.board for s in info.boards]
    sent: list[dict[str, Any]] = []
    acks: list[dict[str, Any]] = []

    def acked(command: dict[str, Any], table: int = 1) -> None:
        acks.append(
            {
                "table": table,
                "entry_id": command["entry_id"],
                "kind": command["type"],
                "board": command["board"],
            }
        )

    # Duplicates: one entry sent twice on one socket and once on the other, all at once.
    first = _enter(1, boards[0])
    await asyncio.gather(*(ws.send(json.dumps(first)) for ws in (a1, a1, a2)))
    replies = await _replies(a1, 2) + await _replies(a2, 1)
    assert {r.type for r in replies} == {"result_ack"}
    assert sorted(r.duplicate for r in replies) == [False, True, True]
    assert {r.result.version for r in replies} == {1}
    sent.append(first)
    acked(first)

    # Out of order: the confirm overtakes its enter; it is refused, then resent and accepted.
    confirm = _confirm(boards[1], 1)
    enter = _enter(1, boards[1])
    await a1.send(json.dumps(confirm))
    await a1.send(json.dumps(enter))
    early, entered = await _replies(a1, 2)
    assert (early.type, early.code) == ("error", "not_entered")
    assert entered.type == "result_ack"
    assert not entered.duplicate
    await a1.send(json.dumps(confirm))
    (late,) = await _replies(a1, 1)
    assert late.type == "result_ack"
    assert late.result.state == "confirmed"
    sent += [enter, confirm]
    acked(enter)
    acked(confirm)

    # A stale version is refused and changes nothing.
    stale = _confirm(boards[0], 7)
    await a1.send(json.dumps(stale))
    (refused,) = await _replies(a1, 1)
    assert (refused.type, refused.code) == ("error", "stale_version")
    for board in (boards[0], boards[2]):
        if board != boards[0]:
            command = _enter(1, board)
            await a1.send(json.dumps(command))
            (reply,) = await _replies(a1, 1)
            assert reply.type == "result_ack"
            sent.append(command)
            acked(command)
        command = _confirm(board, 1)
        await a1.send(json.dumps(command))
        (reply,) = await _replies(a1, 1)
        assert reply.type == "result_ack"
        assert reply.result.state == "confirmed"
        sent.append(command)
        acked(command)

    # Replay everything, in reverse order, on the second device: all duplicates, no change.
    before = _audit_rows(sqlite_url)
    for command in reversed(sent):
        await a2.send(json.dumps(command))
    replayed = await _replies(a2, len(sent))
    assert all(r.type == "result_ack" and r.duplicate for r in replayed), replayed
    assert _audit_rows(sqlite_url) == before

    # The same entry id with other content is refused, not applied.
    forged = {**sent[0], "values": {"contract": "7NT", "declarer": "N", "tricks": 13}}
    await a1.send(json.dumps(forged))
    (reused,) = await _replies(a1, 1)
    assert (reused.type, reused.code) == ("error", "entry_id_reused")

    # Table 1's messages replayed by table 2: refused there, table 1 unchanged.
    for command in sent[:2]:
        await b.send(json.dumps(command))
    for reply in await _replies(b, 2):
        assert reply.type == "error"
        assert reply.code in ("board_not_in_round", "not_entered"), reply
    assert _audit_rows(sqlite_url) == before
    assert {s.state for s in info_b.boards} == {"missing"}

    for ws in (a1, a2, b):
        await ws.close()
    server.stop()
    verdict = verify(sqlite_url, club.section_id, acks)
    assert verdict.ok, verdict.problems
    assert verdict.results == 3


def test_the_check_catches_a_lost_or_doubled_result(tmp_path: Path) -> None:
    """The verifier itself: an acknowledged entry that is not stored is reported."""
    url = f"sqlite:///{tmp_path / 'empty.db'}"
    engine = make_engine(url)
    migrate(engine)
    engine.dispose()
    lost = [{"table": 1, "entry_id": "lost-entry-1", "kind": "enter_result", "board": 1}]
    verdict = verify(url, 1, lost)
    assert not verdict.ok
    assert "unknown table" in verdict.problems[0]
