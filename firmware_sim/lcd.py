"""The 2x16 LCD's text: fitting lines into 16 characters, and a result in one line."""

from __future__ import annotations

from typing import Final

from protocol.messages import BoardResultView, PairInfo

from . import i18n

WIDTH: Final = 16


def fit(*candidates: str) -> str:
    """The first candidate that fits the 16-character line (the last one cut, if none does)."""
    for text in candidates:
        if len(text) <= WIDTH:
            return text
    return candidates[-1][:WIDTH]


def lcd(text: str) -> str:
    """Text as the LCD shows it: printable ASCII and the character ROM's letters (others as ?),
    padded to exactly 16 chars."""
    shown = "".join(c if " " <= c <= "~" or c in i18n.CHARSET else "?" for c in text)
    return fit(shown).ljust(WIDTH)


def pair_label(pair: PairInfo | None) -> str:
    """A pair as the LCD shows it: its number, or "-" when there is none."""
    return "-" if pair is None else str(pair.number)


def signed(points: int) -> str:
    """A N/S score with its sign ("+420", "-50"), or "0"."""
    return f"{points:+d}" if points else "0"


def result_line(view: BoardResultView, lang: str = i18n.SOURCE) -> str:
    """A stored result in 16 characters: "4SX S -2 -500", "PASS 0", "A60/40"."""
    board = i18n.text(lang, "B{board}", board=view.board)
    if view.adjusted:
        return fit(f"{board} adj {view.adjusted}", view.adjusted)
    if view.contract is None:
        state = i18n.text(lang, view.state.replace("_", " "))
        return fit(f"{board} {state}", state)
    score = "" if view.ns_score is None else signed(view.ns_score)
    if view.declarer is None:
        return fit(f"{view.contract} {score}".strip())
    res = view.result or ""
    decl = i18n.seat(lang, view.declarer)
    return fit(
        f"{view.contract} {decl} {res} {score}".strip(),
        f"{view.contract} {decl}{res} {score}".strip(),
        f"{view.contract}{decl}{res} {score}".strip(),
    )
