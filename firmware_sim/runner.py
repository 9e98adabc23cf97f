"""Runs a simulated keypad on a serial port by pyserial URL: loop://, socket://host:port, a pty.

A script is a sequence of tokens separated by white space: key names (see device.Key), runs of
digits (``0003`` is four key presses), and ``wait=SECONDS``. Lines starting with ``;`` are
comments. The next key is pressed only when the keypad is not waiting for the server, so a
script needs no timing. The display is printed each time it changes.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import serial

from protocol.link import BusDevice, LinkConfig, PointToPointLink

from .device import Device, Key
from .keypad import Keypad
from .store import FileStore, KeypadStore, MemoryStore

_END = object()
_TICK = 0.01  # longest wait for a byte before the loop runs again
_REOPEN = 0.5  # seconds between tries to open a port that went away


def parse_script(lines: Iterable[str]) -> Iterator[str]:
    """The tokens of a script, lazily (so a script can be typed in on stdin)."""
    for line in lines:
        if line.lstrip().startswith(";"):
            continue
        for word in line.split():
            if word.isdigit():
                yield from word
            elif word.lower().startswith("wait="):
                float(word[5:])  # refuse a bad number now, not mid-run
                yield word.lower()
            else:
                yield Key.parse(word).value


def typed_keys(lines: Iterable[str], say: Callable[[str], Any] = print) -> Iterator[str]:
    """The tokens of lines typed while the keypad runs: a line with a word that is not a key
    is told (``say``) and left out whole, and the keypad takes the next line (a script file is
    refused before the run instead)."""
    for line in lines:
        try:
            tokens = list(parse_script([line]))
        except ValueError as exc:
            say(f"{exc}: that line is left out (keys: 0-9 * # ENT BACK UP DOWN, wait=SECONDS)")
            continue
        yield from tokens


def render(display: tuple[str, str]) -> str:
    """The LCD as text: a 16x2 box."""
    top, bottom = display
    return f"+{'-' * 16}+\n|{top}|\n|{bottom}|\n+{'-' * 16}+"


def _feed(keys: Iterable[str], out: queue.Queue[object]) -> None:
    try:
        for key in keys:
            out.put(key)
    finally:
        out.put(_END)


def run(
    url: str,
    table: int,
    keys: Iterable[str] | None,
    *,
    address: int | None = None,
    store: str | Path | KeypadStore | None = None,
    bus: bool = False,
    baud: int = 9600,
    out: Callable[[str], Any] = print,
    max_seconds: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Device:
    """Run a keypad for ``table`` on the port at ``url`` until its script is done.

    ``keys`` are script tokens (None: no keys, run until ``max_seconds``). With a script the run
    ends once the keys are used up and nothing is waiting or unsent. ``address`` is the bus
    address (default: the table number); ``store`` a file for the battery-backed store (default:
    in memory); ``bus`` selects RS-485 polling instead of a point-to-point link.
    Returns the device, for its final state.
    """
    address = address or table
    if isinstance(store, str | Path):
        outbox: KeypadStore = FileStore(store, table)
    else:
        outbox = store or MemoryStore(table)
    config = LinkConfig(baud=baud)
    link: PointToPointLink | BusDevice = (
        BusDevice(address, clock, config=config)
        if bus
        else PointToPointLink(address, clock, config=config)
    )
    keypad = Keypad(Device(table, outbox), link)
    tokens: queue.Queue[object] = queue.Queue()
    if keys is None:
        tokens.put(_END)
        scripted = False
    else:
        threading.Thread(target=_feed, args=(keys, tokens), daemon=True).start()
        scripted = True
    port = _Port(url, baud, out, clock)
    try:
        _loop(port, keypad, tokens, scripted, out, max_seconds, clock)
    finally:
        port.close()
    return keypad.device


class _Port:
    """The serial port, reopened when it goes away (a ``socket://`` gateway restarted, a USB
    adapter pulled): the keypad keeps its state and store, as one on a pulled cable does, and
    its link finds the gateway again once the port is back."""

    def __init__(self, url: str, baud: int, out: Callable[[str], Any], clock: Callable[[], float]):
        self.url, self.baud, self.out, self.clock = url, baud, out, clock
        self.port: Any = serial.serial_for_url(url, baudrate=baud, timeout=_TICK)
        self.retry_at = 0.0

    def _lost(self, exc: Exception) -> None:
        self.out(f"(port {self.url} lost: {exc}; reopening)")
        self.close()
        self.port = None
        self.retry_at = self.clock() + _REOPEN

    def _open(self) -> bool:
        if self.port is not None:
            return True
        if self.clock() < self.retry_at:
            time.sleep(_TICK)
            return False
        try:
            self.port = serial.serial_for_url(self.url, baudrate=self.baud, timeout=_TICK)
        except (serial.SerialException, OSError):
            self.retry_at = self.clock() + _REOPEN
            return False
        self.out(f"(port {self.url} open again)")
        return True

    def read(self) -> bytes:
        """What has come in (nothing while the port is away)."""
        if not self._open():
            return b""
        try:
            data: bytes = self.port.read(1)
            if data:
                data += self.port.read(self.port.in_waiting)
        except (serial.SerialException, OSError) as exc:
            self._lost(exc)
            return b""
        return data

    def write(self, data: bytes) -> None:
        """Send ``data``; lost while the port is away (the link sends it again)."""
        if not self._open():
            return
        try:
            self.port.write(data)
        except (serial.SerialException, OSError) as exc:
            self._lost(exc)

    def close(self) -> None:
        if self.port is not None:
            self.port.close()


def _loop(
    port: _Port,
    keypad: Keypad,
    tokens: queue.Queue[object],
    scripted: bool,
    out: Callable[[str], Any],
    max_seconds: float | None,
    clock: Callable[[], float],
) -> None:
    device, link = keypad.device, keypad.link
    start = clock()
    keypad.boot()
    shown: list[tuple[str, str]] = []

    def show() -> None:
        # Every screen is printed, even one that a scripted key replaces at once.
        if not shown or device.display != shown[0]:
            shown[:] = [device.display]
            out(render(device.display))

    keys_done = False
    resume_at = 0.0
    while max_seconds is None or clock() - start < max_seconds:
        data = port.read()
        if data:
            link.receive_bytes(data)
        keypad.pump()
        show()
        now = clock()
        if not keys_done and not device.busy and now >= resume_at:
            try:
                token = tokens.get_nowait()
            except queue.Empty:
                token = None
            if token is _END:
                keys_done = True
            elif isinstance(token, str) and token.startswith("wait="):
                resume_at = now + float(token[5:])
            elif isinstance(token, str):
                keypad.press(token)
        show()
        written = link.poll(now)
        if written:
            port.write(written)
        idle = not device.busy and not device.store.pending() and link.pending == 0
        if scripted and keys_done and idle:
            return
