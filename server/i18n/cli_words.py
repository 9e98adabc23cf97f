"""The command line's messages in the user's language, from the environment as gettext reads it:
``LANGUAGE`` (a list), else ``LC_ALL``, ``LC_MESSAGES``, ``LANG``; "C", "POSIX" or a language we
do not offer mean English.

The server's catalogue (``server/locales``) is compiled by Babel on first use, through this
package (``server.i18n``, which imports Babel when it loads: a base dependency, so every
install has it, a keypad-only one too).
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Mapping
from functools import cache

from protocol.languages import SOURCE, normalise
from server import i18n


def cli_language(environ: Mapping[str, str] | None = None) -> str:
    """The language of the command line's messages."""
    env = os.environ if environ is None else environ
    locale = next((env[n] for n in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(n)), "")
    if locale.split(".")[0] in ("C", "POSIX"):
        return SOURCE
    for part in env.get("LANGUAGE", "").split(":"):
        if normalise(part):
            return normalise(part) or SOURCE
    return normalise(locale) or SOURCE


@cache
def _translations(lang: str) -> gettext.NullTranslations:
    if lang == SOURCE:
        return gettext.NullTranslations()
    return i18n.translations(lang)


def _(message: str) -> str:
    """``message`` in the command line's language."""
    return _translations(cli_language()).gettext(message)
