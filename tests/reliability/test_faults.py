"""Faults during play: the server killed mid-burst, a terminal crashing with a full outbox, a
network cut. After each, every acknowledged result is in the database exactly once."""

from __future__ import annotations

import asyncio
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.outbox import AckLog, Outbox, parse_args
from benchmarks.outbox import command as outbox_command
from benchmarks.procs import ServerProcess, repo_env
from benchmarks.proxy import CutProxy
from tests.support.faults import (
    FAST_LIMITS,
    acks_of,
    assert_exactly_once,
    open_club,
    terminals,
)
from tests.support.wait import wait_until_async as wait_until

TABLES, BOARDS = 6, 4
COMMANDS = TABLES * BOARDS * 2  # an enter and a confirm per board


@pytest.fixture
def pg_workers(pg_migrated_url: str, tmp_path: Path) -> Iterator[ServerProcess]:
    """Two uvicorn workers on a fresh PostgreSQL database, stopped after the test."""
    srv = ServerProcess(
        pg_migrated_url, workers=2, env=FAST_LIMITS, log_path=tmp_path / "server.log"
    )
    srv.start()
    yield srv
    srv.stop()
    log = srv.tail(100_000)
    assert "Traceback" not in log, log[-5000:]


async def test_kill_9_mid_burst_then_restart(
    server: ServerProcess, sqlite_url: str, tmp_path: Path
) -> None:
    await _kill_9_mid_burst(server, sqlite_url, tmp_path)


@pytest.mark.postgres
async def test_kill_9_of_two_postgres_workers_mid_burst_then_restart(
    pg_workers: ServerProcess, tmp_path: Path
) -> None:
    """The same on PostgreSQL with two workers (a table's socket lands on either one), both
    killed at once with the whole process group."""
    await _kill_9_mid_burst(pg_workers, pg_workers.database_url, tmp_path)


async def _kill_9_mid_burst(server: ServerProcess, url: str, tmp_path: Path) -> None:
    club = await open_club(server.base_url, tables=TABLES, boards_per_round=BOARDS)
    terms = terminals(club, server.ws_url, tmp_path / "terminals", pace=0.01)
    tasks = [asyncio.create_task(t.run()) for t in terms]
    await wait_until(lambda: len(acks_of(terms)) >= COMMANDS // 3, 30, "a third of the acks")
    server.kill9()  # every table is mid-round: no shutdown, no flush
    pending = sum(len(t.outbox.items) for t in terms)
    assert pending > 0, "the kill came too late to be mid-burst"
    await asyncio.sleep(0.5)
    await asyncio.to_thread(server.start)  # same port, same database file
    await asyncio.wait_for(asyncio.gather(*tasks), 60)
    server.stop()
    assert_exactly_once(url, club, acks_of(terms), COMMANDS)
    assert sum(t.reconnects for t in terms) >= TABLES


async def test_terminal_crash_with_pending_outbox_then_restart(
    server: ServerProcess, sqlite_url: str, tmp_path: Path
) -> None:
    club = await open_club(server.base_url, tables=2, boards_per_round=BOARDS)

    def launch(table: int) -> subprocess.Popen[bytes]:
        state = tmp_path / f"table-{table}"
        cmd = outbox_command(server.ws_url, club.tokens[table], table, state, pace=0.3)
        return subprocess.Popen(cmd, env=repo_env(), stderr=subprocess.PIPE)

    procs = {table: launch(table) for table in club.tokens}
    logs = {table: AckLog(tmp_path / f"table-{table}" / "acks.jsonl") for table in club.tokens}
    killed: set[int] = set()

    def each_killed_after_three_acks() -> bool:
        """Each terminal is killed once it has 3 acks, so none can finish before the other
        has started; a terminal that ends by itself fails the test with its reason."""
        for table, proc in procs.items():
            if table in killed:
                continue
            assert proc.poll() is None, f"table {table}: {proc.communicate()[1].decode()}"
            if len(logs[table].read()) >= 3:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                killed.add(table)
        return len(killed) == len(procs)

    await wait_until(each_killed_after_three_acks, 30, "3 acks from each terminal")
    pending = [Outbox(tmp_path / f"table-{t}" / "outbox.json").items for t in club.tokens]
    assert all(pending), "each terminal died with commands still in its outbox"
    procs = {table: launch(table) for table in club.tokens}
    for proc in procs.values():
        _, err = await asyncio.to_thread(proc.communicate, timeout=60)
        assert proc.returncode == 0, err.decode()
    server.stop()
    acks = [ack for log in logs.values() for ack in log.read()]
    assert_exactly_once(sqlite_url, club, acks, 2 * BOARDS * 2)


async def test_network_cut_then_recovery(
    server: ServerProcess, sqlite_url: str, tmp_path: Path
) -> None:
    club = await open_club(server.base_url, tables=TABLES, boards_per_round=BOARDS)
    proxy = CutProxy(server.port)
    await proxy.start()
    terms = terminals(club, proxy.ws_url, tmp_path / "terminals", pace=0.02)
    tasks = [asyncio.create_task(t.run()) for t in terms]
    try:
        await wait_until(lambda: len(acks_of(terms)) >= COMMANDS // 4, 30, "a quarter of acks")
        # The test ends the outage itself (not a timer racing its checks on a busy machine).
        proxy.go_down()
        await asyncio.sleep(0.5)
        during = len(acks_of(terms))
        with pytest.raises(ConnectionRefusedError):  # refused while the network is cut
            await asyncio.open_connection("127.0.0.1", proxy.port)
        await asyncio.sleep(2.0)
        assert len(acks_of(terms)) == during, "nothing gets through a cut network"
        await proxy.come_up()
        await asyncio.wait_for(asyncio.gather(*tasks), 60)
    finally:
        await proxy.close()
    server.stop()
    assert_exactly_once(sqlite_url, club, acks_of(terms), COMMANDS)
    assert sum(t.reconnects for t in terms) >= TABLES


def test_a_token_beginning_with_a_dash_reaches_the_outbox_terminal(tmp_path: Path) -> None:
    """One token in 64 begins with "-"; the child's command line must still carry it."""
    argv = outbox_command("ws://127.0.0.1:1/ws", "-Xy_9", 3, tmp_path, pace=0.1)
    args = parse_args(argv[3:])  # after: python -m benchmarks.outbox
    assert (args.token, args.table, args.dir, args.pace) == ("-Xy_9", 3, tmp_path, 0.1)
