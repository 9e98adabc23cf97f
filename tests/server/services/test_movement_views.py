"""A movement as the TD's pages show it (server/services/glance/movement_views.py): the grid of
rounds by tables, one guide card a table and a pair with a row a round, titles and headings in the
event's language, and a section's own movement read back from the database."""

from __future__ import annotations

from sqlmodel import Session

from server.core.models import Section
from server.movements import mitchell
from server.services.glance import movement_views
from tests.support.api import Club


def test_the_grid_seats_every_pair_once_a_round_and_plays_every_board_set() -> None:
    m = mitchell(5, boards_per_round=3)
    shown = movement_views.view(m)
    assert (shown.tables, shown.rounds, shown.pairs) == (5, 5, 10)
    assert len(shown.grid) == 5
    assert all(len(row) == 5 for row in shown.grid)
    for row in shown.grid:
        cells = [c for c in row if c is not None]
        seated = [c.ns for c in cells] + [c.ew for c in cells]
        assert len(set(seated)) == len(seated) == 10  # each pair at one table a round
        assert len({c.boards for c in cells}) == 5  # each table its own boards
        assert not any(c.sit_out for c in cells)
        assert all(c.seats == "" for c in cells)  # pairs, not an individual
    assert shown.player_balance is None


def test_one_card_a_table_and_a_pair_with_a_row_a_round() -> None:
    m = mitchell(5, boards_per_round=2)
    rounds = list(range(1, m.rounds + 1))
    tables = movement_views.table_cards(m)
    assert [c.title for c in tables] == [f"{m.name} · Table {n}" for n in range(1, 6)]
    assert all([r.round for r in c.rows] == rounds for c in tables)
    assert all(len(r.cells) == len(c.headings) for c in tables for r in c.rows)
    pairs = movement_views.pair_cards(m)
    assert len(pairs) == 10
    for card in pairs:
        assert [r.round for r in card.rows] == rounds
        assert all(r.cells[1] in {"1", "2", "3", "4", "5"} for r in card.rows)  # a table a round
    grid_first_round = movement_views.view(m).grid[0]
    for card, cell in zip(tables, grid_first_round, strict=True):
        assert cell is not None
        assert card.rows[0].cells[1:4] == (cell.ns, cell.ew, cell.boards)


def test_titles_and_headings_are_in_the_language_asked() -> None:
    m = mitchell(3, boards_per_round=2)
    english, german = movement_views.table_cards(m), movement_views.table_cards(m, "de")
    assert german[0].title.endswith("Tisch 1")
    assert german[0].headings != english[0].headings
    assert [r.cells[1:4] for r in german[0].rows] == [r.cells[1:4] for r in english[0].rows]


def test_a_sections_movement_is_the_one_it_was_made_with(club: Club) -> None:
    with Session(club.engine) as s:
        section = s.get(Section, club.section_id)
        assert section is not None
        shown = movement_views.view(movement_views.section_movement(s, section))
    expected = movement_views.view(mitchell(5, boards_per_round=3))
    assert (shown.tables, shown.rounds, shown.pairs) == (expected.tables, expected.rounds, 10)
    assert shown.grid == expected.grid
