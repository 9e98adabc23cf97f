"""What the tests' host (deploy/keypad/host.mjs) calls: one keypad in this interpreter, driven a
turn at a time with hex strings, and the answer printed as one JSON line. Not used on a Pico."""

import gc
import json

from kp_keypad import Keypad
from kp_store import PosixFiles

keypad = None


def boot(table, serial, session, folder="/flash", bus=False, files=None):
    """Power on (again): RAM is lost, the flash folder stays."""
    global keypad
    keypad = None
    gc.collect()
    keypad = Keypad(table, files or PosixFiles(folder), serial, session, bus=bus)
    report(b"")


def step(hex_in, now, key=None):
    report(keypad.step(bytes.fromhex(hex_in), now, key))


def report(out):
    device = keypad.device
    print(
        json.dumps(
            {
                "out": out.hex(),
                "lines": device.display,
                "screen": device.screen,
                "busy": device.busy,
                "idle": keypad.idle,
                "pending": len(keypad.store.pending()),
                "full": keypad.store.full,
            }
        )
    )
