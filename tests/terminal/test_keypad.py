"""The keypad grammar: what each key does, what is refused, and the keys of a stored result."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.messages import BoardResultView
from terminal.keypad import DraftKeyRefusedError, ScoredDraft, backspace, keys_for, press, replay


def keyed(keys: str, board: int = 1, **options: Any) -> ScoredDraft:
    draft = ScoredDraft(board, **options)
    for key in keys:
        draft = press(draft, key)
    return draft


@pytest.mark.parametrize(
    ("keys", "options", "contract", "declarer", "tricks", "ns"),
    [
        ("44310", {}, "4S", "S", 10, 420),
        ("443=", {}, "4S", "S", "=", 420),
        ("4430", {"tricks_style": "relative"}, "4S", "S", "=", 420),
        ("44*3-2", {"tricks_style": "relative"}, "4SX", "S", "-2", -300),
        ("44**3-1", {}, "4SXX", "S", "-1", -200),
        ("3519", {}, "3NT", "N", 9, 400),
        ("1128", {}, "1C", "E", 8, -90),
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
    draft = keyed("353" + "414", lead_required=True)
    assert draft.step == "tricks"
    assert draft.lead == "SA"
    draft = keyed("3534" + "0" + "9", lead_required=True)
    assert (draft.lead, draft.values().tricks) == ("ST", 9)  # type: ignore[union-attr]
    draft = keyed("353" + "27" + "9", lead_required=True)
    assert draft.lead == "D7"


@pytest.mark.parametrize(
    ("keys", "bad", "reason"),
    [
        ("", "8", "Level is 1 to 7"),
        ("4", "7", "Suit: 1"),
        ("44", "5", "Declarer: 1 North, 2 East, 3 South, 4 West"),
        ("75", "*", ""),
        ("753+", "1", r"7NT\+1 is impossible"),
        ("44310", "5", "All keyed"),
        ("", "*", "Key the level first"),
    ],
)
def test_refused_keys_say_what_fits(keys: str, bad: str, reason: str) -> None:
    draft = keyed(keys)
    if not reason:
        assert press(draft, bad).doubling == "X"
        return
    with pytest.raises(DraftKeyRefusedError, match=reason):
        press(draft, bad)


def test_relative_style_needs_a_sign() -> None:
    with pytest.raises(DraftKeyRefusedError, match="0 = made"):
        keyed("4439", tricks_style="relative")


def test_backspace_takes_back_one_key() -> None:
    draft = keyed("44*310")
    assert backspace(draft).tricks == "1"
    assert backspace(backspace(backspace(draft))).declarer is None
    assert backspace(keyed("")).keys == ()


@pytest.mark.parametrize(
    ("contract", "declarer", "tricks", "result", "style", "keys"),
    [
        ("4SX", "S", 8, "-2", "absolute", ("4", "4", "*", "3", "8")),
        ("4SX", "S", 8, "-2", "relative", ("4", "4", "*", "3", "-", "2")),
        ("3NT", "W", 9, "=", "relative", ("3", "5", "4", "0")),
        ("7CXX", "E", 13, "=", "absolute", ("7", "1", "*", "*", "2", "1", "3")),
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
    again = replay(ScoredDraft(1, style), keys)  # type: ignore[arg-type]
    scored = again.scored()
    assert scored is not None
    assert (scored.contract, scored.tricks) == (contract, tricks)


@pytest.mark.parametrize("second", ["4", "5", "9"])
def test_fourteen_tricks_are_not_possible_and_the_one_goes_too(second: str) -> None:
    draft = keyed("4431")
    with pytest.raises(DraftKeyRefusedError, match=f"^1{second} is not possible") as refused:
        press(draft, second)
    kept = refused.value.draft
    assert kept is not None
    assert (kept.tricks, kept.scored()) == ("", None)  # not "nine down", one Enter from sent
    assert keyed("44310").tricks == "10"


def test_the_declarer_keys_are_the_keypads_bridge_order() -> None:
    """1 2 3 4 = N E S W on every device (protocol/keys.md); the compass 8 and 6 are refused."""
    assert [keyed(f"44{key}").declarer for key in "1234"] == ["N", "E", "S", "W"]
    for compass in "86":
        with pytest.raises(DraftKeyRefusedError, match="Declarer"):
            keyed(f"44{compass}")
