"""The firmware's main loop without hardware: the Device wired to its link through the codec
(firmware_sim/keypad.py). The board layer (kp_board) calls ``step`` with the bytes read from the
serial port, a key if one was pressed and the time in ms; it writes back what ``step`` returns
and shows ``device.display`` on the LCD.
"""

import kp_codec
from kp_device import Device
from kp_link import BusDevice, PointToPointLink
from kp_store import Store


class Keypad:
    """A keypad: device, store and link."""

    def __init__(self, table, files, serial, session, address=None, bus=False, language="en"):
        self.store = Store(files, table, serial)
        self.device = Device(table, self.store, language=language)
        address = address or table
        self.link = BusDevice(address, session) if bus else PointToPointLink(address, session)
        self.bad_messages = 0
        self.device.boot()
        self.pump()

    def pump(self):
        """Hand the link's events to the device and the device's commands to the link."""
        device = self.device
        for event in self.link.events():
            kind = event[0]
            if kind == "delivered":
                try:
                    message = kp_codec.decode(event[1], event[2])
                except kp_codec.CodecError:
                    self.bad_messages += 1
                    continue
                if message["type"] in kp_codec.REPLIES:
                    device.receive(message)
                else:
                    self.bad_messages += 1
            elif kind in ("up", "down"):
                device.link_status(kind == "up")
            elif kind == "restarted":
                device.peer_restarted()
        for command in device.outgoing():
            self.link.send(*kp_codec.encode(command))

    def step(self, data, now, key=None):
        """One turn of the loop: bytes in, a key, the bytes to write out."""
        if data:
            self.link.receive_bytes(data, now)
        self.pump()
        if key is not None:
            self.device.press(key)
            self.pump()
        out = self.link.poll(now)
        self.pump()
        return out

    @property
    def idle(self):
        """Nothing waiting, unsent or unanswered."""
        return not self.device.busy and not self.store.pending() and self.link.pending == 0
