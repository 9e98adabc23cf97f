"""Flash faults for the tests, in MicroPython: a flash in RAM whose next write is cut short by
a power cut (after a given number of bytes), or that is full."""


class PowerCutError(Exception):
    """The power went while the flash was being written: nothing after this runs."""


class FlashInRam:
    """The store's files in a dict, with faults to arm."""

    def __init__(self):
        self.files = {}
        self.cut_after = None  # the next write stops after this many bytes, then the power goes
        self.full = False  # writes fail with OSError(ENOSPC), leaving the file empty

    def read(self, name):
        return self.files.get(name)

    def write(self, name, data):
        if self.full:
            self.files[name] = b""
            raise OSError(28)
        if self.cut_after is not None:
            self.files[name] = bytes(data[: self.cut_after])
            self.cut_after = None
            raise PowerCutError()
        self.files[name] = bytes(data)
