"""The durable outbox: committed on add, in order, answered once, kept across a reopen."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from protocol.messages import CallTD, EnterResult, EntryValues, GetRound
from terminal.outbox import Outbox
from terminal.testing.server import FakeServer


def enter(entry_id: str, board: int = 1) -> EnterResult:
    values = EntryValues(contract="4S", declarer="S", tricks=10)
    return EnterResult(entry_id=entry_id, board=board, values=values)


def test_commands_wait_in_order_and_leave_when_answered(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "outbox.sqlite3")
    box.add(enter("entry-0001"), round_no=1)
    box.add(CallTD(entry_id="entry-0002", reason="ruling"), round_no=1)
    box.add(enter("entry-0003", board=2), round_no=1)
    assert [e.entry_id for e in box.pending()] == ["entry-0001", "entry-0002", "entry-0003"]
    box.mark_delivered("entry-0002", '{"type": "ack"}')
    box.mark_delivered("entry-0002", '{"type": "ack"}')  # a second answer changes nothing
    assert [e.entry_id for e in box.pending()] == ["entry-0001", "entry-0003"]
    assert (box.count(), box.delivered_count()) == (2, 1)
    assert box.pending_with_rounds()[0] == (enter("entry-0001"), 1)


def test_an_added_command_is_on_disk_before_add_returns(tmp_path: Path) -> None:
    path = tmp_path / "outbox.sqlite3"
    box = Outbox(path)
    box.add(enter("entry-0001"))
    # A second connection (another process after a crash would be the same) sees it at once.
    other = sqlite3.connect(path)
    assert other.execute("SELECT entry_id FROM outbox").fetchall() == [("entry-0001",)]
    other.close()


def test_the_outbox_survives_a_reopen(tmp_path: Path) -> None:
    path = tmp_path / "state" / "outbox.sqlite3"
    box = Outbox(path)
    box.add(enter("entry-0001"), round_no=3)
    box.close()
    again = Outbox(path)
    assert [(e.entry_id, e.command) for e in again.pending()] == [
        ("entry-0001", enter("entry-0001"))
    ]
    assert again.pending_with_rounds()[0][1] == 3


def test_an_entry_id_is_queued_once(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.sqlite3")
    box.add(enter("entry-0001"))
    with pytest.raises(sqlite3.IntegrityError):
        box.add(enter("entry-0001"))


def test_commands_without_entry_id_are_not_queued() -> None:
    box = Outbox(":memory:")
    with pytest.raises(ValueError, match="no entry_id"):
        box.add(GetRound())


def test_the_last_round_is_cached(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.sqlite3")
    assert box.load_round() is None
    info = FakeServer().round_info(1)
    box.save_round(info)
    box.close()
    assert Outbox(tmp_path / "o.sqlite3").load_round() == info
