"""A result's view carries its description and its tricks against the contract, worked out
once for each board and result and then shared: the same contract, result and board read
alike every time, and a board of another vulnerability reads differently."""

from __future__ import annotations

import pytest

from protocol.bridge import TableResult, describe, format_result
from server.core.models import Result
from server.services.views import result_view


def _result(board: int, contract: str, declarer: str | None, tricks: int) -> Result:
    return Result(
        section_id=1,
        table_number=1,
        round=1,
        board=board,
        contract=contract,
        declarer=declarer,
        tricks=tricks,
        state="entered",
        version=1,
    )


@pytest.mark.parametrize(
    ("contract", "declarer", "tricks"),
    [("4S", "S", 10), ("3NTX", "W", 7), ("6HXX", "N", 13), ("1C", "E", 6), ("PASS", None, 0)],
)
def test_the_view_reads_as_the_rules_describe_it_on_every_board(
    contract: str, declarer: str | None, tricks: int
) -> None:
    for _ in range(2):  # worked out, then taken from what was worked out
        for board in range(1, 17):
            view = result_view(_result(board, contract, declarer, tricks))
            fresh = TableResult.make(contract, declarer, tricks)
            assert view.description == describe(board, fresh)
            assert view.result == format_result(fresh.contract, fresh.tricks)


def test_the_same_result_on_boards_of_other_vulnerability_reads_differently() -> None:
    none_vulnerable = result_view(_result(1, "4S", "S", 10))
    north_south_vulnerable = result_view(_result(2, "4S", "S", 10))
    assert none_vulnerable.description == "4♠ by South, made, N/S +420"
    assert north_south_vulnerable.description == "4♠ by South, made, N/S +620"
    assert result_view(_result(1, "4S", "S", 10)).description == none_vulnerable.description
