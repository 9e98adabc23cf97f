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

from protocol.messages import BoardReport, TravellerRow

from ..errors import ClientError
from ..hands import deal_lines, makeable_text
from ..keypad import SYMBOLS
from .base import TableScreen

#: How long to wait for the confirmation to reach the server before asking.
DELIVERY_WAIT = 5.0


def contract_cell(row: TravellerRow) -> str:
    """ "4♠X" from "4♠X" or "4SX" (the server already uses symbols)."""
    text = row.contract or ""
    for letter, symbol in SYMBOLS.items():
        if letter != "NT" and len(text) > 1 and text[1:].startswith(letter):
            return text[0] + symbol + text[1 + len(letter) :]
    return text


def percent_text(value: float | None) -> str:
    """ "62 %" """
    return "" if value is None else f"{value:g} %"


def score_text(report: BoardReport) -> str:
    """The table's score on the board: percentages, or the score in the event's unit."""
    if report.ns_percent is not None and report.ew_percent is not None:
        return f"N/S {percent_text(report.ns_percent)}      E/W {percent_text(report.ew_percent)}"
    if report.ns_value is not None:
        return f"N/S {report.ns_value} {report.unit}      E/W {report.ew_value} {report.unit}"
    return "Not scored yet."


def traveller_table(report: BoardReport) -> Table:
    """Every result entered so far; this table's line in reverse."""
    table = Table(box=None, pad_edge=False, expand=False, padding=(0, 1))
    for column in ("Table", "N/S", "E/W", "Contract", "By", "Lead", "Result", "+", "-", "N/S %"):
        right = column in ("Table", "+", "-", "N/S %")
        table.add_column(column, justify="right" if right else "left")
    for row in report.rows:
        lead = row.lead or ""
        if lead:
            lead = SYMBOLS.get(lead[0], lead[0]) + ("10" if lead[1:] == "T" else lead[1:])
        table.add_row(
            str(row.table or ""),
            row.ns or "",
            row.ew or "",
            contract_cell(row),
            row.declarer or "",
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
        yield Static(f"Board {self.board}", id="report-title", classes="title")
        with VerticalScroll(id="report-scroll"):
            yield Static("Asking the server…", id="report-body")

    def on_mount(self) -> None:
        """Fetch the report once the confirmation has reached the server."""
        self._hints()
        self.run_worker(self._fetch(), exclusive=True)

    async def _fetch(self) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(DELIVERY_WAIT):
                while self.board in self.client.waiting_boards() and self.client.online:
                    await asyncio.sleep(0.05)
        try:
            self.report = await self.client.board_report(self.board)
        except ClientError as error:
            self.query_one("#report-body", Static).update(error.message)
            return
        self.showing_deal = self.report.show == "nothing"
        self.refresh_body()

    def _hints(self) -> None:
        goes = "next board" if self.after_confirm else "back to the board"
        more = ""
        if self.report is not None and self.report.deal and self.report.show != "nothing":
            more = "   * = " + ("results" if self.showing_deal else "the deal")
        self.set_hints(f"Enter = {goes}{more}   ↑↓ = scroll   / = summary")

    def refresh_body(self) -> None:
        """Draw the report: score, traveller, or deal."""
        report = self.report
        if report is None:
            return
        self._hints()
        body = self.query_one("#report-body", Static)
        title = self.query_one("#report-title", Static)
        status = self.client.board(self.board)
        words = status.result.description if status and status.result else None
        title.update(f"Board {self.board}" + (f":  {words}" if words else ""))
        if self.showing_deal:
            body.update(self._deal_text(report))
        elif report.show == "score":
            text = Text(score_text(report), style="bold reverse")
            text.append(f"\n\n{self._count(report)} (tables still to play it are not in it).")
            body.update(text)
        elif report.show == "traveller":
            body.update(traveller_table(report))
            self.say(f"{score_text(report)}   ·   {self._count(report)}")

    @staticmethod
    def _count(report: BoardReport) -> str:
        word = "result" if report.results == 1 else "results"
        return f"{report.results} {word} so far"

    @staticmethod
    def _deal_text(report: BoardReport) -> str:
        lines = deal_lines(report.deal)
        if not lines:
            return "There is no hand record for this board."
        makeable = makeable_text(report.dd_tricks)
        if makeable:
            lines += ["", f"Makes (double dummy): {makeable}"]
        return "\n".join(lines)

    def take_key(self, key: str) -> bool:
        """Enter goes on; * switches between results and deal; / summary; arrows scroll."""
        if key == "enter":
            if self.after_confirm:
                self.terminal.goto_next_board(after=self.board)
            else:
                from .board_entry import BoardEntryScreen

                self.terminal.goto(BoardEntryScreen(self.board))
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
            from .summary import SummaryScreen

            self.terminal.goto(SummaryScreen())
            return True
        return False
