"""What a screen may ask of the app: the places a table goes to, and the few services the app
gives every screen.

A screen names the place to go (``ShowBoard(3)``, ``ShowSummary()``); the app
(terminal/app.py, ``TravellerTerminal.show``) builds the screen for it and decides how it is
shown. The screens never import the app nor each other to move on, so the import graph runs one
way: app -> screens -> navigation (tests/test_no_cycles.py). A small dialog a screen opens over
itself for an answer (East's confirmation, the menu, "are you sure?") is the screen's own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, cast

from textual.app import App

from terminal.client import TableClient


@dataclass(frozen=True)
class ShowPairing:
    """Key the TD's pairing code (``reason``: why this terminal is not paired any more)."""

    reason: str = ""


@dataclass(frozen=True)
class ShowSeatCheck:
    """The players check table, direction and pair numbers before the round (``message``:
    shown under the question)."""

    message: str = ""


@dataclass(frozen=True)
class ShowPlayers:
    """The players key their membership numbers (or visitors' names)."""


@dataclass(frozen=True)
class ShowBoard:
    """One board of the round (``ask_east``: open East's confirmation if it waits for East)."""

    board: int
    ask_east: bool = False


@dataclass(frozen=True)
class ShowReport:
    """A board's score, traveller or deal (``after_confirm``: just confirmed, Enter goes on to
    the next board; else back to the board)."""

    board: int
    after_confirm: bool


@dataclass(frozen=True)
class ShowSummary:
    """The round summary and the round gate (§ 262C)."""


@dataclass(frozen=True)
class ShowRanking:
    """The ranking, once this table's last round is done."""


#: Every place a screen may ask for.
Place = (
    ShowPairing | ShowSeatCheck | ShowPlayers | ShowBoard | ShowReport | ShowSummary | ShowRanking
)


class TableTerminal(Protocol):
    """What a screen may ask of the app (``TravellerTerminal`` gives it)."""

    @property
    def client(self) -> TableClient:
        """The server client."""
        ...

    @property
    def device(self) -> str:
        """The name the TD sees for this terminal."""
        ...

    @property
    def confirm_guard(self) -> float:
        """Seconds after East's dialog opens in which Enter is ignored."""
        ...

    def show(self, place: Place) -> None:
        """Go to ``place`` (closing any dialog on top of the current screen)."""

    def goto_next_board(self, after: int | None = None, *, ask_east: bool = False) -> None:
        """The next board not finished (after ``after``), else the round summary."""

    def seats_confirmed(self) -> None:
        """The players confirmed their seats: on to the first board still to do."""

    def show_notice(self, title: str, text: str) -> None:
        """A message in large text that stays until a key is pressed."""

    async def switch_language(self) -> None:
        """The next language, remembered for this table, every screen redrawn."""


def terminal_of(app: App[object]) -> TableTerminal:
    """The app as the screens see it (it is a ``TravellerTerminal``; mypy checks in
    terminal/app.py that it gives all of :class:`TableTerminal`)."""
    return cast("TableTerminal", app)
