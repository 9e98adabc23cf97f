"""The table's key grammar for MicroPython (protocol/keys.py, spec protocol/keys.md): one
board's result keyed on a numeric keypad, the same keys as the terminal and the simulator.

level 1-7 (0 passed out), strain 1 C 2 D 3 H 4 S 5 NT, * doubled (X, XX, undo), declarer 1 N
2 E 3 S 4 W, the lead when the event asks (suit 1-4, rank 2-9, 0 ten, 11-14 J Q K A), tricks
taken 0-13 (a 1 takes a second digit) or, relative, 0 made / + over / - down. A refused key
raises KeyRefusedError(code); its kept(draft) is what the device keeps (a refused second tricks
digit takes its 1 back too); backspace replays the keys but the last.
"""

import kp_tables as T
from kp_score import impossible

G = T.GRAMMAR
DOUBLE = G["double"]
OVER = G["over"]
UNDER = G["under"]
MADE = G["made"]
PASSED = G["passed"]
_CYCLE = {"": "X", "X": "XX", "XX": ""}


class KeyRefusedError(Exception):
    """A key that does not fit the field being keyed. ``draft`` is what the draft becomes all
    the same, or None when it stays as it was: "14" refused leaves no tricks keyed, since the
    "1" alone would be another result, one OK from being sent."""

    def __init__(self, code, tricks="", draft=None):
        super().__init__(code)
        self.code = code
        self.tricks = tricks
        self.draft = draft

    def kept(self, draft):
        """The draft a device keeps after this refusal of a key pressed on ``draft``."""
        return draft if self.draft is None else self.draft


class Draft:
    """A result being keyed for one board."""

    def __init__(self, board, tricks_style="absolute", lead_required=False):
        self.board = board
        self.tricks_style = tricks_style
        self.lead_required = lead_required
        self.keys = []
        self.passed = False
        self.level = None
        self.strain = None
        self.doubling = ""
        self.declarer = None
        self.lead_suit = None
        self.lead_rank = None
        self.lead_high = False
        self.tricks = ""

    def copy(self):
        other = Draft(self.board, self.tricks_style, self.lead_required)
        other.keys = list(self.keys)
        other.passed, other.level, other.strain = self.passed, self.level, self.strain
        other.doubling, other.declarer, other.tricks = self.doubling, self.declarer, self.tricks
        other.lead_suit, other.lead_rank = self.lead_suit, self.lead_rank
        other.lead_high = self.lead_high
        return other

    @property
    def step(self):
        if self.passed:
            return "done"
        if self.level is None:
            return "level"
        if self.strain is None:
            return "strain"
        if self.declarer is None:
            return "declarer"
        if self.lead_required and self.lead_rank is None:
            return "lead"
        if self.tricks in ("", OVER, UNDER):
            return "tricks"
        return "done"

    @property
    def contract(self):
        if self.passed:
            return "PASS"
        if self.level is None or self.strain is None:
            return None
        return "%d%s%s" % (self.level, self.strain, self.doubling)

    @property
    def lead(self):
        if self.lead_suit is None or self.lead_rank is None:
            return None
        return self.lead_suit + self.lead_rank

    def tricks_value(self):
        if self.passed:
            return 0
        return int(self.tricks) if self.tricks.isdigit() else self.tricks

    def values(self):
        """The entry to send (EntryValues as a dict), or None while fields are missing."""
        if self.step != "done" or self.contract is None:
            return None
        return {
            "contract": self.contract,
            "declarer": None if self.passed else self.declarer,
            "tricks": self.tricks_value(),
            "lead": None if self.passed else self.lead,
            "auction": None,
            "play": None,
            "alerts": None,  # the keypad keys no text: its alerts stay "Alert"
        }

    def taken(self):
        """Tricks taken once complete and possible, else None."""
        values = self.values()
        if values is None or impossible(values):
            return None
        return tricks_taken(values)

    @property
    def complete(self):
        return self.taken() is not None

    def _press(self, key):
        """This draft changed by one key (the field that is next), or KeyRefusedError."""
        if key in (DOUBLE, "x"):
            if self.passed or self.level is None:
                raise KeyRefusedError("double_first")
            self.doubling = _CYCLE[self.doubling]
            return
        step = self.step
        if step == "done":
            raise KeyRefusedError("all_keyed")
        if step == "level":
            if key in (PASSED, "p"):
                self.passed = True
            elif key.isdigit() and 1 <= int(key) <= 7:
                self.level = int(key)
            else:
                raise KeyRefusedError("level")
        elif step == "strain":
            strain = T.STRAIN_KEYS.get(key)
            if strain is None:
                raise KeyRefusedError("strain")
            self.strain = strain
        elif step == "declarer":
            seat = T.DECLARER_KEYS.get(key)
            if seat is None:
                raise KeyRefusedError("declarer")
            self.declarer = seat
        elif step == "lead":
            self._lead(key)
        else:
            self._tricks(key)

    def _lead(self, key):
        if self.lead_suit is None:
            suit = T.SUIT_KEYS.get(key)
            if suit is None:
                raise KeyRefusedError("lead_suit")
            self.lead_suit = suit
        elif self.lead_high:
            rank = T.HIGH_RANKS.get(key)
            if rank is None:
                raise KeyRefusedError("lead_high")
            self.lead_rank, self.lead_high = rank, False
        elif key == "1":
            self.lead_high = True
        elif key == "0":
            self.lead_rank = "T"
        elif key.isdigit() and 2 <= int(key) <= 9:
            self.lead_rank = key
        else:
            raise KeyRefusedError("lead_rank")

    def _tricks(self, key):
        text = self.tricks
        if text in (OVER, UNDER):
            if not key.isdigit() or key == "0":
                raise KeyRefusedError("tricks_over" if text == OVER else "tricks_down")
            self._checked(text + key)
        elif key in (OVER, UNDER):
            self.tricks = key
        elif key == MADE or (key == "0" and self.tricks_style == "relative"):
            self._checked(MADE)
        elif not key.isdigit() or self.tricks_style == "relative":
            raise KeyRefusedError("tricks")
        else:
            self._checked(key)

    def _checked(self, tricks):
        before = self.tricks
        self.tricks = tricks
        values = self.values()
        if values is not None and impossible(values):
            self.tricks = before
            raise KeyRefusedError("impossible", tricks)


def tricks_taken(values):
    """Tricks taken of a possible entry's values."""
    contract = values["contract"]
    if contract == "PASS":
        return 0
    tricks = values["tricks"]
    if isinstance(tricks, int):
        return tricks
    needed = int(contract[0]) + 6
    if tricks == MADE:
        return needed
    return needed + int(tricks)


def press(draft, key):
    """The draft after one key (a new object), or KeyRefusedError: after a 1 taken a second digit
    makes 10-13 tricks."""
    key = key.lower()
    nxt = draft.copy()
    if draft.step == "done" and key not in (DOUBLE, "x"):
        if draft.tricks == "1" and draft.tricks_style == "absolute" and not draft.passed:
            if not key.isdigit():
                raise KeyRefusedError("all_keyed")
            if int(key) > 3:
                raise KeyRefusedError("too_many_tricks", "1" + key, backspace(draft))
            nxt._checked("1" + key)
            nxt.keys.append(key)
            return nxt
        raise KeyRefusedError("all_keyed")
    nxt._press(key)
    nxt.keys.append(key)
    return nxt


def replay(draft, keys):
    """A fresh draft for the same board with ``keys`` pressed (refused keys are skipped, as a
    device skips them)."""
    fresh = Draft(draft.board, draft.tricks_style, draft.lead_required)
    for key in keys:
        try:
            fresh = press(fresh, key)
        except KeyRefusedError as refusal:
            fresh = refusal.kept(fresh)
    return fresh


def backspace(draft):
    return replay(draft, draft.keys[:-1])


def keys_for(view, style="absolute", lead_required=False):
    """The keys that would enter a stored result (a dict BoardResultView) again."""
    contract = view.get("contract") or "PASS"
    if contract == "PASS":
        return [PASSED]
    keys = [contract[0]]
    body = contract[1:]
    doubling = len(body) - len(body.rstrip("X"))
    strain = body[: len(body) - doubling]
    keys.append({v: k for k, v in T.STRAIN_KEYS.items()}[strain])
    keys.extend([DOUBLE] * doubling)
    if view.get("declarer"):
        keys.append({v: k for k, v in T.DECLARER_KEYS.items()}[view["declarer"]])
    lead = view.get("lead")
    if lead_required and lead:
        suit, rank = lead[0], lead[1]
        keys.append({v: k for k, v in T.SUIT_KEYS.items()}[suit])
        high = {v: k for k, v in T.HIGH_RANKS.items()}
        if rank == "T":
            keys.append("0")
        elif rank in "JQKA":
            keys.extend(["1", high[rank]])
        else:
            keys.append(rank)
    result = view.get("result")
    if style == "relative" and result:
        keys.extend(["0"] if result == MADE else list(result))
    elif view.get("tricks") is not None:
        keys.extend(list(str(view["tricks"])))
    return keys
