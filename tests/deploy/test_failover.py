"""HA.md, tried: a private primary and a synchronous streaming standby (their own data folders
and loopback ports, not the shared server), the primary dies, the standby is promoted, the
server follows through its multi-host URL and the retrying terminals lose nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.deploy.test_fanout import pair, setup_club, start_workers
from tests.deploy.test_pg_restart import Terminal, boards_of
from tests.support.net import free_port
from tests.support.processes import ServerProcess

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

BIN = next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin"))), None)


@dataclass
class Cluster:
    """A PostgreSQL data folder of our own, run as the postgres user on a loopback port."""

    data: Path
    port: int

    def ctl(self, *args: str, timeout: float = 60) -> None:
        assert BIN is not None
        log = self.data.parent / f"{self.data.name}.log"
        as_postgres(
            [str(BIN / "pg_ctl"), "-D", str(self.data), "-l", str(log), "-w", *args], timeout
        )

    def start(self) -> None:
        sock = self.data.parent
        self.ctl("-o", f"-p {self.port} -k {sock} -c listen_addresses=127.0.0.1", "start")

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}"

    def primary(self) -> bool:
        with psycopg.connect(self.url(), connect_timeout=3) as conn:
            row = conn.execute("SELECT pg_is_in_recovery()").fetchone()
            return row is not None and not row[0]


def as_postgres(cmd: list[str], timeout: float = 60) -> None:
    done = subprocess.run(
        ["runuser", "-u", "postgres", "--", *cmd],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, f"{cmd}: {done.stdout}{done.stderr}"


@pytest.fixture
def replicated() -> Iterator[tuple[Cluster, Cluster]]:
    if BIN is None or os.geteuid() != 0 or shutil.which("runuser") is None:
        pytest.skip("needs root and the PostgreSQL server binaries")
    home = Path(tempfile.mkdtemp(prefix="traveller-ha-", dir="/tmp"))
    shutil.chown(home, "postgres", "postgres")
    primary, standby = (
        Cluster(home / "primary", free_port()),
        Cluster(home / "standby", free_port()),
    )
    try:
        as_postgres([str(BIN / "initdb"), "-D", str(primary.data), "-A", "trust", "-U", "postgres"])
        with (primary.data / "postgresql.conf").open("a") as conf:
            # Synchronous: a commit (and so an ack) waits until the standby has the WAL.
            conf.write("wal_level = replica\nmax_wal_senders = 4\n")
            conf.write("synchronous_standby_names = '*'\nsynchronous_commit = on\n")
        with (primary.data / "pg_hba.conf").open("a") as hba:
            hba.write("host replication postgres 127.0.0.1/32 trust\n")
        primary.start()
        as_postgres(
            [
                str(BIN / "pg_basebackup"),
                "-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres",
                "-D", str(standby.data), "-R", "-X", "stream",
            ]
        )  # fmt: skip
        standby.start()
        with psycopg.connect(primary.url(), autocommit=True) as conn:
            conn.execute("CREATE DATABASE traveller")
        yield primary, standby
    finally:
        for cluster in (standby, primary):
            if (cluster.data / "postmaster.pid").exists():
                pg_ctl = [str(BIN / "pg_ctl"), "-D", str(cluster.data), "-m", "immediate", "stop"]
                subprocess.run(
                    ["runuser", "-u", "postgres", "--", *pg_ctl],
                    capture_output=True,
                    timeout=60,
                    check=False,
                )
        shutil.rmtree(home, ignore_errors=True)


def test_failover_to_a_promoted_standby_loses_nothing_acknowledged(
    replicated: tuple[Cluster, Cluster], tmp_path: Path, servers: list[ServerProcess]
) -> None:
    primary, standby = replicated
    url = (
        "postgresql+psycopg://postgres@/traveller"
        f"?host=127.0.0.1:{primary.port}&host=127.0.0.1:{standby.port}"
        "&target_session_attrs=read-write"
    )
    server = start_workers(url, tmp_path, servers, workers=2)
    with httpx.Client(base_url=server.base, timeout=10) as http:
        _td, _section, codes = setup_club(http, tables=3)
        tokens = {n: pair(http, codes[str(n)]) for n in (1, 2, 3)}
        boards = {n: boards_of(http, tokens[n]) for n in tokens}
    terminals = {n: Terminal(server, tokens[n]) for n in tokens}
    ack = terminals[1].enter(boards[1][0])
    terminals[1].confirm(boards[1][0], ack["result"]["version"])

    # The primary's machine dies; the operator (or a watchdog) promotes the standby.
    def fail_over() -> None:
        primary.ctl("-m", "immediate", "stop")
        time.sleep(1.0)
        standby.ctl("promote")
        # The standby inherited synchronous_standby_names: alone, it would wait for a standby
        # of its own on every commit. HA.md's promotion step turns it off.
        with psycopg.connect(standby.url(), autocommit=True) as conn:
            conn.execute("ALTER SYSTEM SET synchronous_standby_names = ''")
            conn.execute("SELECT pg_reload_conf()")

    t0 = time.monotonic()
    switch = threading.Thread(target=fail_over)
    switch.start()
    for n in (2, 3):
        for board in boards[n]:
            ack = terminals[n].enter(board, contract="4H", tricks=10)
            terminals[n].confirm(board, ack["result"]["version"])
    switch.join(60)
    assert not switch.is_alive()
    took = time.monotonic() - t0
    assert standby.primary()

    acked: dict[tuple[int, int], tuple[str, int, int | None]] = {}
    for t in terminals.values():
        for a in t.acked.values():
            r = a["result"]
            key = (r["table"], r["board"])
            if key not in acked or r["version"] >= acked[key][1]:
                acked[key] = (r["state"], r["version"], r["ns_score"])
    with psycopg.connect(standby.url("traveller")) as conn:
        rows = conn.execute("SELECT table_number, board, state, version, ns_score FROM result")
        stored = {(t, b): (s, v, score) for t, b, s, v, score in rows.fetchall()}
    assert stored == acked
    assert len(acked) == 1 + 2 * len(boards[2])
    retries = sum(t.retries for t in terminals.values())
    print(f"\nfailover: {retries} retries, {took:.1f} s until every table was acknowledged")
