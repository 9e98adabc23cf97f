"""Set-up through the TD API: log in, create an event with sections, start rounds, pair tables."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import httpx

from benchmarks.procs import TD_PASSWORD

MAX_SECTION = 50  # the TD API allows up to 60 tables a section; 50 divides the sizes we run


@dataclass(frozen=True)
class TableSeat:
    """One table of the event as a client needs it: where it is and how to pair."""

    section_id: int
    letter: str
    number: int
    code: str


@dataclass
class EventPlan:
    """The event the TD created: its sections and every table's pairing code."""

    base_url: str
    td_token: str
    event_id: int
    rounds: int
    boards_per_round: int
    sections: list[dict[str, Any]] = field(default_factory=list)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.td_token}"}

    def seats(self) -> list[TableSeat]:
        return [
            TableSeat(s["id"], s["letter"], int(n), code)
            for s in self.sections
            for n, code in sorted(s["pairing_codes"].items(), key=lambda kv: int(kv[0]))
        ]


def letters(count: int) -> list[str]:
    """Section letters A..Z, then AA, AB, ..."""
    out = []
    for i in range(count):
        out.append(chr(65 + i) if i < 26 else chr(64 + i // 26) + chr(65 + i % 26))
    return out


def split(tables: int, largest: int = MAX_SECTION) -> list[int]:
    """Section sizes as even as possible, none above ``largest``."""
    count = -(-tables // largest)
    base, extra = divmod(tables, count)
    return [base + (1 if i < extra else 0) for i in range(count)]


def check(response: httpx.Response, expected: int = 200) -> Any:
    if response.status_code != expected:
        raise RuntimeError(
            f"{response.request.method} {response.request.url.path} -> "
            f"{response.status_code}: {response.text[:300]}"
        )
    return response.json()


async def td_login(http: httpx.AsyncClient, base_url: str) -> str:
    body = check(await http.post(f"{base_url}/api/v1/td/login", json={"password": TD_PASSWORD}))
    token: str = body["token"]
    return token


async def create_event(
    http: httpx.AsyncClient,
    base_url: str,
    *,
    tables: int,
    rounds: int = 3,
    boards_per_round: int = 3,
    name: str = "Load test congress",
) -> EventPlan:
    """An event with ``tables`` tables in Mitchell sections of at most 50 tables."""
    token = await td_login(http, base_url)
    plan = EventPlan(base_url, token, 0, rounds, boards_per_round)
    event = check(
        await http.post(f"{base_url}/api/v1/events", json={"name": name}, headers=plan.headers),
        201,
    )
    plan.event_id = event["id"]
    for letter, size in zip(letters(len(split(tables))), split(tables), strict=True):
        spec = {"tables": size, "rounds": rounds, "boards_per_round": boards_per_round}
        section = check(
            await http.post(
                f"{base_url}/api/v1/events/{plan.event_id}/sections",
                json={"letter": letter, "movement": spec},
                headers=plan.headers,
            ),
            201,
        )
        plan.sections.append(section)
    return plan


async def start_round(http: httpx.AsyncClient, plan: EventPlan, round_: int) -> None:
    """Release ``round_`` in every section."""
    for section in plan.sections:
        check(
            await http.post(
                f"{plan.base_url}/api/v1/sections/{section['id']}/rounds/{round_}/start",
                headers=plan.headers,
            )
        )


async def pair_all(
    http: httpx.AsyncClient, plan: EventPlan, concurrency: int = 20
) -> dict[tuple[int, int], str]:
    """Pair every table (one POST /table/pair each); returns {(section id, table): token}."""
    gate = asyncio.Semaphore(concurrency)
    tokens: dict[tuple[int, int], str] = {}

    async def one(seat: TableSeat) -> None:
        async with gate:
            body = check(
                await http.post(
                    f"{plan.base_url}/api/v1/table/pair",
                    json={"code": seat.code, "device": f"bench-{seat.letter}{seat.number}"},
                )
            )
            tokens[(seat.section_id, seat.number)] = body["token"]

    await asyncio.gather(*(one(s) for s in plan.seats()))
    return tokens
