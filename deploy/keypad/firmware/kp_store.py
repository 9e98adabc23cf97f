"""The keypad's battery-backed store on the Pico's flash: pairing token, seated round, language,
entry counter and the commands the server has not answered (firmware_sim/store.py's Outbox).

Two slots, ``store.a`` and ``store.b``: each change is written whole to the slot that does not
hold the newest copy, as JSON with a generation number and a CRC-16. Booting reads both and
takes the newest whole one, so a power cut during a write loses at most that write and never the
copy before it. When the flash is full (a write raises OSError) the store keeps the change in
RAM, says ``full`` and tries again at the next change: the command is still sent meanwhile.
"""

import json

from kp_frame import crc16

SLOTS = ("store.a", "store.b")


class PosixFiles:
    """The flash's file system (littlefs on the Pico) through open() in one folder."""

    def __init__(self, folder):
        self.folder = folder.rstrip("/")

    def read(self, name):
        try:
            with open(self.folder + "/" + name, "rb") as f:
                return f.read()
        except OSError:
            return None

    def write(self, name, data):
        with open(self.folder + "/" + name, "wb") as f:
            f.write(data)


def _pack(snapshot):
    body = json.dumps(snapshot).encode()
    return body + ("\n%04x\n" % crc16(body)).encode()


def _unpack(data):
    """The snapshot in a slot's bytes, or None when torn or damaged."""
    if not data:
        return None
    try:
        body, crc, _ = data.rsplit(b"\n", 2)
        if int(crc, 16) != crc16(body):
            return None
        snapshot = json.loads(body)
    except (ValueError, TypeError):
        return None
    return snapshot if isinstance(snapshot, dict) else None


class Store:
    """The Outbox on flash (``files``: PosixFiles or a test's stand-in)."""

    def __init__(self, files, table, serial="00000000"):
        self.files = files
        self.table = table
        self.full = False
        self.writes = 0
        newest = None
        slot = 1
        for index, name in enumerate(SLOTS):
            snapshot = _unpack(files.read(name))
            if snapshot is not None and (newest is None or snapshot["gen"] > newest["gen"]):
                newest, slot = snapshot, index
        self._slot = slot  # the slot holding the newest copy; the next write goes to the other
        if newest is None:
            self.gen = 0
            self.serial = serial
            self.counter = 0
            self.token = None
            self.seated_round = None
            self.language = None
            self._pending = []
            self._changed()
            return
        self.gen = newest["gen"]
        self.serial = newest["serial"]
        self.counter = newest["counter"]
        self.token = newest.get("token")
        self.seated_round = newest.get("seated_round")
        self.language = newest.get("language")
        self._pending = list(newest.get("pending", []))
        if newest.get("table") != table:
            self.token, self.seated_round = None, None  # moved to another table
            self._changed()

    def pending(self):
        return list(self._pending)

    def add(self, command):
        self._pending.append(command)
        self._changed()

    def remove(self, entry_id):
        kept = [c for c in self._pending if c.get("entry_id") != entry_id]
        if len(kept) == len(self._pending):
            return False
        self._pending = kept
        self._changed()
        return True

    def new_entry_id(self):
        """``kp<table>-<serial>-<counter>``: the counter is saved before the id is used."""
        self.counter += 1
        self._changed()
        return "kp%02d-%s-%05d" % (self.table, self.serial, self.counter)

    def save_pairing(self, token, seated_round):
        self.token = token
        self.seated_round = seated_round
        self._changed()

    def save_language(self, language):
        self.language = language
        self._changed()

    def _changed(self):
        self.gen += 1
        snapshot = {
            "format": 1,
            "gen": self.gen,
            "table": self.table,
            "serial": self.serial,
            "counter": self.counter,
            "token": self.token,
            "seated_round": self.seated_round,
            "language": self.language,
            "pending": self._pending,
        }
        target = 1 - self._slot
        try:
            self.files.write(SLOTS[target], _pack(snapshot))
        except OSError:
            self.full = True  # kept in RAM; the next change tries again
            return
        self._slot = target
        self.full = False
        self.writes += 1
