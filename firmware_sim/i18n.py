"""The keypad's 2x16 texts in English, Danish, Norwegian, German and Russian.

The texts are a gettext domain, ``keypad``, as the server's pages and the terminal have theirs:
``firmware_sim/locales/<lang>/LC_MESSAGES/keypad.po``, the message ids (the English texts, with
``{name}`` fields filled in after translation) listed in ``firmware_sim/locales/keypad.pot``.
They are hand-abbreviated per language to fit the display's 16 characters a line, fields filled
in (tests/firmware_sim/test_languages.py checks every one). The catalogues are compiled when the
package is built (protocol/catalogues.py), so the keypad reads them with the standard library.
Keys stay where they are; the screens show the local seat letters (Danish/Norwegian Ø and V,
German O, Russian С В Ю З). Strains keep the international letters C D H S NT (contracts stay
unambiguous).

The display is assumed to have a Western European + Cyrillic character ROM (e.g. an HD44780
clone with the European/Cyrillic font table): ``CHARSET`` lists what it may show.

Every translation here needs a native bridge player's review; the doubtful ones are listed in
``firmware_sim/locales/README.md``.
"""

from __future__ import annotations

import gettext
from functools import cache
from pathlib import Path
from typing import Final

from protocol import catalogues, languages

LANGUAGES: Final = tuple(languages.LANGUAGES)
SOURCE: Final = languages.SOURCE
LOCALES: Final = Path(__file__).resolve().parent / "locales"
DOMAIN: Final = "keypad"
#: Characters the LCD shows besides printable ASCII.
CHARSET: Final = frozenset(
    "ÆØÅæøåÄÖÜäöüßАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдеёжзийклмнопрстуфхцчшщъыьэюя"
)

#: Seat letters as clubs write them (the keys stay 1=N 2=E 3=S 4=W, as in protocol/keys.py).
SEATS: Final[dict[str, dict[str, str]]] = languages.SEAT_LETTERS


def po_path(lang: str) -> Path:
    """The catalogue of a language."""
    return catalogues.po_file(LOCALES, lang, DOMAIN)


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The texts of a language (English, or an unknown code: the message ids)."""
    if lang == SOURCE or lang not in LANGUAGES:
        return gettext.NullTranslations()
    return catalogues.load(po_path(lang), lang, DOMAIN)


def text(lang: str, message: str, **fields: object) -> str:
    """``message`` in ``lang`` (English for an unknown language or text), fields filled in."""
    shown = translations(lang).gettext(message)
    return shown.format(**fields) if fields else shown


def seat(lang: str, letter: str) -> str:
    """A seat's local letter ("E" is "Ø" in Danish)."""
    return SEATS.get(lang, SEATS[SOURCE]).get(letter, letter)


def catalogue_texts() -> dict[str, tuple[str, ...]]:
    """Every message id of the template, in its order, with its text in each language after
    English as the ``.po`` files hold it ("" where one is missing or fuzzy): what the firmware's
    tables carry (firmware_tables.py) and what the tests check."""
    # Babel reads the .po files themselves: the generator and the tests, never the keypad.
    from babel.messages.pofile import read_po  # noqa: PLC0415

    with (LOCALES / f"{DOMAIN}.pot").open("rb") as handle:
        ids = [str(m.id) for m in read_po(handle, domain=DOMAIN) if m.id]
    found: list[dict[str, str]] = []
    for lang in LANGUAGES[1:]:
        with po_path(lang).open("rb") as handle:
            catalogue = read_po(handle, locale=lang, domain=DOMAIN)
        found.append(
            {str(m.id): str(m.string) for m in catalogue if m.id and m.string and not m.fuzzy}
        )
    return {message: tuple(texts.get(message, "") for texts in found) for message in ids}
