"""`traveller terminal --serve`: textual-serve answers HTTP on a loopback port, gives each browser
a session cookie, and starts that browser's own terminal in its own state folder."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("textual_serve", reason="pip install textual-serve")

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

from terminal.serve import ADDRESS_FULL, COOKIE, FULL, SessionCaps, session_command
from tests.support.net import free_port
from tests.support.wait import wait_until_async

START_TIMEOUT = 20.0


def start_served(tmp_path: Path, *caps: str) -> tuple[subprocess.Popen[bytes], str]:
    """`python -m terminal --serve` on a loopback port (browsers at 127.0.0.2... reach it too)."""
    port = free_port()
    command = [sys.executable, "-m", "terminal", "--serve", "--host", "127.0.0.1", *caps]
    command += ["--port", str(port), "--state-dir", str(tmp_path)]
    command += ["--server", "http://127.0.0.1:9"]  # nothing there: the terminals stay offline
    proc = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    return proc, f"http://127.0.0.1:{port}"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """`python -m terminal --serve` on a loopback port, stopped (with its children) after."""
    proc, url = start_served(tmp_path)
    try:
        yield url, tmp_path
    finally:
        stop(proc)


@pytest.fixture
def capped(tmp_path: Path) -> Iterator[tuple[str, int]]:
    """The same with at most 3 terminals in all and 2 from one address: its URL and pid."""
    proc, url = start_served(tmp_path, "--max-sessions", "3", "--max-per-address", "2")
    try:
        get_page(url)
        yield url, proc.pid
    finally:
        stop(proc)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the server and every process of its session."""
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
        await wait_until_async(
            (folder / "terminal.json").exists, START_TIMEOUT, "the session's terminal", every=0.1
        )
    assert "127.0.0.1:9" in (folder / "terminal.json").read_text()


def test_each_session_has_its_own_state_folder(tmp_path: Path) -> None:
    command = session_command(["--server", "http://s:8000"], tmp_path, "ab" * 16)
    assert f"{tmp_path}/browser/{'ab' * 16}" in command
    assert "-m terminal" in command
    assert "--device browser-abababab" in command
    assert command.startswith("exec ")  # the shell becomes the terminal: one process a browser


# ---------------------------------------------------------------- the caps


def test_the_caps_count_other_browsers_in_all_and_per_address() -> None:
    caps = SessionCaps(max_sessions=3, max_per_address=2)
    assert caps.refusal("10.0.0.5", "a") is None
    caps.take("10.0.0.5", "a")
    caps.take("10.0.0.5", "b")
    assert caps.refusal("10.0.0.5", "c") == ADDRESS_FULL
    assert caps.refusal("10.0.0.5", "a") is None  # the same browser again: it replaces its own
    seat, earlier = caps.take("10.0.0.6", "d")
    assert earlier == []
    assert caps.refusal("10.0.0.7", "e") == FULL
    caps.leave(seat)
    assert caps.refusal("10.0.0.7", "e") is None
    _, earlier = caps.take("10.0.0.5", "a")
    assert [s.session for s in earlier] == ["a"]


def terminals(pid: int) -> dict[int, int]:
    """The server's terminal processes (its descendants) and each one's resident memory, kB."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        parents[int(stat.parent.name)] = int(fields[1])
    found, todo = {}, [pid]
    while todo:
        parent = todo.pop()
        for child, ppid in parents.items():
            if ppid == parent:
                todo.append(child)
                found[child] = rss_kb(child)
    return found


def rss_kb(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    line = next((x for x in status.splitlines() if x.startswith("VmRSS:")), "VmRSS: 0 kB")
    return int(line.split()[1])


async def open_terminal(url: str, address: str) -> ClientConnection:
    """A browser at ``address`` (a loopback address) with a session of its own, its terminal
    started (the first screen bytes arrived)."""
    ws_url = url.replace("http://", "ws://") + "/ws?width=80&height=24"
    cookie = f"{COOKIE}={secrets.token_hex(16)}"
    ws = await connect(ws_url, additional_headers={"Cookie": cookie}, local_addr=(address, 0))
    async with asyncio.timeout(START_TIMEOUT):
        assert await ws.recv(decode=False)
    return ws


async def refused(url: str, address: str) -> int:
    """The HTTP status a browser at ``address`` gets for the socket (it must be refused)."""
    with pytest.raises(InvalidStatus) as caught:
        await open_terminal(url, address)
    status: int = caught.value.response.status_code
    return status


async def wait_for_terminals(pid: int, count: int) -> dict[int, int]:
    await wait_until_async(
        lambda: len(terminals(pid)) == count, START_TIMEOUT, f"{count} terminals", every=0.2
    )
    return terminals(pid)


async def test_more_browsers_than_the_cap_start_no_more_terminals(
    capped: tuple[str, int],
) -> None:
    url, pid = capped
    one = [await open_terminal(url, "127.0.0.1") for _ in range(2)]
    # a third from the same address, then five more: refused, no process started
    for _ in range(6):
        assert await refused(url, "127.0.0.1") == 503
    other = await open_terminal(url, "127.0.0.2")
    assert await refused(url, "127.0.0.3") == 503  # three in all
    transport = httpx.AsyncHTTPTransport(local_address="127.0.0.3")
    async with httpx.AsyncClient(transport=transport, timeout=5.0) as browser:
        page = await browser.get(url + "/", headers={"Accept-Language": "da-DK,da;q=0.9"})
    assert page.status_code == 503
    # the page says why and what to do, in the browser's language
    assert "Alle 3 bordterminaler på denne server er i brug" in page.text
    assert "<html lang='da'>" in page.text
    found = await wait_for_terminals(pid, 3)
    # the host's memory is bounded by the cap: three terminals, whatever was asked
    assert sum(found.values()) < 3 * 300 * 1024, found
    # a browser that goes away (closed, or its connection simply dropped) ends its terminal
    await one[0].close()
    one[1].transport.abort()
    await wait_for_terminals(pid, 1)
    again = await open_terminal(url, "127.0.0.1")
    await wait_for_terminals(pid, 2)
    await other.close()
    await again.close()
    await wait_for_terminals(pid, 0)


async def test_the_same_browser_again_replaces_its_terminal(capped: tuple[str, int]) -> None:
    url, pid = capped
    ws_url = url.replace("http://", "ws://") + "/ws?width=80&height=24"
    headers = {"Cookie": f"{COOKIE}={secrets.token_hex(16)}"}
    first = await connect(ws_url, additional_headers=headers)
    assert await first.recv(decode=False)
    await wait_for_terminals(pid, 1)
    second = await connect(ws_url, additional_headers=headers)
    assert await second.recv(decode=False)
    async with asyncio.timeout(START_TIMEOUT):
        await first.wait_closed()  # the old page's socket is closed
    await wait_for_terminals(pid, 1)
    await second.close()
    await wait_for_terminals(pid, 0)
