"""The play's refusals and flags at a table (server/services/table/play_entry.py): the refusals it
counts are this table's, in this round, on this board; a play taken once they ran out is
audited and calls the TD to the table (SQLite and PostgreSQL)."""

from __future__ import annotations

import json

from sqlmodel import Session, col, select

from server.core.models import Audit, TDCall
from server.services import audit, tokens
from server.services.table import play_entry
from server.services.table.table_context import TableContext
from tests.support.api import Club, Table


def _context(s: Session, table: Table) -> TableContext:
    return TableContext(s, tokens.table_identity(s, table.token, lock=True))


def test_only_this_tables_refusals_on_the_board_are_counted(club: Club) -> None:
    club.start_round(1)
    one, two = club.pair(1), club.pair(2)
    with Session(club.engine) as s:
        here, there = _context(s, one), _context(s, two)
        refused = [
            (here, 1, "a"),
            (here, 1, "b"),
            (here, 2, "c"),  # another board
            (there, 1, "d"),  # another table
        ]
        for ctx, board, entry in refused:
            audit.record(
                s,
                actor=ctx.label,
                action=play_entry.PLAY_REFUSED,
                section_id=ctx.section.id,
                new={"table": ctx.table.number, "round": 1, "board": board, "entry_id": entry},
            )
        s.commit()
    with Session(club.engine) as s:
        here = _context(s, one)
        assert play_entry.play_refusals(here, 1) == {"a", "b"}
        assert play_entry.play_refusals(here, 2) == {"c"}
        assert play_entry.play_refusals(here, 3) == set()
        assert play_entry.play_refusals(_context(s, two), 1) == {"d"}


def test_a_flagged_play_is_audited_and_calls_the_td(club: Club) -> None:
    club.start_round(1)
    table = club.pair(1)
    with Session(club.engine) as s:
        play_entry.flag_play(_context(s, table), 2, "e-1")
        s.commit()
    with Session(club.engine) as s:
        (row,) = s.exec(select(Audit).where(Audit.action == play_entry.PLAY_FLAGGED)).all()
        assert json.loads(row.new or "{}") == {
            "table": 1,
            "round": 1,
            "board": 2,
            "entry_id": "e-1",
        }
        assert row.actor == "table 1"
        calls = s.exec(select(TDCall).order_by(col(TDCall.id))).all()
        assert [(c.table_number, c.round) for c in calls] == [(1, 1)]
        assert calls[0].reason == row.reason
        assert "board 2" in calls[0].reason
