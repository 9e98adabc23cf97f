"""Player numbers: each player keys a membership number, the server names the member, the
players confirm; a visitor types a name instead (full keyboard) or leaves it to the TD."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.widgets import Static

from protocol.messages import PairInfo, PlayerEntry
from terminal import i18n
from terminal.errors import ClientError
from terminal.i18n import N_, _

from .base import TableScreen
from .navigation import ShowSeatCheck

MAX_NUMBER = 12
MAX_NAME = 60
NAME_CHARACTERS = " '-."
KEYING_HINTS = N_("Digits = number   Enter = look up, next   letters = visitor's name   / = back")
CONFIRM_HINTS = N_("Enter = these are our names: store them      Backspace = change      / = back")


@dataclass
class Player:
    """One seat's player as keyed: a membership number and its name, or a visitor's name."""

    seat: Literal["N", "S", "E", "W"]
    side: Literal["NS", "EW"]
    index: int
    current: str
    number: str = ""
    name: str | None = None
    visitor: bool = False

    @property
    def keyed(self) -> bool:
        """Something was keyed for this seat."""
        return bool(self.number or self.visitor)

    def entry(self) -> PlayerEntry:
        """What the server is sent: the number, the visitor's name, or nothing (unchanged)."""
        if self.visitor and self.name:
            return PlayerEntry(name=self.name)
        if self.number and self.name:
            return PlayerEntry(member=self.number)
        return PlayerEntry()


Side = Literal["NS", "EW"]
SeatLetter = Literal["N", "S", "E", "W"]
SEAT_WORDS = {"N": "North", "S": "South", "E": "East", "W": "West"}
SIDES: tuple[Side, Side] = ("NS", "EW")
SEATS_OF: dict[Side, tuple[SeatLetter, SeatLetter]] = {"NS": ("N", "S"), "EW": ("E", "W")}


def players_for(ns: PairInfo | None, ew: PairInfo | None) -> list[Player]:
    """North and South (N/S pair), then East and West (E/W pair), with their present names."""
    out: list[Player] = []
    for side, pair in zip(SIDES, (ns, ew), strict=True):
        if pair is None:
            continue
        for index, seat in enumerate(SEATS_OF[side]):
            current = pair.names[index] if index < len(pair.names) else ""
            out.append(Player(seat, side, index, current))
    return out


class PlayersScreen(TableScreen):
    """Key each player's membership number in turn, see the names, and store them."""

    HINTS = KEYING_HINTS

    def __init__(self) -> None:
        super().__init__()
        self.players: list[Player] = []
        self.at = 0
        self.confirming = False
        self.busy = False

    def compose_body(self) -> ComposeResult:
        """Title, the four players, and what to do."""
        yield Static(_("Player numbers"), id="players-title", classes="title")
        yield Static("", id="players")
        yield Static("", id="players-question", classes="explain")

    def on_mount(self) -> None:
        """Start with North."""
        info = self.client.round
        if info is not None:
            self.players = players_for(info.ns, info.ew)
        self.refresh_body()

    def refresh_body(self) -> None:
        """Draw every seat, the one being keyed marked ▶."""
        info = self.client.round
        if info is not None:
            self.query_one("#players-title", Static).update(
                _("Player numbers  ·  Table {table}  ·  Round {round}").format(
                    table=info.table, round=info.round
                )
            )
        text = Text()
        for position, player in enumerate(self.players):
            active = position == self.at and not self.confirming
            seat = i18n.seat_name(player.seat)
            line = Text(f"{'▶' if active else ' '} {seat:<6} ", style="bold")
            keyed = player.name if player.visitor else player.number
            shown = (keyed or "") + ("_" if active else "")
            line.append(f" {shown or '—':<14}", style="reverse bold" if active else "bold")
            if player.visitor:
                line.append("  " + _("visitor"))
            elif player.name:
                line.append(f"  {player.name}", style="bold")
            elif player.number:
                line.append("  " + _("Enter = look up"))
            elif player.current:
                line.append("  " + _("(now: {name})").format(name=player.current))
            text.append_text(line)
            text.append("\n")
        self.query_one("#players", Static).update(text)
        question = self.query_one("#players-question", Static)
        if self.confirming:
            question.update(_("Are these your names? The TD sees them at once."))
            self.set_hints(_(CONFIRM_HINTS))
        else:
            question.update(
                _("Each player: key your membership number, then Enter. No number? Enter skips.")
            )
            self.set_hints(_(KEYING_HINTS))

    # ------------------------------------------------------------------ keys

    def on_key(self, event: events.Key) -> None:
        """Letters (and, in a name, space ' - .) type a visitor's name; the rest as usual."""
        char = event.character or ""
        player = self._player()
        naming = player is not None and player.visitor
        if (
            not self.confirming
            and not self.busy
            and player is not None
            and len(char) == 1
            and (char.isalpha() or (naming and char in NAME_CHARACTERS))
        ):
            event.stop()
            event.prevent_default()
            self._type(player, char)
            return
        super().on_key(event)

    def _player(self) -> Player | None:
        return self.players[self.at] if 0 <= self.at < len(self.players) else None

    def _type(self, player: Player, char: str) -> None:
        if not player.visitor:
            player.visitor, player.number, player.name = True, "", ""
        if len(player.name or "") < MAX_NAME:
            player.name = (player.name or "") + char
        self.say("")
        self.refresh_body()

    def take_key(self, key: str) -> bool:
        """Digits, Enter, Backspace and / (back to the seat check)."""
        if self.busy:
            return True
        if key in ("/", "escape"):
            self._leave()
        elif self.confirming:
            if key == "enter":
                self.busy = True
                self.say(_("Storing the names…"))
                self.run_worker(self._store(), exclusive=True)
            elif key == "backspace":
                self.confirming = False
                self.at = len(self.players) - 1
                self.refresh_body()
        elif key.isdigit():
            self._digit(key)
        elif key == "backspace":
            self._backspace()
        elif key == "enter":
            self._next()
        else:
            return False
        return True

    def _digit(self, key: str) -> None:
        player = self._player()
        if player is None or player.visitor:
            return
        if len(player.number) < MAX_NUMBER:
            player.number += key
            player.name = None
        self.say("")
        self.refresh_body()

    def _backspace(self) -> None:
        player = self._player()
        if player is None:
            return
        if player.visitor and player.name:
            player.name = player.name[:-1]
            if not player.name:
                player.visitor, player.name = False, None
        elif player.number:
            player.number, player.name = player.number[:-1], None
        elif self.at > 0:
            self.at -= 1
        self.refresh_body()

    def _next(self) -> None:
        player = self._player()
        if player is not None and player.number and player.name is None:
            self.busy = True
            self.say(_("Looking up the number…"))
            self.run_worker(self._look_up(player), exclusive=True)
            return
        self._advance()

    def _advance(self) -> None:
        self.at += 1
        if self.at >= len(self.players):
            if any(p.keyed for p in self.players):
                self.confirming = True
            else:
                self._leave()
                return
        self.refresh_body()

    async def _look_up(self, player: Player) -> None:
        try:
            found = await self.client.lookup_member(player.number)
        except ClientError as error:
            self.busy = False
            self.say(error.message)
            return
        self.busy = False
        player.name = found.name
        self.say("")
        self._advance()

    async def _store(self) -> None:
        try:
            for side in SIDES:
                seated = [p for p in self.players if p.side == side]
                if any(p.keyed for p in seated):
                    await self.client.set_players(side, [p.entry() for p in seated])
        except ClientError as error:
            self.busy = False
            self.say(error.message)
            return
        self.busy = False
        self._leave(_("Names stored. Please check them, then Enter."))

    def _leave(self, message: str = "") -> None:
        self.terminal.show(ShowSeatCheck(message))
