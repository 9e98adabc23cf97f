"""`traveller demo` as a process with the keypad gateway inside it, listening on a loopback
port for one keypad: the real server and gateway that the firmware tests play against."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.support.env import ROOT
from tests.support.net import free_port

TRAVELLER = [sys.executable, "-c", "from server.ops.cli import main; main()"]


@dataclass
class Demo:
    """A demo club night: 3 tables, 3 boards a round, round 1 started."""

    proc: subprocess.Popen[str]
    base: str
    serial_port: int
    db: Path
    lines: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    @property
    def banner(self) -> str:
        """What the demo printed so far."""
        return "".join(self.lines)

    def wait_ready(self, timeout: float = 180.0) -> None:
        """Until the banner with the pairing codes is out (a busy shared machine can take a
        minute to start a server)."""
        deadline = time.monotonic() + timeout
        while "Stop with Ctrl-C" not in self.banner:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(f"the demo did not start:\n{self.banner}")
            time.sleep(0.1)

    def _found(self, pattern: str) -> str:
        match = re.search(pattern, self.banner)
        assert match, self.banner
        return match[1]

    @property
    def ports(self) -> tuple[int, int]:
        return int(self.base.rsplit(":", 1)[1]), self.serial_port

    def code(self, table: int) -> str:
        return self._found(rf"table {table}: (\d+)")

    def start_round(self, number: int) -> None:
        """The TD starts round ``number`` over the HTTP API."""
        password = self._found(r"TD password:\s+(\S+)")
        section = self._found(r"section id (\d+)")
        token = httpx.post(f"{self.base}/api/v1/td/login", json={"password": password}).json()
        started = httpx.post(
            f"{self.base}/api/v1/sections/{section}/rounds/{number}/start",
            headers={"Authorization": f"Bearer {token['token']}"},
        )
        assert started.status_code == 200, started.text

    def rows(self, sql: str) -> list[tuple[object, ...]]:
        with sqlite3.connect(self.db) as conn:
            return [tuple(r) for r in conn.execute(sql).fetchall()]

    def results(self) -> list[tuple[object, ...]]:
        return self.rows(
            "SELECT table_number, round, board, contract, declarer, tricks, state, version "
            "FROM result ORDER BY round, board"
        )

    def audit(self) -> list[tuple[object, ...]]:
        return self.rows("SELECT actor, action FROM audit WHERE actor != 'td' ORDER BY id")

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._reader.join(10)
        return self.banner


def start_demo(folder: Path, ports: tuple[int, int] | None = None) -> Demo:
    """Start a demo in ``folder`` (call ``wait_ready`` before using it); ``ports`` (HTTP, the
    keypads') to start it again where it was."""
    http, serial_port = ports or (free_port(), free_port())
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRAVELLER_")}
    env["PYTHONPATH"] = str(ROOT)
    env["PYTHONUNBUFFERED"] = "1"
    env["TRAVELLER_GATEWAY_PORTS"] = f"tcp-listen://127.0.0.1:{serial_port}"
    data = folder / "data"
    proc = subprocess.Popen(
        [*TRAVELLER, "demo", "--port", str(http), "--data-dir", str(data), "--tables", "3"],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    return Demo(proc, f"http://127.0.0.1:{http}", serial_port, data / "demo.db")
