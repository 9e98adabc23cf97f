"""The durable outbox: each result command is committed to a local SQLite file before sending."""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from protocol.messages import RoundInfo, TableCommand, TableSettings, parse_command

_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    entry_id TEXT NOT NULL UNIQUE,
    round INTEGER,
    command TEXT NOT NULL,
    created REAL NOT NULL,
    delivered REAL,
    reply TEXT
);
CREATE TABLE IF NOT EXISTS cache (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


@dataclass(frozen=True)
class OutboxEntry:
    """One queued command with its client entry id, in the order it was keyed."""

    seq: int
    entry_id: str
    command: TableCommand


class Outbox:
    """Commands waiting for the server, kept across restarts; delivered in order, each once.

    Every write is committed (WAL, synchronous=FULL) before the method returns, so the screen may
    say "sent" as soon as :meth:`add` is back. Delivered rows are kept with the server's reply.
    """

    def __init__(self, path: Path | str) -> None:
        if isinstance(path, Path):
            path.parent.mkdir(parents=True, exist_ok=True)
        self.path = str(path)
        self._db = sqlite3.connect(self.path, isolation_level=None)
        if self.path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)

    def add(self, command: TableCommand, *, round_no: int | None = None) -> OutboxEntry:
        """Store a command that has an ``entry_id`` (keyed in round ``round_no``); committed."""
        entry_id = getattr(command, "entry_id", None)
        if not isinstance(entry_id, str):
            raise ValueError(f"{command.type} has no entry_id and cannot be queued")
        with self._db:
            cursor = self._db.execute(
                "INSERT INTO outbox (entry_id, round, command, created) VALUES (?, ?, ?, ?)",
                (entry_id, round_no, command.model_dump_json(), time.time()),
            )
        seq = cursor.lastrowid
        assert seq is not None
        return OutboxEntry(seq, entry_id, command)

    def pending(self) -> list[OutboxEntry]:
        """The commands not yet answered by the server, oldest first."""
        rows = self._db.execute(
            "SELECT seq, entry_id, command FROM outbox WHERE delivered IS NULL ORDER BY seq"
        ).fetchall()
        return [OutboxEntry(seq, entry_id, parse_command(raw)) for seq, entry_id, raw in rows]

    def pending_with_rounds(self) -> list[tuple[TableCommand, int | None]]:
        """The waiting commands, oldest first, each with the round it was keyed in."""
        rows = self._db.execute(
            "SELECT command, round FROM outbox WHERE delivered IS NULL ORDER BY seq"
        ).fetchall()
        return [(parse_command(raw), round_no) for raw, round_no in rows]

    def count(self) -> int:
        """How many commands are waiting."""
        (n,) = self._db.execute("SELECT COUNT(*) FROM outbox WHERE delivered IS NULL").fetchone()
        return int(n)

    def mark_delivered(self, entry_id: str, reply: str) -> None:
        """Record the server's answer; the command will not be sent again."""
        with self._db:
            self._db.execute(
                "UPDATE outbox SET delivered = ?, reply = ?"
                " WHERE entry_id = ? AND delivered IS NULL",
                (time.time(), reply, entry_id),
            )

    def delivered_count(self) -> int:
        """How many commands the server has answered (kept for the record)."""
        (n,) = self._db.execute(
            "SELECT COUNT(*) FROM outbox WHERE delivered IS NOT NULL"
        ).fetchone()
        return int(n)

    def save_round(self, info: RoundInfo) -> None:
        """Remember the server's last round information, to show it after an offline restart."""
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO cache (key, value) VALUES ('round', ?)",
                (info.model_dump_json(),),
            )

    def load_round(self) -> RoundInfo | None:
        """The last round information the server sent, if any."""
        row = self._db.execute("SELECT value FROM cache WHERE key = 'round'").fetchone()
        if row is None:
            return None
        try:
            return RoundInfo.model_validate_json(row[0])
        except ValueError:
            return None

    def save_settings(self, settings: TableSettings) -> None:
        """Remember the event's table settings, for a restart while the server is away."""
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO cache (key, value) VALUES ('settings', ?)",
                (settings.model_dump_json(),),
            )

    def load_settings(self) -> TableSettings | None:
        """The last table settings the server sent, if any."""
        row = self._db.execute("SELECT value FROM cache WHERE key = 'settings'").fetchone()
        if row is None:
            return None
        try:
            return TableSettings.model_validate_json(row[0])
        except ValueError:
            return None

    def save_seated(self, table: int, round_no: int) -> None:
        """Remember that the players confirmed their seats for this table's round."""
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO cache (key, value) VALUES ('seated', ?)",
                (json.dumps({"table": table, "round": round_no}),),
            )

    def load_seated(self) -> tuple[int, int] | None:
        """The (table, round) whose seats were last confirmed, if any."""
        row = self._db.execute("SELECT value FROM cache WHERE key = 'seated'").fetchone()
        try:
            value = json.loads(row[0]) if row else None
            return (int(value["table"]), int(value["round"])) if value else None
        except (ValueError, TypeError, KeyError):
            return None

    def close(self) -> None:
        """Close the database file."""
        self._db.close()
