"""The printable table card: how to enter, confirm, correct, call the TD and move, made from the
key grammar (``protocol/keys.py``) so it cannot drift from what the keys do.

Pure and language-free: the caller passes its own ``translate`` (the server's or the terminal's
catalogue; both extract this module's ``N_`` strings) and the language for the local seat and
notrump letters. The TD console prints it (``/td/cards/table``), ``traveller cards`` writes it,
and the terminal's help screen shows its terminal column.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal

from . import keys
from .languages import seat_letter, strain_text

Device = Literal["terminal", "keypad"]
DEVICES: Final[tuple[Device, ...]] = ("terminal", "keypad")
Translate = Callable[[str], str]

#: What each device's key caps say for the grammar's keys and for its own few others.
KEYCAPS: Final[dict[Device, dict[str, str]]] = {
    "terminal": {
        keys.OK: "Enter",
        keys.BACK: "Backspace",
        keys.OVER: "+",
        keys.UNDER: "-",
        "summary": "/",
        "td": ". 2",
        "boards": "← →",
        "language": "+",
    },
    "keypad": {
        keys.OK: "ENT",
        keys.BACK: "BACK",
        keys.OVER: "UP",
        keys.UNDER: "DOWN",
        "summary": "#",
        "td": "* ENT",
        "boards": "UP DOWN",
        "language": "UP DOWN",
    },
}
_SUITS: Final = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def N_(message: str) -> str:  # noqa: N802
    """Mark a string for extraction (both catalogues); the caller translates it."""
    return message


@dataclass(frozen=True)
class Row:
    """One thing to do and the keys that do it on each device."""

    what: str
    terminal: str
    keypad: str
    note: str = ""
    keypad_note: str = ""

    def keys(self, device: Device) -> str:
        """The keys on ``device``."""
        return self.terminal if device == "terminal" else self.keypad

    def note_for(self, device: Device) -> str:
        """What to add in brackets on ``device``'s card."""
        return self.keypad_note if device == "keypad" and self.keypad_note else self.note


@dataclass(frozen=True)
class CardSection:
    """A heading and its rows."""

    title: str
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Card:
    """The table card in one language."""

    lang: str
    title: str
    sections: tuple[CardSection, ...]
    example: dict[Device, str]
    footer: str


def _same(what: str, text: str, note: str = "") -> Row:
    return Row(what, text, text, note)


def _caps(what: str, key: str, note: str = "", keypad_note: str = "") -> Row:
    return Row(what, KEYCAPS["terminal"][key], KEYCAPS["keypad"][key], note, keypad_note)


def table_card(translate: Translate, lang: str) -> Card:
    """The card in ``lang``, its words through ``translate``."""
    t = translate
    suits = "  ".join(
        f"{key} {strain_text(strain, lang, _SUITS)}" for key, strain in keys.STRAIN_KEYS.items()
    )
    seats = "  ".join(
        f"{key} {seat_letter(seat, lang)}" for key, seat in keys.DECLARER_KEYS.items()
    )
    levels = f"1 - 7   {keys.PASSED} = " + t(N_("passed out"))
    over = {d: f"{KEYCAPS[d][keys.OVER]} n   {KEYCAPS[d][keys.UNDER]} n" for d in DEVICES}
    enter = CardSection(
        t(N_("1. North enters the result")),
        (
            _same(t(N_("Level")), levels),
            _same(t(N_("Suit")), suits),
            _same(t(N_("Doubled")), f"{keys.DOUBLE}   {keys.DOUBLE} {keys.DOUBLE} = XX"),
            _same(t(N_("Declarer")), seats),
            _same(t(N_("Tricks taken")), "0 - 13", t(N_("10 = 1 0"))),
            Row(t(N_("Or: over, down")), over["terminal"], over["keypad"]),
            _caps(t(N_("Send to East")), keys.OK),
        ),
    )
    confirm = CardSection(
        t(N_("2. East confirms")),
        (
            _caps(t(N_("Confirm: the result is right")), keys.OK),
            _caps(t(N_("Reject: back to North")), keys.BACK, t(N_("the keys are kept"))),
        ),
    )
    correct = CardSection(
        t(N_("3. Correct")),
        (
            _caps(t(N_("Take back the last key")), keys.BACK),
            Row(
                t(N_("Change a sent result")),
                KEYCAPS["terminal"][keys.BACK],
                KEYCAPS["keypad"]["td"],
                t(N_("East confirms again")),
                t(N_("the TD changes it")),
            ),
        ),
    )
    td = CardSection(t(N_("4. Call the TD")), (_caps(t(N_("Call the TD")), "td"),))
    move = CardSection(
        t(N_("5. Move")),
        (
            _caps(t(N_("Round summary")), "summary"),
            Row(
                t(N_("Next round: when every board is done")),
                f"{KEYCAPS['terminal']['summary']} {KEYCAPS['terminal'][keys.OK]}",
                f"{KEYCAPS['keypad']['summary']} {KEYCAPS['keypad'][keys.OK]}",
            ),
            _caps(t(N_("Other board")), "boards"),
            _caps(t(N_("Language")), "language", "", t(N_("before the first board"))),
        ),
    )
    example = {
        device: " ".join(["4", "4", "3", "1", "0", KEYCAPS[device][keys.OK]])
        + "  =  "
        + t(N_("4♠ by South, ten tricks: made"))
        for device in DEVICES
    }
    return Card(
        lang=lang,
        title=t(N_("Traveller: keys at the table")),
        sections=(enter, confirm, correct, td, move),
        example=example,
        footer=t(N_("The same keys on the terminal and the keypad. East confirms every board.")),
    )


def card_text(device: Device | None, translate: Translate, lang: str) -> str:
    """The card as plain text: one device's keys, or both side by side (``device`` None)."""
    card = table_card(translate, lang)
    lines = [card.title, ""]
    width = max(len(row.what) for section in card.sections for row in section.rows) + 2
    if device is None:
        key_width = max(len(row.terminal) for section in card.sections for row in section.rows)
        lines.append(f"{'':<{width}}{translate(N_('Terminal')):<{key_width + 3}}")
        lines[-1] += translate(N_("Keypad"))
    for section in card.sections:
        lines.append(section.title)
        for row in section.rows:
            if device is None:
                cells = f"{row.terminal:<{key_width + 3}}{row.keypad}"
            else:
                cells = row.keys(device)
            notes = [row.note_for(d) for d in ([device] if device is not None else DEVICES)]
            shown = " / ".join(dict.fromkeys(n for n in notes if n))
            note = f"   ({shown})" if shown else ""
            lines.append(f"  {row.what:<{width}}{cells}{note}".rstrip())
        lines.append("")
    for shown in [device] if device is not None else list(DEVICES):
        lines.append(card.example[shown])
    lines.extend(["", card.footer])
    return "\n".join(lines)


def card_lines(device: Device, translate: Translate, lang: str, width: int) -> list[str]:
    """One device's card packed into lines of at most ``width`` characters (for a screen):
    each section's heading, then its rows as "what: keys", as many to a line as fit."""
    card = table_card(translate, lang)
    lines = [card.title]
    for section in card.sections:
        lines.append(section.title)
        line = ""
        for row in section.rows:
            note = row.note_for(device)
            cell = f"{row.what}: {row.keys(device)}" + (f" ({note})" if note else "")
            if line and len(line) + 3 + len(cell) > width:
                lines.append(line)
                line = ""
            line = f"{line}   {cell}" if line else f"  {cell}"
        lines.append(line)
    lines.append(card.example[device])
    return lines


def markdown_table(translate: Translate = str, lang: str = "en") -> str:
    """The card's rows as a Markdown table (``protocol/keys.md`` holds the English one)."""
    card = table_card(translate, lang)
    lines = ["| | terminal | keypad |", "|---|---|---|"]
    for section in card.sections:
        lines.append(f"| **{section.title}** | | |")
        for row in section.rows:
            cells = []
            for device in DEVICES:
                note = row.note_for(device)
                cells.append(f"`{row.keys(device)}`" + (f" ({note})" if note else ""))
            lines.append(f"| {row.what} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)
