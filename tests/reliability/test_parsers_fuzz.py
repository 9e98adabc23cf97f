"""hypothesis on the parsers a terminal (or an attacker) reaches: protocol messages in both
directions and the contract / declarer / tricks / lead values. Bad input is only ever refused
with the parser's own error, never anything else."""

from __future__ import annotations

import contextlib
import json
from typing import Any, get_args

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from protocol.bridge import BridgeError, TableResult
from protocol.messages import (
    EntryValues,
    ServerMessage,
    TableCommand,
    parse_command,
    parse_server_message,
)
from server.core.errors import InvalidError
from server.services.table.table_commands import check_values


def _types(union: Any) -> list[str]:
    """The ``type`` tags of a discriminated union (new messages are fuzzed as they come)."""
    members = get_args(get_args(union)[0])
    return [str(m.model_fields["type"].default) for m in members]


COMMANDS = [*_types(TableCommand), "hello", "pair_terminal"]
SERVER = _types(ServerMessage)

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
fields = st.sampled_from(
    ["v", "entry_id", "board", "values", "version", "pin", "reason", "ruling_pending", "token"]
)
value_fields = st.sampled_from(["contract", "declarer", "tricks", "lead"])


@st.composite
def message_like(draw: st.DrawFn, types: list[str]) -> dict[str, Any]:
    """Objects that look like messages: a real or bogus type, plausible and random fields."""
    body: dict[str, Any] = {"type": draw(st.sampled_from(types) | st.text(max_size=12))}
    body.update(draw(st.dictionaries(fields, json_values, max_size=5)))
    if draw(st.booleans()):
        body["values"] = draw(st.dictionaries(value_fields, json_values, max_size=4))
    return body


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200) | st.binary(max_size=200))
def test_any_text_is_parsed_or_refused_with_validation_error(raw: str | bytes) -> None:
    for parse in (parse_command, parse_server_message):
        with contextlib.suppress(ValidationError):
            parse(raw)


@settings(max_examples=300, deadline=None)
@given(message_like(COMMANDS))
def test_command_like_json_is_parsed_or_refused_and_round_trips(body: dict[str, Any]) -> None:
    try:
        command = parse_command(json.dumps(body))
    except ValidationError:
        return
    assert parse_command(command.model_dump_json()) == command


@settings(max_examples=300, deadline=None)
@given(message_like(SERVER))
def test_server_message_like_json_is_parsed_or_refused(body: dict[str, Any]) -> None:
    try:
        message = parse_server_message(json.dumps(body))
    except ValidationError:
        return
    assert parse_server_message(message.model_dump_json()) == message


contracts = st.text(max_size=8) | st.from_regex(r"\A[0-8]?(NT|[SHDCN♠♥♦♣])?X{0,3}\Z")
tricks = st.integers(-20, 30) | st.text(max_size=4) | st.from_regex(r"\A[=+-]?[0-9]{1,2}\Z")
declarers = st.sampled_from(["N", "E", "S", "W"]) | st.none()


@settings(max_examples=300, deadline=None)
@given(contracts, declarers, tricks, st.none() | st.text(max_size=3), st.integers(1, 200))
def test_entry_values_are_scored_or_refused_with_invalid_error(
    contract: str, declarer: Any, taken: int | str, lead: str | None, board: int
) -> None:
    try:
        values = EntryValues(contract=contract, declarer=declarer, tricks=taken, lead=lead)
    except ValidationError:
        return
    try:
        checked = check_values(board, values, lead_required=False)
    except InvalidError as exc:
        refused = exc
    else:
        assert 0 <= checked.tricks <= 13
        return
    assert refused.code
    assert refused.message


@settings(max_examples=300, deadline=None)
@given(contracts, st.text(max_size=2) | st.none(), tricks)
def test_the_bridge_domain_raises_only_bridge_error(
    contract: str, declarer: str | None, taken: int | str
) -> None:
    with contextlib.suppress(BridgeError):
        TableResult.make(contract, declarer, taken)
