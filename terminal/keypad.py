"""The numeric-keypad grammar for one board's result: keys in, a draft entry out.

Fields are keyed in order; each key either fills the field that is next or is refused with a
reason. Backspace is "drop the last key and replay", so a draft is just its keys.

    level     1-7, or 0 for a passed-out board (also "p")
    strain    1 ♣  2 ♦  3 ♥  4 ♠  5 NT (also c d h s n)
    doubled   * once for X, twice for XX, a third time to undo (also x); any time after the level
    declarer  the keypad compass: 8 North, 6 East, 2 South, 4 West (also n e s w)
    lead      when the event asks: suit 1-4, then rank 2-9, 0 = ten, 11 J 12 Q 13 K 14 A
              (also letters t j q k a)
    tricks    the event's style: tricks taken 0-13, or 0 (or =) for made, +n over, -n down;
              +n, -n and = are understood in either style
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from protocol.bridge import BridgeError
from protocol.messages import BoardResultView, EntryValues

from . import i18n
from .i18n import _
from .scoring import ScoredEntry, score_entry

TricksStyle = Literal["absolute", "relative"]
Step = Literal["level", "strain", "declarer", "lead", "tricks", "done"]

STRAIN_KEYS = {"1": "C", "2": "D", "3": "H", "4": "S", "5": "NT"}
STRAIN_LETTERS = {"c": "C", "d": "D", "h": "H", "s": "S", "n": "NT"}
SUIT_KEYS = {"1": "C", "2": "D", "3": "H", "4": "S"}
DECLARER_KEYS = {"8": "N", "6": "E", "2": "S", "4": "W"}
DECLARER_LETTERS = {"n": "N", "e": "E", "s": "S", "w": "W"}
RANK_LETTERS = {"t": "T", "j": "J", "q": "Q", "k": "K", "a": "A"}
HIGH_RANKS = {"0": "T", "1": "J", "2": "Q", "3": "K", "4": "A"}
SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠", "NT": "NT"}
SEAT_NAMES = {"N": "North", "E": "East", "S": "South", "W": "West"}


KEY_HELP = i18n.N_("""\
Level     1 to 7            0 = passed out
Suit      1 ♣   2 ♦   3 ♥   4 ♠   5 {nt}
Doubled   * = X     * * = XX     (any time after the level)
Declarer  8 {north}   6 {east}   2 {south}   4 {west}   (as on the keypad)
Lead      suit 1-4, then 2-9, 0 = 10, 11 J, 12 Q, 13 K, 14 A
Tricks    tricks taken 0-13, or 0 (=) made, + n over, - n down
Enter     send to East          Backspace   take back one key

Example   4 4 2 1 0 Enter  =  4♠ by {south}, ten tricks: made""")


def key_help() -> str:
    """The key grammar in the language in use (the keys are the same in every language)."""
    return _(KEY_HELP).format(
        nt=i18n.strain("NT"),
        north=i18n.seat_name("N"),
        east=i18n.seat_name("E"),
        south=i18n.seat_name("S"),
        west=i18n.seat_name("W"),
    )


def suit_keys() -> str:
    """ "1 ♣  2 ♦  3 ♥  4 ♠  5 NT" with the local notrump."""
    return f"1 ♣  2 ♦  3 ♥  4 ♠  5 {i18n.strain('NT')}"


def seat_keys() -> str:
    """ "8 North, 6 East, 2 South, 4 West" in the language in use."""
    return ", ".join(f"{key} {i18n.seat_name(seat)}" for key, seat in DECLARER_KEYS.items())


class KeyRefusedError(Exception):
    """A key that does not fit the field being keyed; the message says what would."""


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
        if not self._tricks_complete():
            return "tricks"
        return "done"

    @property
    def complete(self) -> bool:
        """Every field is keyed and the result is possible."""
        return self.step == "done" and self.scored() is not None

    def _tricks_complete(self) -> bool:
        return self.tricks not in ("", "+", "-")

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

    def scored(self) -> ScoredEntry | None:
        """The score and sentence, once the draft is complete and possible."""
        values = self.values()
        if values is None:
            return None
        try:
            return score_entry(self.board, values)
        except BridgeError:
            return None

    # ---------------------------------------------------------------- keying

    def press(self, key: str) -> Draft:
        """The draft after one more key, or KeyRefusedError saying what the field wants."""
        key = key.lower()
        if key in ("*", "x"):
            return self._double(key)
        step = self.step
        nxt = getattr(self, f"_key_{step}")(key)
        assert isinstance(nxt, Draft)
        return replace(nxt, keys=(*self.keys, key))

    def _double(self, key: str) -> Draft:
        if self.passed or self.level is None:
            raise KeyRefusedError(_("Key the level first; * doubles the contract."))
        cycle = {"": "X", "X": "XX", "XX": ""}
        return replace(self, doubling=cycle[self.doubling], keys=(*self.keys, key))

    def _key_level(self, key: str) -> Draft:
        if key in ("0", "p"):
            return replace(self, passed=True)
        if key.isdigit() and 1 <= int(key) <= 7:
            return replace(self, level=int(key))
        raise KeyRefusedError(_("Level is 1 to 7 (0 = passed out)."))

    def _key_strain(self, key: str) -> Draft:
        strain = STRAIN_KEYS.get(key) or STRAIN_LETTERS.get(key)
        if strain is None:
            raise KeyRefusedError(_("Suit: {keys}.").format(keys=suit_keys()))
        return replace(self, strain=strain)

    def _key_declarer(self, key: str) -> Draft:
        seat = DECLARER_KEYS.get(key) or DECLARER_LETTERS.get(key)
        if seat is None:
            raise KeyRefusedError(_("Declarer: {keys}.").format(keys=seat_keys()))
        return replace(self, declarer=seat)

    def _key_lead(self, key: str) -> Draft:
        if self.lead_suit is None:
            suit = SUIT_KEYS.get(key) or {k: v for k, v in STRAIN_LETTERS.items() if k != "n"}.get(
                key
            )
            if suit is None:
                raise KeyRefusedError(_("Lead suit: 1 ♣  2 ♦  3 ♥  4 ♠."))
            return replace(self, lead_suit=suit)
        if self.lead_high:
            rank = HIGH_RANKS.get(key)
            if rank is None:
                raise KeyRefusedError(_("After 1: 0 ten, 1 J, 2 Q, 3 K, 4 A."))
            return replace(self, lead_rank=rank, lead_high=False)
        if key == "1":
            return replace(self, lead_high=True)
        if key == "0":
            return replace(self, lead_rank="T")
        if key in RANK_LETTERS:
            return replace(self, lead_rank=RANK_LETTERS[key])
        if key.isdigit() and 2 <= int(key) <= 9:
            return replace(self, lead_rank=key)
        raise KeyRefusedError(_("Lead rank: 2-9, 0 ten, 11 J, 12 Q, 13 K, 14 A."))

    def _key_tricks(self, key: str) -> Draft:
        text = self.tricks
        if text in ("+", "-"):
            if not key.isdigit() or key == "0":
                question = (
                    _("How many tricks over? 1 to 13.")
                    if text == "+"
                    else _("How many tricks down? 1 to 13.")
                )
                raise KeyRefusedError(question)
            return self._checked(text + key)
        if key in ("+", "-"):
            return replace(self, tricks=key)
        if key == "=" or (key == "0" and self.tricks_style == "relative"):
            return self._checked("=")
        if not key.isdigit():
            raise KeyRefusedError(self.tricks_hint())
        if self.tricks_style == "relative":
            raise KeyRefusedError(_("Result: 0 = made, + then overtricks, - then undertricks."))
        return self._checked(key)

    def _checked(self, tricks: str) -> Draft:
        nxt = replace(self, tricks=tricks)
        values = nxt.values()
        if values is not None:
            try:
                score_entry(self.board, values)
            except BridgeError as error:
                raise KeyRefusedError(impossible_text(error)) from None
        return nxt

    def extend_tricks(self, key: str) -> Draft | None:
        """A second digit for 10-13 tricks when the first was 1 (None when it does not fit)."""
        if self.tricks == "1" and self.tricks_style == "absolute" and key in "0123" and key:
            try:
                return replace(self._checked("1" + key), keys=(*self.keys, key))
            except KeyRefusedError:
                return None
        return None

    def tricks_hint(self) -> str:
        """What the tricks field takes, in the event's style."""
        if self.tricks_style == "relative":
            return _("Result: 0 = made, + then overtricks, - then undertricks.")
        return _("Tricks taken by declarer: 0 to 13 (or =, +n, -n).")


def impossible_text(error: BridgeError) -> str:
    """Why a keyed result cannot be, as a sentence: the bridge domain's words in English, a
    general sentence in the other languages (the keys on screen show what was keyed)."""
    if i18n.language() == i18n.SOURCE:
        return error.message[:1].upper() + error.message[1:] + "."
    return _("That result is not possible: check the contract and the tricks.")


def press(draft: Draft, key: str) -> Draft:
    """One key on a draft: the tricks field takes a second digit (10-13) before it is done."""
    if draft.step == "done" and not draft.passed:
        longer = draft.extend_tricks(key)
        if longer is not None:
            return longer
        if key not in ("*", "x"):
            raise KeyRefusedError(_("All keyed. Enter sends it; Backspace changes it."))
    return draft.press(key)


def replay(draft: Draft, keys: tuple[str, ...]) -> Draft:
    """A fresh draft for the same board with ``keys`` pressed (refused keys are skipped)."""
    fresh = Draft(draft.board, draft.tricks_style, draft.lead_required)
    for key in keys:
        try:
            fresh = press(fresh, key)
        except KeyRefusedError:
            continue
    return fresh


def backspace(draft: Draft) -> Draft:
    """The draft without its last key."""
    return replay(draft, draft.keys[:-1])


def keys_for(
    view: BoardResultView, style: TricksStyle = "absolute", lead_required: bool = False
) -> tuple[str, ...]:
    """The keys that would enter a stored result again (to correct it)."""
    contract = view.contract or "PASS"
    if contract == "PASS":
        return ("0",)
    keys: list[str] = [contract[0]]
    body = contract[1:]
    doubling = len(body) - len(body.rstrip("X"))
    strain = body[: len(body) - doubling]
    keys.append({v: k for k, v in STRAIN_KEYS.items()}[strain])
    keys.extend("*" * doubling)
    if view.declarer:
        keys.append({v: k for k, v in DECLARER_KEYS.items()}[view.declarer])
    if lead_required and view.lead:
        suit, rank = view.lead[0], view.lead[1]
        keys.append({v: k for k, v in SUIT_KEYS.items()}[suit])
        high = {v: k for k, v in HIGH_RANKS.items()}
        keys.extend(["0"] if rank == "T" else ["1", high[rank]] if rank in "JQKA" else [rank])
    if style == "relative" and view.result:
        keys.extend(["0"] if view.result == "=" else list(view.result))
    elif view.tricks is not None:
        keys.extend(list(str(view.tricks)))
    return tuple(keys)


def describe_draft(draft: Draft) -> dict[str, str]:
    """What each field shows on the screen, in plain words and symbols."""
    contract = "—"
    if draft.passed:
        contract = _("Passed out")
    elif draft.level is not None:
        strain = i18n.strain(draft.strain) if draft.strain else "_"
        contract = f"{draft.level} {strain} {draft.doubling}".strip()
    lead = "—"
    if draft.lead_suit is not None:
        rank = draft.lead_rank or ("1_" if draft.lead_high else "_")
        lead = f"{SYMBOLS[draft.lead_suit]}{'10' if rank == 'T' else rank}"
    tricks = draft.tricks or "—"
    if draft.tricks == "=":
        tricks = _("= (made)")
    return {
        "contract": contract,
        "declarer": i18n.seat_name(draft.declarer) or "—",
        "lead": lead,
        "tricks": tricks,
    }
