"""The keypad in every language: each text translated, every screen within 16 characters."""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_sim import i18n, table_entry
from firmware_sim.device import REFUSAL_TEXTS, WIDTH, Device, Key
from firmware_sim.fake_gateway import FakeTables
from firmware_sim.store import MemoryStore
from protocol.keypad_codec import decode, encode
from protocol.messages import RoundInfo
from tests.firmware_sim.test_device import big_rounds, keys, server_replies
from tests.support.keypad import Table

#: The widest values the fields take on the screens that use them.
WIDEST = {"table": 99, "board": 99, "round": 99, "done": 99, "total": 99, "code": "", "tricks": 19}
WIDEST |= {"seat": "Ø", "count": 13}  # the auction's caller, the deal's cards in a hand
WIDEST |= {"pair": "10NS", "side": "ØV"}  # the move screen: a Mitchell pair, its next seat
WIDEST |= {"player": 99}  # the move screen of an individual: a player
ROOT = Path(__file__).resolve().parents[2]
SHOWABLE = set(string.printable) - set("\t\n\r\x0b\x0c") | i18n.CHARSET


TEXTS = i18n.catalogue_texts()


def test_the_catalogues_hold_the_keypads_texts() -> None:
    assert len(TEXTS) > 80
    assert TEXTS["Call the TD?"] == ("Tilkald TL?", "Tilkall TL?", "TL rufen?", "Вызвать судью?")


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_text_is_translated_and_fits(lang: str) -> None:
    """Each text of the keypad's catalogue, in every language, fits a 16-character line with
    its fields at their widest, in characters the display has."""
    for message, translations in TEXTS.items():
        assert all(translations), (message, translations)  # none missing, empty or fuzzy
        entry = "13" if message.startswith("Tricks") else "+13"
        shown = i18n.text(lang, message, **WIDEST, entry=entry)
        assert shown.strip(), (lang, message)
        assert len(shown) <= WIDTH, (lang, shown)
        assert set(shown) <= SHOWABLE, (lang, shown)


def test_every_text_the_keypad_names_is_in_its_catalogue() -> None:
    """The texts named in the code (``i18n.text(lang, "...")``, and the refusal tables of
    table_entry.py) are message ids of the template, so none shows in English by mistake."""
    named: set[str] = set()
    for path in (ROOT / "firmware_sim").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            # i18n.text(lang, "...") anywhere, the device's self._t("...")
            where = {"text": 1, "_t": 0}.get(node.func.attr)
            if where is None or len(node.args) <= where:
                continue
            message = node.args[where]
            if isinstance(message, ast.Constant) and isinstance(message.value, str):
                named.add(message.value)
    named |= set(table_entry.CALL_REFUSALS.values()) | set(table_entry.DEAL_REFUSALS.values())
    named |= set(REFUSAL_TEXTS.values())
    assert len(named) > 40
    assert named - set(TEXTS) == set()


def test_fields_survive_translation() -> None:
    for message, translations in TEXTS.items():
        names = ("{table}", "{board}", "{round}", "{entry}", "{tricks}", "{seat}", "{count}")
        names += ("{pair}", "{side}", "{player}")
        fields = sorted(f for f in names if f in message)
        for text in translations:
            assert sorted(f for f in fields if f in text) == fields, (message, text)


def test_local_seat_letters_and_fixed_keys() -> None:
    assert [i18n.seat("da", s) for s in "NESW"] == ["N", "Ø", "S", "V"]
    assert i18n.seat("de", "E") == "O"
    assert i18n.text("nb", "Decl 1N 2E 3S 4W") == "Spf 1N 2Ø 3S 4V"
    assert i18n.text("xx", "Call the TD?") == "Call the TD?"


def test_a_danish_keypad_enters_a_board(tables: FakeTables) -> None:
    table = Table(tables)
    table.device = Device(3, MemoryStore(3), language="da")
    table.boot()
    assert table.lines == ("B3 Parkode:", "_")
    assert table.press("0003", "ENT") == ("B3 R1 NS3 ØV6", "ENT=OK *=TL")
    assert table.press("ENT") == ("B3 R1 S5 N-S 3-6", "0-7=indtast *=TL")
    assert table.press("ENT") == ("S5 kontrakt", "Trin 1-7 0=pas")
    assert table.press("4", "4", "*") == ("S5 4SX *=X", "Spf 1N 2Ø 3S 4V")
    assert table.press("2") == ("S5 4SX Ø", "Stik 0-13: _")
    assert table.press("8") == ("4SX Ø -2 +300?", "ENT=send BK=ret")
    assert table.press("ENT") == ("4SX Ø -2 +300", "ØV:ENT=OK BK=nej")
    assert table.press("1", "4") == ("4SX Ø -2 +300", "ØV:ENT=OK BK=nej")  # not the PIN


@pytest.mark.parametrize("lang", i18n.LANGUAGES[1:])
@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(info=big_rounds, presses=keys, score=st.integers(-7600, 7600))
def test_every_screen_fits_the_lcd_in_every_language(
    lang: str, info: RoundInfo, presses: list[Key], score: int
) -> None:
    device = Device(info.table, MemoryStore(info.table), language=lang)
    device.store.save_pairing("t", None)
    device.boot()
    device.receive(info)
    for key in presses:
        device.press(key)
        for command in device.outgoing():
            for reply in server_replies(info, command, score):
                device.receive(reply)
        for line in device.display:
            assert len(line) == WIDTH
            assert set(line) <= SHOWABLE


# ---------------------------------------------------------------- choosing the language (issue 11)


def test_the_keypad_shows_the_events_language_through_the_gateway_codec(
    tables: FakeTables,
) -> None:
    """The event's language travels in RoundInfo, through the keypad frame, to the screens."""
    tables.language = "de"
    info = tables.round_info(3)
    carried = decode(*encode(info))
    assert isinstance(carried, RoundInfo)
    assert carried.language == "de"
    without = decode(*encode(info.model_copy(update={"language": None})))
    assert isinstance(without, RoundInfo)
    assert without.language is None
    table = Table(tables)
    table.boot()
    assert table.lines == ("T3 Pair code:", "_"), "not paired yet: the keypad's own language"
    assert table.press("0003", "ENT") == ("T3 R1 NS3 OW6", "ENT=OK *=TL")


def test_the_players_switch_the_keypads_language_with_the_arrows(tables: FakeTables) -> None:
    """DOWN on the seat check goes to the next language (de -> ru -> en -> da...), UP back; the
    choice is kept with the pairing (a power cut keeps it) and a new pairing goes back to the
    event's. # is the round summary on every screen, never the language (issue 17)."""
    tables.language = "de"
    store = MemoryStore(3)
    table = Table(tables, store=store)
    table.boot()
    table.press("0003", "ENT")
    assert table.press("#") == ("T3 R1 NS3 OW6", "ENT=OK *=TL")
    assert store.language is None
    assert table.press("DOWN") == ("С3 Р1 СЮ3 ВЗ6", "ENT=ОК *=судья")
    assert store.language == "ru"
    assert table.press("DOWN") == ("T3 R1 NS3 EW6", "ENT=OK *=TD")
    assert table.press("UP", "DOWN", "DOWN")[0] == "B3 R1 NS3 ØV6"
    assert table.press("ENT")[1] == "0-7=indtast *=TL", "the board screen stays Danish"
    reborn = Table(tables, store=store)
    reborn.bound = 3
    reborn.boot()
    assert reborn.lines[1] == "0-7=indtast *=TL", "remembered across a power cut"
    store.save_pairing(None, None)
    again = Table(tables, store=store)
    again.boot()
    again.press("0003", "ENT")
    assert store.language is None
    assert again.lines[1] == "ENT=OK *=TL", "a new pairing: the event's language again"
    assert again.lines[0] == "T3 R1 NS3 OW6"


def test_the_language_keys_on_every_screen_before_the_round() -> None:
    """The arrows also switch while waiting for the pairing code or for round 1; # does not."""
    device = Device(1, MemoryStore(1))
    device.boot()
    device.press(Key.HASH)
    assert device.language == "en"
    device.press(Key.DOWN)
    assert device.language == "da"
    assert device.display[0].startswith("B1 Parkode:")
    device.press(Key.UP)
    assert device.language == "en"
