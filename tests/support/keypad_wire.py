"""A keypad on a TCP socket to a real gateway, a turn at a time, in real time: the MicroPython
firmware (``FirmwareDriver``, its core in MicroPython) or the simulator (``SimulatorDriver``,
firmware_sim in this process) behind one interface, so a test plays the same keys on both and
compares what the server stored and what the LCD showed.

The cable can be pulled (the socket closed; the keypad runs on, its bytes go nowhere) and put
back (a new connection), and the keypad's power cut (RAM lost, the store kept) between turns.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from firmware_sim.device import Device
from firmware_sim.keypad import Keypad as SimKeypad
from firmware_sim.store import FileStore
from protocol.link import PointToPointLink
from tests.support.micropython import MicroPython

_TICK = 0.005


class Driver:
    """One keypad's turns; subclasses run the firmware or the simulator."""

    screen = ""
    busy = False
    idle = True
    pending = 0
    full = False
    lines: tuple[str, str] = ("", "")

    def boot(self) -> None:
        raise NotImplementedError

    def step(self, data: bytes, now_ms: int, key: str | None) -> bytes:
        raise NotImplementedError

    def close(self) -> None:
        """Let go of what the driver holds."""


class FirmwareDriver(Driver):
    """The firmware's core (deploy/keypad/firmware) in MicroPython, its flash a folder there."""

    def __init__(self, mp: MicroPython, table: int, serial: str = "f1rmw4r3") -> None:
        self.mp = mp
        self.table = table
        self.serial = serial
        self.session = 0x1000
        #: The heap in use before the firmware is imported (the interpreter's own).
        self.baseline = self.heap()
        mp.run("import kp_host")
        #: The firmware's code and tables, once imported.
        self.imported = self.heap() - self.baseline

    def heap(self) -> int:
        """Bytes of MicroPython's heap in use after a collection (gc.mem_alloc())."""
        used: int = self.mp.value("(gc.collect(), gc.mem_alloc())[1]", "import gc")
        return used

    def _answer(self, lines: list[str]) -> bytes:
        state: dict[str, Any] = json.loads(lines[-1])
        self.lines = (state["lines"][0], state["lines"][1])
        self.screen, self.busy, self.idle = state["screen"], state["busy"], state["idle"]
        self.pending, self.full = state["pending"], state["full"]
        return bytes.fromhex(state["out"])

    def boot(self) -> None:
        self.session += 1  # a new run of the firmware, a new link session
        self._answer(self.mp.run(f"kp_host.boot({self.table}, {self.serial!r}, {self.session})"))

    def step(self, data: bytes, now_ms: int, key: str | None) -> bytes:
        return self._answer(self.mp.run(f"kp_host.step({data.hex()!r}, {now_ms}, {key!r})"))


class SimulatorDriver(Driver):
    """firmware_sim's Device, store (a JSON file) and protocol's link, in this process."""

    def __init__(self, table: int, store: Path) -> None:
        self.table = table
        self.path = store
        self.now = 0.0
        self.session = 0x1000
        self.keypad: SimKeypad | None = None

    def boot(self) -> None:
        self.session += 1
        link = PointToPointLink(self.table, lambda: self.now, session=self.session)
        self.keypad = SimKeypad(Device(self.table, FileStore(self.path, self.table)), link)
        self.keypad.boot()
        self._read()

    def _read(self) -> None:
        assert self.keypad is not None
        device = self.keypad.device
        self.lines = device.display
        self.screen, self.busy = str(device.screen), device.busy
        self.pending = len(device.store.pending())
        self.idle = not device.busy and not self.pending and self.keypad.link.pending == 0

    def step(self, data: bytes, now_ms: int, key: str | None) -> bytes:
        keypad = self.keypad
        assert keypad is not None
        self.now = now_ms / 1000
        if data:
            keypad.link.receive_bytes(data)
        keypad.pump()
        if key is not None:
            keypad.press(key)
        out = keypad.link.poll(self.now)
        keypad.pump()
        self._read()
        return out


class Wire:
    """A driver's keypad on a TCP connection to the gateway (the cable)."""

    def __init__(self, driver: Driver, port: int) -> None:
        self.driver = driver
        self.port = port
        self.sock: socket.socket | None = None
        self.start = time.monotonic()
        self.shown: list[tuple[str, str]] = []
        self.pressed: list[tuple[str, tuple[str, str]]] = []
        self.sent = 0
        self.pulled = False
        self._retry_at = 0.0

    def plug(self, timeout: float = 120.0) -> None:
        """Put the cable in: connect to the gateway (retried while it is starting)."""
        self.pulled = False
        deadline = time.monotonic() + timeout
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        sock.setblocking(False)
        self.sock = sock

    def unplug(self) -> None:
        """Pull the cable out (it stays out until ``plug``)."""
        self.pulled = True
        self._drop()

    def _drop(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def _reconnect(self) -> None:
        """The gateway closed the line (it restarted): a USB keypad's port comes back with it."""
        if time.monotonic() < self._retry_at:
            return
        self._retry_at = time.monotonic() + 0.2
        try:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=0.2)
        except OSError:
            return
        sock.setblocking(False)
        self.sock = sock

    def now_ms(self) -> int:
        return int((time.monotonic() - self.start) * 1000)

    def turn(self, key: str | None = None) -> None:
        data = b""
        if self.sock is None and not self.pulled:
            self._reconnect()
        if self.sock is not None:
            try:
                data = self.sock.recv(4096)
                if not data:
                    self._drop()  # the gateway closed it
            except BlockingIOError:
                data = b""
            except OSError:
                self._drop()
        out = self.driver.step(data, self.now_ms(), key)
        if out and self.sock is not None:
            try:
                self.sock.sendall(out)
                self.sent += len(out)
            except OSError:
                self._drop()  # lost on the way, as on a line that went down
        if not self.shown or self.shown[-1] != self.driver.lines:
            self.shown.append(self.driver.lines)

    def boot(self) -> None:
        self.driver.boot()
        self.shown.append(self.driver.lines)

    def play(self, keys: Iterable[str] | str, timeout: float = 120.0, idle: bool = True) -> None:
        """Press each key once the keypad is not waiting for the server, then (``idle``) run
        until nothing is waiting, unsent or unanswered. ``pressed`` keeps what the LCD showed
        before each key."""
        tokens = keys.split() if isinstance(keys, str) else list(keys)
        queue = [k for token in tokens for k in ([token] if not token.isdigit() else list(token))]
        deadline = time.monotonic() + timeout
        while queue or (idle and not self.driver.idle):
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"keypad stuck on {self.driver.screen} {self.driver.lines}, keys left {queue}"
                )
            key = queue.pop(0) if queue and not self.driver.busy else None
            if key is not None:
                self.pressed.append((key, self.driver.lines))
            self.turn(key)
            if key is None:
                time.sleep(_TICK)

    def until(self, condition: Callable[[], bool], what: str, timeout: float = 120.0) -> None:
        """Run turns until ``condition`` holds."""
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}: {self.driver.lines}")
            self.turn()
            time.sleep(_TICK)
