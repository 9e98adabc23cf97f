"""What the tests' host (deploy/keypad/host.mjs) calls: one keypad in this interpreter, driven a
turn at a time with hex strings, and the answer printed as one JSON line. Not used on a Pico."""

import gc
import json

from kp_keypad import Keypad
from kp_link import BusDevice, PointToPointLink
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


link = None


def link_start(address, session, bus=False):
    """A bare link endpoint (no device), for the tests of the link against protocol/link.py."""
    global link
    link = BusDevice(address, session) if bus else PointToPointLink(address, session)


def link_step(hex_in, now, sends=()):
    """Bytes in, messages to send ([type, hex]), the bytes out and the events, as JSON."""
    if hex_in:
        link.receive_bytes(bytes.fromhex(hex_in), now)
    for kind, payload in sends:
        link.send(kind, bytes.fromhex(payload))
    out = link.poll(now)
    events = [
        [e[0]] + [x.hex() if isinstance(x, bytes) else x for x in e[1:]] for e in link.events()
    ]
    print(json.dumps({"out": out.hex(), "events": events, "pending": link.pending}))
