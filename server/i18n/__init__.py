"""Languages of the web pages: gettext catalogues, locale choice, formats.

Catalogues live in ``server/locales/<lang>/LC_MESSAGES/messages.po``, English is the source
(message ids). They are compiled to ``.mo`` when the package is built (``protocol.catalogues``).
The commands that refresh them after changing strings are in ``server/locales/README.md``.

Bridge words follow ``docs/glossary.md``. Every translation needs a native bridge player's review
before a release; the ones we are least sure of are marked in ``server/locales/README.md``.
"""

from __future__ import annotations

import gettext
from datetime import datetime
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Final

from babel import Locale
from babel.dates import format_date, format_datetime, format_time
from babel.numbers import NumberPattern, format_decimal, parse_pattern

from protocol import catalogues, languages

LOCALES: Final = Path(__file__).resolve().parents[1] / "locales"
DOMAIN: Final = "messages"
SOURCE: Final = "en"
#: The languages offered, the aliases browsers send, and the local seat letters (shared with
#: the terminal and the keypad in ``protocol/languages.py``).
LANGUAGES: Final = languages.LANGUAGES
ALIASES: Final = languages.ALIASES
SEAT_LETTERS: Final = languages.SEAT_LETTERS


def N_(message: str) -> str:  # noqa: N802
    """Mark a string for extraction; it is translated where it is shown."""
    return message


def po_path(lang: str) -> Path:
    """The catalogue of a language."""
    return catalogues.po_file(LOCALES, lang, DOMAIN)


def compile_catalogue(lang: str) -> bytes:
    """A language's ``.po`` compiled to ``.mo`` bytes (fuzzy entries left out)."""
    return catalogues.compile_po(po_path(lang), lang, DOMAIN)


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The translations of a language (English, or an unknown code: the message ids)."""
    if lang == SOURCE or lang not in LANGUAGES:
        return gettext.NullTranslations()
    return catalogues.load(po_path(lang), lang, DOMAIN)


def normalise(code: str | None) -> str | None:
    """A language code we offer ("da-DK" -> "da", "no" -> "nb"), or None."""
    if not code:
        return None
    base = code.strip().replace("_", "-").split("-")[0].lower()
    base = ALIASES.get(base, base)
    return base if base in LANGUAGES else None


def from_accept_language(header: str | None) -> str | None:
    """The best offered language of an Accept-Language header, or None."""
    if not header:
        return None
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")):
        code, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        lang = normalise(code)
        if lang and quality > 0:
            ranked.append((-quality, index, lang))
    return min(ranked)[2] if ranked else None


def choose(
    asked: str | None, cookie: str | None, accept: str | None, default: str | None = None
) -> str:
    """The language of a page: asked for (the switcher), remembered (cookie), the browser's,
    the event's, else English."""
    return (
        normalise(asked)
        or normalise(cookie)
        or from_accept_language(accept)
        or normalise(default)
        or SOURCE
    )


def gettext_for(lang: str, message: str) -> str:
    """``message`` in ``lang``."""
    return translations(lang).gettext(message)


def ngettext_for(lang: str, singular: str, plural: str, n: int) -> str:
    """The singular or plural of a message in ``lang``, for ``n``."""
    return translations(lang).ngettext(singular, plural, n)


def number(value: Decimal | int | float, lang: str, places: int | None = None) -> str:
    """A number as the language writes it ("1.234,5" in da), minus as a real minus sign."""
    pattern = None if places is None else "#,##0." + "0" * places if places else "#,##0"
    text = format_decimal(value, format=pattern, locale=_locale(lang))
    return text.replace("-", "−")


def percent(value: Decimal | int | float, lang: str, places: int = 2) -> str:
    """A percentage given as 0-100, as the language writes it: "56,23 %" (da), "56.23%" (en)."""
    text: str = _percent_pattern(lang, places).apply(Decimal(str(value)) / 100, _locale(lang))
    return text.replace("-", "−")


@cache
def _percent_pattern(lang: str, places: int) -> NumberPattern:
    """The language's percent pattern with ``places`` decimals, parsed once (a ranking writes
    hundreds of percentages a render; reading the locale's formats each time cost more than
    writing them)."""
    pattern = _locale(lang).percent_formats[None].pattern
    digits = "0." + "0" * places if places else "0"
    return parse_pattern(pattern.replace("#,##0", "#,##" + digits, 1))


def clock(value: datetime, lang: str) -> str:
    """A wall-clock time as the language writes it (local time zone)."""
    return format_time(value.astimezone(), format="short", locale=_locale(lang))


def date_time(value: datetime, lang: str) -> str:
    """A date and time, medium length, as the language writes it (local time zone)."""
    return format_datetime(value.astimezone(), format="medium", locale=_locale(lang))


def date(value: datetime, lang: str) -> str:
    """A calendar date, medium length, as the language writes it (local time zone)."""
    return format_date(value.astimezone(), format="medium", locale=_locale(lang))


def seat_letter(letter: str | None, lang: str) -> str:
    """A seat's local letter: E is Ø in Danish and Norwegian, O in German."""
    if not letter:
        return ""
    return SEAT_LETTERS.get(lang, SEAT_LETTERS[SOURCE]).get(letter, letter)


@cache
@cache
def _locale(lang: str) -> Locale:
    return Locale.parse(lang if lang in LANGUAGES else SOURCE)
