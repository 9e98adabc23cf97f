"""Round start (§ 262A): table, round, pairs and boards, for the players to check their seats."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from protocol.messages import PairInfo, RoundInfo

from ..client import TableClient
from ..errors import ClientError
from .base import TableScreen


def pair_line(side: str, pair: PairInfo | None) -> str:
    """ "North-South  pair 5   Anna Berg & Carl Dahl" """
    if pair is None:
        return f"{side:<12} (nobody: sit-out)"
    names = " & ".join(pair.names)
    return f"{side:<12} pair {pair.label:<4} {names}"


def boards_text(info: RoundInfo) -> str:
    """ "Boards 5, 6, 7, 8" """
    numbers = [str(b.board) for b in info.boards]
    return ("Boards " if len(numbers) != 1 else "Board ") + ", ".join(numbers)


def numbers_wanted(client: TableClient, info: RoundInfo) -> bool:
    """Whether the event takes membership numbers at the table in this round."""
    mode = client.settings.player_numbers
    return info.round > 0 and (mode == "every_round" or (mode == "first_round" and info.round == 1))


class SeatCheckScreen(TableScreen):
    """Players check table, direction, pair numbers and boards, or call the TD."""

    HINTS = "Enter = we sit right      . = wrong seat: call the TD"
    NUMBER_HINTS = "Enter = we sit right   * = player numbers   . = wrong seat: call the TD"

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
            title.update("Connecting to the server…")
            seating.update("")
            question.update("Please wait. If this takes long, call the TD.")
            self.set_hints(". = call the TD")
            return
        if info.round == 0:
            title.update(f"Table {info.table}")
            seating.update("The TD has not started the first round yet.")
            question.update("Please wait; this screen changes by itself.")
            self.set_hints("Enter = look again      . = call the TD")
            return
        title.update(f"Table {info.table}   ·   Round {info.round} of {info.rounds}")
        seating.update(
            "\n".join(
                [
                    pair_line("North-South", info.ns),
                    pair_line("East-West", info.ew),
                    "",
                    boards_text(info),
                ]
            )
        )
        question.update("Do you sit at the right table, in the right direction?")
        self.set_hints(self.HINTS)
        if numbers_wanted(self.client, info):
            question.update(
                "Do you sit at the right table, in the right direction?\n"
                "Players: press * to key your membership numbers."
            )
            self.set_hints(self.NUMBER_HINTS)

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
            from .players import PlayersScreen

            self.terminal.goto(PlayersScreen())
            return True
        if key == ".":
            self.client.call_td("Wrong seat: the players do not sit as the terminal says.")
            self.terminal.show_notice(
                "The TD has been called", "Please stay at the table. The TD will come."
            )
            return True
        return False

    async def _look_again(self) -> None:
        try:
            await self.client.refresh()
        except ClientError as error:
            self.say(error.message)
