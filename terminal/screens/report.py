"""After East confirms: the table's score on the board, the board's traveller, or the deal.

The server answers only for a board this table has played and confirmed, and only with the
results entered so far; the terminal asks once the confirmation has reached the server.
"""

from __future__ import annotations

import asyncio
import contextlib

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from protocol.messages import BoardReport, TravellerLineView
from terminal import i18n
from terminal.errors import ClientError
from terminal.hands import deal_lines, makeable_text
from terminal.i18n import _, ngettext
from terminal.keypad import SYMBOLS

from .base import TableScreen
from .confirm import view_words
from .navigation import ShowBoard, ShowSummary

#: How long to wait for the confirmation to reach the server before asking.
DELIVERY_WAIT = 5.0


def contract_cell(row: TravellerLineView) -> str:
    """ "4♠X" from "4♠X" or "4SX" (the server already uses symbols); notrump in local letters."""
    text = row.contract or ""
    for letter, symbol in SYMBOLS.items():
        if letter != "NT" and len(text) > 1 and text[1:].startswith(letter):
            return text[0] + symbol + text[1 + len(letter) :]
    if len(text) > 1 and text[1:].startswith("NT"):
        return text[0] + i18n.strain("NT") + text[3:]
    return text


def percent_text(value: float | None) -> str:
    """ "62 %" (as the language writes it: "62,5 %" in Danish)"""
    return i18n.percent(value)


def score_text(report: BoardReport) -> str:
    """The table's score on the board: percentages, or the score in the event's unit."""
    ns, ew = i18n.sides()
    if report.ns_percent is not None and report.ew_percent is not None:
        return f"{ns} {percent_text(report.ns_percent)}      {ew} {percent_text(report.ew_percent)}"
    if report.ns_value is not None:
        return f"{ns} {report.ns_value} {report.unit}      {ew} {report.ew_value} {report.unit}"
    return _("Not scored yet.")


def count_text(report: BoardReport) -> str:
    """How many results the score is made of; a lone result says why both sides have 60 %."""
    if report.results == 1 and report.ns_percent is not None:
        return _("the only result so far: a lone result scores 60 % for each side (§ X78B)")
    return ngettext("{num} result so far", "{num} results so far", report.results).format(
        num=report.results
    )


def traveller_table(report: BoardReport) -> Table:
    """Every result entered so far; this table's line in reverse."""
    table = Table(box=None, pad_edge=False, expand=False, padding=(0, 1))
    ns, ew = i18n.sides()
    scores = tuple(_("{side} score").format(side=side) for side in (ns, ew))
    columns = (_("Table"), ns, ew, _("Contract"), _("By"), _("Lead"), _("Result"), *scores)
    for index, column in enumerate((*columns, f"{ns} %")):
        table.add_column(column, justify="right" if index in (0, 7, 8, 9) else "left")
    for row in report.rows:
        lead = row.lead or ""
        if lead:
            lead = SYMBOLS.get(lead[0], lead[0]) + ("10" if lead[1:] == "T" else lead[1:])
        table.add_row(
            str(row.table or ""),
            row.ns or "",
            row.ew or "",
            contract_cell(row),
            i18n.seat(row.declarer) if row.declarer in ("N", "E", "S", "W") else row.declarer or "",
            lead,
            row.result or "",
            row.ns_score,
            row.ew_score,
            percent_text(row.ns_percent),
            style="bold reverse" if row.ours else "",
        )
    return table


class BoardReportScreen(TableScreen):
    """The board's score or traveller after confirmation; * shows the deal; Enter goes on."""

    def __init__(self, board: int, *, after_confirm: bool) -> None:
        super().__init__()
        self.board = board
        self.after_confirm = after_confirm
        self.report: BoardReport | None = None
        self.showing_deal = False

    def compose_body(self) -> ComposeResult:
        """Title, then the score or traveller (scrollable), or the deal."""
        yield Static(
            _("Board {board}").format(board=self.board), id="report-title", classes="title"
        )
        with VerticalScroll(id="report-scroll"):
            yield Static(_("Asking the server…"), id="report-body")

    def on_mount(self) -> None:
        """Fetch the report once the confirmation has reached the server."""
        self._hints()
        self.run_worker(self._fetch(), exclusive=True)

    async def _fetch(self) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(DELIVERY_WAIT):
                # TableClient offers no event to await for a board's delivery: poll it.
                while self.board in self.client.waiting_boards() and self.client.online:  # noqa: ASYNC110
                    await asyncio.sleep(0.05)
        try:
            self.report = await self.client.board_report(self.board)
        except ClientError as error:
            self.query_one("#report-body", Static).update(error.message)
            return
        self.showing_deal = self.report.show == "nothing"
        self.refresh_body()

    def relabelled(self) -> None:
        """Redraw the hints and the report in the new language."""
        self._hints()
        self.refresh_body()

    def _hints(self) -> None:
        goes = _("next board") if self.after_confirm else _("back to the board")
        more = ""
        if self.report is not None and self.report.deal and self.report.show != "nothing":
            more = "   * = " + (_("results") if self.showing_deal else _("the deal"))
        self.set_hints(
            _("Enter = {goes}{more}   ↑↓ = scroll   / = summary").format(goes=goes, more=more)
        )

    def refresh_body(self) -> None:
        """Draw the report: score, traveller, or deal."""
        report = self.report
        if report is None:
            return
        self._hints()
        body = self.query_one("#report-body", Static)
        title = self.query_one("#report-title", Static)
        status = self.client.board(self.board)
        view = status.result if status else None
        words = view_words(view) if view is not None and view.description else None
        title.update(_("Board {board}").format(board=self.board) + (f":  {words}" if words else ""))
        if self.showing_deal:
            body.update(self._deal_text(report))
        elif report.show == "score":
            text = Text(score_text(report), style="bold reverse")
            text.append(
                "\n\n"
                + _("{count} (tables still to play it are not in it).").format(
                    count=self._count(report)
                )
            )
            body.update(text)
        elif report.show == "traveller":
            body.update(traveller_table(report))
            self.say(f"{score_text(report)}   ·   {self._count(report)}")

    @staticmethod
    def _count(report: BoardReport) -> str:
        return count_text(report)

    @staticmethod
    def _deal_text(report: BoardReport) -> str:
        lines = deal_lines(report.deal)
        if not lines:
            return _("There is no hand record for this board.")
        makeable = makeable_text(report.dd_tricks)
        if makeable:
            lines += ["", _("Makes (double dummy): {contracts}").format(contracts=makeable)]
        return "\n".join(lines)

    def take_key(self, key: str) -> bool:
        """Enter goes on; * switches between results and deal; / summary; arrows scroll."""
        if key == "enter":
            if self.after_confirm:
                self.terminal.goto_next_board(after=self.board)
            else:
                self.terminal.show(ShowBoard(self.board))
            return True
        if key == "*" and self.report is not None and self.report.deal:
            if self.report.show != "nothing":
                self.showing_deal = not self.showing_deal
                self.say("")
                self.refresh_body()
            return True
        if key in ("up", "down"):
            scroll = self.query_one("#report-scroll", VerticalScroll)
            scroll.scroll_relative(y=-3 if key == "up" else 3, animate=False)
            return True
        if key == "/":
            self.terminal.show(ShowSummary())
            return True
        return False
