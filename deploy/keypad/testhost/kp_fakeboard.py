"""A Pico's ``machine`` module without a Pico, for the tests of the board layer (kp_board): pins
whose levels a test sets, a keypad matrix wired between them, an I2C bus and a UART that record
what is written. Installed as ``sys.modules["machine"]`` before kp_board is imported."""

import sys

#: The level each output pin drives.
LEVELS = {}
#: Keys held down on the matrix: (row pin, column pin) pairs shorted together.
CLOSED = set()


class Pin:
    IN, OUT, OPEN_DRAIN, PULL_UP = 0, 1, 2, 3

    def __init__(self, number, mode=IN, pull=None, value=None):
        self.number = number
        self.mode = mode
        if value is not None:
            LEVELS[number] = value

    def value(self, level=None):
        if level is not None:
            LEVELS[self.number] = level
            log.append(("pin", self.number, level))
            return None
        if self.mode == Pin.IN:
            for row, col in CLOSED:
                if col == self.number and LEVELS.get(row, 1) == 0:
                    return 0
            return 1
        return LEVELS.get(self.number, 0)


class I2C:
    def __init__(self, number, sda=None, scl=None):
        self.written = []

    def writeto(self, address, data):
        self.written.append((address, bytes(data)))


class UART:
    def __init__(self, number, baudrate=9600, tx=None, rx=None):
        self.incoming = b""

    def read(self):
        data, self.incoming = self.incoming, b""
        return data or None

    def write(self, data):
        log.append(("uart", bytes(data)))

    def txdone(self):
        return True


def unique_id():
    return b"\xe6\x61\x41\x04\x03\x27\x52\x2b"


log = []
sys.modules["machine"] = sys.modules[__name__]
