"""The fault tests' helpers: a club set up through the TD API of a real server process, outbox
terminals, waiting for a condition, and the exactly-once check against the database."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from benchmarks import tdapi
from benchmarks.outbox import Terminal
from benchmarks.verify import Verdict, verify

#: Short limits so the abuse tests finish quickly (production defaults are in
#: server/core/config.py).
FAST_LIMITS = {"TRAVELLER_HELLO_TIMEOUT": "1", "TRAVELLER_MAX_SOCKETS_PER_ADDRESS": "32"}


@dataclass
class Club:
    """An event with one Mitchell section, round 1 started, every table paired."""

    plan: tdapi.EventPlan
    tokens: dict[int, str]  # table number -> token

    @property
    def section_id(self) -> int:
        return int(self.plan.sections[0]["id"])


async def open_club(base_url: str, *, tables: int = 4, boards_per_round: int = 4) -> Club:
    async with httpx.AsyncClient(timeout=30) as http:
        plan = await tdapi.create_event(
            http, base_url, tables=tables, rounds=1, boards_per_round=boards_per_round
        )
        await tdapi.start_round(http, plan, 1)
        tokens = await tdapi.pair_all(http, plan)
    return Club(plan, {number: token for (_, number), token in tokens.items()})


def terminals(club: Club, ws_url: str, state: Path, *, pace: float = 0.0) -> list[Terminal]:
    return [
        Terminal(ws_url, token, number, state / f"table-{number}", pace=pace)
        for number, token in sorted(club.tokens.items())
    ]


def acks_of(terms: list[Terminal]) -> list[dict[str, Any]]:
    return [ack for t in terms for ack in t.acks.read()]


def assert_exactly_once(url: str, club: Club, acks: list[dict[str, Any]], commands: int) -> Verdict:
    """Every acknowledged command is stored once and every board is confirmed, once."""
    verdict = verify(url, club.section_id, acks)
    assert verdict.ok, "\n".join(verdict.problems[:20])
    assert len({a["entry_id"] for a in acks}) == commands
    return verdict
