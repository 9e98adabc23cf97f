"""What every full screen shares: the status line, a message line, key hints, and key names."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from terminal.client import TableClient
from terminal.i18n import _
from terminal.widgets.status_line import StatusLine

from .navigation import TableTerminal, terminal_of

#: Textual key names -> the keypad's own names (digits and letters pass through).
KEY_NAMES = {
    "enter": "enter",
    "return": "enter",
    "backspace": "backspace",
    "delete": "backspace",
    "escape": "escape",
    "left": "left",
    "right": "right",
    "up": "up",
    "down": "down",
    "plus": "+",
    "minus": "-",
    "asterisk": "*",
    "slash": "/",
    "full_stop": ".",
    "comma": ".",
    "equals_sign": "=",
}


def key_of(event: events.Key) -> str:
    """The key as the screens name it: a digit, + - * / . =, a letter, or enter/backspace/arrows."""
    if event.key in KEY_NAMES:
        return KEY_NAMES[event.key]
    if event.character and event.character.isprintable() and len(event.character) == 1:
        return {"−": "-", "×": "*", "÷": "/"}.get(event.character, event.character.lower())
    return event.key


class TableScreen(Screen[None]):
    """A full screen: status line on top, then the screen's body, a message line and key hints."""

    HINTS = ""

    @property
    def terminal(self) -> TableTerminal:
        """The app, as far as a screen may ask it (terminal/screens/navigation.py)."""
        return terminal_of(self.app)

    @property
    def client(self) -> TableClient:
        """The server client."""
        return self.terminal.client

    def compose(self) -> ComposeResult:
        """Status line, body, message line, key hints."""
        yield StatusLine(self.client)
        yield from self.compose_body()
        yield Static("", id="message", markup=False)
        yield Static(_(self.HINTS), id="hints")

    def compose_body(self) -> ComposeResult:
        """The screen's own widgets."""
        yield from ()

    def client_changed(self) -> None:
        """The client's state changed: redraw (once the screen is composed)."""
        if not self.is_mounted or not self.query("#hints"):
            return
        for line in self.query(StatusLine):
            line.refresh_status()
        self.refresh_body()

    def refresh_body(self) -> None:
        """Redraw the screen's own widgets from the client."""

    async def relabel(self) -> None:
        """The language changed: compose the screen again and redraw what it shows."""
        await self.recompose()
        self.relabelled()

    def relabelled(self) -> None:
        """After :meth:`relabel`: redraw the body (screens with more state add to this)."""
        self.refresh_body()

    def say(self, text: str) -> None:
        """Show a message in plain words above the key hints."""
        self.query_one("#message", Static).update(text)

    def set_hints(self, text: str) -> None:
        """Change the key hints."""
        self.query_one("#hints", Static).update(text)

    def on_key(self, event: events.Key) -> None:
        """Hand the key to :meth:`take_key`; a key it takes goes no further. A ``+`` no screen
        wants switches the language (remembered for this table)."""
        key = key_of(event)
        if self.take_key(key):
            event.stop()
            event.prevent_default()
        elif key == "+":
            event.stop()
            event.prevent_default()
            self.run_worker(self.terminal.switch_language(), group="language")

    def take_key(self, key: str) -> bool:
        """Act on one key; True when it was used."""
        return False
