"""The board layer on a Raspberry Pi Pico (RP2040) under MicroPython: the keypad matrix on GPIO,
the LCD on I2C, the link on USB CDC serial or a UART (with an RS-485 transceiver's driver enable
pin for the bus), the store on the flash's file system, and the loop that runs the core
(kp_keypad). Nothing here runs in the tests: they run the core in MicroPython's WebAssembly port.
"""

import os
import select
import sys
import time

import kp_config
import machine
import micropython
from kp_debounce import LAYOUT, Debouncer
from kp_hd44780 import Lcd
from kp_keypad import Keypad
from kp_store import PosixFiles


class Matrix:
    """A 4x4 membrane keypad: rows driven low one at a time, columns read with pull-ups."""

    def __init__(self, rows, cols):
        self.rows = [machine.Pin(p, machine.Pin.OPEN_DRAIN, value=1) for p in rows]
        self.cols = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in cols]

    def down(self):
        found = []
        for r, row in enumerate(self.rows):
            row.value(0)
            time.sleep_us(5)
            for c, col in enumerate(self.cols):
                if col.value() == 0:
                    found.append(LAYOUT[r][c])
            row.value(1)
        return found


class UsbSerial:
    """USB CDC serial (the port MicroPython's REPL uses; Ctrl-C is turned off so that 0x03 in a
    frame is data). The gateway sees /dev/ttyACM0 (VID 0x2E8A)."""

    def __init__(self):
        micropython.kbd_intr(-1)
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)

    def read(self):
        data = bytearray()
        while self._poll.poll(0) and len(data) < 256:
            data += sys.stdin.buffer.read(1)
        return bytes(data)

    def write(self, data):
        sys.stdout.buffer.write(data)


class UartSerial:
    """A UART; with ``de`` the RS-485 transceiver's driver enable, high only while sending."""

    def __init__(self, number, baud, tx, rx, de=None):
        self.uart = machine.UART(number, baudrate=baud, tx=machine.Pin(tx), rx=machine.Pin(rx))
        self.de = None if de is None else machine.Pin(de, machine.Pin.OUT, value=0)

    def read(self):
        return self.uart.read() or b""

    def write(self, data):
        if self.de is not None:
            self.de.value(1)
        self.uart.write(data)
        if self.de is not None:
            while not self.uart.txdone():
                pass
            self.de.value(0)


class Clock:
    """Milliseconds since power-on as a Python int (ticks_ms wraps; this does not)."""

    def __init__(self):
        self._last = time.ticks_ms()
        self.now = 0

    def read(self):
        tick = time.ticks_ms()
        self.now += time.ticks_diff(tick, self._last)
        self._last = tick
        return self.now


def run():
    """The keypad, until power-off; BACK (the C key) held at power-on leaves MicroPython's REPL
    on the USB port instead, so that mpremote can copy a new firmware (the keypad takes Ctrl-C
    as data)."""
    settings = kp_config.load()
    matrix = Matrix(settings["rows"], settings["cols"])
    if "C" in matrix.down():
        print("Traveller keypad: BACK held at power-on, REPL left on USB for mpremote")
        return
    i2c = machine.I2C(
        settings["i2c"], sda=machine.Pin(settings["i2c_sda"]), scl=machine.Pin(settings["i2c_scl"])
    )
    lcd = Lcd(i2c, settings["lcd_address"])
    transport = settings["transport"]
    if transport == "usb":
        port = UsbSerial()
    else:
        de = settings["rs485_de"] if transport == "rs485" else None
        port = UartSerial(
            settings["uart"], settings["baud"], settings["uart_tx"], settings["uart_rx"], de
        )
    serial = machine.unique_id().hex()[:8]
    session = int.from_bytes(os.urandom(4), "big")
    keypad = Keypad(
        settings["table"],
        PosixFiles("/"),
        serial,
        session,
        address=settings["address"],
        bus=transport == "rs485",
        language=settings["language"],
    )
    debouncer = Debouncer()
    clock = Clock()
    while True:
        now = clock.read()
        keys = debouncer.sample(matrix.down(), now)
        out = keypad.step(port.read(), now, keys[0] if keys else None)
        for key in keys[1:]:
            out += keypad.step(b"", now, key)
        if out:
            port.write(out)
        lcd.show(*keypad.device.display)
        time.sleep_ms(2)
