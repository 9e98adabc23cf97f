"""Guide cards per table and per pair, and the printed grid."""

from __future__ import annotations

from server.movements import PairRef, howell, mitchell
from server.movements.guide import (
    pair_card,
    render_grid,
    render_pair_card,
    render_table_card,
    table_card,
)


def test_table_card_says_where_everyone_goes() -> None:
    m = mitchell(5, boards_per_round=3)
    rows = table_card(m, 2)
    assert [r.round for r in rows] == [1, 2, 3, 4, 5]
    first = rows[0]
    assert (first.ns, first.ew, first.boards) == (PairRef(2, "NS"), PairRef(2, "EW"), (4, 5, 6))
    assert (first.ns_next, first.ew_next, first.boards_next) == ("2 NS", "3 EW", "1")
    assert rows[-1].ew_next == "end"


def test_relay_boards_rest_on_the_bye_stand() -> None:
    m = mitchell(4, even="relay")
    nexts = {row.boards_next for t in range(1, 5) for row in table_card(m, t)}
    assert "relay / bye stand" in nexts


def test_pair_card_with_sit_out() -> None:
    m = howell(7)
    rows = pair_card(m, PairRef(3))
    assert len(rows) == 7
    sat_out = [r for r in rows if r.opponents is None]
    assert len(sat_out) == 1
    assert sat_out[0].boards == ()
    assert "sit out" in render_pair_card(m, PairRef(3))


def test_rendered_text() -> None:
    m = mitchell(3)
    grid = render_grid(m).splitlines()
    assert grid[0] == "Mitchell 3 tables"
    assert grid[2].split() == ["1", "1NS-1EW:", "1-2", "2NS-2EW:", "3-4", "3NS-3EW:", "5-6"]
    card = render_table_card(m, 1).splitlines()
    assert card[0] == "Mitchell 3 tables: table 1"
    assert len(card) == 2 + 3
