"""Text people type (players' names, event names, reasons, TD calls): what is refused at input.

A name is shown on the TD's pages, the public results and the terminals, and written into the
exports (CSV, PBN, USEBIO XML). Characters that cannot be seen, that reorder what is around them
or that break a file are refused where text enters, by this one pure check, on the server and
at the terminal alike:

- control characters: C0 (NUL, ESC, TAB, CR, LF ...), DEL and C1 (Unicode category Cc), and the
  other line breaks (U+2028, U+2029): every such field is a single line;
- format characters (category Cf): the bidirectional embeddings, overrides and isolates
  (U+202A-202E, U+2066-2069), the direction marks, zero-width spaces, the BOM and the tag
  characters, all of which can make one name look like another. The zero-width (non-)joiners
  U+200C/U+200D stay allowed: Persian, the Indic scripts and emoji need them;
- what XML 1.0 cannot carry (§ 2.2 Char): lone surrogates and the non-characters U+FFFE, U+FFFF.

The rule itself uses only the standard library (``unicodedata``), so a firmware or terminal
author can mirror it; ``SingleLine`` puts it on the pydantic message and request models.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated

from pydantic import AfterValidator

MAX_NAME = 100
"""The longest player's, pair's or member's name."""
MAX_TEXT = 500
"""The longest reason or note."""

_JOINERS = frozenset("\u200c\u200d")
_NEWLINES = frozenset("\n\r\x85\u2028\u2029")


def refused(text: str) -> str | None:
    """The first character of ``text`` that is not allowed, or None when it can be taken."""
    for char in text:
        if is_line_break(char) or not allowed(char):
            return char
    return None


def is_line_break(char: str) -> bool:
    """Whether ``char`` ends a line (LF, CR, NEL, U+2028, U+2029)."""
    return char in _NEWLINES


def refusal(text: str) -> str | None:
    """Why ``text`` cannot be taken (in plain words), or None when it can."""
    char = refused(text)
    if char is None:
        return None
    if is_line_break(char):
        return "a line break is not allowed here"
    return f"the character {code_point(char)} ({_label(char)}) is not allowed"


def code_point(char: str) -> str:
    """ "U+202E" for a character."""
    return f"U+{ord(char):04X}"


def allowed(char: str) -> bool:
    """Whether one character may stand in a name or reason."""
    category = unicodedata.category(char)
    if category in ("Cc", "Cs", "Zl", "Zp"):
        return False
    if category == "Cf":
        return char in _JOINERS
    return char not in ("\ufffe", "\uffff")


def _label(char: str) -> str:
    name = unicodedata.name(char, "")
    if name:
        return name.lower()
    return "a control character" if unicodedata.category(char) == "Cc" else "unprintable"


def check(text: str) -> str:
    """``text`` itself when it can be taken; a ValueError saying why not."""
    reason = refusal(text)
    if reason is not None:
        raise ValueError(reason)
    return text


def neutral(text: str) -> str:
    """``text`` made single-line and safe to show or write, for names stored before the check
    existed: line breaks and tabs become spaces, other refused characters are dropped."""
    if refused(text) is None:
        return text
    out = []
    for char in text:
        if char in _NEWLINES or char == "\t":
            out.append(" ")
        elif allowed(char):
            out.append(char)
    return " ".join("".join(out).split())


SingleLine = Annotated[str, AfterValidator(check)]
"""A pydantic string refused (422) when it holds a line break or a character ``refusal`` names."""
