"""Small dialogs: a notice in large text, the menu, and the key help."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from terminal.i18n import N_, _
from terminal.keypad import key_help

from .base import key_of


class NoticeScreen(ModalScreen[None]):
    """A message that stays until a key is pressed (conflicts, refusals, TD called)."""

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        """The title in bold, the text, and how to close."""
        with Vertical(id="notice", classes="dialog"):
            yield Static(self.title_text, classes="dialog-title")
            yield Static(self.text, classes="dialog-text", markup=False)
            yield Static(_("Enter = OK"), classes="dialog-keys")

    def on_key(self, event: events.Key) -> None:
        """Enter (or Backspace) closes."""
        if key_of(event) in ("enter", "backspace", "escape"):
            event.stop()
            self.dismiss(None)


MENU = (
    ("1", "summary", N_("Round summary")),
    ("2", "call_td", N_("Call the TD")),
    ("3", "ruling", N_("TD ruling pending on this board (on/off)")),
    ("4", "help", N_("Keys: how to enter a board")),
    ("5", "not_played", N_("Board not played (TD only: needs the TD's code)")),
    ("6", "language", N_("Language: English · Dansk · Norsk · Deutsch · Русский")),
)
#: Shown only on a hand-dealt board whose deal the server asks of this table.
DEAL_CHOICE = ("7", "deal", N_("Key the deal of this hand-dealt board"))


class MenuScreen(ModalScreen[str | None]):
    """Less common actions, each on a digit (``deal``: the board's deal may be keyed)."""

    def __init__(self, *, deal: bool = False) -> None:
        super().__init__()
        self.choices = (*MENU, DEAL_CHOICE) if deal else MENU

    def compose(self) -> ComposeResult:
        """The numbered choices."""
        with Vertical(id="menu", classes="dialog"):
            yield Static(_("Menu"), classes="dialog-title")
            for digit, _action, label in self.choices:
                yield Static(f" {digit}   {_(label)}", classes="dialog-text")
            yield Static(_("Digit = choose    Backspace = back"), classes="dialog-keys")

    def on_key(self, event: events.Key) -> None:
        """A digit chooses; Backspace goes back."""
        key = key_of(event)
        choice = next((action for digit, action, _label in self.choices if digit == key), None)
        if choice is not None:
            event.stop()
            self.dismiss(choice)
        elif key in ("backspace", "escape", "."):
            event.stop()
            self.dismiss(None)


class HelpScreen(ModalScreen[None]):
    """The table card's terminal column (protocol/table_card.py, from the key grammar)."""

    def compose(self) -> ComposeResult:
        """The grammar text."""
        with Vertical(id="help", classes="dialog"):
            yield Static(key_help(), classes="dialog-text", markup=False)
            yield Static(
                _("Any key = close"),
                classes="dialog-keys",
            )

    def on_key(self, event: events.Key) -> None:
        """Any key closes."""
        event.stop()
        self.dismiss(None)
