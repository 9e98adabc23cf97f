"""The files the TD uploads (hand records, movements, the member list): the largest taken,
and how their bytes become text."""

from __future__ import annotations

from server.core.errors import InvalidError

#: The largest hand-record or movement file, in bytes.
MAX_FILE = 1_000_000
#: The largest member list, in bytes (a club's list of thousands of names fits).
MAX_MEMBER_LIST = 2_000_000


def within(data: bytes) -> bytes:
    """``data``, or the refusal ``file_too_big`` when it is larger than ``MAX_FILE`` bytes."""
    if len(data) > MAX_FILE:
        raise InvalidError(
            "file_too_big", "The file is larger than {MAX_FILE} bytes.", MAX_FILE=MAX_FILE
        )
    return data


def text_of(data: bytes) -> str:
    """A file's text: UTF-8 (with or without a byte-order mark), else Windows-1252."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")
