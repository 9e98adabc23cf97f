"""What the auction and the play dialogs share: a board's calls or cards keyed one by
one in the one grammar (protocol/keys_play.py). The keys of the call or card being made are
kept until it is whole; a key that does not fit, or a call or card the bridge domain refuses,
is said in plain words and the keys start again; Backspace takes back a key, then the last
call or card, then goes back to the board; the dialog is dismissed with the text once the
auction or the play has ended, None on Escape.

A dialog names its parts (``DIALOG`` is its id; its message line and key hints are
``#<id>-message`` and ``#<id>-keys``) and says how its keys read (:meth:`KeyedDialog.read`),
what a whole call or card does (:meth:`KeyedDialog.add`) and how it is drawn."""

from __future__ import annotations

from typing import Generic, TypeVar

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from protocol.bridge import BridgeError
from protocol.keys import KeyRefusedError
from terminal.bridge_words import key_hint

from .base import key_of

#: A call (the auction) or a card or claim (the play).
Item = TypeVar("Item")


class KeyedDialog(ModalScreen[str | None], Generic[Item]):
    """A board's calls or cards keyed one by one; dismissed with their text once ended."""

    #: The dialog's id (and the prefix of its message line's and key hints' ids).
    DIALOG = ""
    #: The bridge domain's refusal of a call or card, said with :meth:`refusal`.
    REFUSED: type[BridgeError] = BridgeError

    def __init__(self, board: int) -> None:
        super().__init__()
        self.board = board
        self.keys: tuple[str, ...] = ()

    # ------------------------------------------------------------------ what a dialog says

    def heading(self) -> str:
        """The dialog's title, in the language in use."""
        raise NotImplementedError

    def compose_lines(self) -> ComposeResult:
        """The dialog's own lines, between the title and the message line."""
        raise NotImplementedError

    def show_lines(self) -> None:
        """Redraw the dialog's own lines."""
        raise NotImplementedError

    def hints(self) -> str:
        """The key hints, in the language in use."""
        raise NotImplementedError

    def take_key(self, key: str) -> None:
        """A key other than Escape and Backspace."""
        raise NotImplementedError

    def read(self, keys: tuple[str, ...]) -> Item | None:
        """The call or card ``keys`` make, None while it is not whole (KeyRefusedError, or
        :attr:`REFUSED`, when it cannot be)."""
        raise NotImplementedError

    def add(self, item: Item) -> None:
        """Make the call or play the card (:attr:`REFUSED` when the bridge domain refuses it)."""
        raise NotImplementedError

    def finished(self) -> str | None:
        """The text to dismiss with once the auction or the play has ended, else None."""
        raise NotImplementedError

    def refusal(self, error: BridgeError) -> str:
        """A call or card refused, in plain words."""
        raise NotImplementedError

    def take_back(self) -> bool:
        """Take back the last call or card; False when there is none."""
        raise NotImplementedError

    # ------------------------------------------------------------------ the scaffolding

    def compose(self) -> ComposeResult:
        """The title, the dialog's own lines, a message line and the keys."""
        with Vertical(id=self.DIALOG, classes="dialog"):
            yield Static(self.heading(), classes="dialog-title")
            yield from self.compose_lines()
            yield Static("", id=f"{self.DIALOG}-message", classes="dialog-text", markup=False)
            yield Static("", id=f"{self.DIALOG}-keys", classes="dialog-keys")

    def on_mount(self) -> None:
        """Draw the dialog."""
        self.show()

    def show(self, message: str = "") -> None:
        """Redraw the dialog with ``message`` on its message line."""
        self.show_lines()
        self.query_one(f"#{self.DIALOG}-message", Static).update(message)
        self.query_one(f"#{self.DIALOG}-keys", Static).update(self.hints())

    def on_key(self, event: events.Key) -> None:
        """Escape goes back, Backspace takes back; the dialog takes every other key."""
        key = key_of(event)
        event.stop()
        event.prevent_default()
        if key == "escape":
            self.dismiss(None)
        elif key == "backspace":
            self.undo()
        else:
            self.take_key(key)

    def press(self, key: str) -> None:
        """One key of a call or card; the dialog is dismissed as soon as it has ended."""
        keys = (*self.keys, key)
        try:
            item = self.read(keys)
        except KeyRefusedError as refusal:
            self.keys = ()
            self.show(key_hint(refusal))
            return
        except self.REFUSED as error:
            self.keys = ()
            self.show(self.refusal(error))
            return
        if item is None:
            self.keys = keys
            self.show()
            return
        self.keys = ()
        try:
            self.add(item)
        except self.REFUSED as error:
            self.show(self.refusal(error))
            return
        text = self.finished()
        if text is not None:
            self.dismiss(text)
            return
        self.show()

    def undo(self) -> None:
        """Backspace: a key of the call or card being made, else the last one, else back."""
        if self.keys:
            self.keys = self.keys[:-1]
        elif not self.take_back():
            self.dismiss(None)  # nothing keyed: back to the board
            return
        self.show()
