"""The CPU of one dashboard grid row rendered again after a result (``GridRows``), in this
process: round 1 of a new night, and round 7 of 9 (six rounds played), where a row shows seven
cells with their counts and titles. Each figure is the best of three runs of every row of a
6-table section rendered ``--repeat`` times.

* ``one cell changed``: what a result costs the live dashboard (one cell made again, the row's
  head kept, the row put together). The cell's shape is kept too, as another table's round
  with the same counts left it: so were 98 % of the cells a 200-table load run made;
* ``every cell``: the first render of a row (a page load, a channel's first read);
* with ``--before REV``: the row template of that revision rendered whole, as every change
  did before the cells were kept.

Run from the repository root::

    PYTHONPATH=. .venv/bin/python -m benchmarks.grid_rows --before 2e4e73a
"""

from __future__ import annotations

import argparse
import subprocess
import time
from collections.abc import Callable
from dataclasses import replace

from server.core.db import make_engine, migrate
from server.limits.ratelimit import LoginLimiter
from server.services.glance.dashboard import Cell, TableRow
from server.web.live_views import GridRows
from server.web.render import make_templates
from server.web.state import WebState
from tests.web.test_grid_rows import context, night


def best(rows: list[TableRow], repeat: int, render: Callable[[TableRow], object]) -> float:
    """The best of three: ms a row."""
    runs = []
    for _ in range(3):
        start = time.process_time()
        for _ in range(repeat):
            for row in rows:
                render(row)
        runs.append((time.process_time() - start) / (repeat * len(rows)))
    return 1000 * min(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--before", help="a revision whose td/_grid_row.html to render whole")
    args = parser.parse_args()
    db = make_engine("sqlite://")
    migrate(db)
    section_id, _ = night(db)
    web = WebState(templates=make_templates(), limiter=LoginLimiter())
    ctx = context(db, section_id)
    first: list[TableRow] = list(ctx["grid"].rows)  # type: ignore[attr-defined]
    played = [Cell(round=k, boards=3, confirmed=3, status="complete") for k in range(1, 7)]
    playing = Cell(round=7, boards=3, missing=1, entered=1, confirmed=1, status="playing")
    late_cells = [*played, replace(playing, current=True), Cell(8, 3), Cell(9, 3)]
    late = [replace(row, round=7, cells=list(late_cells)) for row in first]
    for label, rows, current in (("round 1 of 5", first, 1), ("round 7 of 9", late, 7)):
        grid = GridRows(web)

        def one_cell(row: TableRow, grid: GridRows = grid, current: int = current) -> None:
            grid.forget(row.table, current)
            grid.html(ctx, row)

        def every_cell(row: TableRow, grid: GridRows = grid) -> None:
            grid.forget(row.table)
            grid.html(ctx, row)

        print(
            f"{label}: one cell changed {best(rows, args.repeat, one_cell):.3f} ms a row, "
            f"every cell {best(rows, args.repeat, every_cell):.3f} ms a row"
        )
        if args.before:
            path = f"{args.before}:server/web/templates/td/_grid_row.html"
            source = subprocess.run(
                ["git", "show", path], capture_output=True, text=True, check=True
            ).stdout
            whole = web.templates.env.from_string(source)
            ms = best(rows, args.repeat, lambda row, t=whole: t.render(**ctx, row=row))
            print(f"{label}: {args.before}'s row, whole {ms:.3f} ms a row")


if __name__ == "__main__":
    main()
