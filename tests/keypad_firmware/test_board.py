"""The board layer (deploy/keypad/firmware/kp_board.py and kp_hd44780.py) under MicroPython with
a stand-in for the Pico's ``machine`` module: the matrix scan finds the key held, the LCD gets
the HD44780's bytes, RS-485's driver is enabled only while sending, and every firmware file
compiles under MicroPython. What the real pins, display and USB do is not tried here."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.micropython import FIRMWARE, MicroPython

pytestmark = pytest.mark.subprocess


@pytest.fixture(scope="module")
def mp() -> Iterator[MicroPython]:
    with MicroPython() as interpreter:
        interpreter.run("import kp_fakeboard, json\nimport kp_board, kp_hd44780, kp_debounce")
        yield interpreter


def test_every_firmware_file_compiles_under_micropython(mp: MicroPython) -> None:
    names = sorted(p.name for p in FIRMWARE.glob("*.py"))
    assert {"main.py", "kp_board.py", "kp_device.py", "kp_tables.py"} <= set(names)
    compiled = mp.value(
        f"[compile(open('/fw/' + n).read(), n, 'exec') is not None for n in {names!r}]"
    )
    assert compiled == [True] * len(names)


@pytest.mark.parametrize(
    ("row", "col", "key"), [(0, 0, "1"), (1, 1, "5"), (3, 0, "*"), (3, 3, "ENT"), (0, 3, "UP")]
)
def test_the_matrix_scan_finds_the_key_held(mp: MicroPython, row: int, col: int, key: str) -> None:
    mp.run("matrix = kp_board.Matrix([6, 7, 8, 9], [10, 11, 12, 13])")
    mp.run(f"kp_fakeboard.CLOSED.clear()\nkp_fakeboard.CLOSED.add(({6 + row}, {10 + col}))")
    legends = mp.value("matrix.down()")
    assert len(legends) == 1
    pressed = mp.value(
        "(lambda d: d.sample(matrix.down(), 0) + d.sample(matrix.down(), 30))"
        "(kp_debounce.Debouncer(20))"
    )
    assert pressed == [key]
    mp.run("kp_fakeboard.CLOSED.clear()")
    assert mp.value("matrix.down()") == []


def _lcd_text(writes: list[list[object]]) -> list[tuple[str, int]]:
    """The HD44780 bytes the backpack strobed in (E high then low), as (kind, byte)."""
    nibbles = []
    for _address, data in writes:
        raw = bytes.fromhex(str(data))
        high, low = raw[0], raw[1]
        assert high & 0x04  # E high, then low: the byte strobed in
        assert not low & 0x04
        nibbles.append(("data" if high & 0x01 else "cmd", high & 0xF0))
    out = []
    for (kind, a), (_, b) in zip(nibbles[::2], nibbles[1::2], strict=True):
        out.append((kind, a | b >> 4))
    return out


def test_the_lcd_gets_the_hd44780_bytes(mp: MicroPython) -> None:
    mp.run("i2c = kp_fakeboard.I2C(0)\nlcd = kp_hd44780.Lcd(i2c, 0x27)\ni2c.written = []")
    mp.run("lcd.show('T1 Pair code:   ', 'Ø_              ')")
    writes = mp.value("[[a, d.hex()] for a, d in i2c.written]")
    assert {w[0] for w in writes} == {0x27}
    sent = _lcd_text(writes)
    assert sent[0] == ("cmd", 0x80)  # line 1
    assert "".join(chr(b) for k, b in sent[1:17]) == "T1 Pair code:   "
    assert sent[17] == ("cmd", 0xC0)  # line 2
    assert chr(sent[18][1]) == "O"  # no Ø in the A00 ROM: the nearest letter
    mp.run("i2c.written = []\nlcd.show('T1 Pair code:   ', 'Ø_              ')")
    assert mp.value("i2c.written") == []  # unchanged lines are not sent again


def test_rs485_drives_the_line_only_while_sending(mp: MicroPython) -> None:
    mp.run(
        "kp_fakeboard.log.clear()\nport = kp_board.UartSerial(0, 9600, 0, 1, de=2)\n"
        "port.write(b'\\x7e\\x00')"
    )
    log = mp.value("[list(e) if e[0] == 'pin' else [e[0], e[1].hex()] for e in kp_fakeboard.log]")
    assert log == [["pin", 2, 1], ["uart", "7e00"], ["pin", 2, 0]]


def test_the_clock_counts_on_past_the_tick_wrap(mp: MicroPython) -> None:
    mp.run("clock = kp_board.Clock()\nfirst = clock.read()")
    assert mp.value("clock.read() >= first")
