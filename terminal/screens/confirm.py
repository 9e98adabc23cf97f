"""East's confirmation (§ 262B3): the whole result on one screen; confirm, or reject to North."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from protocol.messages import BoardResultView, BoardStatus

from ..keypad import SEAT_NAMES, SYMBOLS
from .base import key_of

VULNERABLE = {"NONE": "nobody vulnerable", "NS": "N/S vulnerable", "EW": "E/W vulnerable"}


@dataclass(frozen=True)
class EastAnswer:
    """What East decided, with the PIN keyed if one was asked."""

    decision: Literal["confirm", "reject"]
    pin: str | None = None


def board_line(status: BoardStatus) -> str:
    """ "Board 5 · dealer North · N/S vulnerable" """
    vul = VULNERABLE.get(status.vulnerability, "both vulnerable")
    return f"Board {status.board}  ·  dealer {SEAT_NAMES[status.dealer]}  ·  {vul}"


def card_text(card: str | None) -> str:
    """ "SA" -> "♠A", "HT" -> "♥10" """
    if not card:
        return ""
    rank = "10" if card[1:] == "T" else card[1:]
    return SYMBOLS.get(card[0], card[0]) + rank


def score_line(view: BoardResultView) -> str:
    """ "N/S +420    E/W -420" """
    ns = view.ns_score or 0
    return "Score 0" if ns == 0 else f"N/S {ns:+d}    E/W {-ns:+d}"


class ConfirmScreen(ModalScreen[EastAnswer | None]):
    """East checks the result North sent; Enter confirms, - rejects (Enter is ignored at first)."""

    def __init__(
        self, status: BoardStatus, view: BoardResultView, *, pin_required: bool, guard: float
    ) -> None:
        super().__init__()
        self.status = status
        self.view = view
        self.pin_required = pin_required
        self.guard = guard
        self.pin = ""
        self.opened = time.monotonic()

    def compose(self) -> ComposeResult:
        """Who must act, the board, the result in words, the score, the PIN and the keys."""
        view = self.view
        with Vertical(id="confirm", classes="dialog"):
            yield Static("EAST: please check this result", classes="dialog-title")
            yield Static(board_line(self.status), classes="dialog-text")
            yield Static(view.description or "", id="confirm-words", classes="big")
            if view.lead:
                yield Static(f"Opening lead {card_text(view.lead)}", classes="dialog-text")
            if view.ruling_pending:
                yield Static("A TD ruling is pending on this board.", classes="dialog-text")
            yield Static(score_line(view), id="confirm-score", classes="big")
            if self.pin_required:
                yield Static("", id="pin")
            yield Static("", id="confirm-message", classes="dialog-text")
            yield Static("Enter = CONFIRM        - = REJECT (back to North)", classes="dialog-keys")

    def on_mount(self) -> None:
        """Show the PIN field."""
        self._show_pin()

    def _show_pin(self) -> None:
        if self.pin_required:
            dots = "•" * len(self.pin) or "_"
            self.query_one("#pin", Static).update(f"E/W PIN:  {dots}")

    def on_key(self, event: events.Key) -> None:
        """Enter confirms, - rejects, digits key the PIN, Backspace deletes a PIN digit."""
        key = key_of(event)
        event.stop()
        if key == "enter":
            if time.monotonic() - self.opened < self.guard:
                return  # a second Enter from North's hand, not East's answer
            if self.pin_required and not self.pin:
                self.query_one("#confirm-message", Static).update("East: key the E/W PIN first.")
                return
            self.dismiss(EastAnswer("confirm", self.pin or None))
        elif key == "-":
            self.dismiss(EastAnswer("reject"))
        elif key.isdigit() and self.pin_required and len(self.pin) < 8:
            self.pin += key
            self._show_pin()
        elif key == "backspace" and self.pin:
            self.pin = self.pin[:-1]
            self._show_pin()
        elif key == "escape":
            self.dismiss(None)
