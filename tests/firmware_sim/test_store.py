"""The battery-backed store: survives a restart, written atomically, ids unique across restarts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from firmware_sim.store import FileStore, MemoryStore
from protocol.messages import CallTD, ConfirmResult, EnterResult, EntryValues


def entry(store: MemoryStore, board: int = 5) -> EnterResult:
    values = EntryValues(contract="4SX", declarer="S", tricks=8)
    return EnterResult(entry_id=store.new_entry_id(), board=board, values=values)


def test_file_store_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "keypad.json"
    store = FileStore(path, table=3)
    first = entry(store)
    confirm = ConfirmResult(entry_id=store.new_entry_id(), board=5, version=1)
    store.add(first)
    store.add(confirm)
    store.save_pairing("tok", 2)
    again = FileStore(path, table=3)
    assert again.pending() == [first, confirm]
    assert (again.token, again.seated_round) == ("tok", 2)
    assert again.serial == store.serial
    assert again.new_entry_id() not in {first.entry_id, confirm.entry_id}
    assert again.remove(first.entry_id)
    assert not again.remove(first.entry_id)
    assert FileStore(path, table=3).pending() == [confirm]


def test_entry_ids_differ_between_keypads_and_fit_the_message(tmp_path: Path) -> None:
    a = FileStore(tmp_path / "a.json", table=3)
    b = FileStore(tmp_path / "b.json", table=3)
    ids = {a.new_entry_id(), b.new_entry_id(), a.new_entry_id()}
    assert len(ids) == 3
    assert all(8 <= len(i) <= 64 for i in ids)


def test_write_is_atomic_and_leaves_no_temporary_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "keypad.json"
    store = FileStore(path, table=3)
    store.add(CallTD(entry_id=store.new_entry_id()))
    before = path.read_text()

    def power_cut(*_: object) -> None:
        raise OSError("power cut during the write")

    monkeypatch.setattr("firmware_sim.store.os.replace", power_cut)
    with pytest.raises(OSError, match="power cut"):
        store.add(entry(store))
    assert path.read_text() == before  # the old file is intact
    assert [p.name for p in tmp_path.iterdir()] == ["keypad.json"]
    assert len(json.loads(before)["pending"]) == 1


def test_moving_to_another_table_forgets_the_pairing_but_not_the_entries(tmp_path: Path) -> None:
    path = tmp_path / "keypad.json"
    store = FileStore(path, table=3)
    store.add(entry(store))
    store.save_pairing("tok", 1)
    moved = FileStore(path, table=4)
    assert moved.token is None
    assert len(moved.pending()) == 1
