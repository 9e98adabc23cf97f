"""The languages Traveller speaks, and the seat and strain letters clubs write in each.

Standard library only: the server, the terminal and the keypad all use it. English is the
source language; the others are the founding documents' languages (Danish, Norwegian Bokmål,
German, Russian). Keys and stored data keep the international letters N E S W and C D H S NT;
only what is shown changes.
"""

from __future__ import annotations

from typing import Final

SOURCE: Final = "en"
#: The languages offered, with their own names (for switchers), in switching order.
LANGUAGES: Final = {
    "en": "English",
    "da": "Dansk",
    "nb": "Norsk",
    "de": "Deutsch",
    "ru": "Русский",
}
#: Other codes people and systems use for the same language.
ALIASES: Final = {"no": "nb", "nn": "nb"}
#: Seat letters as clubs write them (keys and stored data keep N/E/S/W).
SEAT_LETTERS: Final = {
    "en": {"N": "N", "E": "E", "S": "S", "W": "W"},
    "da": {"N": "N", "E": "Ø", "S": "S", "W": "V"},
    "nb": {"N": "N", "E": "Ø", "S": "S", "W": "V"},
    "de": {"N": "N", "E": "O", "S": "S", "W": "W"},
    "ru": {"N": "С", "E": "В", "S": "Ю", "W": "З"},
}
#: Notrump as clubs write it in a contract ("3NT", "3UT", "3SA", "3БК"); suits are symbols.
NOTRUMP: Final = {"en": "NT", "da": "UT", "nb": "NT", "de": "SA", "ru": "БК"}


def normalise(code: str | None) -> str | None:
    """A language code we offer ("da_DK.UTF-8" -> "da", "no" -> "nb"), or None."""
    if not code:
        return None
    base = code.strip().split(".")[0].replace("_", "-").split("-")[0].lower()
    base = ALIASES.get(base, base)
    return base if base in LANGUAGES else None


def next_language(current: str) -> str:
    """The language after ``current`` in switching order (back to English after the last)."""
    codes = list(LANGUAGES)
    index = codes.index(current) if current in codes else -1
    return codes[(index + 1) % len(codes)]


def seat_letter(letter: str | None, lang: str) -> str:
    """A seat's local letter: E is Ø in Danish and Norwegian, O in German."""
    if not letter:
        return ""
    return SEAT_LETTERS.get(lang, SEAT_LETTERS[SOURCE]).get(letter, letter)


def strain_text(strain: str, lang: str, symbols: dict[str, str]) -> str:
    """A strain as shown: the suit symbol, or notrump in the local letters."""
    if strain == "NT":
        return NOTRUMP.get(lang, NOTRUMP[SOURCE])
    return symbols.get(strain, strain)
