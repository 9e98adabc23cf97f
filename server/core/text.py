"""The services' check of text people type: protocol.text's rule as a 422 (``invalid_text``)."""

from __future__ import annotations

from protocol.text import MAX_NAME, code_point, is_line_break, refused
from server.core.errors import InvalidError


def checked(text: str, *, max_length: int = MAX_NAME) -> str:
    """``text`` stripped, or an InvalidError saying why it cannot be taken (a control or
    formatting character, a line break, too long); nothing is stored then."""
    char = refused(text)
    if char is not None and is_line_break(char):
        raise InvalidError("invalid_text", "A name or reason is one line: no line breaks.")
    if char is not None:
        point = code_point(char)
        raise InvalidError(
            "invalid_text",
            "A name or reason may not hold the control or formatting character {point}.",
            point=point,
        )
    text = text.strip()
    if len(text) > max_length:
        raise InvalidError(
            "invalid_text",
            "A name or reason has at most {max_length} characters.",
            max_length=max_length,
        )
    return text
