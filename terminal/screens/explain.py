"""The explanation of an alerted call, typed on the terminal's keyboard (protocol/alerts.py):
one short line, the characters a name may not hold refused as they come (protocol/text.py),
typed or pasted. Enter keeps it (an empty one leaves the call with its alert alone), Escape
goes back to the auction without changing it. The keypad keys no text: its alerts stay
"Alert" (protocol/keys.md)."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from protocol.alerts import ALERT_TEXT
from protocol.text import code_point, is_line_break, refused
from terminal.i18n import N_, _

HINTS = N_("Type the explanation   Enter = keep it   Backspace = delete   Escape = back")


class ExplainScreen(ModalScreen[str | None]):
    """Type what an alerted call means; dismissed with the text (stripped), None on Escape."""

    def __init__(self, board: int, call: str, text: str = "") -> None:
        super().__init__()
        self.board = board
        self.call = call
        self.text = text

    def compose(self) -> ComposeResult:
        """The title, the text being typed, a message line and the keys."""
        with Vertical(id="explain", classes="dialog"):
            yield Static(
                _("Board {board}: explain {call}").format(board=self.board, call=self.call),
                classes="dialog-title",
                markup=False,
            )
            yield Static("", id="explain-text", classes="dialog-text", markup=False)
            yield Static("", id="explain-message", classes="dialog-text", markup=False)
            yield Static(_(HINTS), id="explain-keys", classes="dialog-keys")

    def on_mount(self) -> None:
        """Show the text so far."""
        self.show()

    def show(self, message: str = "") -> None:
        """Redraw the text, with ``message`` on the message line."""
        self.query_one("#explain-text", Static).update(f"{self.text}_")
        self.query_one("#explain-message", Static).update(message)

    def on_key(self, event: events.Key) -> None:
        """Characters type, Backspace deletes, Enter keeps the text, Escape goes back."""
        event.stop()
        event.prevent_default()
        if event.key == "escape":
            self.dismiss(None)
        elif event.key in ("enter", "return"):
            self.dismiss(self.text.strip())
        elif event.key in ("backspace", "delete"):
            self.text = self.text[:-1]
            self.show()
        elif event.character and event.is_printable:
            self.type(event.character)

    def on_paste(self, event: events.Paste) -> None:
        """Pasted text is typed as keys are, and refused as a whole on a bad character."""
        event.stop()
        self.type(event.text)

    def type(self, text: str) -> None:
        """Add ``text`` to the explanation, or say why it cannot be taken."""
        char = refused(text)
        if char is not None:
            if is_line_break(char):
                self.show(_("An explanation is one line."))
            else:
                self.show(
                    _("The character {point} cannot stand in an explanation.").format(
                        point=code_point(char)
                    )
                )
            return
        if len(self.text) + len(text) > ALERT_TEXT:
            self.show(_("An explanation has at most {count} characters.").format(count=ALERT_TEXT))
            return
        self.text += text
        self.show()
