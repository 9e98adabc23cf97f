"""Pairing: the TD's code for this table, keyed once; the terminal then remembers its token."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from terminal.errors import ClientError
from terminal.i18n import N_, _

from .base import TableScreen
from .navigation import ShowSeatCheck

MAX_CODE = 12


class PairingScreen(TableScreen):
    """Key the pairing code the TD shows for this table, then Enter."""

    HINTS = N_("Digits = code    Backspace = delete    Enter = pair    + = language")

    def __init__(self, reason: str = "") -> None:
        super().__init__()
        self.code = ""
        self.reason = reason
        self.busy = False

    def compose_body(self) -> ComposeResult:
        """Title, the code keyed so far, and what to do."""
        yield Static(_("Pair this terminal with its table"), classes="title")
        yield Static(
            _("Key the pairing code the TD shows for this table, then press Enter."),
            classes="explain",
        )
        yield Static("", id="code")
        # Below the code, in the flow, so that a long refusal ("No table has the pairing code
        # ... ask the TD for the table's current code") wraps whole at 80 columns.
        yield Static("", id="pairing-message", classes="explain", markup=False)

    def on_mount(self) -> None:
        """Show the reason for pairing again, if any."""
        self._show_code()
        if self.reason:
            self.say(self.reason)

    def relabelled(self) -> None:
        """Redraw the code keyed so far."""
        self._show_code()

    def say(self, text: str) -> None:
        """Show a message under the code, wrapped over as many lines as it needs."""
        self.query_one("#pairing-message", Static).update(text)

    def _show_code(self) -> None:
        self.query_one("#code", Static).update(_("Code:") + f"  {self.code or '_'}")

    def take_key(self, key: str) -> bool:
        """Digits build the code; Backspace deletes; Enter pairs."""
        if self.busy:
            return True
        if len(key) == 1 and key.isalnum():
            if len(self.code) < MAX_CODE:
                self.code += key.upper()
                self._show_code()
            return True
        if key == "backspace":
            self.code = self.code[:-1]
            self._show_code()
            return True
        if key == "enter":
            if len(self.code) < 4:
                self.code = ""  # the next digits start a new code, not "12" + "105496"
                self._show_code()
                self.say(_("A pairing code has at least 4 digits."))
            else:
                self.busy = True
                self.say(_("Pairing…"))
                self.run_worker(self._pair(self.code), exclusive=True)
            return True
        return False

    async def _pair(self, code: str) -> None:
        try:
            await self.client.pair(code, self.terminal.device)
        except ClientError as error:
            self.busy = False
            self.code = ""
            self._show_code()
            self.say(error.message)
            return
        self.terminal.show(ShowSeatCheck())
