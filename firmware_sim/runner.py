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
    port = serial.serial_for_url(url, baudrate=baud, timeout=_TICK)
    try:
        _loop(port, keypad, tokens, scripted, out, max_seconds, clock)
    finally:
        port.close()
    return keypad.device


def _loop(
    port: Any,
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
        data = port.read(1)
        if data:
            data += port.read(port.in_waiting)
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
