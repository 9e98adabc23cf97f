"""A small outbox terminal for the fault runs: every command is stored (fsync) before it is sent
and resent with the same entry id until the server acknowledges it, across reconnects, server
restarts and its own crashes. Acknowledgements go to an append-only log for the checks.

Run one in its own process: ``python -m benchmarks.outbox --ws URL --token T --dir DIR``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from protocol.messages import (
    COMPLETE_STATES,
    Ack,
    ConfirmResult,
    EnterResult,
    EntryValues,
    Error,
    GetRound,
    Hello,
    NextRound,
    ResultAck,
    RoundInfo,
    parse_server_message,
)

#: Refusals that mean "not now": the command stays in the outbox and is sent again later.
RETRY_CODES = frozenset({"storage_full", "unavailable", "rate_limited", "internal_error"})
#: Refusals that end the session for this terminal (it must be paired again).
FATAL_CODES = frozenset({"token_invalid", "token_revoked", "token_expired"})
LINK_ERRORS = (OSError, ConnectionClosed, InvalidHandshake, TimeoutError, EOFError)

CONTRACTS = [("4S", "N", 10), ("3NT", "S", 9), ("2H", "E", 8), ("4H", "W", 9), ("1NT", "N", 7)]


def values_for(table: int, board: int) -> EntryValues:
    """The result every run enters for this table and board (so the checks know it)."""
    contract, declarer, tricks = CONTRACTS[(table * 7 + board) % len(CONTRACTS)]
    return EntryValues(contract=contract, declarer=declarer, tricks=tricks)


def _durable_write(path: Path, text: str) -> None:
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


class Outbox:
    """Pending commands (JSON), rewritten atomically and fsynced on every change."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.items: list[dict[str, Any]] = json.loads(path.read_text()) if path.exists() else []

    def add(self, items: list[dict[str, Any]]) -> None:
        self.items.extend(items)
        _durable_write(self.path, json.dumps(self.items))

    def pop(self) -> None:
        self.items.pop(0)
        _durable_write(self.path, json.dumps(self.items))


class AckLog:
    """Append-only, fsynced record of what the server acknowledged."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def record(self, entry: dict[str, Any]) -> None:
        with open(self.path, "a") as f:
            f.write(json.dumps(entry) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def read(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text().splitlines() if line.strip()]


@dataclass
class Terminal:
    """One table's outbox terminal playing ``rounds`` rounds; ``pace`` slows it down."""

    ws_url: str
    token: str
    table: int
    state_dir: Path
    rounds: int = 1
    pace: float = 0.0
    reply_timeout: float = 10.0

    def __post_init__(self) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.outbox = Outbox(self.state_dir / "outbox.json")
        self.acks = AckLog(self.state_dir / "acks.jsonl")
        self.retries = 0
        self.reconnects = 0
        self.acked = 0  # acknowledgements in this run (duplicates included)
        self.last_ack = 0.0  # time.monotonic() of the latest
        self.refused: list[str] = []

    async def run(self) -> None:
        """Play until the last round is complete; survives any link failure on the way."""
        backoff = 0.1
        while True:
            try:
                ws = await connect(self.ws_url, open_timeout=3, ping_interval=None, close_timeout=1)
            except LINK_ERRORS:
                self.reconnects += 1
                await asyncio.sleep(backoff + random.uniform(0, backoff))
                backoff = min(backoff * 2, 1.0)
                continue
            try:
                if await self._session(ws):
                    return
                backoff = 0.1
            except LINK_ERRORS:
                self.reconnects += 1
                await asyncio.sleep(backoff)
            finally:
                with contextlib.suppress(Exception):
                    await ws.close()

    async def _session(self, ws: ClientConnection) -> bool:
        """One connection: hello, then deliver and plan; True when the session is over."""
        await ws.send(Hello(token=self.token).model_dump_json())
        info = await self._reply(ws, None)
        if isinstance(info, Error):
            if info.code in FATAL_CODES:
                raise RuntimeError(f"table {self.table}: {info.code}: {info.message}")
            await asyncio.sleep(0.5)
            return False
        assert isinstance(info, RoundInfo)
        while True:
            if not self.outbox.items:
                await ws.send(GetRound().model_dump_json())
                info = await self._reply(ws, None)
                if isinstance(info, Error):
                    self._refusal(info, "get_round")
                    await asyncio.sleep(0.5)
                    continue
                plan = self._plan(info)
                if plan is None:
                    return True
                self.outbox.add(plan)
            item = self.outbox.items[0]
            if item["kind"] == "advance":
                info = await self._advance(ws, int(item["round"]))
                if info.round >= int(item["round"]):
                    self.outbox.pop()
                else:
                    await asyncio.sleep(0.3)
                continue
            await self._deliver(ws, item)
            if self.pace:
                await asyncio.sleep(self.pace)

    def _plan(self, info: RoundInfo) -> list[dict[str, Any]] | None:
        """What to send next, from the round as the server sees it (None: all done)."""
        items: list[dict[str, Any]] = []
        for status in info.boards:
            if status.state in COMPLETE_STATES:
                continue
            if status.state in ("missing", "rejected"):
                command: Any = EnterResult(
                    entry_id=str(uuid.uuid4()),
                    board=status.board,
                    values=values_for(self.table, status.board),
                )
                items.append(self._item(command))
                version = (status.result.version + 1) if status.result else 1
            else:
                version = status.result.version if status.result else 1
            confirm = ConfirmResult(entry_id=str(uuid.uuid4()), board=status.board, version=version)
            items.append(self._item(confirm))
        if items:
            return items
        if info.round >= self.rounds:
            return None
        return [{"kind": "advance", "round": info.round + 1}]

    def _item(self, command: EnterResult | ConfirmResult) -> dict[str, Any]:
        return {
            "kind": command.type,
            "entry_id": command.entry_id,
            "board": command.board,
            "command": command.model_dump_json(),
        }

    async def _deliver(self, ws: ClientConnection, item: dict[str, Any]) -> None:
        await ws.send(item["command"])
        reply = await self._reply(ws, item["entry_id"])
        if isinstance(reply, ResultAck | Ack):
            self.acks.record(
                {
                    "table": self.table,
                    "entry_id": item["entry_id"],
                    "kind": item["kind"],
                    "board": item["board"],
                    "duplicate": getattr(reply, "duplicate", False),
                    "state": reply.result.state if isinstance(reply, ResultAck) else None,
                }
            )
            self.outbox.pop()
            self.acked += 1
            self.last_ack = time.monotonic()
        elif isinstance(reply, Error):
            if self._refusal(reply, f"{item['kind']} board {item['board']}"):
                await asyncio.sleep(0.5)
            else:
                self.outbox.pop()  # refused for good: the terminal shows it, the TD settles it

    def _refusal(self, error: Error, what: str) -> bool:
        """Count a refusal; True when it is temporary and the command stays queued."""
        if error.code in FATAL_CODES:
            raise RuntimeError(f"table {self.table}: {error.code}: {error.message}")
        if error.code in RETRY_CODES:
            self.retries += 1
            return True
        self.refused.append(f"{what}: {error.code}")
        return False

    async def _advance(self, ws: ClientConnection, target: int) -> RoundInfo:
        await ws.send(GetRound().model_dump_json())
        info = await self._reply(ws, None)
        if isinstance(info, RoundInfo) and info.round >= target:
            return info
        await ws.send(NextRound().model_dump_json())
        moved = await self._reply(ws, None)
        if isinstance(moved, RoundInfo):
            return moved
        await ws.send(GetRound().model_dump_json())
        again = await self._reply(ws, None)
        assert isinstance(again, RoundInfo), again
        return again

    async def _reply(self, ws: ClientConnection, entry_id: str | None) -> Any:
        """The answer to what was just sent; pushes in between are skipped."""
        while True:
            raw = await asyncio.wait_for(ws.recv(), self.reply_timeout)
            try:
                message = parse_server_message(raw)
            except ValidationError:
                continue
            if entry_id is None and isinstance(message, RoundInfo | Error):
                return message
            if entry_id is not None and getattr(message, "entry_id", None) == entry_id:
                return message
            if isinstance(message, Error) and message.entry_id is None and entry_id is not None:
                return message


def command(ws_url: str, token: str, table: int, state_dir: Path, pace: float = 0.0) -> list[str]:
    """The argv that runs one outbox terminal in a child process."""
    # "--token=T", not "--token T": one token in 64 begins with "-", which argparse would
    # take for an option and the child would exit at once.
    argv = [sys.executable, "-m", "benchmarks.outbox", "--ws", ws_url, f"--token={token}"]
    return [*argv, "--table", str(table), "--dir", str(state_dir), "--pace", str(pace)]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (``command`` builds it)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ws", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--table", type=int, required=True)
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--pace", type=float, default=0.0)
    return parser.parse_args(argv)


def main() -> None:
    args = parse_args()
    terminal = Terminal(args.ws, args.token, args.table, args.dir, args.rounds, args.pace)
    asyncio.run(terminal.run())


if __name__ == "__main__":
    main()
