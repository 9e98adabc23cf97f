"""Servers and other programs in subprocesses, each in its own process group (stopped with
the whole group), with their output in a file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.support.env import ROOT


@dataclass
class ServerProcess:
    """A server in a subprocess (its own process group), with its output in a file."""

    base: str
    proc: subprocess.Popen[bytes]
    log: Path
    extra: dict[str, Any] = field(default_factory=dict)

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def health(self, client: httpx.Client | None = None) -> dict[str, Any]:
        url = f"{self.base}/api/v1/health"
        r = client.get(url, timeout=5) if client else httpx.get(url, timeout=5)
        r.raise_for_status()
        data: dict[str, Any] = r.json()
        return data

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited ({self.proc.returncode}):\n{self.output()}")
            try:
                self.health()
                return
            except httpx.HTTPError:
                time.sleep(0.05)  # not answering yet: ask again
        raise AssertionError(f"server not ready in {timeout} s:\n{self.output()}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)


def start_process(
    command: list[str], tmp: Path, env: dict[str, str], *, port: int, name: str = "server"
) -> ServerProcess:
    """Start ``command`` in its own process group, its output in ``tmp/name.log``."""
    log = tmp / f"{name}.log"
    full_env = {**os.environ, "PYTHONUNBUFFERED": "1", **env}
    with log.open("wb") as out:
        proc = subprocess.Popen(
            command,
            cwd=ROOT,
            env=full_env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return ServerProcess(f"http://127.0.0.1:{port}", proc, log)


def start_server(
    args: list[str], tmp: Path, env: dict[str, str], *, port: int, name: str = "server"
) -> ServerProcess:
    """This project's Python with ``args`` (a server module or ``-c`` code)."""
    return start_process([sys.executable, *args], tmp, env, port=port, name=name)
