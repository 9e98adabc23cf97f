"""Simulated players at a keypad: they press keys to play whole rounds (tests, benchmarks).

It reads the screen like a person would and answers it with the table's key grammar
(``protocol/keys.md``): pairing code, seating OK, a random legal result for each board, East's
confirmation, then the next round. It also times each
entry from the "send" key press to the "stored" screen.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from .device import Key, Screen
from .keypad import Keypad


@dataclass
class VirtualPlayer:
    """Plays ``keypad`` on a virtual clock, one key every ``think`` seconds."""

    keypad: Keypad
    clock: Callable[[], float]
    code: str
    seed: int = 0
    think: float = 0.3
    reject_rate: float = 0.0
    pin: str | None = None
    latencies: list[float] = field(default_factory=list)
    _rng: random.Random = field(init=False)
    _queue: list[str] = field(init=False, default_factory=list)
    _next: float = field(init=False, default=0.0)
    _sent_at: float | None = field(init=False, default=None)
    _stored: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    @property
    def finished(self) -> bool:
        """The last round is complete and the keypad asked to move on."""
        info = self.keypad.device.round
        return (
            info is not None
            and info.round == info.rounds
            and info.complete
            and self.keypad.device.screen in (Screen.SUMMARY, Screen.NEXT_WAIT)
        )

    def __call__(self) -> float | None:
        """The simulation hook: maybe press a key; when to be called again."""
        device = self.keypad.device
        now = self.clock()
        if device.stored_count != self._stored:
            self._stored = device.stored_count
            if self._sent_at is not None:
                self.latencies.append(now - self._sent_at)
                self._sent_at = None
        if self.finished:
            return None
        if device.busy or now < self._next:
            return None if device.busy else self._next
        if not self._queue:
            self._queue = self._plan()
        if self._queue:
            key = self._queue.pop(0)
            if device.screen is Screen.ENTRY and key == Key.ENTER:
                self._sent_at = now
            self.keypad.press(key)
        self._next = now + self.think
        return self._next

    def _plan(self) -> list[str]:
        device = self.keypad.device
        screen = device.screen
        rng = self._rng
        if screen is Screen.PAIR:
            return [*self.code, Key.ENTER]
        if screen is Screen.SEATS:
            return [Key.ENTER]
        if screen is Screen.BOARD:
            return [Key.ENTER] if self._board_needs_work() else [Key.DOWN]
        if screen is Screen.ENTRY:
            draft = device.draft
            if draft is not None and draft.keys:
                return [Key.ENTER] if draft.complete else [Key.BACK] * len(draft.keys)
            if rng.random() < 0.05:
                return [Key.D0, Key.ENTER]
            level = rng.randint(1, 7)
            strain = rng.randint(1, 5)
            doubled = [Key.STAR] * int(rng.choice("0001112"))
            declarer = rng.randint(1, 4)
            tricks = rng.randint(max(0, level + 6 - 4), min(13, level + 6 + 2))
            if device.round is not None and device.round.tricks_style == "relative":
                diff = tricks - level - 6
                result = ["0"] if diff == 0 else [Key.UP if diff > 0 else Key.DOWN, str(abs(diff))]
            else:
                result = list(str(tricks))
            return [str(level), str(strain), *doubled, str(declarer), *result, Key.ENTER]
        if screen is Screen.EW_CONFIRM:
            if rng.random() < self.reject_rate:
                return [Key.BACK]
            return [*(self.pin or "0"), Key.ENTER] if self._pin_required() else [Key.ENTER]
        if screen is Screen.SUMMARY:
            return [Key.ENTER]
        if screen in (Screen.MESSAGE, Screen.CALL_TD):
            return [Key.BACK] if screen is Screen.CALL_TD else [Key.ENTER]
        return []

    def _pin_required(self) -> bool:
        info = self.keypad.device.round
        return info is not None and info.confirm_pin_required

    def _board_needs_work(self) -> bool:
        device = self.keypad.device
        status = device.selected
        if status is None or status.board in device.saved_boards():
            return False
        if status.state == "entered":
            return status.result is not None
        return status.state in ("missing", "rejected")
