"""Two small dialogs: "are you sure?" before sending, and the TD's code for "not played"."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from terminal.client import TableClient
from terminal.errors import ClientError
from terminal.i18n import _

from .base import key_of

MAX_CODE = 8


class QuestionScreen(ModalScreen[bool]):
    """A yes/no question in large text: Enter = yes, Backspace (or -) = no."""

    def __init__(self, title: str, text: str, yes: str, no: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text
        self.yes = yes
        self.no = no

    def compose(self) -> ComposeResult:
        """Title, question, keys."""
        with Vertical(id="question", classes="dialog"):
            yield Static(self.title_text, classes="dialog-title")
            yield Static(self.text, classes="dialog-text big", markup=False)
            yield Static(
                _("Enter = {yes}\nBackspace = {no}").format(yes=self.yes, no=self.no),
                classes="dialog-keys",
            )

    def on_key(self, event: events.Key) -> None:
        """Enter answers yes; Backspace, - or Escape answer no."""
        key = key_of(event)
        event.stop()
        if key == "enter":
            self.dismiss(True)
        elif key in ("backspace", "-", "escape"):
            self.dismiss(False)


class TdCodeScreen(ModalScreen[bool]):
    """The TD keys the section's code to mark a board not played at this table."""

    def __init__(self, client: TableClient, board: int) -> None:
        super().__init__()
        self.client = client
        self.board = board
        self.code = ""
        self.busy = False

    def compose(self) -> ComposeResult:
        """What will happen, the code (hidden) and the keys."""
        with Vertical(id="td-code", classes="dialog"):
            yield Static(_("TD ONLY: board not played"), classes="dialog-title")
            yield Static(
                _(
                    "Board {board} will count as NOT PLAYED at this table.\n"
                    "TD: key your code, then Enter."
                ).format(board=self.board),
                classes="dialog-text",
            )
            yield Static("", id="td-code-field")
            yield Static("", id="td-code-message", classes="dialog-text")
            yield Static(
                _("Enter = mark it    Backspace = delete    / = back"), classes="dialog-keys"
            )

    def on_mount(self) -> None:
        """Show the empty code."""
        self._show()

    def _show(self) -> None:
        self.query_one("#td-code-field", Static).update(
            _("TD code:") + f"  {'•' * len(self.code) or '_'}"
        )

    def _say(self, text: str) -> None:
        self.query_one("#td-code-message", Static).update(text)

    def on_key(self, event: events.Key) -> None:
        """Digits key the code; Enter sends it; Backspace deletes; / goes back."""
        key = key_of(event)
        event.stop()
        if self.busy:
            return
        if key.isdigit() and len(self.code) < MAX_CODE:
            self.code += key
            self._show()
        elif key == "backspace":
            if not self.code:
                self.dismiss(False)
                return
            self.code = self.code[:-1]
            self._show()
        elif key in ("/", "escape"):
            self.dismiss(False)
        elif key == "enter" and self.code:
            self.busy = True
            self._say(_("Asking the server…"))
            self.run_worker(self._send(self.code), exclusive=True)

    async def _send(self, code: str) -> None:
        try:
            await self.client.mark_not_played(self.board, code)
        except ClientError as error:
            self.busy = False
            self.code = ""
            self._show()
            self._say(error.message)
            return
        self.dismiss(True)
