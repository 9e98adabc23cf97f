"""All 26 bundled bridgescorer movements import and validate."""

from __future__ import annotations

import pytest

from server.movements import Movement, MovementError, validate
from server.movements.bridgescorer import bundled_names, load_bundled, read_bridgescorer
from server.movements.individual import IndividualMovement, validate_individual

NAMES = bundled_names()
SHARED_INDIVIDUALS = {
    "IndividualMovement.Individual2Tables14Boards",
    "IndividualMovement.Individual2Tables21Boards",
}


def test_all_26_are_bundled() -> None:
    assert len(NAMES) == 26


@pytest.mark.parametrize("name", NAMES)
def test_imports_and_validates(name: str) -> None:
    m = load_bundled(name)
    if isinstance(m, IndividualMovement):
        if name in SHARED_INDIVIDUALS:
            # Both tables play the same boards each round; the file does not declare it.
            with pytest.raises(MovementError, match="round 1, table 2: board 1 is also in play"):
                validate_individual(m)
            validate_individual(m, shared_tables=[(1, 2)])
        else:
            validate_individual(m)
        assert set(m.partners().values()) == {1}
        return
    validate(m)
    assert ("Relay" in name and "NoRelay" not in name) == bool(m.shared_tables)
    assert m.pairs()


@pytest.mark.parametrize("name", [n for n in NAMES if "Relay" in n and "NoRelay" not in n])
def test_relay_files_fail_without_their_sharing(name: str) -> None:
    m = load_bundled(name)
    assert isinstance(m, Movement)
    with pytest.raises(MovementError, match="also in play"):
        validate(m.with_assignments(m.assignments, shared_tables=()))


def test_read_a_small_document() -> None:
    text = """
name: "Tiny"
numberTeams: 4
hands:
- {table: 1, round: 1, ns: 1, ew: 2, boards: [1, 2]}
- {table: 2, round: 1, ns: 3, ew: 4, boards: [3, 4]}
"""
    m = read_bridgescorer(text)
    assert isinstance(m, Movement)
    assert (m.tables, m.rounds, m.boards_per_round) == (2, 1, 2)
    assert m.kind == "howell"
