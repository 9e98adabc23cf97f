"""The server's disk fills up mid-round (SQLite on a small tmpfs): terminals get a clear
`storage_full` refusal (HTTP 503 JSON, never a bare 500), nothing is corrupted, and every entry
goes through once space returns."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from benchmarks.outbox import values_for
from benchmarks.procs import ServerProcess
from tests.support.faults import (
    FAST_LIMITS,
    acks_of,
    assert_exactly_once,
    open_club,
    terminals,
)
from tests.support.wait import wait_until_async as wait_until


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 16 MiB tmpfs (needs root or CAP_SYS_ADMIN; skips with the reason otherwise)."""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount_point)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({proc.stderr.strip() or proc.returncode})")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def fill(path: Path) -> int:
    """Write until the file system is full; returns the bytes written."""
    written = 0
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (1 << 20, 65536, 4096, 512):
            with contextlib.suppress(OSError):
                while True:
                    written += os.write(fd, b"\0" * size)
    finally:
        os.close(fd)
    return written


async def test_disk_full_gives_clear_errors_and_recovers(small_disk: Path, tmp_path: Path) -> None:
    url = f"sqlite:///{small_disk / 'traveller.db'}"
    server = ServerProcess(url, env=FAST_LIMITS, log_path=tmp_path / "server.log")
    await asyncio.to_thread(server.start)
    try:
        club = await open_club(server.base_url, tables=4, boards_per_round=3)
        filler = small_disk / "filler"
        assert fill(filler) > 0
        with pytest.raises(OSError, match="No space left") as full:
            (small_disk / "probe").write_bytes(b"x" * 65536)
        assert full.value.errno == errno.ENOSPC

        # HTTP: a 503 with a JSON error a terminal can show, not a 500.
        async with httpx.AsyncClient(timeout=30) as http:
            body = {
                "type": "enter_result",
                "entry_id": str(uuid.uuid4()),
                "board": 1,
                "values": values_for(1, 1).model_dump(),
            }
            r = await http.post(
                f"{server.base_url}/api/v1/table/commands",
                json=body,
                headers={"Authorization": f"Bearer {club.tokens[1]}"},
            )
            assert r.status_code == 503, r.text
            assert r.json()["code"] == "storage_full"
            assert "disk is full" in r.json()["message"]

        # Websocket terminals: refused with storage_full, they keep their entries and retry.
        terms = terminals(club, server.ws_url, tmp_path / "terminals")
        tasks = [asyncio.create_task(t.run()) for t in terms]
        await wait_until(lambda: sum(t.retries for t in terms) >= 8, 30, "storage_full retries")
        assert acks_of(terms) == []
        assert all(t.refused == [] for t in terms)

        filler.unlink()  # space returns
        await asyncio.wait_for(asyncio.gather(*tasks), 60)
    finally:
        server.stop()
    log = server.tail(100_000)
    assert "Traceback" not in log, log[-3000:]
    assert_exactly_once(url, club, acks_of(terms), 4 * 3 * 2)  # includes integrity_check
