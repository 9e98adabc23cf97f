"""One § 262 rule set (issue 18): the server, the terminal's fake server and the keypad
simulator's fake gateway reach the same board state, version and refusal for the same command
sequence (a property test, on SQLite and on PostgreSQL)."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from firmware_sim.fake_gateway import FakeTables
from protocol.messages import (
    ConfirmResult,
    CorrectResult,
    EnterResult,
    EntryValues,
    Error,
    RejectResult,
    ResultAck,
    TableCommand,
)
from terminal.testing.server import FakeServer
from tests.support.api import open_club

VALUES = (
    EntryValues(contract="4S", declarer="S", tricks=10),
    EntryValues(contract="3NT", declarer="N", tricks=8),
)

Step = tuple[str, int, int, bool]  # kind, values index, version, ruling pending

steps = st.lists(
    st.tuples(
        st.sampled_from(["enter", "confirm", "reject", "correct"]),
        st.integers(0, 1),
        st.integers(0, 4),
        st.booleans(),
    ),
    min_size=1,
    max_size=8,
)


def command(step: Step, board: int) -> TableCommand:
    kind, which, version, ruling = step
    entry_id = str(uuid.uuid4())
    if kind == "enter":
        return EnterResult(
            entry_id=entry_id, board=board, values=VALUES[which], ruling_pending=ruling
        )
    if kind == "confirm":
        return ConfirmResult(entry_id=entry_id, board=board, version=version)
    if kind == "reject":
        return RejectResult(entry_id=entry_id, board=board, version=version)
    return CorrectResult(
        entry_id=entry_id,
        board=board,
        version=version,
        values=VALUES[which],
        ruling_pending=ruling,
    )


def seen(reply: Any) -> tuple[str, str | None, int | None]:
    """What a reply says: accepted (with the board's state and version) or the refusal code."""
    if isinstance(reply, ResultAck):
        return ("ack", reply.result.state, reply.result.version)
    assert isinstance(reply, Error), reply
    return (reply.code, None, None)


@settings(
    max_examples=20,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(sequence=steps)
def test_server_terminal_and_keypad_agree(
    client: TestClient, engine: Engine, sequence: list[Step]
) -> None:
    club = open_club(client, engine, tables=3, bpr=2)
    club.start_round(1)
    table = club.pair(1)
    board = table.round()["boards"][0]["board"]
    terminal = FakeServer(tables=3, rounds=3, boards_per_round=2)
    keypad = FakeTables(tables=3, rounds=3, boards_per_round=2)
    fake_board = terminal.round_info(1).boards[0].board  # what a terminal's link asks first
    assert fake_board in keypad.boards(1, 1)
    for number, step in enumerate(sequence):
        sent = command(step, board)
        r = table.send(sent.model_dump(mode="json"))
        assert r.status_code in (200, 403, 409), r.text
        body = r.json()
        on_server = (
            ("ack", body["result"]["state"], body["result"]["version"])
            if body["type"] == "result_ack"
            else (body["code"], None, None)
        )
        same = command(step, fake_board)
        on_terminal = seen(terminal.handle(1, same))
        on_keypad = seen(keypad.handle(1, same)[1])
        assert on_server == on_terminal == on_keypad, (number, sequence)
    # And the board stands the same everywhere at the end.
    stored = next(b for b in table.round()["boards"] if b["board"] == board)
    fake = terminal.board_status(1, fake_board)
    keyed = keypad.results.get((1, fake_board))
    assert stored["state"] == fake.state == (keyed.state if keyed else "missing")
    if stored["result"] is not None:
        assert fake.result is not None
        assert keyed is not None
        assert stored["result"]["version"] == fake.result.version == keyed.version
        assert stored["result"]["contract"] == fake.result.contract == keyed.contract
