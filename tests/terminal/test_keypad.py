"""The keypad grammar: what each key does, what is refused, and the keys of a stored result."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.messages import BoardResultView
from terminal.keypad import Draft, KeyRefusedError, backspace, keys_for, press, replay


def keyed(keys: str, board: int = 1, **options: Any) -> Draft:
    draft = Draft(board, **options)
    for key in keys:
        draft = press(draft, key)
    return draft


@pytest.mark.parametrize(
    ("keys", "options", "contract", "declarer", "tricks", "ns"),
    [
        ("44210", {}, "4S", "S", 10, 420),
        ("442=", {}, "4S", "S", "=", 420),
        ("4420", {"tricks_style": "relative"}, "4S", "S", "=", 420),
        ("44*2-2", {"tricks_style": "relative"}, "4SX", "S", "-2", -300),
        ("44**2-1", {}, "4SXX", "S", "-1", -200),
        ("3589", {}, "3NT", "N", 9, 400),
        ("1168", {}, "1C", "E", 8, -90),
        ("754=", {}, "7NT", "W", "=", -1520),
        ("634+1", {}, "6H", "W", "+1", -1010),
        ("0", {}, "PASS", None, 0, 0),
        ("p", {}, "PASS", None, 0, 0),
        ("4s*s10", {}, "4SX", "S", 10, 590),
    ],
)
def test_keys_make_entries(
    keys: str,
    options: dict[str, Any],
    contract: str,
    declarer: str | None,
    tricks: int | str,
    ns: int,
) -> None:
    draft = keyed(keys, **options)
    values = draft.values()
    assert values is not None
    assert (values.contract, values.declarer, values.tricks) == (contract, declarer, tricks)
    scored = draft.scored()
    assert scored is not None
    assert scored.ns_score == ns


def test_the_lead_card_when_the_event_asks() -> None:
    draft = keyed("352" + "414", lead_required=True)
    assert draft.step == "tricks"
    assert draft.lead == "SA"
    draft = keyed("3524" + "0" + "9", lead_required=True)
    assert (draft.lead, draft.values().tricks) == ("ST", 9)  # type: ignore[union-attr]
    draft = keyed("352" + "27" + "9", lead_required=True)
    assert draft.lead == "D7"


@pytest.mark.parametrize(
    ("keys", "bad", "reason"),
    [
        ("", "8", "Level is 1 to 7"),
        ("4", "7", "Suit: 1"),
        ("44", "5", "Declarer: 8 North"),
        ("75", "*", ""),
        ("752+", "1", r"7NT\+1 is impossible"),
        ("44210", "5", "All keyed"),
        ("", "*", "Key the level first"),
    ],
)
def test_refused_keys_say_what_fits(keys: str, bad: str, reason: str) -> None:
    draft = keyed(keys)
    if not reason:
        assert press(draft, bad).doubling == "X"
        return
    with pytest.raises(KeyRefusedError, match=reason):
        press(draft, bad)


def test_relative_style_needs_a_sign() -> None:
    with pytest.raises(KeyRefusedError, match="0 = made"):
        keyed("4429", tricks_style="relative")


def test_backspace_takes_back_one_key() -> None:
    draft = keyed("44*210")
    assert backspace(draft).tricks == "1"
    assert backspace(backspace(backspace(draft))).declarer is None
    assert backspace(keyed("")).keys == ()


@pytest.mark.parametrize(
    ("contract", "declarer", "tricks", "result", "style", "keys"),
    [
        ("4SX", "S", 8, "-2", "absolute", ("4", "4", "*", "2", "8")),
        ("4SX", "S", 8, "-2", "relative", ("4", "4", "*", "2", "-", "2")),
        ("3NT", "W", 9, "=", "relative", ("3", "5", "4", "0")),
        ("7CXX", "E", 13, "=", "absolute", ("7", "1", "*", "*", "6", "1", "3")),
        ("PASS", None, 0, None, "absolute", ("0",)),
    ],
)
def test_keys_for_a_stored_result_round_trip(
    contract: str,
    declarer: str | None,
    tricks: int,
    result: str | None,
    style: str,
    keys: tuple[str, ...],
) -> None:
    view = BoardResultView(
        board=1,
        round=1,
        table=1,
        state="confirmed",
        version=2,
        contract=contract,
        declarer=declarer,
        tricks=tricks,
        result=result,
    )
    assert keys_for(view, style) == keys  # type: ignore[arg-type]
    again = replay(Draft(1, style), keys)  # type: ignore[arg-type]
    scored = again.scored()
    assert scored is not None
    assert (scored.contract, scored.tricks) == (contract, tricks)
