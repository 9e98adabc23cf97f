"""The generation triggers move each counter a write names once, whether the write keeps its
row's key or moves the row elsewhere, on SQLite and PostgreSQL: at the newest schema (the
triggers of migration 0019, which find a counter by its key) as at 0018 (the set of the old and
new rows' keys), which must count alike."""

from __future__ import annotations

from typing import Any

import pytest
from alembic import command
from sqlalchemy import Engine, text

from server.core.db import alembic_config
from tests.support.api import Club


def _table_gens(engine: Engine) -> dict[int, int]:
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT t.number, g.gen FROM table_generation g"
                " JOIN bridge_table t ON t.id = g.table_id"
                " WHERE t.section_id = (SELECT MIN(id) FROM section)"
            )
        ).all()
    return {int(number): int(gen) for number, gen in rows}


def _section_gens(engine: Engine) -> dict[int, int]:
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT section_id, gen FROM section_generation")).all()
    return {int(section): int(gen) for section, gen in rows}


def _write(engine: Engine, sql: str, **params: Any) -> None:
    with engine.begin() as conn:
        moved = conn.execute(text(sql), params)
        assert moved.rowcount == 1, sql


def _moved(before: dict[int, int], after: dict[int, int]) -> dict[int, int]:
    """Each counter that moved, by how much."""
    return {k: after[k] - before[k] for k in after if after[k] != before.get(k)}


@pytest.mark.parametrize("revision", ["head", "0018"])
def test_each_write_moves_the_counters_it_names_once(club: Club, revision: str) -> None:
    engine = club.engine
    second = club.td(
        "POST",
        f"/api/v1/events/{club.event_id}/sections",
        json={"letter": "B", "movement": {"tables": 3, "boards_per_round": 2}},
    )
    assert second.status_code == 201, second.text
    a, b = club.section_id, int(second.json()["id"])
    club.start_round(1)
    table = club.pair(1)
    entered = table.enter(table.round()["boards"][0]["board"], "4S", "S", 10)
    assert entered.status_code == 200, entered.text
    if revision != "head":
        command.downgrade(alembic_config(engine), revision)
    with engine.connect() as conn:
        result_id = conn.execute(text("SELECT id FROM result")).scalar_one()
        pair_id = conn.execute(text(f"SELECT MAX(id) FROM pair WHERE section_id = {a}")).scalar()

    def table_step(sql: str) -> dict[int, int]:
        before = _table_gens(engine)
        _write(engine, sql, id=result_id)
        return _moved(before, _table_gens(engine))

    def section_step(sql: str, **params: Any) -> dict[int, int]:
        before = _section_gens(engine)
        _write(engine, sql, **params)
        return _moved(before, _section_gens(engine))

    # a result changed in place (East's confirmation) and moved to table 2; a token deleted
    assert table_step("UPDATE result SET version = version + 1 WHERE id = :id") == {1: 1}
    assert table_step("UPDATE result SET table_number = 2 WHERE id = :id") == {1: 1, 2: 1}
    token = "DELETE FROM table_token WHERE table_id = (SELECT table_id FROM table_token)"
    assert table_step(token) == {1: 1}
    # a section's row changed in place, moved to the other section; an event's: all its sections
    same = "UPDATE pair SET section_id = section_id WHERE id = :id"
    assert section_step(same, id=pair_id) == {a: 1}
    assert section_step("UPDATE pair SET section_id = :b WHERE id = :id", b=b, id=pair_id) == {
        a: 1,
        b: 1,
    }
    assert section_step("UPDATE event SET name = name WHERE id = :id", id=club.event_id) == {
        a: 1,
        b: 1,
    }
    assert section_step("UPDATE section SET letter = letter WHERE id = :id", id=b) == {b: 1}
