"""The printable table card in the server's languages: how to enter, confirm, correct, call the
TD and move, made from the one key grammar (``protocol/keys.py`` via ``protocol/table_card.py``).

The TD console prints it (``/td/cards/table``) and ``traveller cards`` writes it as text; the
words come from the server's catalogue, the keys from the grammar, so the card cannot drift from
what the terminal and the keypad do.
"""

from __future__ import annotations

from functools import partial

from protocol.languages import LANGUAGES
from protocol.table_card import Card, Device, card_text, table_card
from server import i18n


def card(lang: str) -> Card:
    """The table card in ``lang`` (an unknown language: English)."""
    lang = lang if lang in LANGUAGES else i18n.SOURCE
    return table_card(partial(i18n.gettext_for, lang), lang)


def text(lang: str, device: Device | None = None) -> str:
    """The card as plain text: one device's keys, or both side by side."""
    lang = lang if lang in LANGUAGES else i18n.SOURCE
    return card_text(device, partial(i18n.gettext_for, lang), lang)
