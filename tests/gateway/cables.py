"""Keypads on real pseudo-terminals, in real time: the far end of a USB-serial adapter.

A ``PtyCable`` is one adapter: the gateway opens a stable path (a symlink, like the links under
/dev/serial/by-id) to the pty's slave, the keypads sit on the master. Unplugging closes the pty
and removes the path, as pulling the adapter out does; plugging in makes a new pty behind the
same path. A ``CableEnd`` thread runs the keypads on it (one PointToPointLink, or BusDevices on
a bus).
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
import tty
from pathlib import Path

from firmware_sim.keypad import Keypad
from firmware_sim.player import VirtualPlayer


class PtyCable:
    """A USB-serial adapter that can be pulled out and plugged in again."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.master: int | None = None
        self._slave: int | None = None
        self.lock = threading.Lock()

    def plug(self) -> None:
        """Plug in: a new pty, reachable at ``path``."""
        with self.lock:
            master, slave = os.openpty()
            tty.setraw(slave)  # no echo or line editing before the gateway opens it
            os.set_blocking(master, False)
            tmp = self.path.with_suffix(".new")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(os.ttyname(slave))
            tmp.replace(self.path)
            self.master, self._slave = master, slave

    def unplug(self) -> None:
        """Pull it out: the path goes, the gateway's open port fails."""
        with self.lock:
            self.path.unlink(missing_ok=True)
            for fd in (self.master, self._slave):
                if fd is not None:
                    os.close(fd)
            self.master = self._slave = None

    @property
    def plugged(self) -> bool:
        """Whether the adapter is in."""
        return self.master is not None


class CableEnd(threading.Thread):
    """The keypads on one cable, with their players, running until stopped."""

    def __init__(
        self, cable: PtyCable, keypads: list[Keypad], players: list[VirtualPlayer]
    ) -> None:
        super().__init__(daemon=True, name=f"keypads on {cable.path.name}")
        self.cable = cable
        self.keypads = keypads
        self.players = players
        self.halt = threading.Event()
        self.errors: list[BaseException] = []

    def run(self) -> None:
        try:
            for keypad in self.keypads:
                keypad.boot()
            while not self.halt.is_set():
                self._once()
        except BaseException as exc:  # surfaced by the test
            self.errors.append(exc)

    def _once(self) -> None:
        with self.cable.lock:
            fd = self.cable.master
        if fd is None:
            time.sleep(0.005)
            data = b""
        else:
            ready, _, _ = select.select([fd], [], [], 0.005)
            data = self._read(fd) if ready else b""
        for keypad in self.keypads:
            if data:
                keypad.link.receive_bytes(data)
            keypad.pump()
        for player in self.players:
            player()
        out = b"".join(keypad.link.poll() for keypad in self.keypads)
        if out and fd is not None:
            self._write(fd, out)

    def _read(self, fd: int) -> bytes:
        with self.cable.lock:
            if self.cable.master != fd:
                return b""
            try:
                return os.read(fd, 4096)
            except OSError:  # EIO while the gateway has the slave closed
                return b""

    def _write(self, fd: int, data: bytes) -> None:
        with self.cable.lock:
            if self.cable.master != fd:
                return  # unplugged meanwhile: the bytes are lost
            with contextlib.suppress(OSError):
                os.write(fd, data)
