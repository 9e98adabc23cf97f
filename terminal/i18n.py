"""The terminal's languages: gettext catalogues, the language in use, local letters and words.

Catalogues live in ``terminal/locales/<lang>/LC_MESSAGES/terminal.po`` (English is the source,
the message ids) and are compiled when the package is built, as the server's are. The terminal
shows one table, so the language is one setting for the whole process: the event's (sent in
``RoundInfo.language``) unless the players switched it at this table (remembered in
``terminal.json`` for the event). Keys never change with the language; only what is shown does:
local seat letters (Danish/Norwegian Ø, German O, Russian С В Ю З) and notrump (UT, SA, БК).

After changing strings::

    .venv/bin/pybabel extract -F terminal/locales/babel.cfg -k N_ --no-location --omit-header \\
        -o terminal/locales/terminal.pot .
    .venv/bin/pybabel update -D terminal -i terminal/locales/terminal.pot -d terminal/locales \\
        -w 100
"""

from __future__ import annotations

import gettext
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Final

from protocol import catalogues, languages
from protocol.languages import LANGUAGES
from protocol.languages import SOURCE as SOURCE  # the screens ask i18n.SOURCE

LOCALES: Final = Path(__file__).resolve().parent / "locales"
DOMAIN: Final = "terminal"
SYMBOLS: Final = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
_current = SOURCE
_settled = False


def N_(message: str) -> str:  # noqa: N802
    """Mark a string for extraction; it is translated where it is shown."""
    return message


SEAT_WORDS: Final = {"N": N_("North"), "E": N_("East"), "S": N_("South"), "W": N_("West")}


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


def language() -> str:
    """The language the screens are shown in."""
    return _current


def set_language(lang: str | None) -> str:
    """Show the screens in ``lang`` (an unknown code: English); the language now in use."""
    global _current, _settled
    known = languages.normalise(lang)
    _current, _settled = known or SOURCE, known is not None
    return _current


def settled() -> bool:
    """Whether the language shown is the players' choice or the event's (not the default)."""
    return _settled


def _(message: str) -> str:
    """``message`` in the language in use."""
    return translations(_current).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural of a message in the language in use, for ``n``."""
    return translations(_current).ngettext(singular, plural, n)


def seat(letter: str | None) -> str:
    """A seat's local letter ("E" is "Ø" in Danish)."""
    return languages.seat_letter(letter, _current)


def seat_name(letter: str | None) -> str:
    """A seat's name in the language in use ("Øst")."""
    word = SEAT_WORDS.get(letter or "")
    return _(word) if word else ""


def strain(letter: str) -> str:
    """A strain as shown: a suit symbol, or notrump in the local letters."""
    return languages.strain_text(letter, _current, SYMBOLS)


def sides() -> tuple[str, str]:
    """The two sides as clubs write them: ("N/S", "E/W"), ("N-S", "Ø-V") in Danish..."""
    return _("N/S"), _("E/W")


def contract(text: str | None) -> str:
    """A contract as shown: "4SX" -> "4♠X", "3NT" -> "3UT" (da); "PASS" -> passed out."""
    if not text:
        return ""
    if text == "PASS":
        return _("Passed out")
    level, rest = text[0], text[1:]
    bare = rest.rstrip("X")
    return level + strain(bare) + rest[len(bare) :]


def score_line(ns: int | None) -> str:
    """ "N/S +420    E/W -420" with the local side names ("Score 0" when nobody scores)."""
    value = ns or 0
    if value == 0:
        return _("Score 0")
    ns_side, ew_side = sides()
    return f"{ns_side} {value:+d}    {ew_side} {-value:+d}"


def outcome(needed: int, taken: int) -> str:
    """ "made", "made with two overtricks", "one down" in the language in use."""
    difference = taken - needed
    if difference == 0:
        return _("made")
    count = _number(abs(difference))
    if difference > 0:
        text = ngettext(
            "made with {count} overtrick", "made with {count} overtricks", abs(difference)
        )
    else:
        text = ngettext("{count} down", "{count} down", abs(difference))
    return text.format(count=count)


def result_words(
    contract_code: str | None,
    declarer: str | None,
    tricks: int | None,
    ns_score: int | None,
    english: str | None = None,
) -> str:
    """A result in words, e.g. "4♠ doubled by South, two down, N/S -500", in the language in
    use. English keeps the sentence the bridge domain (or the server) wrote, ``english``."""
    if _current == SOURCE and english:
        return english
    if not contract_code or contract_code == "PASS" or declarer is None or tricks is None:
        return _("Passed out, 0")
    level = int(contract_code[0])
    rest = contract_code[1:]
    bare = rest.rstrip("X")
    doubling = {"": "", "X": _(" doubled"), "XX": _(" redoubled")}[rest[len(bare) :]]
    ns_side, _ew = sides()
    return _("{contract} by {declarer}, {outcome}, {side} {score}").format(
        contract=f"{level}{strain(bare)}{doubling}",
        declarer=seat_name(declarer),
        outcome=outcome(level + 6, tricks),
        side=ns_side,
        score=f"{ns_score or 0:+d}",
    )


def percent(value: float | None, places: int = 2) -> str:
    """A percentage (0-100) as the language writes it: "56,23 %" (da); English keeps the
    terminal's own "56.23 %"."""
    if value is None:
        return ""
    if _current == SOURCE:
        return f"{value:g} %"
    # babel only once a language other than English is shown (as protocol/catalogues.py).
    from babel import Locale  # noqa: PLC0415
    from babel.numbers import format_percent  # noqa: PLC0415

    locale = Locale.parse(_current)
    pattern = locale.percent_formats[None].pattern
    pattern = pattern.replace("#,##0", "#,##0." + "#" * places, 1)
    text = format_percent(Decimal(str(value)) / 100, format=pattern, locale=locale)
    return text.replace("-", "−")


#: English writes a count of tricks in words; the other languages' sentences use digits.
NUMBER_WORDS: Final = (
    "zero", "one", "two", "three", "four", "five", "six",
    "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
)  # fmt: skip


def _number(n: int) -> str:
    """A count of tricks in words where the language writes it so (English), else digits."""
    if _current == SOURCE:
        return NUMBER_WORDS[n]
    return str(n)
