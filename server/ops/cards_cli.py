"""`traveller cards`: the printable table card (how to key results at the table) as text."""

from __future__ import annotations

from enum import StrEnum

import typer

from protocol.languages import LANGUAGES
from server.i18n import table_cards
from server.i18n.cli_words import _


class CardDevice(StrEnum):
    """Which device's keys the card shows."""

    BOTH = "both"
    TERMINAL = "terminal"
    KEYPAD = "keypad"


def cards(
    lang: str = typer.Option(
        "en", "--lang", "-l", help="Language: en, da, nb, de or ru (all: every language)."
    ),
    device: CardDevice = typer.Option(
        CardDevice.BOTH, "--device", help="terminal, keypad or both."
    ),
) -> None:
    """Print the table card: how to enter, confirm, correct, call the TD and move."""
    wanted = list(LANGUAGES) if lang == "all" else [lang]
    for code in wanted:
        if code not in LANGUAGES:
            typer.echo(
                _("error: unknown language {lang}; use one of {known}").format(
                    lang=code, known=", ".join(LANGUAGES)
                ),
                err=True,
            )
            raise typer.Exit(2)
    shown = None if device is CardDevice.BOTH else device.value
    typer.echo("\n\n".join(table_cards.text(code, shown) for code in wanted))  # type: ignore[arg-type]
