"""Session end: the ranking, when the event shows it at the tables (this table's pairs marked)."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from protocol.messages import RankingGroupView, RankingReport
from terminal import i18n
from terminal.errors import ClientError
from terminal.i18n import N_, _

from .base import TableScreen
from .navigation import ShowSummary


def ranking_title(report: RankingReport) -> str:
    """ "Ranking  ·  final" or "Ranking after 22 of 24 boards  ·  provisional" """
    if report.final:
        return _("Ranking  ·  {event}  ·  section {section}  ·  all boards").format(
            event=report.event, section=report.section
        )
    return _(
        "Ranking after {shown} of {total} boards  ·  provisional: some tables are still playing"
    ).format(shown=report.boards_shown, total=report.boards_total)


#: The server's group titles (English on the wire), shown in the terminal's language.
GROUP_TITLES = {
    "North–South": N_("North–South"),
    "East–West": N_("East–West"),
    "All pairs": N_("All pairs"),
    "All players": N_("All players"),
}


def group_table(group: RankingGroupView, unit: str, individual: bool = False) -> Table:
    """One ranked group; this table's pairs in reverse."""
    title = _(GROUP_TITLES[group.title]) if group.title in GROUP_TITLES else group.title
    table = Table(title=title, title_justify="left", box=None, pad_edge=False, padding=(0, 1))
    columns = (
        (_("Place"), _("Player"), _("Name"), "%", unit)
        if individual
        else (_("Place"), _("Pair"), _("Players"), "%", unit)
    )
    for index, column in enumerate(columns):
        table.add_column(column, justify="left" if index in (1, 2) else "right")
    for row in group.rows:
        percent = "" if row.percent is None else f"{row.percent:.2f}"
        if row.percent is not None and i18n.language() != i18n.SOURCE:
            percent = i18n.percent(row.percent).replace("\xa0", "").rstrip("%")
        style = "bold reverse" if row.ours else ""
        table.add_row(row.place, row.pair, row.names, percent, row.total, style=style)
    return table


class RankingScreen(TableScreen):
    """The ranking at the end of the session; arrows scroll; Enter goes back to the summary."""

    HINTS = N_("↑↓ = scroll      Enter = back to the round summary      + = language")

    def __init__(self) -> None:
        super().__init__()
        self.report: RankingReport | None = None

    def compose_body(self) -> ComposeResult:
        """Title and the groups, scrollable."""
        yield Static(_("Ranking"), id="ranking-title", classes="title")
        with VerticalScroll(id="ranking-scroll"):
            yield Static(_("Asking the server…"), id="ranking-body")

    def on_mount(self) -> None:
        """Fetch the ranking."""
        self.run_worker(self._fetch(), exclusive=True)

    async def _fetch(self) -> None:
        try:
            self.report = await self.client.ranking()
        except ClientError as error:
            self.query_one("#ranking-body", Static).update(error.message)
            return
        self.refresh_body()

    def refresh_body(self) -> None:
        """Draw the ranked groups."""
        report = self.report
        if report is None:
            return
        self.query_one("#ranking-title", Static).update(ranking_title(report))
        parts: list[Table | Text] = []
        for group in report.groups:
            if parts:
                parts.append(Text(""))
            parts.append(group_table(group, report.unit, report.kind == "individual"))
        self.query_one("#ranking-body", Static).update(Group(*parts))

    def take_key(self, key: str) -> bool:
        """Arrows scroll; Enter (or Backspace) goes back to the round summary."""
        if key in ("up", "down", "8", "2"):
            scroll = self.query_one("#ranking-scroll", VerticalScroll)
            scroll.scroll_relative(y=-3 if key in ("up", "8") else 3, animate=False)
            return True
        if key in ("enter", "backspace", "/"):
            self.terminal.show(ShowSummary())
            return True
        return False
