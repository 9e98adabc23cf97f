"""gettext catalogues for the server's pages, the terminal and the keypad, compiled when the
package is built: ``setup.py`` writes each ``<domain>.mo`` beside its ``.po`` (into the wheel,
or into the source tree for an editable install), and a process reads the ``.mo`` with the
standard library's gettext. No ``.mo`` is committed.

Each ``.mo`` carries the SHA-256 of the ``.po`` it was compiled from. A ``.po`` that no longer
matches (edited in a checkout after its editable install compiled it) or that has no ``.mo``
(a checkout used without installing it) is compiled in memory when first used, so the words
shown are always the ``.po``'s; only then is Babel imported.
"""

from __future__ import annotations

import gettext
import hashlib
import io
from pathlib import Path
from typing import Final

#: Where a compiled catalogue keeps the digest of its source (a message of its own context).
SOURCE_CONTEXT: Final = "traveller-catalogue-source"
SOURCE_DIGEST: Final = "sha256"


def po_file(locales: Path, lang: str, domain: str) -> Path:
    """Where a language's catalogue of ``domain`` lives below ``locales``."""
    return locales / lang / "LC_MESSAGES" / f"{domain}.po"


def mo_file(po: Path) -> Path:
    """Where the compiled catalogue of ``po`` is written."""
    return po.with_suffix(".mo")


def digest(po: Path) -> str:
    """The SHA-256 of a ``.po`` file's bytes."""
    return hashlib.sha256(po.read_bytes()).hexdigest()


def compile_po(path: Path, lang: str, domain: str) -> bytes:
    """A ``.po`` file compiled to ``.mo`` bytes (fuzzy entries left out), with its digest."""
    # Babel only to compile: a built package reads its .mo with the standard library.
    from babel.messages.mofile import write_mo  # noqa: PLC0415
    from babel.messages.pofile import read_po  # noqa: PLC0415

    with path.open("rb") as handle:
        catalogue = read_po(handle, locale=lang, domain=domain)
    catalogue.add(SOURCE_DIGEST, digest(path), context=SOURCE_CONTEXT)
    buffer = io.BytesIO()
    write_mo(buffer, catalogue, use_fuzzy=False)
    return buffer.getvalue()


def write_compiled(po: Path) -> Path:
    """Compile ``<locales>/<lang>/LC_MESSAGES/<domain>.po`` to the ``.mo`` beside it (the
    package build's step, setup.py)."""
    lang, domain = po.parents[1].name, po.stem
    target = mo_file(po)
    target.write_bytes(compile_po(po, lang, domain))
    return target


def compile_tree(root: Path) -> list[Path]:
    """Compile every catalogue of the packages below ``root`` (``*/locales/*/LC_MESSAGES``)."""
    return [write_compiled(po) for po in sorted(root.glob("*/locales/*/LC_MESSAGES/*.po"))]


def _compiled(po: Path) -> gettext.GNUTranslations | None:
    """The ``.mo`` beside ``po`` when it was compiled from this very ``.po``."""
    mo = mo_file(po)
    if not mo.exists():
        return None
    with mo.open("rb") as handle:
        translations = gettext.GNUTranslations(handle)
    if translations.pgettext(SOURCE_CONTEXT, SOURCE_DIGEST) != digest(po):
        return None
    return translations


def load(path: Path, lang: str, domain: str) -> gettext.NullTranslations:
    """The translations in ``path`` (a ``.po``), read from its compiled ``.mo`` when that is
    current, else compiled now; with no such file, the message ids themselves."""
    if not path.exists():
        return gettext.NullTranslations()
    compiled = _compiled(path)
    if compiled is not None:
        return compiled
    return gettext.GNUTranslations(io.BytesIO(compile_po(path, lang, domain)))
