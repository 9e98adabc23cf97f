"""The keypad matrix's keys without the pins: a key counts once it has read pressed for
``settle_ms`` in a row, and again only after it has read released for ``settle_ms``, so a
bouncing contact (a few ms of chatter as it closes or opens) gives one key, and a held key
gives no more. The board layer samples the matrix every few ms and calls ``sample``.
"""

#: A 4x4 membrane keypad's legends (rows top to bottom) and the keypad key each one is.
LAYOUT = (
    ("1", "2", "3", "A"),
    ("4", "5", "6", "B"),
    ("7", "8", "9", "C"),
    ("*", "0", "#", "D"),
)
KEY_OF = {"A": "UP", "B": "DOWN", "C": "BACK", "D": "ENT"}


class Debouncer:
    """Raw samples of the matrix in, debounced key presses out."""

    def __init__(self, settle_ms=20):
        self.settle_ms = settle_ms
        self._stable = {}  # legend -> True while counted as held
        self._since = {}  # legend -> when its raw reading last changed
        self._raw = {}

    def sample(self, down, now):
        """``down``: the legends reading pressed now; the keys newly pressed (keypad names)."""
        pressed = []
        for legend in set(self._raw) | set(down):
            raw = legend in down
            if self._raw.get(legend) != raw:
                self._raw[legend] = raw
                self._since[legend] = now
            held = self._stable.get(legend, False)
            if raw != held and now - self._since[legend] >= self.settle_ms:
                self._stable[legend] = raw
                if raw:
                    pressed.append(KEY_OF.get(legend, legend))
        return pressed
