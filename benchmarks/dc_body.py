"""A 96 MB request body to the Data Connector's own port, against a real `traveller serve` on
loopback: the server's RSS before, its peak while the body comes (sampled every 50 ms, the
whole process tree) and after, and what the body was answered. One body declared with its
Content-Length, one chunked (the server must count it), one after the other.

    PYTHONPATH=. .venv/bin/python -m benchmarks.dc_body [megabytes] [max_body_bytes]

``max_body_bytes`` 0 switches the bound off (TRAVELLER_MAX_BODY_BYTES=0): the control that shows
what the same body costs unbounded.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx

from benchmarks.attack import ServeProcess
from benchmarks.procs import TreeSampler, _status_kb, free_port


async def _chunks(megabytes: int) -> AsyncIterator[bytes]:
    block = b"x" * 2**20
    for _ in range(megabytes):
        yield block


async def _send(url: str, megabytes: int, declared: bool) -> str:
    headers = {"content-type": "application/json"}
    if declared:
        headers["content-length"] = str(megabytes * 2**20)
    async with httpx.AsyncClient(timeout=120) as http:
        try:
            r = await http.post(url, content=_chunks(megabytes), headers=headers)
        except httpx.HTTPError as exc:  # closed mid-body
            return f"closed mid-body ({type(exc).__name__})"
        return f"{r.status_code} {r.text[:80]}"


def _rss_mb(pid: int) -> float:
    return _status_kb(pid, "VmRSS") / 1024


def main(megabytes: int = 96, max_body_bytes: str | None = None) -> None:
    work = Path(tempfile.mkdtemp(prefix="dc-body-"))
    dc_port = free_port()
    server = ServeProcess(
        f"sqlite:///{work}/dc.db",
        env={
            "TRAVELLER_DC_CLUB_ID": "club-0001",
            "TRAVELLER_DC_LICENSE": "licence-key-0001",
            "TRAVELLER_DC_PORT": str(dc_port),
            **({"TRAVELLER_MAX_BODY_BYTES": max_body_bytes} if max_body_bytes else {}),
        },
        log_path=work / "server.log",
    )
    server.start()
    try:
        url = f"http://127.0.0.1:{dc_port}/dc-scoringprogram"
        for _ in range(50):  # the listener opens in the server's lifespan
            try:
                httpx.get(f"http://127.0.0.1:{dc_port}/", timeout=2)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        print(f"traveller serve pid {server.pid}, Data Connector port {dc_port}")
        for declared in (True, False):
            before = _rss_mb(server.pid)
            sampler = TreeSampler(server.pid, interval=0.05).start()
            answer = asyncio.run(_send(url, megabytes, declared))
            sampler.stop()
            time.sleep(0.5)
            after = _rss_mb(server.pid)
            kind = "Content-Length" if declared else "chunked"
            print(
                f"{megabytes} MB {kind:>14}: RSS before {before:.1f} MB, peak "
                f"{sampler.peak_rss_kb / 1024:.1f} MB (+{sampler.peak_rss_kb / 1024 - before:.1f}),"
                f" after {after:.1f} MB; answered {answer}"
            )
    finally:
        server.stop()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 96, sys.argv[2] if len(sys.argv) > 2 else None)
