"""Round start (§ 262A): table, round, pairs and boards, for the players to check their seats."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from protocol.messages import PairInfo, RoundInfo
from terminal.client import TableClient
from terminal.errors import ClientError
from terminal.i18n import N_, _, ngettext

from .base import TableScreen
from .navigation import ShowPlayers


def pair_line(side: str, pair: PairInfo | None) -> str:
    """ "North-South  pair 5   Anna Berg & Carl Dahl" """
    if pair is None:
        return f"{side:<12} " + _("(nobody: sit-out)")
    names = " & ".join(pair.names)
    return f"{side:<12} " + _("pair {label}").format(label=f"{pair.label:<4}") + f" {names}"


def boards_text(info: RoundInfo) -> str:
    """ "Boards 5, 6, 7, 8", or at a table with nobody on one side that the pair sits out."""
    numbers = [str(b.board) for b in info.boards]
    if not numbers and info.round > 0 and (info.ns is None or info.ew is None):
        return _("No boards: the pair sits out this round.")
    return ngettext("Board {numbers}", "Boards {numbers}", len(numbers)).format(
        numbers=", ".join(numbers)
    )


def numbers_wanted(client: TableClient, info: RoundInfo) -> bool:
    """Whether the event takes membership numbers at the table in this round."""
    mode = client.settings.player_numbers
    return info.round > 0 and (mode == "every_round" or (mode == "first_round" and info.round == 1))


#: § 262A in the regulations' words (the Danish catalogue has the original text).
REGULATION_START = N_(
    "§ 262A: At the start of the round the players should use the terminal's information to "
    "confirm that they sit right."
)


class SeatCheckScreen(TableScreen):
    """Players check table, direction, pair numbers and boards, or call the TD."""

    HINTS = N_("Enter = we sit right   . = wrong seat: call the TD   + = language")
    NUMBER_HINTS = N_(
        "Enter = seats right   * = player numbers   . = wrong seat: TD   + = language"
    )

    def __init__(self, message: str = "") -> None:
        super().__init__()
        self.message = message

    def compose_body(self) -> ComposeResult:
        """Title and the round's seating."""
        yield Static("", id="seat-title", classes="title")
        yield Static("", id="seating", markup=False)
        yield Static("", id="seat-question", classes="explain")

    def on_mount(self) -> None:
        """Draw the round (or say what is awaited)."""
        self.refresh_body()
        if self.message:
            self.say(self.message)

    def refresh_body(self) -> None:
        """Redraw from the client's round."""
        info = self.client.round
        title = self.query_one("#seat-title", Static)
        seating = self.query_one("#seating", Static)
        question = self.query_one("#seat-question", Static)
        if info is None:
            title.update(_("Connecting to the server…"))
            seating.update("")
            question.update(_("Please wait. If this takes long, call the TD."))
            self.set_hints(_(". = call the TD   + = language"))
            return
        if info.round == 0:
            title.update(_("Table {table}").format(table=info.table))
            seating.update(_("The TD has not started the first round yet."))
            question.update(_("Please wait; this screen changes by itself."))
            self.set_hints(_("Enter = look again   . = call the TD   + = language"))
            return
        title.update(
            _("Table {table}   ·   Round {round} of {rounds}").format(
                table=info.table, round=info.round, rounds=info.rounds
            )
        )
        seating.update(
            "\n".join(
                [
                    pair_line(_("North-South"), info.ns),
                    pair_line(_("East-West"), info.ew),
                    "",
                    boards_text(info),
                ]
            )
        )
        lines = [_(REGULATION_START), _("Do you sit at the right table, in the right direction?")]
        self.set_hints(_(self.HINTS))
        if numbers_wanted(self.client, info):
            lines.append(_("Players: press * to key your membership numbers."))
            self.set_hints(_(self.NUMBER_HINTS))
        question.update("\n".join(lines))

    def take_key(self, key: str) -> bool:
        """Enter confirms the seats; . calls the TD."""
        info = self.client.round
        if key == "enter":
            if info is not None and info.round > 0:
                self.terminal.seats_confirmed()
            else:
                self.run_worker(self._look_again(), exclusive=True)
            return True
        if key == "*" and info is not None and numbers_wanted(self.client, info):
            self.terminal.show(ShowPlayers())
            return True
        if key == ".":
            self.client.call_td("Wrong seat: the players do not sit as the terminal says.")
            self.terminal.show_notice(
                _("The TD has been called"), _("Please stay at the table. The TD will come.")
            )
            return True
        return False

    async def _look_again(self) -> None:
        try:
            await self.client.refresh()
        except ClientError as error:
            self.say(error.message)
