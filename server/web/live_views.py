"""What the live pages show, kept in memory by their channel (server/web/live.py): the TD's
dashboard and the public ranking, each read in full once and then brought up to date by the
results pushed after every table command, without reading the database again.

The dashboard's delta is the grid row of each table whose result changed, the section's totals
and the missing-entries list when it moved. The public ranking's delta is the fragments that
changed after its board was scored again (``standings.LiveRanking``): the same rule as the full
page decides what the public may see (a board counts once every table has played it), so a
delta never carries a result the full page would hide (tests/security/test_live_deltas.py).
The dashboard also follows a table moving on to its next round (``LiveRoom.move``); anything
else (a conflict, a round started or closed, the movement or the settings changed) is read again
in full (``apply`` answers None). The public ranking follows a round pushed to a table that the
loaded movement seats as the push says (``LiveRanking.seated_as_loaded``: what is ranked, and
what the public may see, depends on the results and the movement, not on where the tables are
now); anything else it reads in full."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from fastapi import WebSocket
from fastapi.concurrency import run_in_threadpool
from markupsafe import Markup
from sqlmodel import Session

from protocol.messages import ConflictRaised, Message, ResultChanged, RoundChanged
from server.live.runtime import Runtime
from server.services import generations
from server.services.event import setup
from server.services.glance import dashboard
from server.services.results import individual_results, standings
from server.web.live import Delta, Fragments
from server.web.respond import fragment, language
from server.web.state import WebState

DASHBOARD_FRAGMENTS = ("summary", "grid", "calls", "missing")
RANKING_FRAGMENTS = ("status", "ranking", "boards")


#: The grid's fields a table's row shows (td/_grid_row.html); a test reads the template.
ROW_GRID_FIELDS = ("section_id", "round_minutes", "earlier")
#: What closes a table's row after its cells (td/_grid_row.html renders the row's head).
ROW_END = "    </tr>\n"
#: Stands for the table's number in a cell rendered for every table (td/_grid_cell.html shows
#: the number only as it is, ``{{ table }}`` or ``table=table``: a test reads the template). A
#: private-use character: escaping leaves it as it is, and no text or translation holds it.
TABLE_MARK = "\ue000"
#: Cell shapes kept at most (all are dropped when full: a night has a few hundred).
SHAPES_KEPT = 4096


class GridRows:
    """Each table's grid row as last rendered, in one language: a row whose fields did not
    change is not rendered again (the seconds in the round are not shown: the page counts
    them from ``since``). A full refresh of a 200-table dashboard after a round starts then
    renders the rows that changed, not all 200; and a row that changed renders again only
    what changed in it: the cells of its rounds whose counts changed (a result changes one),
    and its head (the table, the pairs, the terminal, the time) only if a field of it did. A
    cell is rendered once for all the tables whose round has the same counts (its shape), and
    takes its table's number afterwards."""

    def __init__(self, web: WebState) -> None:
        self.web = web
        self.renders = 0
        self.head_renders = 0
        self.cell_renders = 0
        self._kept: dict[int, tuple[object, str]] = {}
        self._heads: dict[int, tuple[object, str]] = {}
        self._cells: dict[tuple[int, int], tuple[object, str]] = {}
        self.shape_renders = 0
        self._shapes: dict[tuple[str, int, dashboard.Cell], str] = {}
        self._macros: dict[tuple[str, str], Any] = {}

    def html(self, ctx: dict[str, Any], row: dashboard.TableRow) -> Markup:
        grid = ctx["grid"]
        shown = tuple(getattr(grid, f) for f in ROW_GRID_FIELDS)
        key = (replace(row, elapsed=None), *shown)
        kept = self._kept.get(row.table)
        if kept is None or kept[0] != key:
            self.renders += 1
            lang = str(ctx.get("lang") or "")  # "": the source language (render.lang_of)
            cells = "".join([self._cell(lang, grid.section_id, row.table, c) for c in row.cells])
            html = self._head(lang, row, grid, shown) + cells + ROW_END
            kept = (key, html)
            self._kept[row.table] = kept
        return Markup(kept[1])  # rendered by the autoescaping templates

    def _head(
        self, lang: str, row: dashboard.TableRow, grid: Any, shown: tuple[object, ...]
    ) -> str:
        """The row up to its cells (td/_grid_row.html), rendered again only when a field it
        shows changed."""
        key = (replace(row, elapsed=None, cells=[]), *shown)
        kept = self._heads.get(row.table)
        if kept is None or kept[0] != key:
            self.head_renders += 1
            kept = (key, str(self._macro(lang, "td/_grid_row.html", "row_head")(row, grid)))
            self._heads[row.table] = kept
        return kept[1]

    def forget(self, table: int, round_: int | None = None) -> None:
        """Render ``table``'s row again next time: its cell of ``round_``, or (None) the
        whole row."""
        self._kept.pop(table, None)
        if round_ is None:
            self._heads.pop(table, None)
        for key in [k for k in self._cells if k[0] == table and round_ in (None, k[1])]:
            del self._cells[key]

    def _cell(self, lang: str, section_id: int, table: int, cell: dashboard.Cell) -> str:
        key = (section_id, cell)
        kept = self._cells.get((table, cell.round))
        if kept is None or kept[0] != key:
            self.cell_renders += 1
            kept = (key, self._shape(lang, section_id, cell).replace(TABLE_MARK, str(table)))
            self._cells[(table, cell.round)] = kept
        return kept[1]

    def _shape(self, lang: str, section_id: int, cell: dashboard.Cell) -> str:
        """A cell's HTML for any table (:data:`TABLE_MARK` where its number goes), rendered
        once for all the tables whose round has the same counts: in a round most tables
        pass through the same few (three boards: none keyed, one entered, one confirmed...)."""
        key = (lang, section_id, cell)
        shape = self._shapes.get(key)
        if shape is None:
            self.shape_renders += 1
            if len(self._shapes) >= SHAPES_KEPT:
                self._shapes.clear()
            macro = self._macro(lang, "td/_grid_cell.html", "cell")
            shape = self._shapes[key] = str(macro(cell, TABLE_MARK, section_id))
        return shape

    def _macro(self, lang: str, template: str, name: str) -> Any:
        """A macro of ``template`` in ``lang`` (the row's, the cell's): a call, not a
        template render."""
        macro = self._macros.get((lang, template))
        if macro is None:
            module = self.web.templates.get_template(template).make_module({"lang": lang})
            macro = self._macros[(lang, template)] = getattr(module, name)
        return macro


def dashboard_fragments(
    web: WebState, ctx: dict[str, Any], rows: GridRows | None = None
) -> Fragments:
    """The dashboard's fragments (the page, and its live feed's full refresh); ``rows``: the
    rows as last rendered (a live page's), else each row is rendered afresh."""
    rows = rows if rows is not None else GridRows(web)
    row_html = {row.table: rows.html(ctx, row) for row in ctx["grid"].rows}
    ctx = {**ctx, "row_html": row_html}
    return {name: fragment(web, f"td/_{name}.html", **ctx) for name in DASHBOARD_FRAGMENTS}


def ranking_fragments(web: WebState, ctx: dict[str, Any]) -> Fragments:
    """The public ranking's fragments (the page, the projector and their live feed)."""
    return {name: fragment(web, f"public/_{name}.html", **ctx) for name in RANKING_FRAGMENTS}


def follows(live: standings.LiveRanking, messages: Sequence[Message]) -> bool:
    """Take pushed messages in order into the ranking: results (rescored), and rounds pushed
    to tables that the loaded movement seats as they say (nothing ranked changed); False as
    soon as one needs a full read (anything else)."""
    for message in messages:
        if isinstance(message, ResultChanged | ConflictRaised):
            known = live.put(message.result)
        elif isinstance(message, RoundChanged):
            known = live.seated_as_loaded(message.round)
        else:
            known = False
        if not known:
            return False
    return True


class DashboardView:
    """The TD's dashboard of one section, in one language.

    A conflict calls the TD (a new TD call, which no push carries): it is read in full. So
    are the calls a lead or a play flagged with an entry, at the next poll (as a table's own
    TD call always was)."""

    def __init__(self, runtime: Runtime, web: WebState, section_id: int, lang: str) -> None:
        self.runtime, self.web, self.section_id, self.lang = runtime, web, section_id, lang
        self.room: dashboard.LiveRoom | None = None
        self.head: dashboard.SectionHead | None = None
        self.totals: dict[str, int] = {}
        self.missing: list[dashboard.MissingEntry] = []
        self.rows = GridRows(web)

    async def load(self) -> None:
        def work(s: Session) -> tuple[dashboard.SectionHead, dashboard.LiveRoom]:
            section = setup.get_section(s, self.section_id)
            return dashboard.head(s, section), dashboard.LiveRoom.load(s, section)

        self.head, self.room = await self.runtime.read(work)

    def _connected(self) -> dict[int, int]:
        return self.runtime.bus.terminals(self.section_id)

    def _context(self, room: dashboard.Overview) -> dict[str, Any]:
        return {
            "head": self.head,
            "grid": room.grid,
            "missing": room.missing,
            "calls": room.calls,
            "section_id": self.section_id,
            "lang": self.lang,
        }

    async def current(self) -> bool:
        """Never: TD calls, terminals' status and late tables change with no push and no
        counter (a new call, a terminal's last contact, the clock), so every poll reads."""
        return False

    def fragments(self) -> Fragments:
        assert self.room is not None
        room = self.room.overview(connected=self._connected())
        out = dashboard_fragments(self.web, self._context(room), self.rows)
        self.totals, self.missing = room.grid.totals, room.missing
        return out

    def apply(self, messages: Sequence[Message]) -> Delta | None:
        """Results, and tables moving on to their next round, in memory; None for anything
        else (a conflict, a round started or closed, a change of movement or settings)."""
        if self.room is None or not self.room.follow(messages):
            return None
        if not self.room.touched:
            return {}
        room, changed = self.room.changes(connected=self._connected())
        ctx = self._context(room)
        delta: Delta = {"rows": {str(row.table): str(self.rows.html(ctx, row)) for row in changed}}
        if room.grid.totals != self.totals:
            self.totals = room.grid.totals
            delta["totals"] = self.totals
        if room.missing != self.missing:
            self.missing = room.missing
            delta["fragments"] = {"missing": fragment(self.web, "td/_missing.html", **ctx)}
        return delta


class RankingView:
    """The public ranking of one section, in one language (the ranking page and projector)."""

    def __init__(
        self, runtime: Runtime, web: WebState, section_id: int, conn: WebSocket | None = None
    ) -> None:
        self.runtime, self.web, self.section_id, self.conn = runtime, web, section_id, conn
        self.live: standings.LiveRanking | None = None  # None: an individual, ranked in full
        self.ctx: dict[str, Any] = {}
        self.shown: Fragments = {}
        #: The section's generation and row when it was last read (read before the data:
        #: they are at least as new as them), None before the first read.
        self.generation: int | None = None
        self.row: dict[str, Any] | None = None

    async def current(self) -> bool:
        """Whether the section's generation is still the one read with the data. What moves
        it is what the ranking reads and no push announces: the movement, the pairs, the
        boards, the section's and the event's settings (publication, scoring), sanctions.
        Results and tables moving on come as pushes (:meth:`apply`); a result another program
        writes shows at the channel's next full read (``live.REREAD_SECONDS``). A move of
        one with the section's row changed in its round columns only is the TD's round
        control alone, which changes nothing ranked (its pushes are followed): still current."""
        held, row_held = self.generation, self.row
        if held is None or row_held is None:
            return False

        def check(s: Session) -> tuple[int | None, dict[str, Any] | None]:
            now = generations.section_generation(s, self.section_id)
            return now, (generations.section_row(s, self.section_id) if now == held + 1 else None)

        now, row = await self.runtime.read(check)
        if now == held:
            return True
        if row is None or generations.round_control_only(row_held, row) is None:
            return False
        self.generation, self.row = now, row
        return True

    async def load(self) -> None:
        def work(
            s: Session,
        ) -> tuple[
            int | None,
            dict[str, Any] | None,
            standings.SectionData,
            individual_results.IndividualData | None,
            str | None,
            standings.Seats,
            standings.Versions,
        ]:
            generation = generations.section_generation(s, self.section_id)
            row = generations.section_row(s, self.section_id)
            section = setup.get_section(s, self.section_id)
            spoken = setup.get_event(s, section.event_id).language
            found = individual_results.load(s, section)
            if found is not None:
                return generation, row, found.data, found, spoken, {}, {}
            data = standings.load(s, section)
            seated, versions = standings.seats(s, section), standings.versions(s, section)
            return generation, row, data, found, spoken, seated, versions

        self.generation = None  # until this read is in place
        read = await self.runtime.read(work)
        generation, row, data, found, club_language, seated, versions = read
        lang = language(self.conn, club_language) if self.conn is not None else "en"
        players = None
        if found is None:
            live = await run_in_threadpool(
                lambda: standings.LiveRanking(data, seated, public=True, versions=versions)
            )
            self.live, ranking = live, live.ranking()
        else:  # an individual ranks its players, not its partnerships: always in full
            self.live = None
            ranking = await run_in_threadpool(standings.rank, data, public=True)
            players = await run_in_threadpool(individual_results.ranking, found, public=True)
        self.ctx = {
            "ranking": ranking,
            "players": players,
            "section_id": self.section_id,
            "lang": lang,
        }
        self.generation, self.row = generation, row

    def fragments(self) -> Fragments:
        self.shown = ranking_fragments(self.web, self.ctx)
        return self.shown

    def apply(self, messages: Sequence[Message]) -> Delta | None:
        if self.live is None or not follows(self.live, messages):
            self.generation = None  # not current until read again
            return None
        if not self.live.rescored:  # no board the public may see changed: nor did the page
            return {}
        self.ctx = {**self.ctx, "ranking": self.live.ranking()}
        now = ranking_fragments(self.web, self.ctx)
        changed = {k: v for k, v in now.items() if self.shown.get(k) != v}
        self.shown = now
        return {"fragments": changed} if changed else {}
