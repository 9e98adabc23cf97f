"""End of round (§ 262C): every board and its state; no next round while any is unfinished."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.widgets import Digits, Static

from protocol.messages import COMPLETE_STATES, BoardStatus, NextPosition, RoundInfo
from terminal import i18n
from terminal.errors import ClientError
from terminal.i18n import N_, _, ngettext

from .base import TableScreen
from .navigation import ShowBoard, ShowRanking

STATE_WORDS = {
    "missing": N_("MISSING"),
    "entered": N_("EAST TO CONFIRM"),
    "rejected": N_("REJECTED: ENTER AGAIN"),
    "confirmed": N_("confirmed"),
    "td_pending": N_("confirmed, TD ruling"),
    "not_played": N_("not played (TD)"),
    "adjusted": N_("adjusted (TD)"),
    "conflict": N_("CONFLICT: TD CALLED"),
}
#: § 262C1 in the regulations' words (the Danish catalogue has the original text).
REGULATION_END = N_(
    "§ 262C1: When the round's last board is entered, both sides must make sure that no entry "
    "is missing before they leave the table."
)


def contract_text(status: BoardStatus) -> tuple[str, str, str, str]:
    """Contract, declarer, result and N/S score of a board, as short table cells."""
    view = status.result
    if view is None or not view.contract:
        return ("", "", "", "")
    if view.contract == "PASS":
        return (_("Passed out"), "", "", "0")
    contract = i18n.contract(view.contract)
    declarer = i18n.seat_name(view.declarer)
    score = "" if view.ns_score is None else f"{view.ns_score:+d}"
    return (contract, declarer, view.result or "", score)


def unfinished_text(info: RoundInfo) -> str:
    """ "Missing: board 6.  East must confirm: board 7." """
    groups: dict[str, list[str]] = {}
    labels = {
        "missing": _("Missing"),
        "entered": _("East must confirm"),
        "rejected": _("Rejected, enter again"),
        "conflict": _("TD must decide"),
    }
    for status in info.boards:
        if status.state not in COMPLETE_STATES:
            label = labels.get(status.state, _("Unfinished"))
            groups.setdefault(label, []).append(str(status.board))
    parts = []
    for label, boards in groups.items():
        listed = ngettext("board {numbers}", "boards {numbers}", len(boards))
        parts.append(f"{label}: {listed.format(numbers=', '.join(boards))}.")
    return "  ".join(parts)


def next_text(info: RoundInfo) -> str:
    """Where each pair goes next (from the movement); in an individual, each player."""
    return "\n".join(_move_text(position) for position in info.next)


def _move_text(position: NextPosition) -> str:
    if position.player:
        if position.table is None:
            return _("Player {player}: sits out next round.").format(player=position.pair)
        return _("Player {player}: table {table} {seat}, boards {boards}.").format(
            player=position.pair,
            table=position.table,
            seat=i18n.seat_name(position.seat),
            boards=_board_list(position),
        )
    if position.table is None:
        return _("Pair {pair}: sits out next round.").format(pair=position.pair)
    seat = {"NS": " " + _("North-South"), "EW": " " + _("East-West")}.get(position.seat or "", "")
    return _("Pair {pair}: table {table}{seat}, boards {boards}.").format(
        pair=position.pair, table=position.table, seat=seat, boards=_board_list(position)
    )


def _board_list(position: NextPosition) -> str:
    return ", ".join(str(b) for b in position.boards)


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
        ns_side, ew_side = i18n.sides()
        self.query_one("#summary-title", Static).update(
            _(
                "Round {round} of {rounds}  ·  Table {table}  ·  {ns} {ns_pair}  v  {ew} {ew_pair}"
            ).format(
                round=info.round,
                rounds=info.rounds,
                table=info.table,
                ns=ns_side,
                ns_pair=info.ns.label if info.ns else "-",
                ew=ew_side,
                ew_pair=info.ew.label if info.ew else "-",
            )
        )
        table = Table(box=None, pad_edge=False, expand=False, padding=(0, 2))
        columns = (_("Board"), _("Contract"), _("By"), _("Result"), ns_side, _("State"))
        for index, column in enumerate(columns):
            table.add_column(column, justify="right" if index in (0, 4) else "left")
        for status in info.boards:
            cells = contract_text(status)
            state = _(STATE_WORDS[status.state])
            if status.board in self.client.waiting_boards() and not self.client.online:
                state += " " + _("(not sent)")
            bold = "bold" if status.state not in COMPLETE_STATES else ""
            table.add_row(str(status.board), *cells, state, style=bold)
        self.query_one("#summary-table", Static).update(table)
        gate = self.query_one("#gate", Static)
        digits = self.query_one("#gate-digits", Digits)
        detail = self.query_one("#gate-detail", Static)
        unfinished = self.unfinished
        gate.set_class(bool(unfinished), "unfinished")
        if unfinished:
            gate.update(_("NOT FINISHED. Do not leave the table. Boards:"))
            digits.update("  ".join(str(b) for b in unfinished))
            digits.display = True
            detail.update(unfinished_text(info) + "\n" + _(REGULATION_END))
            self.set_hints(
                _("Enter = first unfinished board   / = boards   . = call TD   + = language")
            )
        elif self.unsent:
            self._gate_unsent(info)
        elif info.round >= info.rounds:
            gate.update(done_text(info))
            digits.display = False
            detail.update("")
            if self.client.settings.show_ranking:
                self.set_hints(
                    _("Enter = the ranking   / = boards   . = call the TD   + = language")
                )
            else:
                self.set_hints(_("/ = boards   . = call the TD   + = language"))
        else:
            gate.update(done_text(info))
            digits.display = False
            detail.update(next_text(info))
            self.set_hints(_("Enter = next round   / = boards   . = call the TD   + = language"))

    @property
    def unsent(self) -> list[int]:
        """Boards done at this table whose result (or confirmation) the server has not got."""
        info = self.client.round
        waiting = self.client.waiting_boards()
        return [b.board for b in info.boards if b.board in waiting] if info else []

    def _gate_unsent(self, info: RoundInfo) -> None:
        """§ 262C: every board is done here, but not every result is at the server yet. Say
        exactly that, never "you may move" as if the server had them all."""
        unsent = self.unsent
        listed = ", ".join(str(b) for b in unsent)
        gate = self.query_one("#gate", Static)
        digits = self.query_one("#gate-digits", Digits)
        gate.set_class(True, "unfinished")
        if self.client.online:
            gate.update(
                ngettext(
                    "Sending board {boards} to the server…",
                    "Sending boards {boards} to the server…",
                    len(unsent),
                ).format(boards=listed)
            )
            digits.display = False
            detail = ""
        else:
            gate.update(_("DONE AT THIS TABLE, NOT YET AT THE SERVER. Boards:"))
            digits.update("  ".join(str(b) for b in unsent))
            digits.display = True
            detail = (
                ngettext(
                    "Board {boards} is stored at this table only: the server cannot be "
                    "reached. It is sent as soon as it can be; stay until then, or call the TD.",
                    "Boards {boards} are stored at this table only: the server cannot be "
                    "reached. They are sent as soon as it can be; stay until then, or call "
                    "the TD.",
                    len(unsent),
                ).format(boards=listed)
                + "\n"
                + _(REGULATION_END)
            )
        self.query_one("#gate-detail", Static).update(detail)
        self.set_hints(_("/ = boards   . = call the TD   + = language"))

    def take_key(self, key: str) -> bool:
        """Enter: next round or the first unfinished board; / boards; . call the TD."""
        info = self.client.round
        if info is None:
            return False
        if key == "enter":
            if self.unfinished:
                self.terminal.show(ShowBoard(self.unfinished[0]))
            elif self.unsent:
                return True  # not yet at the server: the gate says so
            elif info.round < info.rounds and not self.busy:
                self.busy = True
                self.say(_("Asking the server for the next round…"))
                self.run_worker(self._next_round(), exclusive=True)
            elif info.round >= info.rounds and self.client.settings.show_ranking:
                self.terminal.show(ShowRanking())
            return True
        if key == "/":
            self.terminal.show(ShowBoard(info.boards[0].board if info.boards else 1))
            return True
        if key == ".":
            reason = "The players ask for the TD at the end of the round."
            if self.unfinished:
                listed = ", ".join(str(b) for b in self.unfinished)
                reason = f"End of round with unfinished boards: {listed}."
            self.client.call_td(reason)
            self.terminal.show_notice(
                _("The TD has been called"), _("Please stay at the table. The TD will come.")
            )
            return True
        return False

    async def _next_round(self) -> None:
        try:
            await self.client.next_round()
        except ClientError as error:
            self.say("")
            self.terminal.show_notice(_("Not yet"), error.message)
        finally:
            self.busy = False


def done_text(info: RoundInfo) -> str:
    """The gate of a round with nothing left to do: every board done, or (a sit-out round, no
    boards at all) nothing to play; the last round says so."""
    if info.round >= info.rounds:
        if not info.boards:
            return _("NO BOARDS: the pair sat out this round. This was the last round. Thank you!")
        return _("ALL BOARDS DONE ✓  This was the last round. Thank you!")
    if not info.boards:
        return _("NO BOARDS: the pair sits out this round. You may move to the next round.")
    return _("ALL BOARDS DONE ✓  You may move to the next round.")
