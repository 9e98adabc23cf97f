"""The table a command is for (server/services/table/table_context.py), opened from its terminal's
token: its round's seating and boards, a board of another table or of no table refused with
its reason, its deals and results as stored, and the round view the table itself is sent
(SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from server.core.errors import ConflictError, NotFoundError
from server.core.models import Result, utcnow
from server.services import tokens
from server.services.table.table_context import RESULTS, TableContext
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


def test_a_new_row_is_the_models_own_with_its_defaults(club: Club) -> None:
    """``RowWriter.new`` builds what the model's constructor builds (every default, the
    timestamps made now), and the row it stores reads back as built."""
    values = {
        "section_id": club.section_id,
        "table_number": 1,
        "round": 1,
        "board": 1,
        "state": "entered",
        "entered_by": "table 1 N/S",
        "entry_id": "one",
    }
    before = utcnow()
    fast, slow = RESULTS.new(**values), Result(**values)
    stamps = ("created_at", "updated_at")
    for name in Result.model_fields:
        if name in stamps:
            assert before <= getattr(fast, name) <= utcnow(), name
        else:
            assert getattr(fast, name) == getattr(slow, name), name
    assert fast.version == 1
    assert fast.id is None
    with pytest.raises(TypeError, match="no field tricksy"):
        RESULTS.new(**values, tricksy=13)  # a misspelt field is an error, never dropped
    with Session(club.engine) as s:
        RESULTS.add(s, fast)
        s.commit()
        stored = s.get(Result, fast.id)
        assert stored is not None
        assert {n: getattr(stored, n) for n in Result.model_fields} == {
            n: getattr(fast, n) for n in Result.model_fields
        }
