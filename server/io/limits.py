"""How much an event file may hold, so that a reader's memory stays in proportion to a real
event (without them, one 20 MB PBN tag line made `traveller score` use 3.5 GB).

A club session's file is a few hundred kB and a congress's a few MB; PBN lines are short (the
standard asks for at most 255 characters) and USEBIO nests a handful of elements deep. The
bounds below are far beyond any of that, and refused with the line they were broken on.
"""

from __future__ import annotations

import re

from .errors import EventFileError

MAX_FILE_BYTES = 16 * 1024 * 1024
"""The largest file read (PBN, USEBIO, CSV or .bws)."""
MAX_LINE = 10_000
"""The longest line of a PBN or CSV file, in characters: a tag with its value, a table row."""
MAX_XML_DEPTH = 64
"""The deepest nesting of USEBIO elements (a real file: under 10)."""
MAX_XML_ELEMENTS = 500_000
"""The most elements of a USEBIO file (a 100-board congress with 50 tables: about 80,000)."""

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def check_size(size: int) -> None:
    """Refuse a file of more than ``MAX_FILE_BYTES`` before it is read."""
    if size > MAX_FILE_BYTES:
        megabytes = f"{size / 1024 / 1024:.1f}"
        raise EventFileError(
            f"the file is {megabytes} MB: an event file of at most "
            f"{MAX_FILE_BYTES // 1024 // 1024} MB is read"
        )


def check_lines(text: str) -> None:
    """Refuse text with a line of more than ``MAX_LINE`` characters, naming the line (one
    linear scan; nothing is copied)."""
    number, start = 1, 0
    for newline in _LINE_BREAK.finditer(text):
        _check_line(newline.start() - start, number)
        number, start = number + 1, newline.end()
    _check_line(len(text) - start, number)


def _check_line(length: int, number: int) -> None:
    if length > MAX_LINE:
        raise EventFileError(
            f"the line is {length} characters long: at most {MAX_LINE} are read", line=number
        )
