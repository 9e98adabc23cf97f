"""gettext catalogues compiled in memory from their ``.po`` files, for the server's pages and the
terminal alike: no ``.mo`` files are built or committed. Babel is imported only when a language
other than English is first used (the keypad and an English terminal never need it)."""

from __future__ import annotations

import gettext
import io
from pathlib import Path


def po_file(locales: Path, lang: str, domain: str) -> Path:
    """Where a language's catalogue of ``domain`` lives below ``locales``."""
    return locales / lang / "LC_MESSAGES" / f"{domain}.po"


def compile_po(path: Path, lang: str, domain: str) -> bytes:
    """A ``.po`` file compiled to ``.mo`` bytes (fuzzy entries left out)."""
    # Babel only once a language other than English is used (the keypad never needs it).
    from babel.messages.mofile import write_mo  # noqa: PLC0415
    from babel.messages.pofile import read_po  # noqa: PLC0415

    with path.open("rb") as handle:
        catalogue = read_po(handle, locale=lang, domain=domain)
    buffer = io.BytesIO()
    write_mo(buffer, catalogue, use_fuzzy=False)
    return buffer.getvalue()


def load(path: Path, lang: str, domain: str) -> gettext.NullTranslations:
    """The translations in ``path``; with no such file, the message ids themselves."""
    if not path.exists():
        return gettext.NullTranslations()
    return gettext.GNUTranslations(io.BytesIO(compile_po(path, lang, domain)))
