"""Playing a session with many tables at once: boards entered and confirmed in a closed loop,
then a round-end burst where every table sends its last board in the same second."""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from benchmarks.wsclient import TableLink
from protocol.messages import ConfirmResult, EnterResult, EntryValues, Error, ResultAck

# Plausible results (contract, declarer, tricks): part scores, games, a slam, a pass-out.
RESULTS = [
    ("4S", "N", 10),
    ("3NT", "S", 9),
    ("2H", "E", 8),
    ("4H", "W", 9),
    ("1NT", "N", 7),
    ("3C", "W", 10),
    ("6S", "S", 12),
    ("PASS", None, 0),
    ("5DX", "E", 9),
    ("2S", "N", 9),
]


@dataclass
class Samples:
    """Latencies (seconds) by phase, counts and errors of one run."""

    ack: dict[str, list[float]] = field(default_factory=lambda: {"steady": [], "burst": []})
    push: dict[str, list[float]] = field(default_factory=lambda: {"steady": [], "burst": []})
    confirmed: dict[str, int] = field(default_factory=lambda: {"steady": 0, "burst": 0})
    bursts: list[tuple[float, float]] = field(default_factory=list)
    commands: list[tuple[int, str, float, float]] = field(default_factory=list)  # section,
    # phase, sent, acknowledged: for the dashboard latency
    errors: list[str] = field(default_factory=list)
    started: float = 0.0
    ended: float = 0.0

    def error(self, text: str) -> None:
        if len(self.errors) < 10_000:
            self.errors.append(text)


@dataclass
class Table:
    """A table in play: its link and the boards of its current round."""

    link: TableLink
    boards: list[int]
    label: str
    section: int = 0


def entry_id() -> str:
    return str(uuid.uuid4())


class Player:
    """Drives every table through the rounds; ``advance(r)`` moves them to round r + 1."""

    def __init__(
        self,
        tables: list[Table],
        *,
        rounds: int,
        spread: float,
        samples: Samples,
        advance: Callable[[int], Awaitable[None]] | None = None,
        measure_push: bool = True,
        seed: int = 7,
    ) -> None:
        self.tables = tables
        self.rounds = rounds
        self.spread = spread
        self.samples = samples
        self.advance = advance
        self.measure_push = measure_push
        self.rng = random.Random(seed)

    async def play(self) -> None:
        self.samples.started = time.perf_counter()
        for round_ in range(1, self.rounds + 1):
            await asyncio.gather(*(self._steady(t) for t in self.tables))
            await self._burst()
            if round_ < self.rounds and self.advance is not None:
                await self.advance(round_)
        self.samples.ended = time.perf_counter()

    async def _steady(self, table: Table) -> None:
        for board in table.boards[:-1]:
            await self._board(table, board, "steady")

    async def _burst(self) -> None:
        start = time.perf_counter() + 0.5
        delays = [self.rng.uniform(0, self.spread) for _ in self.tables]

        async def last_board(table: Table, delay: float) -> None:
            await asyncio.sleep(max(0.0, start + delay - time.perf_counter()))
            if table.boards:
                await self._board(table, table.boards[-1], "burst")

        await asyncio.gather(*(last_board(t, d) for t, d in zip(self.tables, delays, strict=True)))
        self.samples.bursts.append((start, time.perf_counter()))

    async def _board(self, table: Table, board: int, phase: str) -> None:
        contract, declarer, tricks = self.rng.choice(RESULTS)
        values = EntryValues(contract=contract, declarer=declarer, tricks=tricks)
        try:
            enter = EnterResult(entry_id=entry_id(), board=board, values=values)
            reply = await self._send(table, enter, phase)
            version = reply.result.version if isinstance(reply, ResultAck) else 1
            confirm = ConfirmResult(entry_id=entry_id(), board=board, version=version)
            await self._send(table, confirm, phase)
            self.samples.confirmed[phase] += 1
        except Exception as exc:  # every failure is counted, none stops the run
            self.samples.error(f"{table.label} board {board}: {type(exc).__name__}: {exc}")

    async def _send(self, table: Table, command: EnterResult | ConfirmResult, phase: str) -> Any:
        sent = time.perf_counter()
        reply, latency = await table.link.call(command)
        self.samples.ack[phase].append(latency)
        self.samples.commands.append((table.section, phase, sent, sent + latency))
        if isinstance(reply, Error):
            raise RuntimeError(f"{reply.code}: {reply.message}")
        if isinstance(reply, ResultAck) and self.measure_push:
            arrived = await table.link.push_arrival(reply.result.board, reply.result.version)
            if arrived is None:
                self.samples.error(f"{table.label}: no push for board {reply.result.board}")
            else:
                self.samples.push[phase].append(arrived - sent)
        return reply
