"""A keypad wired straight to the fake server (no link), for flows driven by key sequences."""

from __future__ import annotations

from firmware_sim.device import Device, Key
from firmware_sim.fake_gateway import FakeTables
from firmware_sim.store import KeypadStore, MemoryStore


class Table:
    """One keypad and the server, exchanging messages at once (a perfect, instant gateway)."""

    def __init__(
        self, tables: FakeTables, table: int = 3, store: KeypadStore | None = None
    ) -> None:
        self.tables = tables
        self.device = Device(table, store or MemoryStore(table))
        self.bound: int | None = None
        self.sent: list[str] = []
        self.hold = False  # True: keep commands unanswered (a dead link)

    def flush(self) -> None:
        for _ in range(100):
            if self.hold:
                return
            commands = self.device.outgoing()
            if not commands:
                return
            for command in commands:
                self.sent.append(command.type)
                self.bound, reply = self.tables.handle(self.bound, command)
                self.device.receive(reply)
        raise AssertionError("the keypad and the server never went quiet")

    def boot(self) -> Table:
        self.device.boot()
        self.flush()
        return self

    def press(self, *keys: str) -> tuple[str, str]:
        for token in keys:
            for key in [token] if not token.isdigit() else list(token):
                self.device.press(Key.parse(key))
                self.flush()
        return self.lines

    @property
    def lines(self) -> tuple[str, str]:
        top, bottom = self.device.display
        assert len(top) == len(bottom) == 16
        return top.rstrip(), bottom.rstrip()
