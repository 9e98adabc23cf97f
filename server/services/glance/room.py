"""The room view: what a second screen across the card room shows the TD at a glance."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from server.services.glance.dashboard import Overview


@dataclass(frozen=True)
class RoomTable:
    """A table that needs the TD: late in its round, entries missing, or calling."""

    table: int
    round: int
    late: bool
    missing: int  # its boards in the missing-entries panel
    calls: int


@dataclass(frozen=True)
class RoomView:
    letter: str
    current_round: int
    rounds: int
    playing: int  # tables still playing the current round
    tables: list[RoomTable]  # only those that need the TD, by table number

    @property
    def missing(self) -> int:
        """Boards missing in the whole room: the same count as the dashboard's MISSING tile."""
        return sum(t.missing for t in self.tables)


def room_view(overview: Overview) -> RoomView:
    """The tables that need the TD, from the dashboard's own read (so both always agree)."""
    grid = overview.grid
    missing = Counter(m.table for m in overview.missing)
    tables = [
        RoomTable(row.table, row.round, row.late, missing[row.table], row.calls)
        for row in grid.rows
        if row.late or missing[row.table] or row.calls
    ]
    playing = sum(1 for row in grid.rows if row.round and not row.complete)
    return RoomView(grid.letter, grid.current_round, grid.rounds, playing, tables)
