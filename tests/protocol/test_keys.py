"""The key grammar's spec (protocol/keys.md) and table card (protocol/table_card.py) follow the
grammar (protocol/keys.py): the table in the spec is the one the card makes."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest

from protocol import keys
from protocol.languages import LANGUAGES
from protocol.messages import BoardResultView
from protocol.table_card import DEVICES, KEYCAPS, card_lines, card_text, markdown_table, table_card

SPEC = Path(keys.__file__).with_name("keys.md")


def test_the_spec_holds_the_grammars_table() -> None:
    text = SPEC.read_text(encoding="utf-8")
    start = text.index("<!-- generated: markdown_table -->") + len(
        "<!-- generated: markdown_table -->"
    )
    end = text.index("<!-- end generated -->")
    assert text[start:end].strip() == markdown_table()


def test_the_card_is_made_from_the_grammars_keys() -> None:
    card = table_card(str, "en")
    rows = {row.what: row for section in card.sections for row in section.rows}
    seats = "  ".join(f"{k} {v}" for k, v in keys.DECLARER_KEYS.items())
    assert rows["Declarer"].terminal == rows["Declarer"].keypad == seats == "1 N  2 E  3 S  4 W"
    assert rows["Doubled"].keypad.startswith(keys.DOUBLE)
    for device in DEVICES:
        caps = KEYCAPS[device]
        assert rows["Send to East"].keys(device) == caps[keys.OK]
        assert rows["Confirm: the result is right"].keys(device) == caps[keys.OK]
        assert rows["Reject: back to North"].keys(device) == caps[keys.BACK]
    assert card.example["keypad"].startswith("4 4 3 1 0 ENT")


def test_local_letters_on_the_card() -> None:
    card = table_card(str, "da")
    rows = {row.what: row for section in card.sections for row in section.rows}
    assert rows["Declarer"].keypad == "1 N  2 Ø  3 S  4 V"
    assert rows["Suit"].terminal.endswith("5 UT")


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_terminal_help_fits_its_screen(lang: str) -> None:
    lines = card_lines("terminal", str, lang, 76)
    assert len(lines) <= 20
    assert "Backspace" in "\n".join(lines)


def test_the_text_card_shows_both_devices() -> None:
    text = card_text(None, str, "en")
    assert "Terminal" in text
    assert "Keypad" in text
    assert "UP n   DOWN n" in text
    assert "(East confirms again / the TD changes it)" in text


def test_refusals_carry_a_code_for_each_device_to_word() -> None:
    draft = keys.Draft(1)
    for key in "4431":
        draft = keys.press(draft, key)
    with pytest.raises(keys.KeyRefusedError) as refused:
        keys.press(draft, "4")
    assert (refused.value.code, refused.value.tricks) == ("too_many_tricks", "14")
    assert keys.press(draft, "0").tricks == "10"
    with pytest.raises(keys.KeyRefusedError) as refused:
        keys.press(keys.Draft(1), "8")
    assert refused.value.code == "level"


def test_a_refused_second_tricks_digit_leaves_no_other_result_behind() -> None:
    """ "1 4": the "1" alone is one trick (nine down in 4♠): refused, the 1 goes too."""
    draft = keys.Draft(1)
    for key in "4431":
        draft = keys.press(draft, key)
    assert draft.complete  # one trick: a result of its own
    with pytest.raises(keys.KeyRefusedError) as refused:
        keys.press(draft, "4")
    kept = refused.value.kept(draft)
    assert (kept.keys, kept.tricks, kept.step, kept.complete) == (
        ("4", "4", "3"),
        "",
        "tricks",
        False,
    )
    assert keys.replay(keys.Draft(1), ("4", "4", "3", "1", "4")) == kept
    # a refusal of another field keeps the draft as it was
    with pytest.raises(keys.KeyRefusedError) as refused:
        keys.press(kept, "z")
    assert (refused.value.code, refused.value.kept(kept)) == ("tricks", kept)


def test_a_rejected_results_keys_replay_to_the_same_result() -> None:
    view = BoardResultView(
        board=1, round=1, table=1, state="rejected", version=2, contract="3NTX", declarer="W",
        tricks=8, result="-1",
    )  # fmt: skip
    again = keys.replay(keys.Draft(1), keys.keys_for(view))
    assert again.values() is not None
    assert (again.contract, again.declarer, again.tricks) == ("3NTX", "W", "8")


def test_every_step_of_an_entry_has_its_key_handler() -> None:
    assert set(keys._STEP_KEYS) == set(get_args(keys.Step))
