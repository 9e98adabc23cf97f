"""A round control one worker's table desk carried over, as the other workers hear it on the
fan-out (server/live/notify.py ``encode_change``/``decode_change``): every value comes back as
it was read, times included, so the other workers' checks compare like with like; a payload
that is not one is refused, never half read."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from types import SimpleNamespace
from typing import Any, cast

import pytest

from protocol.messages import Ack
from server.live.notify import MAX_PAYLOAD, decode_change, encode, encode_change
from server.services.table import table_memory
from server.services.table.table_memory import SectionRowChange, TableMemory


def _change(tables: int = 3) -> SectionRowChange:
    row = {
        "id": 7,
        "current_round": 2,
        "closed_rounds": 1,
        "round_started_at": datetime(2026, 12, 4, 19, 5, 30, 123456),
        "published_at": datetime(2026, 12, 4, 18, 0, tzinfo=UTC),
        "letter": "A",
        "shared_tables": None,
        "td_code": '{"at": "not a time"}',
    }
    return SectionRowChange(7, 41, 42, {100 + n: n * 3 for n in range(tables)}, row)


def test_a_round_control_comes_back_as_it_was_sent() -> None:
    change = _change()
    payload = encode_change("worker-a", change)
    assert payload is not None
    origin, heard = decode_change(payload)
    assert (origin, heard) == ("worker-a", change)
    assert type(heard.row["round_started_at"]) is datetime
    assert heard.row["published_at"].tzinfo is not None  # an aware time stays aware


def test_a_section_too_large_for_one_notice_is_not_sent() -> None:
    assert encode_change("w", _change(tables=60)) is not None  # a full section of 60 tables
    assert encode_change("w", _change(tables=2_000)) is None  # past MAX_PAYLOAD: the counters


@pytest.mark.parametrize(
    "payload",
    ["", "{}", '{"o": "w"}', '{"o": "w", "c": {"section_id": 1}}', "[1, 2]", "not json"],
)
def test_what_is_not_a_round_control_is_refused(payload: str) -> None:
    with pytest.raises((ValueError, KeyError, TypeError)):
        decode_change(payload)


def test_a_push_is_not_read_as_a_round_control() -> None:
    push = encode("w", (1, None, Ack(entry_id="e1", detail="stored")))
    assert push is not None
    assert len(push) <= MAX_PAYLOAD
    with pytest.raises((ValueError, KeyError, TypeError)):
        decode_change(push)
    assert json.loads(push)["o"] == "w"


def test_a_value_json_cannot_carry_is_not_sent() -> None:
    change = _change()
    odd = SectionRowChange(7, 41, 42, change.table_gens, {**change.row, "x": Decimal("1.5")})
    assert encode_change("w", odd) is None  # the other workers read their tables again


def test_an_observer_that_fails_does_not_undo_the_round_controls_answer(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The observers hear of a change after its COMMIT: one that fails is logged, the others
    still hear, and the memory's own carry has been done."""
    memory = TableMemory()
    heard: list[SectionRowChange] = []

    def broken(_change: SectionRowChange) -> None:
        raise RuntimeError("the fan-out is away")

    memory.observers += [broken, heard.append]
    session = SimpleNamespace(info={})
    memory.apply(cast(Any, session))  # nothing to carry: nothing heard
    change = _change()
    session.info[f"{table_memory.KEY}.{id(memory)}.sections"] = [change]
    memory.apply(cast(Any, session))
    assert heard == [change]
    assert "round control failed" in caplog.text
