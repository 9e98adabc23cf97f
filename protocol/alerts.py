"""Alert explanations: what an alerted call of the auction means, as the table keyed it.

An explanation belongs to one alerted call ("!" in the auction text), named by the call's
number in the auction (1 = the dealer's first call), and is one short line of text. It is part
of the auction: it is kept, sent and shown only where the auction is (fair play), and the PBN
export writes it as the call's ``[Note "n:text"]`` (PBN 2.1 §3.5.4). The serial keypad keys no
text: its alerts stay "Alert" (protocol/keys.md).

A result stores its explanations as one JSON text, ``{"2": "12-14 balanced"}`` (call number ->
text, in call order); :func:`stored_text` writes it and :func:`read_stored` reads it back.
The rule uses only the standard library.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

ALERT_TEXT = 60
"""The longest explanation of one call."""
MAX_CALLS = 319
"""The longest legal auction: 1C, then every bid doubled and redoubled, and the passes."""
MAX_EXPLAINED = 40
"""The most explanations one auction carries."""
STORED_TEXT = MAX_EXPLAINED * (2 * ALERT_TEXT + 10) + 2
"""The longest stored text: every character escaped at most once, a number and the quotes."""


def stored_text(explanations: Mapping[int, str]) -> str | None:
    """The explanations as the result stores them (in call order), None without any."""
    if not explanations:
        return None
    ordered = {str(call): explanations[call] for call in sorted(explanations)}
    return json.dumps(ordered, ensure_ascii=False, separators=(",", ":"))


def read_stored(text: str | None) -> dict[int, str]:
    """The stored explanations, call number -> text (empty for None or a text that is not
    the stored form)."""
    if not text:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    out: dict[int, str] = {}
    for key, value in data.items():
        if isinstance(key, str) and key.isdecimal() and isinstance(value, str):
            out[int(key)] = value
    return dict(sorted(out.items()))
