"""The TD pages' notices after an action ("Round 3 started.") in the person's language.

A route gives its notice as an English template and the template's parameters, marked with
:func:`said` (``said("notice", "Round {round} started.", round=n)``); a parameter may itself be
a notice ("line {line}: expected number,name"). Babel's Python extractor takes the templates
from the call sites by the keyword ``said:1c,2`` (``babel.cfg``), the context ``notice``:

    msgctxt "notice"
    msgid "Round {round} started."

:func:`translated` looks the template up with ``pgettext("notice", template)`` in the person's
language and fills in the parameters; a template the catalogue lacks stays English.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from server import i18n

#: The gettext context of the TD pages' notices after an action.
NOTICE = "notice"


@dataclass(frozen=True)
class Notice:
    """A notice: its English template and the template's parameters."""

    template: str
    params: Mapping[str, object] = field(default_factory=dict)

    def __str__(self) -> str:
        """The notice in English."""
        return self.template.format(**{name: str(value) for name, value in self.params.items()})

    def data(self) -> dict[str, object]:
        """The notice as JSON data (a parameter that is a notice as its own data)."""
        params = {
            name: value.data() if isinstance(value, Notice) else str(value)
            for name, value in self.params.items()
        }
        return {"template": self.template, "params": params}


def said(context: Literal["notice"], template: str, /, **params: object) -> Notice:
    """A notice with ``template`` and ``params``; ``context`` is the gettext context Babel
    extracts the template with (always ``"notice"``)."""
    del context
    return Notice(template, params)


def translated(lang: str | None, data: object) -> str | None:
    """A notice given as its JSON data (:meth:`Notice.data`) in ``lang`` with its parameters
    filled in; None when ``lang`` is English, the data is not a notice's, or the catalogue has
    no translation of its template."""
    lang = i18n.normalise(lang)
    if lang is None or lang == i18n.SOURCE or not isinstance(data, dict):
        return None
    template, params = data.get("template"), data.get("params")
    if not isinstance(template, str) or not isinstance(params, dict):
        return None
    words = i18n.translations(lang).pgettext(NOTICE, template)
    if words == template:
        return None
    values = {str(name): _value(lang, value) for name, value in params.items()}
    try:
        return words.format(**values)
    except (KeyError, IndexError, ValueError, AttributeError):
        return None


def _value(lang: str, value: object) -> str:
    """A parameter in ``lang``: a notice translated (else English), anything else as it is."""
    if isinstance(value, dict):
        template, params = value.get("template"), value.get("params")
        if isinstance(template, str) and isinstance(params, dict):
            english = {str(name): _value(i18n.SOURCE, v) for name, v in params.items()}
            try:
                fallback = template.format(**english)
            except (KeyError, IndexError, ValueError, AttributeError):
                fallback = template
            return translated(lang, value) or fallback
    return str(value)


def text(lang: str | None, notice: Notice) -> str:
    """A notice in ``lang``; English when there is no translation."""
    return translated(lang, notice.data()) or str(notice)
