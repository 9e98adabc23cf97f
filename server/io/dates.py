"""An event's date in each format's own spelling: USEBIO 1.2 ``dd/mm/yyyy``, PBN ``yyyy.mm.dd``
(PBN 2.1 §3.4.3), read from any of them or ISO ``yyyy-mm-dd``."""

from __future__ import annotations

import re
from datetime import date

_FORMS = (
    (re.compile(r"(\d{4})[-.](\d{1,2})[-.](\d{1,2})"), (1, 2, 3)),
    (re.compile(r"(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})"), (3, 2, 1)),
)


def parse(text: str) -> date | None:
    """The date a file or the event gives, or None when it is not one of the spellings."""
    for pattern, (y, m, d) in _FORMS:
        found = pattern.fullmatch(text.strip())
        if found:
            try:
                return date(int(found.group(y)), int(found.group(m)), int(found.group(d)))
            except ValueError:
                return None
    return None


def usebio(text: str) -> str:
    """``dd/mm/yyyy`` as USEBIO 1.2 and every program's USEBIO file write it; a text that is
    no date is kept as it is."""
    found = parse(text)
    return text if found is None else found.strftime("%d/%m/%Y")


def pbn(text: str) -> str:
    """``yyyy.mm.dd``, the PBN [Date]; a text that is no date is kept as it is."""
    found = parse(text)
    return text if found is None else found.strftime("%Y.%m.%d")
