"""`traveller terminal --serve`: textual-serve answers HTTP on a loopback port, gives each browser
a session cookie, and starts that browser's own terminal in its own state folder."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("textual_serve", reason="pip install textual-serve")

from websockets.asyncio.client import connect

from terminal.serve import COOKIE, session_command
from tests.support.net import free_port

START_TIMEOUT = 20.0


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """`python -m terminal --serve` on a loopback port, stopped (with its children) after."""
    port = free_port()
    command = [sys.executable, "-m", "terminal", "--serve", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--state-dir", str(tmp_path)]
    command += ["--server", "http://127.0.0.1:9"]  # nothing there: the terminals stay offline
    proc = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        yield f"http://127.0.0.1:{port}", tmp_path
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def get_page(url: str) -> httpx.Response:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            return httpx.get(url + "/", timeout=2.0)
        except httpx.TransportError:
            assert time.monotonic() < deadline, "the terminal server did not start"
            time.sleep(0.2)


def test_the_page_is_served_with_a_session_cookie(served: tuple[str, Path]) -> None:
    url, _ = served
    page = get_page(url)
    assert page.status_code == 200
    assert "Traveller" in page.text
    session = page.cookies.get(COOKIE)
    assert session is not None
    assert len(session) == 32
    # The same browser keeps its session (and so its table): no new cookie.
    again = httpx.get(url + "/", cookies={COOKIE: session}, timeout=2.0)
    assert COOKIE not in again.cookies


async def test_a_browser_session_runs_its_own_terminal(served: tuple[str, Path]) -> None:
    url, state_root = served
    session = get_page(url).cookies[COOKIE]
    ws_url = url.replace("http://", "ws://") + "/ws?width=80&height=24"
    async with connect(ws_url, additional_headers={"Cookie": f"{COOKIE}={session}"}) as ws:
        first = await ws.recv(decode=False)
        assert first  # the terminal app's screen is on its way
        folder = state_root / "browser" / session
        deadline = time.monotonic() + START_TIMEOUT
        while not (folder / "terminal.json").exists():
            assert time.monotonic() < deadline, "the session's terminal did not start"
            await asyncio.sleep(0.1)
    assert "127.0.0.1:9" in (folder / "terminal.json").read_text()


def test_each_session_has_its_own_state_folder(tmp_path: Path) -> None:
    command = session_command(["--server", "http://s:8000"], tmp_path, "ab" * 16)
    assert f"{tmp_path}/browser/{'ab' * 16}" in command
    assert "-m terminal" in command
    assert "--device browser-abababab" in command
