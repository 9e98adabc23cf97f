"""`traveller keypad-sim` plays a round against `traveller demo` over a socket, as processes.

Twice: with the gateway inside the demo server (TRAVELLER_GATEWAY_PORTS) and with the gateway
as its own process sharing the demo's SQLite database. The keypad enters and confirms round 1,
asks for the next round before the TD has started it, and waits; the TD starts round 2 over
the HTTP API, the gateway moves the table on by itself (a bus push in the server, the database
watcher in its own process), and the keypad plays a board of round 2.
"""

from __future__ import annotations

import os
import re
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.support.net import free_port
from tests.support.wait import wait_until

ROOT = Path(__file__).resolve().parents[2]
TRAVELLER = [sys.executable, "-c", "from server.ops.cli import main; main()"]
GATEWAY = [*TRAVELLER, "gateway"]
BOARD = "4 4 3 1 0 ENT ENT"  # 4S by South, 10 tricks; send; E/W confirm (protocol/keys.md)


def _stop(proc: subprocess.Popen[str]) -> str:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    out = proc.stdout.read() if proc.stdout else ""
    return out or ""


def _results(db: Path) -> list[tuple[int, int, int, str, str, int, str]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT table_number, round, board, contract, declarer, tricks, state FROM result "
            "ORDER BY round, board"
        ).fetchall()
    return [tuple(r) for r in rows]


@pytest.fixture
def env() -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TRAVELLER_")}
    clean["PYTHONPATH"] = str(ROOT)
    return clean


@pytest.mark.parametrize("where", ["in_server", "own_process"])
def test_keypad_sim_plays_against_the_demo(tmp_path: Path, env: dict[str, str], where: str) -> None:
    http, serial_port = free_port(), free_port()
    listen = f"tcp-listen://127.0.0.1:{serial_port}"
    demo_env = dict(env, TRAVELLER_GATEWAY_PORTS=listen) if where == "in_server" else env
    data = tmp_path / "data"
    procs: list[tuple[str, subprocess.Popen[str]]] = []

    def start(
        cmd: list[str], proc_env: dict[str, str], log: Path | None = None
    ) -> subprocess.Popen[str]:
        out = log.open("w") if log else subprocess.PIPE
        proc = subprocess.Popen(
            cmd, cwd=tmp_path, env=proc_env, stdout=out, stderr=subprocess.STDOUT, text=True
        )
        if log:
            out.close()  # type: ignore[union-attr]
        procs.append((" ".join(cmd[3:6]), proc))
        return proc

    try:
        demo = start(
            [*TRAVELLER, "demo", "--port", str(http), "--data-dir", str(data), "--tables", "3"],
            demo_env,
        )
        base = f"http://127.0.0.1:{http}"

        def healthy() -> bool:
            try:
                return httpx.get(f"{base}/api/v1/health", timeout=1).status_code == 200
            except httpx.HTTPError:
                assert demo.poll() is None, _stop(demo)
                return False

        wait_until(healthy, 30, "the demo server")
        if where == "own_process":
            db_url = f"sqlite:///{data / 'demo.db'}"
            gateway = start([*GATEWAY, "--port", listen, "--database-url", db_url], env)

            def listening() -> bool:
                assert gateway.poll() is None, _stop(gateway)
                with socket.socket() as probe:  # seen as a keypad that came and went
                    return probe.connect_ex(("127.0.0.1", serial_port)) == 0

            wait_until(listening, 30, "the gateway process")
        banner = ""
        assert demo.stdout is not None
        while "Stop with Ctrl-C" not in banner:
            banner += demo.stdout.readline()
        code = re.search(r"table 1: (\d+)", banner)
        password = re.search(r"TD password:\s+(\S+)", banner)
        section = re.search(r"section id (\d+)", banner)
        assert code, banner
        assert password, banner
        assert section, banner
        script = tmp_path / "keys.txt"
        # Pair, seats OK, the three boards of round 1, ENT on the summary: the next round,
        # before the TD started it. The keypad waits; then seats OK and one board of round 2.
        script.write_text(f"{code[1]} ENT ENT {BOARD} {BOARD} {BOARD} ENT ENT {BOARD}\n")
        keypad_log = tmp_path / "keypad.log"  # the display, printed as it changes
        keypad = start(
            [
                *TRAVELLER,
                "keypad-sim",
                "--port",
                f"socket://127.0.0.1:{serial_port}",
                "--table",
                "1",
                "--script",
                str(script),
                "--store",
                str(tmp_path / "keypad.json"),
                "--seconds",
                "60",
            ],
            dict(env, PYTHONUNBUFFERED="1"),
            keypad_log,
        )
        db = data / "demo.db"
        wait_until(lambda: len(_results(db)) == 3 and keypad.poll() is None, 30, "round 1")
        # The keypad asks for round 2 and is told to wait for the TD: meanwhile it shows where
        # each pair goes (N/S pair 1 stays at table 1).
        waiting = "Pair 1NS>T1 NS"
        wait_until(
            lambda: waiting in keypad_log.read_text(errors="replace"), 30, "the keypad waiting"
        )
        login = httpx.post(f"{base}/api/v1/td/login", json={"password": password[1]})
        token = login.json()["token"]
        started = httpx.post(
            f"{base}/api/v1/sections/{section[1]}/rounds/2/start",
            headers={"Authorization": f"Bearer {token}"},
        )
        assert started.status_code == 200, started.text
        rc = keypad.wait(40)
        output = _stop(keypad) + keypad_log.read_text(errors="replace")
        assert rc == 0, output
        assert waiting in output  # the move screen was on the display
        results = _results(db)
        assert [r[1] for r in results] == [1, 1, 1, 2]
        assert all(r[0] == 1 and r[3:] == ("4S", "S", 10, "confirmed") for r in results)
    finally:
        logs = "\n".join(f"--- {name}\n{_stop(proc)}" for name, proc in procs)
        print(logs)
    assert "Traceback" not in logs
