"""The terminal's side of the table's key grammar (``protocol/keys.py``, spec in
``protocol/keys.md``): the same keys as the table keypad, refusals in the language in use, the
live score, and the keys' help.

A USB numeric keypad alone is enough: 0-9, ``*`` (doubled), ``+`` ``-`` (over, down), Enter (send;
East confirms), Backspace (take back one key; East rejects), ``/`` (round summary) and ``.``
(menu: call the TD). A full keyboard may also use letters (n e s w for the declarer, x, p, =).
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol import keys as grammar
from protocol.bridge import BridgeError
from protocol.keys import (
    DECLARER_KEYS,
    HIGH_RANKS,
    STRAIN_KEYS,
    SUIT_KEYS,
    TricksStyle,
    keys_for,
)
from protocol.table_card import card_lines

from . import i18n
from .i18n import _
from .scoring import ScoredEntry, score_entry

SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠", "NT": "NT"}
SEAT_NAMES = {"N": "North", "E": "East", "S": "South", "W": "West"}


#: The help screen's width for the table card, in characters.
HELP_WIDTH = 76


def key_help() -> str:
    """The terminal's column of the table card, packed for the help screen, in the language in
    use (the keys are the same in every language)."""
    return "\n".join(card_lines("terminal", _, i18n.language(), HELP_WIDTH))


def suit_keys() -> str:
    """ "1 ♣  2 ♦  3 ♥  4 ♠  5 NT" with the local notrump."""
    return f"1 ♣  2 ♦  3 ♥  4 ♠  5 {i18n.strain('NT')}"


def seat_keys() -> str:
    """ "1 North, 2 East, 3 South, 4 West" in the language in use."""
    return ", ".join(f"{key} {i18n.seat_name(seat)}" for key, seat in DECLARER_KEYS.items())


class DraftKeyRefusedError(Exception):
    """A key that does not fit the field being keyed; the message says what would, and
    ``draft`` is what the draft becomes all the same (None: it stays as it was)."""

    def __init__(self, message: str, draft: ScoredDraft | None = None) -> None:
        super().__init__(message)
        self.draft = draft


@dataclass(frozen=True)
class ScoredDraft(grammar.Draft):
    """A result being keyed for one board, with the terminal's live score."""

    def scored(self) -> ScoredEntry | None:
        """The score and sentence, once the draft is complete and possible."""
        values = self.values()
        if values is None:
            return None
        try:
            return score_entry(self.board, values)
        except BridgeError:
            return None


def refusal_text(refusal: grammar.KeyRefusedError) -> str:
    """What a refused key's field wants, in the language in use."""
    code = refusal.code
    if code == "impossible" and refusal.error is not None:
        return impossible_text(refusal.error)
    if code == "too_many_tricks":
        return _("{tricks} is not possible: 0 to 13 tricks.").format(tricks=refusal.tricks)
    if code == "tricks":
        return tricks_hint(refusal.style)
    if code == "strain":
        return _("Suit: {keys}.").format(keys=suit_keys())
    if code == "declarer":
        return _("Declarer: {keys}.").format(keys=seat_keys())
    texts = {
        "double_first": _("Key the level first; * doubles the contract."),
        "level": _("Level is 1 to 7 (0 = passed out)."),
        "lead_suit": _("Lead suit: 1 ♣  2 ♦  3 ♥  4 ♠."),
        "lead_high": _("After 1: 0 ten, 1 J, 2 Q, 3 K, 4 A."),
        "lead_rank": _("Lead rank: 2-9, 0 ten, 11 J, 12 Q, 13 K, 14 A."),
        "tricks_over": _("How many tricks over? 1 to 13."),
        "tricks_down": _("How many tricks down? 1 to 13."),
    }
    return texts.get(code, _("All keyed. Enter sends it; Backspace changes it."))


def tricks_hint(style: TricksStyle) -> str:
    """What the tricks field takes, in the event's style."""
    if style == "relative":
        return _("Result: 0 = made, + then overtricks, - then undertricks.")
    return _("Tricks taken by declarer: 0 to 13 (or =, +n, -n).")


def impossible_text(error: BridgeError) -> str:
    """Why a keyed result cannot be, as a sentence: the bridge domain's words in English, a
    general sentence in the other languages (the keys on screen show what was keyed)."""
    if i18n.language() == i18n.SOURCE:
        return error.message[:1].upper() + error.message[1:] + "."
    return _("That result is not possible: check the contract and the tricks.")


def press(draft: ScoredDraft, key: str) -> ScoredDraft:
    """One key on a draft (the grammar's ``press``), refusals in words."""
    try:
        nxt = grammar.press(draft, key)
    except grammar.KeyRefusedError as refusal:
        kept = refusal.kept(draft)
        raise DraftKeyRefusedError(refusal_text(refusal), None if kept is draft else kept) from None
    assert isinstance(nxt, ScoredDraft)
    return nxt


def replay(draft: ScoredDraft, keys: tuple[str, ...]) -> ScoredDraft:
    """A fresh draft for the same board with ``keys`` pressed (refused keys are skipped)."""
    nxt = grammar.replay(draft, keys)
    assert isinstance(nxt, ScoredDraft)
    return nxt


def backspace(draft: ScoredDraft) -> ScoredDraft:
    """The draft without its last key."""
    return replay(draft, draft.keys[:-1])


__all__ = [
    "HIGH_RANKS",
    "STRAIN_KEYS",
    "SUIT_KEYS",
    "DraftKeyRefusedError",
    "ScoredDraft",
    "backspace",
    "describe_draft",
    "keys_for",
    "press",
    "replay",
]


def describe_draft(draft: ScoredDraft) -> dict[str, str]:
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
