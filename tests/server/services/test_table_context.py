"""The table a command is for (server/services/table/table_context.py), opened from its terminal's
token: its round's seating and boards, a board of another table or of no table refused with
its reason, its deals and results as stored, and the round view the table itself is sent
(SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from server.core.errors import ConflictError, NotFoundError
from server.services import tokens
from server.services.table.table_context import TableContext
from server.services.views import assignment
from tests.support.api import Club
from tests.support.deals import DEAL, put_deal


def test_the_tables_round_boards_deals_and_results(club: Club) -> None:
    club.start_round(1)
    table = club.pair(1)
    mine = [b["board"] for b in table.round()["boards"]]
    other = [b["board"] for b in club.pair(2).round()["boards"]]
    put_deal(club.engine, mine[0], DEAL)
    version = table.enter(mine[1], "3NT", "N", 9).json()["result"]["version"]

    with Session(club.engine) as s:
        ctx = TableContext(s, tokens.table_identity(s, table.token, lock=True))
        assert ctx.label == "table 1"
        row = ctx.assignment()
        stored = assignment(s, ctx.section, 1, 1)
        assert row is not None
        assert stored is not None
        assert (row.ns_pair_id, row.ew_pair_id) == (stored.ns_pair_id, stored.ew_pair_id)
        assert ctx.check_board(mine[0]).board_numbers() == mine
        assert ctx.deals(mine[:2]) == {mine[0]: DEAL, mine[1]: None}
        assert ctx.result(mine[0]) is None
        result = ctx.result(mine[1])
        assert result is not None
        assert (result.contract, result.tricks, result.version) == ("3NT", 9, version)
        info = ctx.round_info()
        assert (info.table, info.round) == (1, 1)
        assert [b.board for b in info.boards] == mine
        with pytest.raises(ConflictError) as elsewhere:
            ctx.check_board(other[0])
        assert elsewhere.value.code == "board_not_in_round"
        with pytest.raises(NotFoundError) as nowhere:
            ctx.check_board(999)
        assert nowhere.value.code == "unknown_board"
