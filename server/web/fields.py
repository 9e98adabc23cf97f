"""Numbers typed into the TD's forms."""

from __future__ import annotations


def whole_number(text: str) -> int | None:
    """``text`` as a whole number when it is ASCII digits only (surrounding spaces allowed),
    else None. ``str.isdigit()`` alone also accepts "²" or "①", which ``int()`` refuses."""
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() else None
