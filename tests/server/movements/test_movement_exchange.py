"""CSV, JSON and Bridgemate RoundData: written and read back unchanged."""

from __future__ import annotations

import pytest

from server.movements import Movement, howell, mitchell, validate
from server.movements.bridgemate import (
    from_round_data,
    read_round_data_csv,
    to_round_data,
    write_round_data_csv,
)
from server.movements.bridgescorer import load_bundled
from server.movements.exchange import (
    format_boards,
    parse_boards,
    read_csv,
    read_json,
    to_rows,
    write_csv,
    write_json,
)
from server.movements.mitchell_variants import hesitation_mitchell

MOVEMENTS = [
    mitchell(7, boards_per_round=4, arrow_switch_rounds=1),
    mitchell(8, even="relay"),
    howell(13),
    hesitation_mitchell(5, arrow_switch_rounds=1),
]


@pytest.mark.parametrize("m", MOVEMENTS, ids=lambda m: m.name)
def test_csv_round_trip(m: Movement) -> None:
    back = read_csv(write_csv({"A": m, "B": m}))
    assert set(back) == {"A", "B"}
    assert back["B"].assignments == m.assignments
    validate(back["A"], shared_tables=m.shared_tables)  # CSV rows do not carry the sharing


@pytest.mark.parametrize("m", MOVEMENTS, ids=lambda m: m.name)
def test_json_round_trip(m: Movement) -> None:
    assert read_json(write_json(m)) == {"A": m}


def test_json_rows_and_odd_boards() -> None:
    m = load_bundled("Movement.Howell3TableNoRelay")
    assert isinstance(m, Movement)
    rows = to_rows(m, "C")
    assert rows[0]["boards"] == "5 6 17 18"
    assert read_json(__import__("json").dumps(rows))["C"].assignments == m.assignments


@pytest.mark.parametrize(
    ("text", "boards"),
    [("1-4", (1, 2, 3, 4)), ("5 6 17 18", (5, 6, 17, 18)), ("7", (7,)), ("3,4", (3, 4))],
)
def test_board_text(text: str, boards: tuple[int, ...]) -> None:
    assert parse_boards(text) == boards
    assert parse_boards(format_boards(boards)) == boards


def test_csv_headers_in_any_case_and_sit_outs() -> None:
    text = "Section,Table,Round,NS,EW,Boards\nA,1,1,1NS,,1-2\nA,2,1,2NS,1EW,3-4\n"
    m = read_csv(text)["A"]
    first = m.at(1, 1)
    assert first is not None
    assert first.ew is None


@pytest.mark.parametrize("m", [howell(13), howell(8), mitchell(5, even="skip")], ids=str)
def test_round_data_round_trip(m: Movement) -> None:
    mitchell_kind = m.kind == "mitchell"
    rows = read_round_data_csv(write_round_data_csv(to_round_data(m, "A")))
    assert rows[0].keys() == {
        "Section",
        "Table",
        "Round",
        "NSPair",
        "EWPair",
        "LowBoard",
        "HighBoard",
    }
    back = from_round_data(rows, mitchell=mitchell_kind)["A"]
    assert back.assignments == m.assignments


def test_round_data_arrow_switch_rounds() -> None:
    m = mitchell(9, arrow_switch_rounds=1)
    rows = to_round_data(m, arrow_switch_rounds={9})
    assert all(r["NSPair"] == r["Table"] for r in rows)  # home columns, as Bridgemate keeps them
    back = from_round_data(rows, mitchell=True, arrow_switch_rounds={9})["A"]
    assert back.assignments == m.assignments


def test_round_data_needs_a_run_of_boards() -> None:
    m = load_bundled("Movement.Howell3TableNoRelay")
    assert isinstance(m, Movement)
    with pytest.raises(ValueError, match="round 1, table 1: boards"):
        to_round_data(m)
