"""The keypad's battery-backed memory: pairing token, entry counter and the unsent commands.

Real firmware keeps this in EEPROM/FRAM; the simulator keeps it in memory (``MemoryStore``) or in
a JSON file written atomically on every change (``FileStore``), so a killed simulator restarts
with its unsent entries and resends them.
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
from pathlib import Path
from typing import Any, Protocol

from protocol.messages import CallTD, ConfirmResult, CorrectResult, EnterResult, RejectResult

StoredCommand = EnterResult | CorrectResult | ConfirmResult | RejectResult | CallTD
_KINDS: dict[str, type[StoredCommand]] = {
    "enter_result": EnterResult,
    "correct_result": CorrectResult,
    "confirm_result": ConfirmResult,
    "reject_result": RejectResult,
    "call_td": CallTD,
}


class KeypadStore(Protocol):
    """What the device keeps across power cuts."""

    token: str | None
    seated_round: int | None
    language: str | None

    def pending(self) -> list[StoredCommand]:
        """Commands not yet answered by the server, oldest first."""

    def add(self, command: StoredCommand) -> None:
        """Keep a command until the server answers it."""

    def remove(self, entry_id: str) -> bool:
        """Forget the command with this entry id (answered); False if it was not kept."""

    def new_entry_id(self) -> str:
        """A fresh entry id, unique to this keypad even across restarts."""

    def save_pairing(self, token: str | None, seated_round: int | None) -> None:
        """Keep the table token and the round whose seating was confirmed."""

    def save_language(self, language: str | None) -> None:
        """Keep the language the players chose at this table (None: the event's)."""


class MemoryStore:
    """An KeypadStore in memory (tests): nothing survives the process."""

    def __init__(self, table: int, serial: str = "00000000") -> None:
        self.table = table
        self.serial = serial
        self.counter = 0
        self.token: str | None = None
        self.seated_round: int | None = None
        self.language: str | None = None
        self._pending: list[StoredCommand] = []

    def pending(self) -> list[StoredCommand]:
        """Commands not yet answered by the server, oldest first."""
        return list(self._pending)

    def add(self, command: StoredCommand) -> None:
        """Keep a command until the server answers it."""
        self._pending.append(command)
        self._changed()

    def remove(self, entry_id: str) -> bool:
        """Forget the command with this entry id; False if it was not kept."""
        kept = [c for c in self._pending if c.entry_id != entry_id]
        if len(kept) == len(self._pending):
            return False
        self._pending = kept
        self._changed()
        return True

    def new_entry_id(self) -> str:
        """``kp<table>-<serial>-<counter>``: the counter is saved before the id is used."""
        self.counter += 1
        self._changed()
        return f"kp{self.table:02d}-{self.serial}-{self.counter:05d}"

    def save_pairing(self, token: str | None, seated_round: int | None) -> None:
        """Keep the table token and the round whose seating was confirmed."""
        self.token = token
        self.seated_round = seated_round
        self._changed()

    def save_language(self, language: str | None) -> None:
        """Keep the language the players chose at this table (None: the event's)."""
        self.language = language
        self._changed()

    def _changed(self) -> None:
        """Called after every change; FileStore writes the file."""

    def _snapshot(self) -> dict[str, Any]:
        return {
            "format": 1,
            "table": self.table,
            "serial": self.serial,
            "counter": self.counter,
            "token": self.token,
            "seated_round": self.seated_round,
            "language": self.language,
            "pending": [c.model_dump(mode="json") for c in self._pending],
        }


class FileStore(MemoryStore):
    """An KeypadStore in a JSON file, replaced atomically (write, fsync, rename) on every change."""

    def __init__(self, path: str | os.PathLike[str], table: int) -> None:
        self.path = Path(path)
        if self.path.exists():
            data = json.loads(self.path.read_text(encoding="utf-8"))
            super().__init__(table, str(data["serial"]))
            self.counter = int(data["counter"])
            self.token = data.get("token")
            self.seated_round = data.get("seated_round")
            self.language = data.get("language")
            self._pending = [_KINDS[c["type"]].model_validate(c) for c in data["pending"]]
            if data.get("table") != table:
                # Moved to another table: the old pairing and seating no longer apply.
                self.token, self.seated_round = None, None
                self._changed()
        else:
            super().__init__(table, secrets.token_hex(4))
            self._changed()

    def _changed(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(self._snapshot(), indent=1)
        fd, tmp = tempfile.mkstemp(prefix=self.path.name, suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
