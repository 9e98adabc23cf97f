"""The dashboard's grid rows are rendered once per change (server/web/live_views.GridRows): a
full refresh renders again only the rows whose fields changed, and gives the same page as
rendering every row afresh."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session

from protocol.messages import EnterResult, EntryValues
from server.core.db import make_engine, migrate, transact
from server.limits.ratelimit import LoginLimiter
from server.movements.mitchell import mitchell
from server.services import tokens
from server.services.event import setup
from server.services.glance import dashboard
from server.services.table.table_commands import outcome_for
from server.services.td import actions as td
from server.web.live_views import ROW_GRID_FIELDS, GridRows, dashboard_fragments
from server.web.render import make_templates
from server.web.state import WebState
from tests.support.api import new_id

TEMPLATES = Path(__file__).parents[2] / "server" / "web" / "templates"


def night(db: Engine) -> tuple[int, dict[int, str]]:
    def work(s: Session) -> tuple[int, dict[int, str]]:
        ev = setup.create_event(s, name="Grid night", scoring="mp")
        section = setup.create_section(
            s, event=ev, letter="A", movement=mitchell(6, boards_per_round=2)
        )
        td.start_round(s, section, 1)
        paired = {
            n: tokens.pair_terminal(s, code=code, device=f"t{n}")[0]
            for n, code in td.pairing_codes(s, section).items()
        }
        return section.id or 0, paired

    return transact(db, work)


def context(db: Engine, section_id: int) -> dict[str, object]:
    with Session(db) as s:
        section = setup.get_section(s, section_id)
        room = dashboard.overview(s, section)
        return {
            "head": dashboard.head(s, section),
            "grid": room.grid,
            "missing": room.missing,
            "calls": room.calls,
            "section_id": section_id,
            "lang": "en",
        }


def enter(db: Engine, token: str, board: int) -> None:
    values = EntryValues(contract="4S", declarer="S", tricks=10)
    command = EnterResult(entry_id=new_id(), board=board, values=values)
    transact(db, lambda s: outcome_for(s, tokens.table_identity(s, token, lock=True), command))


def test_a_full_refresh_renders_again_only_the_rows_that_changed() -> None:
    db = make_engine("sqlite://")
    migrate(db)
    section_id, paired = night(db)
    web = WebState(templates=make_templates(), limiter=LoginLimiter())
    rows = GridRows(web)

    first = dashboard_fragments(web, context(db, section_id), rows)
    assert rows.renders == 6
    cells = rows.cell_renders
    assert cells == sum(len(row.cells) for row in context(db, section_id)["grid"].rows)
    assert first == dashboard_fragments(web, context(db, section_id))  # each row afresh
    assert first["grid"].count("<tr class=") == 6

    again = dashboard_fragments(web, context(db, section_id), rows)
    assert (rows.renders, again) == (6, first)  # nothing changed: no row rendered

    enter(db, paired[3], 5)  # table 3 plays boards 5-6 in round 1
    after = dashboard_fragments(web, context(db, section_id), rows)
    assert rows.renders == 7  # table 3's row only
    assert rows.cell_renders == cells + 1  # and in it, round 1's cell only
    assert rows.head_renders == 7  # its head too: its terminal is online since that command
    assert after == dashboard_fragments(web, context(db, section_id))
    assert after["grid"] != first["grid"]
    assert 'data-entered="1"' in after["grid"]


def fresh_night() -> tuple[WebState, dict[str, object], GridRows]:
    """The test night's web state, its dashboard's context and an empty row memory."""
    db = make_engine("sqlite://")
    migrate(db)
    section_id, _paired = night(db)
    web = WebState(templates=make_templates(), limiter=LoginLimiter())
    return web, context(db, section_id), GridRows(web)


def test_a_row_renders_again_only_its_part_that_changed() -> None:
    """Its head (the table, the pairs, the terminal, the time, a TD call) and each cell are
    kept apart: a TD call renders the head again and keeps the cells; a result renders its
    cell and keeps the head."""
    web, ctx, rows = fresh_night()
    row = ctx["grid"].rows[0]  # type: ignore[attr-defined]
    before = rows.html(ctx, row)
    heads, cells = rows.head_renders, rows.cell_renders
    calling = replace(row, calls=1, ns="Ann Other & Bo Lee")
    after = rows.html(ctx, calling)
    assert (rows.head_renders, rows.cell_renders) == (heads + 1, cells)
    assert "Ann Other &amp; Bo Lee" in after
    assert 'class="bell"' in after
    assert after.split('<td class="cell')[1:] == before.split('<td class="cell')[1:]
    assert after == GridRows(web).html(ctx, calling)  # as a row rendered afresh
    assert rows.html(ctx, row) == before  # and back
    heads, cells = rows.head_renders, rows.cell_renders
    played = replace(row.cells[0], entered=1, missing=row.cells[0].missing - 1)
    entered = replace(row, cells=[played, *row.cells[1:]])
    html = rows.html(ctx, entered)
    assert (rows.head_renders, rows.cell_renders) == (heads, cells + 1)  # a result: one cell
    assert html == GridRows(web).html(ctx, entered)
    assert 'data-entered="1"' in html


def test_a_row_shows_no_field_of_the_grid_but_those_its_memory_compares() -> None:
    """A row is rendered again when one of the grid's fields it shows changes: the memory's
    key must name every one (a new one in the template fails here)."""
    source = (TEMPLATES / "td" / "_grid_row.html").read_text(encoding="utf-8")
    shown = set(re.findall(r"\bgrid\.(\w+)", source)) - {"html"}  # "td/_grid.html" in a comment
    assert shown == set(ROW_GRID_FIELDS)


def test_a_cell_shows_only_what_its_memory_compares() -> None:
    """A cell is kept while its counts, its section and its table are unchanged: it may show
    nothing else (the row's other fields or the grid's would go stale in a kept cell)."""
    source = (TEMPLATES / "td" / "_grid_cell.html").read_text(encoding="utf-8")
    body = re.sub(r"\{#.*?#\}", "", source, flags=re.S)
    names = set(re.findall(r"\b(row|grid|c|table|section_id)\b(?=[.\s}),])", body))
    assert names == {"c", "table", "section_id"}, names


def test_a_cell_shows_its_table_only_as_the_number_itself() -> None:
    """A cell is rendered once for every table with the same counts, its table's number put in
    afterwards (``TABLE_MARK``): the template may only show the number, never test it or
    compute with it."""
    source = (TEMPLATES / "td" / "_grid_cell.html").read_text(encoding="utf-8")
    body = re.sub(r"\{#.*?#\}", "", source, flags=re.S)
    for shown in ("macro cell(c, table, section_id)", "{{ table }}", "table=table", "%(table)s"):
        body = body.replace(shown, "")
    assert re.findall(r".{0,20}\btable\b.{0,20}", body) == []


def test_a_cell_rendered_once_for_all_tables_is_the_cell_rendered_for_each() -> None:
    web, ctx, rows = fresh_night()
    section_id = int(ctx["section_id"])  # type: ignore[call-overload]
    macro = web.templates.get_template("td/_grid_cell.html").make_module({"lang": "en"}).cell
    cells = [
        dashboard.Cell(round=2, boards=3, missing=3, status="missing", current=True),
        dashboard.Cell(round=2, boards=3, missing=1, entered=1, confirmed=1, status="playing"),
        dashboard.Cell(round=2, boards=3, confirmed=3, status="complete", current=True),
        dashboard.Cell(round=2, boards=3, conflict=1, confirmed=2, status="conflict"),
        dashboard.Cell(round=2, boards=3, td_pending=1, settled=1, status="td_pending"),
        dashboard.Cell(round=2, boards=3, missing=2, entered=1, status="left"),
    ]
    for table in (1, 7, 12, 110):
        for cell in cells:
            row = replace(ctx["grid"].rows[0], table=table, cells=[cell])  # type: ignore[attr-defined]
            html = rows.html(ctx, row)
            direct = str(macro(cell, table, section_id))
            assert direct in html
            assert f"/tables/{table}#round-2" in direct
            assert "\ue000" not in html
    assert rows.shape_renders == len(cells)  # each shape once, for the four tables
    assert rows.cell_renders == 4 * len(cells)
