"""The table's key grammar: one board's result keyed on a numeric keypad, the same on every device.

The Textual terminal (on a USB numeric keypad: 0-9 . + - * / Enter Backspace) and the table
keypad (0-9 * # ENT BACK UP DOWN) both key results with this module, so the keys are the same
everywhere; ``protocol/keys.md`` is the spec and the printed table card is made from it
(``protocol/table_card.py``). Pure: no I/O, no language; a refused key raises
:class:`KeyRefusedError` with a code the device puts in its own words.

Fields are keyed in order; each key either fills the field that is next or is refused. Backspace
is "drop the last key and replay", so a draft is just its keys.

    level     1-7, or 0 for a passed-out board (also "p")
    strain    1 ♣  2 ♦  3 ♥  4 ♠  5 NT (also c d h s n)
    doubled   * once for X, twice for XX, a third time to undo (also x); any time after the level
    declarer  1 North  2 East  3 South  4 West: the bridge order, the same on a numeric keypad
              (7 8 9 on top) and a phone-style keypad (1 2 3 on top) (also n e s w)
    lead      when the event asks: suit 1-4, then rank 2-9, 0 = ten, 11 J 12 Q 13 K 14 A
              (also letters t j q k a)
    tricks    the event's style: tricks taken 0-13, or 0 (or =) for made, +n over, -n down;
              +n, -n and = are understood in either style (Law 77 scores what was made)
    OK        Enter: North sends the result; East confirms it (§ 262B3)
    reject    Backspace on East's confirmation: back to North with the keys kept
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final, Literal, TypeVar, cast

from protocol.bridge import BridgeError, TableResult
from protocol.bridge.card import parse_card
from protocol.messages import BoardResultView, EntryValues

TricksStyle = Literal["absolute", "relative"]
Step = Literal["level", "strain", "declarer", "lead", "tricks", "done"]

#: The grammar's own key names. Every device maps its keys onto these.
OK: Final = "enter"
BACK: Final = "back"
DOUBLE: Final = "*"
OVER: Final = "+"
UNDER: Final = "-"
MADE: Final = "="
PASSED: Final = "0"

STRAIN_KEYS: Final = {"1": "C", "2": "D", "3": "H", "4": "S", "5": "NT"}
STRAIN_LETTERS: Final = {"c": "C", "d": "D", "h": "H", "s": "S", "n": "NT"}
SUIT_KEYS: Final = {"1": "C", "2": "D", "3": "H", "4": "S"}
DECLARER_KEYS: Final = {"1": "N", "2": "E", "3": "S", "4": "W"}
DECLARER_LETTERS: Final = {"n": "N", "e": "E", "s": "S", "w": "W"}
RANK_LETTERS: Final = {"t": "T", "j": "J", "q": "Q", "k": "K", "a": "A"}
HIGH_RANKS: Final = {"0": "T", "1": "J", "2": "Q", "3": "K", "4": "A"}
_DOUBLE_KEYS: Final = (DOUBLE, "x")
_DOUBLING_CYCLE: Final = {"": "X", "X": "XX", "XX": ""}
D = TypeVar("D", bound="Draft")


class KeyRefusedError(Exception):
    """A key that does not fit the field being keyed.

    ``code`` names what the field wants (the device says it in its words): ``double_first``,
    ``level``, ``strain``, ``declarer``, ``lead_suit``, ``lead_high``, ``lead_rank``,
    ``tricks``, ``tricks_over``, ``tricks_down``, ``too_many_tricks`` (``tricks`` holds what was
    keyed, e.g. "14"), ``impossible`` (``error`` holds the bridge domain's reason) and
    ``all_keyed``.

    ``draft`` is what the draft becomes all the same, or None when it stays as it was: a
    refused second tricks digit takes its "1" back too ("14" refused leaves no tricks keyed,
    since the "1" alone would be another result, one trick, one OK from being sent)."""

    def __init__(
        self,
        code: str,
        *,
        style: TricksStyle = "absolute",
        tricks: str = "",
        error: BridgeError | None = None,
        draft: Draft | None = None,
    ) -> None:
        super().__init__(code)
        self.code = code
        self.style = style
        self.tricks = tricks
        self.error = error
        self.draft = draft

    def kept(self, draft: D) -> D:
        """The draft a device keeps after this refusal of a key pressed on ``draft``."""
        return draft if self.draft is None else cast(D, self.draft)


@dataclass(frozen=True)
class Draft:
    """A result being keyed for one board."""

    board: int
    tricks_style: TricksStyle = "absolute"
    lead_required: bool = False
    keys: tuple[str, ...] = ()
    passed: bool = False
    level: int | None = None
    strain: str | None = None
    doubling: str = ""
    declarer: str | None = None
    lead_suit: str | None = None
    lead_rank: str | None = None
    lead_high: bool = False
    tricks: str = ""

    # ---------------------------------------------------------------- reading the draft

    @property
    def step(self) -> Step:
        """The field the next key fills."""
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
    def contract(self) -> str | None:
        """The contract keyed so far ("4SX", "PASS"), or None before the strain."""
        if self.passed:
            return "PASS"
        if self.level is None or self.strain is None:
            return None
        return f"{self.level}{self.strain}{self.doubling}"

    @property
    def lead(self) -> str | None:
        """The lead card ("SA"), when keyed."""
        if self.lead_suit is None or self.lead_rank is None:
            return None
        return f"{self.lead_suit}{self.lead_rank}"

    def tricks_value(self) -> int | str:
        """Tricks as sent: a number of tricks taken, or "=", "+1", "-2"."""
        if self.passed:
            return 0
        text = self.tricks
        return int(text) if text.isdigit() else text

    def values(self) -> EntryValues | None:
        """The entry to send, or None while fields are missing."""
        if self.step != "done" or self.contract is None:
            return None
        return EntryValues(
            contract=self.contract,
            declarer=None if self.passed else self.declarer,
            tricks=self.tricks_value(),
            lead=None if self.passed else self.lead,
        )

    def table_result(self) -> TableResult | None:
        """The result as the bridge domain reads it, once complete and possible."""
        values = self.values()
        if values is None:
            return None
        try:
            return possible(values)
        except BridgeError:
            return None

    @property
    def complete(self) -> bool:
        """Every field is keyed and the result is possible: OK sends it."""
        return self.table_result() is not None

    # ---------------------------------------------------------------- keying

    def press(self, key: str) -> Draft:
        """The draft after one more key (the field that is next), or KeyRefusedError."""
        key = key.lower()
        if key in _DOUBLE_KEYS:
            if self.passed or self.level is None:
                raise KeyRefusedError("double_first")
            return replace(self, doubling=_DOUBLING_CYCLE[self.doubling], keys=(*self.keys, key))
        nxt = _STEP_KEYS[self.step](self, key)
        return replace(nxt, keys=(*self.keys, key))

    def _key_done(self, key: str) -> Draft:
        raise KeyRefusedError("all_keyed")

    def _key_level(self, key: str) -> Draft:
        if key in (PASSED, "p"):
            return replace(self, passed=True)
        if key.isdigit() and 1 <= int(key) <= 7:
            return replace(self, level=int(key))
        raise KeyRefusedError("level")

    def _key_strain(self, key: str) -> Draft:
        strain = STRAIN_KEYS.get(key) or STRAIN_LETTERS.get(key)
        if strain is None:
            raise KeyRefusedError("strain")
        return replace(self, strain=strain)

    def _key_declarer(self, key: str) -> Draft:
        seat = DECLARER_KEYS.get(key) or DECLARER_LETTERS.get(key)
        if seat is None:
            raise KeyRefusedError("declarer")
        return replace(self, declarer=seat)

    def _key_lead(self, key: str) -> Draft:
        if self.lead_suit is None:
            suit = SUIT_KEYS.get(key) or {k: v for k, v in STRAIN_LETTERS.items() if k != "n"}.get(
                key
            )
            if suit is None:
                raise KeyRefusedError("lead_suit")
            return replace(self, lead_suit=suit)
        if self.lead_high:
            rank = HIGH_RANKS.get(key)
            if rank is None:
                raise KeyRefusedError("lead_high")
            return replace(self, lead_rank=rank, lead_high=False)
        if key == "1":
            return replace(self, lead_high=True)
        if key == "0":
            return replace(self, lead_rank="T")
        if key in RANK_LETTERS:
            return replace(self, lead_rank=RANK_LETTERS[key])
        if key.isdigit() and 2 <= int(key) <= 9:
            return replace(self, lead_rank=key)
        raise KeyRefusedError("lead_rank")

    def _key_tricks(self, key: str) -> Draft:
        text = self.tricks
        if text in (OVER, UNDER):
            if not key.isdigit() or key == "0":
                raise KeyRefusedError("tricks_over" if text == OVER else "tricks_down")
            return self._checked(text + key)
        if key in (OVER, UNDER):
            return replace(self, tricks=key)
        if key == MADE or (key == "0" and self.tricks_style == "relative"):
            return self._checked(MADE)
        if not key.isdigit() or self.tricks_style == "relative":
            raise KeyRefusedError("tricks", style=self.tricks_style)
        return self._checked(key)

    def _checked(self, tricks: str) -> Draft:
        nxt = replace(self, tricks=tricks)
        values = nxt.values()
        if values is not None:
            try:
                possible(values)
            except BridgeError as error:
                raise KeyRefusedError("impossible", tricks=tricks, error=error) from None
        return nxt

    def extend_tricks(self, key: str) -> Draft:
        """A second digit after a 1 taken: 10-13 tricks, or "14 is not possible"."""
        if not key.isdigit():
            raise KeyRefusedError("all_keyed")
        if int(key) > 3:
            raise KeyRefusedError("too_many_tricks", tricks="1" + key, draft=backspace(self))
        return replace(self._checked("1" + key), keys=(*self.keys, key))


#: What a key means at each step of an entry.
_STEP_KEYS: Final[dict[Step, Callable[[Draft, str], Draft]]] = {
    "level": Draft._key_level,
    "strain": Draft._key_strain,
    "declarer": Draft._key_declarer,
    "lead": Draft._key_lead,
    "tricks": Draft._key_tricks,
    "done": Draft._key_done,
}


def possible(values: EntryValues) -> TableResult:
    """The result an entry stands for; BridgeError (with its reason) when it cannot be."""
    table_result = TableResult.make(values.contract, values.declarer, values.tricks)
    if values.lead is not None:
        parse_card(values.lead)
        if table_result.contract.is_pass:
            raise BridgeError("a passed-out board has no opening lead", values.lead)
    return table_result


def _takes_second_digit(draft: Draft) -> bool:
    return draft.tricks == "1" and draft.tricks_style == "absolute" and not draft.passed


def press(draft: Draft, key: str) -> Draft:
    """One key on a draft: after a 1 in the tricks field a second digit makes 10-13 tricks."""
    key = key.lower()
    if draft.step == "done" and key not in _DOUBLE_KEYS:
        if _takes_second_digit(draft):
            return draft.extend_tricks(key)
        raise KeyRefusedError("all_keyed")
    return draft.press(key)


def replay(draft: Draft, keys: tuple[str, ...]) -> Draft:
    """A fresh draft for the same board with ``keys`` pressed (refused keys are skipped, as a
    device skips them)."""
    fresh = type(draft)(draft.board, draft.tricks_style, draft.lead_required)
    for key in keys:
        try:
            fresh = press(fresh, key)
        except KeyRefusedError as refusal:
            fresh = refusal.kept(fresh)
    return fresh


def backspace(draft: Draft) -> Draft:
    """The draft without its last key."""
    return replay(draft, draft.keys[:-1])


def keys_for(
    view: BoardResultView, style: TricksStyle = "absolute", lead_required: bool = False
) -> tuple[str, ...]:
    """The keys that would enter a stored result again (to correct it, or after a reject)."""
    contract = view.contract or "PASS"
    if contract == "PASS":
        return (PASSED,)
    keys: list[str] = [contract[0]]
    body = contract[1:]
    doubling = len(body) - len(body.rstrip("X"))
    strain = body[: len(body) - doubling]
    keys.append({v: k for k, v in STRAIN_KEYS.items()}[strain])
    keys.extend(DOUBLE * doubling)
    if view.declarer:
        keys.append({v: k for k, v in DECLARER_KEYS.items()}[view.declarer])
    if lead_required and view.lead:
        suit, rank = view.lead[0], view.lead[1]
        keys.append({v: k for k, v in SUIT_KEYS.items()}[suit])
        high = {v: k for k, v in HIGH_RANKS.items()}
        keys.extend(["0"] if rank == "T" else ["1", high[rank]] if rank in "JQKA" else [rank])
    if style == "relative" and view.result:
        keys.extend(["0"] if view.result == MADE else list(view.result))
    elif view.tricks is not None:
        keys.extend(list(str(view.tricks)))
    return tuple(keys)
