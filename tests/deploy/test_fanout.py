"""PostgreSQL LISTEN/NOTIFY fan-out: pushes reach every worker's websockets, real workers too."""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from websockets.sync.client import ClientConnection, connect

from protocol.messages import (
    BoardResultView,
    PairInfo,
    ResultChanged,
    RoundChanged,
    RoundInfo,
    parse_server_message,
)
from server.core.db import make_engine, migrate
from server.live.bus import Bus
from server.live.notify import MAX_PAYLOAD, PgFanout, connect_params, decode, encode
from tests.support.env import PG_ADMIN_URL as ADMIN_URL
from tests.support.env import TD_PASSWORD
from tests.support.net import free_port
from tests.support.processes import ServerProcess, start_server
from tests.support.wait import wait_until_async

pytestmark = pytest.mark.postgres


def _view(board: int) -> BoardResultView:
    return BoardResultView(board=board, round=1, table=2, state="confirmed", version=2)


def test_payloads_round_trip_and_big_ones_are_compressed() -> None:
    push = (7, 2, ResultChanged(result=_view(5)))
    origin, back = decode(encode("me", push) or "")
    assert (origin, back) == ("me", push)
    big_info = RoundInfo(
        event="E" * 5000,
        section="A",
        table=1,
        round=1,
        rounds=7,
        ns=PairInfo(number=1, label="1 NS", names=["N" * 5000]),
        ew=None,
        boards=[],
        complete=False,
        round_open=True,
        next_round_released=False,
    )
    payload = encode("me", (7, None, RoundChanged(round=big_info)))
    assert payload is not None
    assert payload.startswith("z:")
    assert len(payload) <= MAX_PAYLOAD
    assert decode(payload)[1][2] == RoundChanged(round=big_info)


async def test_two_buses_share_pushes_through_postgres(pg_url: str) -> None:
    engine = make_engine(pg_url)
    params = connect_params(engine)
    one, two = Bus(), Bus()
    a, b = PgFanout(one, params), PgFanout(two, params)
    await a.start()
    await b.start()
    try:
        assert a.listening.is_set()
        assert b.listening.is_set()
        on_one = one.subscribe(1, None)
        on_two = two.subscribe(1, 3)
        other_table = two.subscribe(1, 4)
        one.publish([(1, 3, ResultChanged(result=_view(9)))])
        got = await asyncio.wait_for(on_two.queue.get(), 5)
        assert got == ResultChanged(result=_view(9))
        assert on_one.queue.qsize() == 1  # delivered locally once, not echoed back
        await asyncio.sleep(0.3)
        assert on_one.queue.qsize() == 1
        assert other_table.queue.empty()
        assert (a.stats.sent, b.stats.relayed, a.stats.relayed) == (1, 1, 0)
    finally:
        await a.stop()
        await b.stop()
        engine.dispose()


async def test_listeners_come_back_after_their_connections_are_killed(pg_url: str) -> None:
    engine = make_engine(pg_url)
    one, two = Bus(), Bus()
    a, b = PgFanout(one, connect_params(engine)), PgFanout(two, connect_params(engine))
    await a.start()
    await b.start()
    try:
        database = pg_url.rsplit("/", 1)[1]
        async with await psycopg.AsyncConnection.connect(ADMIN_URL, autocommit=True) as admin:
            cur = await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND query LIKE 'LISTEN%%'",
                (database,),
            )
            assert len(await cur.fetchall()) == 2
        await wait_until_async(
            lambda: b.stats.reconnects >= 1 and b.listening.is_set(),
            10,
            "the listener to reconnect and listen again",
            every=0.1,
        )
        on_two = two.subscribe(1, None)
        one.publish([(1, 2, ResultChanged(result=_view(4)))])
        assert await asyncio.wait_for(on_two.queue.get(), 5) == ResultChanged(result=_view(4))
    finally:
        await a.stop()
        await b.stop()
        engine.dispose()


# ------------------------------------------------------------------ real uvicorn workers


def start_workers(
    url: str, tmp: Path, servers: list[ServerProcess], workers: int = 3
) -> ServerProcess:
    port = free_port()
    server = start_server(
        [
            "-m",
            "uvicorn",
            "server.app:app_from_env",
            "--factory",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            str(workers),
            "--log-level",
            "warning",
            # A client is pinned to a worker by its keep-alive connection; on a loaded machine
            # uvicorn's 5 s default closed an idle one, and the client's next request went to
            # another worker (one CI run: "the clients stayed on their workers" failed).
            "--timeout-keep-alive",
            "120",
        ],
        tmp,
        {"TRAVELLER_DATABASE_URL": url, "TRAVELLER_TD_PASSWORD": TD_PASSWORD},
        port=port,
        name=f"workers-{port}",
    )
    servers.append(server)
    server.wait_ready()
    return server


def clients_per_worker(
    server: ServerProcess, want: int, tries: int = 80
) -> dict[int, httpx.Client]:
    """Keep-alive HTTP clients, each pinned to a known worker (its pid), one per worker."""
    found: dict[int, httpx.Client] = {}
    for _ in range(tries):
        # httpx, too, drops a connection idle for 5 s by default: keep it as long as uvicorn.
        keep = httpx.Limits(keepalive_expiry=120)
        client = httpx.Client(base_url=server.base, timeout=10, limits=keep)
        pid = int(server.health(client)["pid"])
        if pid in found:
            client.close()
        else:
            found[pid] = client
        if len(found) >= want:
            break
    return found


def setup_club(http: httpx.Client, tables: int = 3) -> tuple[dict[str, str], int, dict[str, str]]:
    r = http.post("/api/v1/td/login", json={"password": TD_PASSWORD})
    r.raise_for_status()
    td = {"Authorization": f"Bearer {r.json()['token']}"}
    r = http.post("/api/v1/events", json={"name": "Congress pairs"}, headers=td)
    r.raise_for_status()
    r = http.post(
        f"/api/v1/events/{r.json()['id']}/sections",
        json={"letter": "A", "movement": {"tables": tables, "boards_per_round": 3}},
        headers=td,
    )
    r.raise_for_status()
    section = r.json()
    r = http.post(f"/api/v1/sections/{section['id']}/rounds/1/start", headers=td)
    r.raise_for_status()
    return td, int(section["id"]), section["pairing_codes"]


def pair(http: httpx.Client, code: str) -> str:
    r = http.post("/api/v1/table/pair", json={"code": code, "device": "test"})
    r.raise_for_status()
    token: str = r.json()["token"]
    return token


def table_socket(
    stack: contextlib.ExitStack,
    server: ServerProcess,
    token: str,
    ssl_context: ssl.SSLContext | None = None,
) -> ClientConnection:
    url = server.base.replace("http", "ws", 1) + "/api/v1/table/ws"
    ws = stack.enter_context(connect(url, open_timeout=10, ssl=ssl_context))
    ws.send(json.dumps({"type": "hello", "token": token}))
    assert parse_server_message(ws.recv(timeout=10)).type == "round_info"
    return ws


def enter_and_confirm(http: httpx.Client, token: str, board: int) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"}
    values = {"contract": "4S", "declarer": "N", "tricks": 10}
    r = http.post(
        "/api/v1/table/commands",
        json={
            "type": "enter_result",
            "entry_id": str(uuid.uuid4()),
            "board": board,
            "values": values,
        },
        headers=headers,
    )
    r.raise_for_status()
    version = r.json()["result"]["version"]
    r = http.post(
        "/api/v1/table/commands",
        json={
            "type": "confirm_result",
            "entry_id": str(uuid.uuid4()),
            "board": board,
            "version": version,
        },
        headers=headers,
    )
    r.raise_for_status()
    result: dict[str, Any] = r.json()["result"]
    return result


def wait_confirmed(ws: ClientConnection, boards: set[int], timeout: float = 10.0) -> float:
    """Read pushes until each board of ``boards`` is pushed as confirmed; when that happened."""
    deadline = time.monotonic() + timeout
    missing = set(boards)
    while missing:
        message = parse_server_message(ws.recv(timeout=max(0.05, deadline - time.monotonic())))
        if isinstance(message, ResultChanged) and message.result.state == "confirmed":
            missing.discard(message.result.board)
    return time.monotonic()


@pytest.mark.slow
def test_a_result_confirmed_on_one_worker_reaches_websockets_on_the_others(
    pg_url: str, tmp_path: Path, servers: list[ServerProcess]
) -> None:
    server = start_workers(pg_url, tmp_path, servers, workers=3)
    assert server.health()["fanout"] == "postgres"
    pinned = clients_per_worker(server, want=3)
    assert len(pinned) >= 2, "the kernel gave every connection to one worker"
    http = next(iter(pinned.values()))
    _td, _section, codes = setup_club(http)
    token = pair(http, codes["1"])
    boards = [
        b["board"]
        for b in http.get(
            "/api/v1/table/round", headers={"Authorization": f"Bearer {token}"}
        ).json()["boards"]
    ]
    # Several sockets of table 1: they land on the workers as the kernel deals them.
    with contextlib.ExitStack() as stack:
        sockets = [table_socket(stack, server, token) for _ in range(8)]
        # One board confirmed through each of (at least) two different workers: every socket
        # must see both, so every socket got a push that another worker produced.
        acked: dict[int, float] = {}
        for client, board in zip(pinned.values(), boards, strict=False):
            assert enter_and_confirm(client, token, board)["state"] == "confirmed"
            acked[board] = time.monotonic()
        delays = [wait_confirmed(ws, set(acked)) - max(acked.values()) for ws in sockets]
        assert max(delays) < 5.0, delays
        # The clients stayed on their workers throughout.
        assert {int(server.health(c)["pid"]) for c in pinned.values()} == set(pinned)
    for client in pinned.values():
        client.close()


@pytest.mark.slow
def test_workers_started_together_on_an_empty_database_migrate_once(
    pg_url: str, tmp_path: Path, servers: list[ServerProcess]
) -> None:
    """Four workers race to create the schema on a fresh database: the advisory lock wins."""
    server = start_workers(pg_url, tmp_path, servers, workers=4)
    assert "Traceback" not in server.output(), server.output()
    engine = make_engine(pg_url)
    try:
        migrate(engine)  # already at head: a no-op
    finally:
        engine.dispose()
