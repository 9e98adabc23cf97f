"""Abuse from one address (127.0.0.2) while a table plays from another (127.0.0.1): oversized
messages, slow-loris websockets and a connection flood are all bounded, and the playing table
stays responsive (its get_round latency is measured before and during the attack)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from benchmarks.procs import ServerProcess
from benchmarks.stats import percentile
from protocol.messages import parse_server_message
from tests.support.faults import open_club

ATTACKER = ("127.0.0.2", 0)


async def _table(url: str, token: str) -> ClientConnection:
    ws = await connect(url)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    assert parse_server_message(await ws.recv()).type == "round_info"
    return ws


async def _latencies(ws: ClientConnection, count: int, pause: float = 0.02) -> list[float]:
    """get_round round trips of the playing table, in seconds."""
    out = []
    for _ in range(count):
        sent = time.perf_counter()
        await ws.send('{"type": "get_round"}')
        while parse_server_message(await asyncio.wait_for(ws.recv(), 10)).type != "round_info":
            pass
        out.append(time.perf_counter() - sent)
        await asyncio.sleep(pause)
    return out


async def _closed_with(ws: ClientConnection, timeout: float = 10) -> tuple[int | None, Any]:
    """Read until the server closes; returns (close code, last message)."""
    last = None
    with contextlib.suppress(ConnectionClosed):
        while True:
            last = parse_server_message(await asyncio.wait_for(ws.recv(), timeout))
    return ws.close_code, last


async def test_oversized_messages_are_refused_and_the_link_closed(server: ServerProcess) -> None:
    club = await open_club(server.base_url, tables=2, boards_per_round=2)
    ws = await _table(server.ws_url, club.tokens[1])
    await ws.send("x" * 100_000)  # above max_message_bytes (16 KiB), below uvicorn's 16 MiB
    code, last = await _closed_with(ws)
    assert code == 1009
    assert (last.type, last.code) == ("error", "message_too_large")

    before_hello = await connect(server.ws_url, max_size=None)
    await before_hello.send("{" * 100_000)
    assert (await _closed_with(before_hello))[0] == 1009

    # Paired first: 20 MiB takes more than the 1 s hello timeout (FAST_LIMITS) to send on a
    # busy machine, and the server would close the link with 4408 before reading the frame.
    huge = await _table(server.ws_url, club.tokens[1])
    with contextlib.suppress(ConnectionClosed):
        await huge.send("y" * (20 * 2**20))  # above uvicorn's frame limit: dropped unread
    assert (await _closed_with(huge))[0] in (1009, 1006)

    ok = await _table(server.ws_url, club.tokens[2])  # the server is fine
    assert len(await _latencies(ok, 3)) == 3
    await ok.close()


async def test_slow_loris_websockets_are_closed_after_the_hello_timeout(
    server: ServerProcess,
) -> None:
    silent = [await connect(server.ws_url, local_addr=ATTACKER) for _ in range(20)]
    started = time.perf_counter()
    results = await asyncio.gather(*(_closed_with(ws, timeout=15) for ws in silent))
    elapsed = time.perf_counter() - started
    assert {code for code, _ in results} == {4408}
    assert {last.code for _, last in results} == {"hello_timeout"}
    assert elapsed < 6, f"closing 20 silent sockets took {elapsed:.1f} s (hello timeout 1 s)"


async def test_a_connection_flood_is_capped_and_tables_stay_responsive(
    server: ServerProcess,
) -> None:
    club = await open_club(server.base_url, tables=2, boards_per_round=2)
    table = await _table(server.ws_url, club.tokens[1])
    quiet = await _latencies(table, 30)

    accepted: list[ClientConnection] = []
    statuses: list[int] = []
    refused = 0

    async def attacker() -> None:
        nonlocal refused
        try:
            accepted.append(await connect(server.ws_url, local_addr=ATTACKER, open_timeout=10))
        except InvalidStatus as exc:
            statuses.append(exc.response.status_code)
            refused += 1

    # Slow HTTP headers too: 100 raw connections that never finish their request.
    slow = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(100)]
    for _, writer in slow:
        writer.write(b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\n")
    flood = asyncio.gather(*(attacker() for _ in range(300)))
    during = await _latencies(table, 30, pause=0.0)
    await flood
    after = await _latencies(table, 10)

    assert len(accepted) <= 32, "the per-address cap holds"
    assert refused >= 300 - 32
    assert set(statuses) == {403}, "refused at the handshake"
    p50_quiet, p50_during = percentile(quiet, 50), percentile(during, 50)
    print(
        f"\nget_round p50 quiet {p50_quiet * 1000:.1f} ms, during a 300-socket flood + 100 slow "
        f"HTTP clients {p50_during * 1000:.1f} ms (max {max(during) * 1000:.1f} ms), "
        f"after {percentile(after, 50) * 1000:.1f} ms"
    )
    assert max(during) < 2.0, "a table waited more than 2 s during the flood"
    assert percentile(after, 50) < max(0.25, 5 * p50_quiet)
    for ws in accepted:
        await ws.close()
    for _, writer in slow:
        writer.close()
    await table.close()
