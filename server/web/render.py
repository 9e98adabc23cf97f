"""Jinja2 templates and the filters the pages share (times, numbers, contracts, states)."""

from __future__ import annotations

import functools
import hashlib
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from fastapi.templating import Jinja2Templates
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

from server import i18n
from server.i18n import N_
from server.services.results.standings import symbols

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"

SEATS = {"N": N_("North"), "E": N_("East"), "S": N_("South"), "W": N_("West")}
VULNERABILITY = {"NONE": N_("None"), "NS": N_("N/S"), "EW": N_("E/W"), "BOTH": N_("All")}
STATES = {
    "missing": N_("Missing"),
    "entered": N_("Awaiting confirmation"),
    "rejected": N_("Rejected, to re-enter"),
    "confirmed": N_("Confirmed"),
    "td_pending": N_("Ruling pending"),
    "not_played": N_("Not played"),
    "adjusted": N_("Adjusted"),
    "conflict": N_("Conflict"),
}
ACTIONS = {
    "entered": N_("Entered"),
    "re-entered": N_("Entered again"),
    "confirmed": N_("Confirmed"),
    "rejected": N_("Rejected"),
    "corrected": N_("Corrected"),
    "conflict": N_("Second, different entry"),
    "td_set_result": N_("TD set the result"),
    "td_adjusted": N_("TD adjusted the score"),
    "td_not_played": N_("TD: not played"),
    "round_started": N_("Round started"),
    "round_closed": N_("Round closed"),
    "round_reopened": N_("Round reopened"),
    "round_time": N_("Round time set"),
    "gate_override": N_("Table moved on by the TD"),
    "table_new_device": N_("Table moved to a new device"),
    "terminal_revoked": N_("Terminal withdrawn"),
    "warning": N_("Warning"),
    "deduction": N_("Penalty"),
    "sanction_withdrawn": N_("Penalty withdrawn"),
    "published": N_("Results published"),
    "deadline_moved": N_("Correction deadline moved"),
    "pair_names": N_("Pair names"),
    "pair_handicap": N_("Pair handicap"),
    "section_created": N_("Section created"),
    "event_created": N_("Event created"),
    "movement_changed": N_("Movement changed"),
    "backup": N_("Backup taken"),
}
RED_SUITS = ("♥", "♦")
#: Words the services hand to the pages, translated where shown (``_(ranking.unit)``).
SHOWN_WORDS = (
    *(N_("MP"), N_("IMP"), N_("points")),
    *(N_("North–South"), N_("East–West"), N_("All pairs")),
    *(N_("live"), N_("provisional"), N_("final")),
)
FIELDS = {
    "state": N_("State"),
    "contract": N_("Contract"),
    "declarer": N_("Declarer"),
    "tricks": N_("Tricks"),
    "lead": N_("Lead"),
    "auction": N_("Auction"),
    "alerts": N_("Alert explanations"),
    "ns_score": N_("N/S score"),
    "ruling_pending": N_("Ruling pending"),
    "adjusted": N_("Adjusted"),
}


def lang_of(ctx: Context) -> str:
    """The language a template renders in (``lang`` in its context, English by default)."""
    lang = ctx.get("lang")
    return lang if isinstance(lang, str) and lang in i18n.LANGUAGES else i18n.SOURCE


@pass_context
def _gettext(ctx: Context, message: str) -> str:
    return i18n.gettext_for(lang_of(ctx), message)


@pass_context
def _ngettext(ctx: Context, singular: str, plural: str, n: int) -> str:
    return i18n.ngettext_for(lang_of(ctx), singular, plural, n)


def clock(value: datetime | None) -> str:
    """Local wall-clock time, HH:MM."""
    return value.astimezone().strftime("%H:%M") if value else ""


def when(value: datetime | None, lang: str = i18n.SOURCE) -> str:
    """Local date and time, short (as the language writes it)."""
    if value is None:
        return ""
    local = value.astimezone()
    today = datetime.now().astimezone().date()
    if local.date() == today:
        return local.strftime("%H:%M:%S")
    if lang == i18n.SOURCE:
        return local.strftime("%d %b %H:%M")
    return i18n.date_time(local, lang)


def num(value: Decimal | int | None, places: int | None = None, lang: str = i18n.SOURCE) -> str:
    """A number ("–" for none), with a real minus sign, as the language writes decimals."""
    if value is None:
        return "–"
    if places is not None and isinstance(value, Decimal):
        value = value.quantize(Decimal(1).scaleb(-places))
    if lang != i18n.SOURCE:
        if isinstance(value, Decimal):
            exponent = value.as_tuple().exponent
            shown = -exponent if isinstance(exponent, int) and exponent < 0 else 0
            return i18n.number(value, lang, shown)
        return i18n.number(value, lang, 0)
    text = f"{value}"
    return text.replace("-", "−")


def contract_html(text: str | None, lang: str = i18n.SOURCE) -> Markup:
    """A contract with suit symbols, hearts and diamonds in red."""
    if not text:
        return Markup("")
    shown = symbols(text) or text
    if shown.upper() == "PASS":
        return Markup('<span class="pass">{}</span>').format(
            i18n.gettext_for(lang, N_("Passed out"))
        )
    out = Markup("")
    for ch in shown:
        if ch in RED_SUITS:
            out += Markup('<span class="red">{}</span>').format(ch)
        else:
            out += escape(ch)
    return out


def seat(letter: str | None, lang: str = i18n.SOURCE) -> str:
    """A seat's name ("East", "Øst")."""
    name = SEATS.get(letter or "", "")
    return i18n.gettext_for(lang, name) if name else ""


def static_url(name: str) -> str:
    """The URL of a static file, with its content hash so a new version is always fetched."""
    path = STATIC / name
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:10] if path.exists() else "0"
    return f"/static/{name}?v={digest}"


def change_value(value: object, name: str = "", lang: str = i18n.SOURCE) -> str:
    """An audited value in words ("–" for nothing, states by their names)."""
    if value is None or value == "":
        return "–"
    if name == "state" and isinstance(value, str):
        return i18n.gettext_for(lang, STATES.get(value, value))
    if value is True:
        return i18n.gettext_for(lang, N_("yes"))
    if value is False:
        return i18n.gettext_for(lang, N_("no"))
    return str(value)


def _named(table: dict[str, str], fallback: bool = False) -> Any:
    """A filter showing a code by its translated name from ``table``."""

    @pass_context
    def show(ctx: Context, code: str | None) -> str:
        name = table.get(code or "")
        if name is None:
            text = code or ""
            return text.replace("_", " ") if fallback else text
        return i18n.gettext_for(lang_of(ctx), name)

    return show


def _localised(fn: Any) -> Any:
    """A filter that gets the template's language as its ``lang`` keyword."""

    @pass_context
    def filtered(ctx: Context, *args: Any, **kwargs: Any) -> Any:
        return fn(*args, lang=lang_of(ctx), **kwargs)

    return filtered


@functools.cache
def make_templates() -> Jinja2Templates:
    """The page templates, with gettext (``{% trans %}``, ``_()``) and the shared filters.

    One environment a process: nothing in it belongs to one app, and every app (a test makes
    thousands) would otherwise compile each template again. The templates are files of the
    installed package: a template is compiled once and never looked at on disk again (Jinja's
    ``auto_reload`` would stat its file at every render, a live page's every row)."""
    templates = Jinja2Templates(directory=str(TEMPLATES))
    env = templates.env
    env.auto_reload = False
    env.add_extension("jinja2.ext.i18n")
    env.autoescape = True
    env.trim_blocks = True
    env.lstrip_blocks = True
    env.install_gettext_callables(  # type: ignore[attr-defined]
        _gettext, _ngettext, newstyle=True
    )
    env.filters.update(
        clock=clock,
        when=_localised(when),
        day=_localised(lambda v, lang: i18n.date(v, lang) if v else ""),
        num=_localised(num),
        pct=_localised(lambda v, lang: "–" if v is None else i18n.percent(v, lang)),
        contract=_localised(contract_html),
        seat=_localised(seat),
        letter=_localised(lambda v, lang: i18n.seat_letter(v, lang)),
        vul=_named(VULNERABILITY),
        state=_named(STATES),
        action=_named(ACTIONS, fallback=True),
        change=_localised(change_value),
        field=_named(FIELDS, fallback=True),
        iso=lambda v: v.isoformat() if v else "",
    )
    env.globals.update(static=static_url, STATES=STATES, LANGUAGES=i18n.LANGUAGES)
    return templates
