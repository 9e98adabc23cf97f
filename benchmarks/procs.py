"""The server under test as a real `uvicorn` subprocess, and its CPU and memory from /proc."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

REPO = Path(__file__).resolve().parent.parent
TD_PASSWORD = "bench-td-password"
CLK_TCK = os.sysconf("SC_CLK_TCK")


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def repo_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a child that imports `benchmarks` (not pip-installed) from the repo."""
    env = os.environ.copy()
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    env.update(extra or {})
    return env


@dataclass
class ServerProcess:
    """`uvicorn --factory benchmarks.serverapp:make` on 127.0.0.1 with its own session group."""

    database_url: str
    port: int = field(default_factory=free_port)
    workers: int = 1
    env: dict[str, str] = field(default_factory=dict)
    log_path: Path | None = None
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/api/v1/table/ws"

    @property
    def pid(self) -> int:
        assert self.proc is not None, "the server is not running"
        return self.proc.pid

    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", "uvicorn", "benchmarks.serverapp:make", "--factory"]
        cmd += ["--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning"]
        cmd += ["--no-access-log", "--timeout-graceful-shutdown", "3"]
        cmd += ["--ws-per-message-deflate", "false"]  # as `traveller serve` (uvicorn_options)
        if self.workers > 1:
            cmd += ["--workers", str(self.workers)]
        return cmd

    def start(self, timeout: float = 60.0) -> None:
        """Start the server and wait until /api/v1/health answers (blocking: run in a thread
        from async code)."""
        env = repo_env(
            {
                "TRAVELLER_DATABASE_URL": self.database_url,
                "TRAVELLER_TD_PASSWORD": TD_PASSWORD,
                **self.env,
            }
        )
        out = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        try:
            self.proc = subprocess.Popen(
                self.command(),
                cwd=REPO,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        finally:
            if self.log_path:
                assert not isinstance(out, int)
                out.close()
        self.starts += 1
        self.wait_ready(timeout)

    def wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode}: {self.tail()}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/api/v1/health", timeout=2) as r:
                    if r.status == 200:
                        return
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.1)
        raise TimeoutError(f"the server did not answer within {timeout} s: {self.tail()}")

    def tail(self, chars: int = 3000) -> str:
        if self.log_path is None or not self.log_path.exists():
            return "(no log)"
        return self.log_path.read_text(errors="replace")[-chars:]

    def kill9(self) -> None:
        """SIGKILL the whole server process group: no shutdown, no flush, like a power cut."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)
        self.proc = None

    def stop(self) -> None:
        """SIGTERM (graceful), then SIGKILL after 15 s."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.kill9()
        self.proc = None

    def __enter__(self) -> ServerProcess:
        self.start()
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


# --------------------------------------------------------------------------- /proc sampling


def _stat(pid: int) -> tuple[int, int, int] | None:
    """(ppid, utime+stime ticks, cutime+cstime ticks) of a process, None if it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()
    return int(fields[1]), int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14])


def tree(root: int) -> list[int]:
    """The root and all its descendants (by parent pid)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = _stat(int(entry))
            if st is not None:
                parents.setdefault(st[0], []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(parents.get(pid, []))
    return out


def _status_kb(pid: int, key: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def cpu_seconds(pids: list[int]) -> float:
    """CPU time (user + system) used so far by these processes and their reaped children."""
    ticks = 0
    for pid in pids:
        st = _stat(pid)
        if st is not None:
            ticks += st[1] + st[2]
    return ticks / CLK_TCK


class TreeSampler:
    """Samples a process tree's CPU time and memory in a background thread."""

    def __init__(self, root: int, interval: float = 0.25) -> None:
        self.root = root
        self.interval = interval
        self.samples: list[tuple[float, float]] = []  # (monotonic time, cpu seconds)
        self.peak_rss_kb = 0
        self.peak_hwm_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tree-sampler", daemon=True)

    def start(self) -> TreeSampler:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sample()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def sample(self) -> None:
        pids = tree(self.root)
        self.samples.append((time.monotonic(), cpu_seconds(pids)))
        self.peak_rss_kb = max(self.peak_rss_kb, sum(_status_kb(p, "VmRSS") for p in pids))
        self.peak_hwm_kb = max(self.peak_hwm_kb, sum(_status_kb(p, "VmHWM") for p in pids))

    def cpu_between(self, start: float, end: float) -> float:
        """CPU seconds used between two monotonic instants (nearest samples)."""
        if not self.samples:
            return 0.0
        before = [c for t, c in self.samples if t <= start] or [self.samples[0][1]]
        after = [c for t, c in self.samples if t >= end] or [self.samples[-1][1]]
        return max(0.0, after[0] - before[-1])
