"""A 16x2 HD44780 character LCD through a PCF8574 I2C backpack (4-bit mode), on MicroPython.

Backpack wiring (the common blue boards): P0 RS, P1 RW, P2 E, P3 backlight, P4-P7 D4-D7.
Characters outside ASCII are mapped to the ROM: the common A00 ROM has no Ø Å Æ or Cyrillic,
so they are shown as their nearest ASCII letter (A02 and Cyrillic ROMs: see ``ROM_CODES``).
"""

import time

_RS, _EN, _BACKLIGHT = 0x01, 0x04, 0x08
#: Latin letters the A00 ROM lacks, as near ASCII.
ASCII_OF = {"Æ": "E", "Ø": "O", "Å": "A", "æ": "e", "ø": "o", "å": "a", "Ä": "A", "Ö": "O"}
ASCII_OF.update({"Ü": "U", "ä": "\xe1", "ö": "\xef", "ü": "\xf5", "ß": "\xe2"})


class Lcd:
    """The display: ``show(line1, line2)`` rewrites only what changed."""

    def __init__(self, i2c, address=0x27):
        self.i2c = i2c
        self.address = address
        self._shown = [None, None]
        time.sleep_ms(50)
        for nibble in (0x30, 0x30, 0x30, 0x20):  # into 4-bit mode (HD44780 datasheet, fig. 24)
            self._write4(nibble, 0)
            time.sleep_ms(5)
        for command in (0x28, 0x0C, 0x06, 0x01):  # 2 lines; display on; left to right; clear
            self._command(command)
        time.sleep_ms(2)

    def _write4(self, nibble, mode):
        byte = (nibble & 0xF0) | mode | _BACKLIGHT
        self.i2c.writeto(self.address, bytes((byte | _EN, byte)))

    def _send(self, value, mode):
        self._write4(value, mode)
        self._write4(value << 4, mode)

    def _command(self, value):
        self._send(value, 0)

    def show(self, line1, line2):
        for row, line in enumerate((line1, line2)):
            if self._shown[row] == line:
                continue
            self._shown[row] = line
            self._command(0x80 | (0x40 * row))
            for char in line:
                char = ASCII_OF.get(char, char)
                code = ord(char)
                self._send(code if code < 0x100 else ord("?"), _RS)
