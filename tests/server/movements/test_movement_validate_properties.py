"""Property tests: any one seat or board broken in a valid movement is caught and located."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.movements import MovementError, howell, mitchell, validate
from server.movements.model import Movement


@st.composite
def movements(draw: st.DrawFn) -> Movement:
    if draw(st.booleans()):
        return mitchell(draw(st.integers(3, 12)), boards_per_round=draw(st.integers(1, 4)))
    return howell(draw(st.sampled_from([8, 10, 12, 14, 16])))


@settings(max_examples=60, deadline=None)
@given(m=movements(), data=st.data())
def test_a_pair_seated_twice_is_named(m: Movement, data: st.DataObject) -> None:
    r = data.draw(st.integers(1, m.rounds))
    cells = m.in_round(r)
    first, second = data.draw(st.permutations(cells))[:2]
    broken = dataclasses.replace(second, ew=first.ew)
    changed = m.with_assignments(broken if a == second else a for a in m.assignments)
    with pytest.raises(MovementError, match=rf"^round {r}, table \d+, pair ") as caught:
        validate(changed)
    assert caught.value.table in (first.table, second.table)


@settings(max_examples=60, deadline=None)
@given(m=movements(), data=st.data())
def test_a_board_moved_to_another_table_is_caught(m: Movement, data: st.DataObject) -> None:
    r = data.draw(st.integers(1, m.rounds))
    cells = m.in_round(r)
    first, second = data.draw(st.permutations(cells))[:2]
    broken = dataclasses.replace(second, boards=first.boards)
    changed = m.with_assignments(broken if a == second else a for a in m.assignments)
    with pytest.raises(MovementError, match=r"^round \d+, table \d+, pair \w+: ") as caught:
        validate(changed)
    assert caught.value.pair is not None
