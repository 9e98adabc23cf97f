"""The top line of every screen: where the terminal is, and whether the server can be reached."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Static

from terminal.i18n import _, ngettext

if TYPE_CHECKING:
    from terminal.client import TableClient


def status_text(client: TableClient) -> tuple[str, str]:
    """The left (table, round) and right (link state) parts of the status line."""
    info = client.round
    config = client.config
    left = "Traveller"
    if info is not None:
        left += " · " + _("Table {table}").format(table=info.table)
        if info.round:
            left += " · " + _("Round {round} of {rounds}").format(
                round=info.round, rounds=info.rounds
            )
    elif config.table is not None:
        left += " · " + _("Table {table}").format(table=config.table)
    right = link_text(client)
    return left, right


def link_text(client: TableClient) -> str:
    """The link state in words, counting boards (an entry and its confirmation are one board
    to the players); before pairing there is no link to speak of, so it is not "OFFLINE"."""
    boards = len(client.waiting_boards())
    if client.online:
        if boards:
            return ngettext("sending {num} board", "sending {num} boards", boards).format(
                num=boards
            )
        return _("sending…") if client.waiting else _("online")
    if not client.config.paired:
        return _("not paired yet")
    if boards:
        return ngettext(
            "OFFLINE, {num} board not sent", "OFFLINE, {num} boards not sent", boards
        ).format(num=boards)
    if client.waiting:
        return ngettext(
            "OFFLINE, {num} message not sent", "OFFLINE, {num} messages not sent", client.waiting
        ).format(num=client.waiting)
    return _("OFFLINE")


class StatusLine(Static):
    """Table, round, and "online" or "OFFLINE, N boards not sent" (reversed when offline)."""

    def __init__(self, client: TableClient) -> None:
        super().__init__(id="status-line")
        self.client = client

    def on_mount(self) -> None:
        """Show the state at once."""
        self.refresh_status()

    def refresh_status(self) -> None:
        """Redraw from the client."""
        left, right = status_text(self.client)
        width = max(self.size.width, 80) - 2
        gap = max(1, width - len(left) - len(right))
        self.update(f"{left}{' ' * gap}{right}")
        self.set_class(not self.client.online and self.client.config.paired, "offline")
