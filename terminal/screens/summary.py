"""End of round (§ 262C): every board and its state; no next round while any is unfinished."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.widgets import Digits, Static

from protocol.messages import COMPLETE_STATES, BoardStatus, RoundInfo

from ..errors import ClientError
from ..keypad import SEAT_NAMES, SYMBOLS
from .base import TableScreen

STATE_WORDS = {
    "missing": "MISSING",
    "entered": "EAST TO CONFIRM",
    "rejected": "REJECTED: ENTER AGAIN",
    "confirmed": "confirmed",
    "td_pending": "confirmed, TD ruling",
    "not_played": "not played (TD)",
    "adjusted": "adjusted (TD)",
    "conflict": "CONFLICT: TD CALLED",
}


def contract_text(status: BoardStatus) -> tuple[str, str, str, str]:
    """Contract, declarer, result and N/S score of a board, as short table cells."""
    view = status.result
    if view is None or not view.contract:
        return ("", "", "", "")
    if view.contract == "PASS":
        return ("Passed out", "", "", "0")
    level, rest = view.contract[0], view.contract[1:]
    strain = rest.rstrip("X")
    contract = level + SYMBOLS.get(strain, strain) + rest[len(strain) :]
    declarer = SEAT_NAMES.get(view.declarer or "", "")
    score = "" if view.ns_score is None else f"{view.ns_score:+d}"
    return (contract, declarer, view.result or "", score)


def unfinished_text(info: RoundInfo) -> str:
    """ "Missing: board 6.  East must confirm: board 7." """
    groups: dict[str, list[str]] = {}
    labels = {
        "missing": "Missing",
        "entered": "East must confirm",
        "rejected": "Rejected, enter again",
        "conflict": "TD must decide",
    }
    for status in info.boards:
        if status.state not in COMPLETE_STATES:
            groups.setdefault(labels.get(status.state, "Unfinished"), []).append(str(status.board))
    parts = []
    for label, boards in groups.items():
        word = "boards" if len(boards) > 1 else "board"
        parts.append(f"{label}: {word} {', '.join(boards)}.")
    return "  ".join(parts)


def next_text(info: RoundInfo) -> str:
    """Where each pair goes next (from the movement)."""
    lines = []
    for position in info.next:
        if position.table is None:
            lines.append(f"Pair {position.pair}: sits out next round.")
            continue
        seat = {"NS": " North-South", "EW": " East-West"}.get(position.seat or "", "")
        boards = ", ".join(str(b) for b in position.boards)
        lines.append(f"Pair {position.pair}: table {position.table}{seat}, boards {boards}.")
    return "\n".join(lines)


class SummaryScreen(TableScreen):
    """All boards of the round with their states; the gate to the next round."""

    def __init__(self) -> None:
        super().__init__()
        self.busy = False

    def compose_body(self) -> ComposeResult:
        """The board table, the gate in large text, and where the pairs go next."""
        yield Static("", id="summary-title", classes="title")
        yield Static("", id="summary-table")
        yield Static("", id="gate", classes="big")
        yield Digits("", id="gate-digits")
        yield Static("", id="gate-detail")

    def on_mount(self) -> None:
        """Draw the round."""
        self.refresh_body()

    @property
    def unfinished(self) -> list[int]:
        """Boards not yet confirmed or settled."""
        info = self.client.round
        if info is None:
            return []
        return [b.board for b in info.boards if b.state not in COMPLETE_STATES]

    def refresh_body(self) -> None:
        """Redraw from the client's round."""
        info = self.client.round
        if info is None:
            return
        self.query_one("#summary-title", Static).update(
            f"Round {info.round} of {info.rounds}  ·  Table {info.table}  ·  "
            f"N/S {info.ns.label if info.ns else '-'}  v  E/W {info.ew.label if info.ew else '-'}"
        )
        table = Table(box=None, pad_edge=False, expand=False, padding=(0, 2))
        for column in ("Board", "Contract", "By", "Result", "N/S", "State"):
            table.add_column(column, justify="right" if column in ("Board", "N/S") else "left")
        for status in info.boards:
            cells = contract_text(status)
            state = STATE_WORDS[status.state]
            if status.board in self.client.waiting_boards() and not self.client.online:
                state += " (not sent)"
            bold = "bold" if status.state not in COMPLETE_STATES else ""
            table.add_row(str(status.board), *cells, state, style=bold)
        self.query_one("#summary-table", Static).update(table)
        gate = self.query_one("#gate", Static)
        digits = self.query_one("#gate-digits", Digits)
        detail = self.query_one("#gate-detail", Static)
        unfinished = self.unfinished
        gate.set_class(bool(unfinished), "unfinished")
        if unfinished:
            gate.update("NOT FINISHED. Do not leave the table. Boards:")
            digits.update("  ".join(str(b) for b in unfinished))
            digits.display = True
            detail.update(unfinished_text(info))
            self.set_hints("Enter = go to the first unfinished board   / = boards   . = call TD")
        elif info.round >= info.rounds:
            gate.update("ALL BOARDS DONE ✓  This was the last round. Thank you!")
            digits.display = False
            detail.update("")
            if self.client.settings.show_ranking:
                self.set_hints("Enter = the ranking   / = boards   . = call the TD")
            else:
                self.set_hints("/ = boards   . = call the TD")
        else:
            gate.update("ALL BOARDS DONE ✓  You may move to the next round.")
            digits.display = False
            detail.update(next_text(info))
            self.set_hints("Enter = next round   / = boards   . = call the TD")

    def take_key(self, key: str) -> bool:
        """Enter: next round or the first unfinished board; / boards; . call the TD."""
        info = self.client.round
        if info is None:
            return False
        if key == "enter":
            if self.unfinished:
                from .board_entry import BoardEntryScreen

                self.terminal.goto(BoardEntryScreen(self.unfinished[0]))
            elif info.round < info.rounds and not self.busy:
                self.busy = True
                self.say("Asking the server for the next round…")
                self.run_worker(self._next_round(), exclusive=True)
            elif info.round >= info.rounds and self.client.settings.show_ranking:
                from .ranking import RankingScreen

                self.terminal.goto(RankingScreen())
            return True
        if key == "/":
            from .board_entry import BoardEntryScreen

            self.terminal.goto(BoardEntryScreen(info.boards[0].board if info.boards else 1))
            return True
        if key == ".":
            reason = "The players ask for the TD at the end of the round."
            if self.unfinished:
                listed = ", ".join(str(b) for b in self.unfinished)
                reason = f"End of round with unfinished boards: {listed}."
            self.client.call_td(reason)
            self.terminal.show_notice(
                "The TD has been called", "Please stay at the table. The TD will come."
            )
            return True
        return False

    async def _next_round(self) -> None:
        try:
            await self.client.next_round()
        except ClientError as error:
            self.say("")
            self.terminal.show_notice("Not yet", error.message)
        finally:
            self.busy = False
