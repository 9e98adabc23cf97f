"""Jinja2 templates and the filters the pages share (times, numbers, contracts, states)."""

from __future__ import annotations

import hashlib
from datetime import datetime
from decimal import Decimal
from pathlib import Path

from fastapi.templating import Jinja2Templates
from markupsafe import Markup, escape

from server.services.standings import symbols

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"

SEATS = {"N": "North", "E": "East", "S": "South", "W": "West"}
VULNERABILITY = {"NONE": "None", "NS": "N/S", "EW": "E/W", "BOTH": "All"}
STATES = {
    "missing": "Missing",
    "entered": "Awaiting confirmation",
    "rejected": "Rejected, to re-enter",
    "confirmed": "Confirmed",
    "td_pending": "Ruling pending",
    "not_played": "Not played",
    "adjusted": "Adjusted",
    "conflict": "Conflict",
}
ACTIONS = {
    "entered": "Entered",
    "re-entered": "Entered again",
    "confirmed": "Confirmed",
    "rejected": "Rejected",
    "corrected": "Corrected",
    "conflict": "Second, different entry",
    "td_set_result": "TD set the result",
    "td_adjusted": "TD adjusted the score",
    "td_not_played": "TD: not played",
    "round_started": "Round started",
    "round_closed": "Round closed",
    "round_time": "Round time set",
    "gate_override": "Table moved on by the TD",
    "table_new_device": "Table moved to a new device",
    "terminal_revoked": "Terminal withdrawn",
    "warning": "Warning",
    "deduction": "Penalty",
    "sanction_withdrawn": "Penalty withdrawn",
    "published": "Results published",
    "pair_names": "Pair names",
    "section_created": "Section created",
    "event_created": "Event created",
}
RED_SUITS = ("♥", "♦")
FIELDS = {
    "state": "State",
    "contract": "Contract",
    "declarer": "Declarer",
    "tricks": "Tricks",
    "lead": "Lead",
    "ns_score": "N/S score",
    "ruling_pending": "Ruling pending",
    "adjusted": "Adjusted",
}


def clock(value: datetime | None) -> str:
    """Local wall-clock time, HH:MM."""
    return value.astimezone().strftime("%H:%M") if value else ""


def when(value: datetime | None) -> str:
    """Local date and time, short."""
    if value is None:
        return ""
    local = value.astimezone()
    today = datetime.now().astimezone().date()
    return local.strftime("%H:%M:%S") if local.date() == today else local.strftime("%d %b %H:%M")


def num(value: Decimal | int | None, places: int | None = None) -> str:
    if value is None:
        return "–"
    if places is not None and isinstance(value, Decimal):
        value = value.quantize(Decimal(1).scaleb(-places))
    text = f"{value}"
    return text.replace("-", "−")


def contract_html(text: str | None) -> Markup:
    """A contract with suit symbols, hearts and diamonds in red."""
    if not text:
        return Markup("")
    shown = symbols(text) or text
    if shown.upper() == "PASS":
        return Markup('<span class="pass">Passed out</span>')
    out = Markup("")
    for ch in shown:
        if ch in RED_SUITS:
            out += Markup('<span class="red">{}</span>').format(ch)
        else:
            out += escape(ch)
    return out


def seat(letter: str | None) -> str:
    return SEATS.get(letter or "", "")


def static_url(name: str) -> str:
    """The URL of a static file, with its content hash so a new version is always fetched."""
    path = STATIC / name
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:10] if path.exists() else "0"
    return f"/static/{name}?v={digest}"


def change_value(value: object, name: str = "") -> str:
    """An audited value in words ("–" for nothing, states by their names)."""
    if value is None or value == "":
        return "–"
    if name == "state" and isinstance(value, str):
        return STATES.get(value, value)
    if value is True:
        return "yes"
    if value is False:
        return "no"
    return str(value)


def make_templates() -> Jinja2Templates:
    templates = Jinja2Templates(directory=str(TEMPLATES))
    env = templates.env
    env.autoescape = True
    env.trim_blocks = True
    env.lstrip_blocks = True
    env.filters.update(
        clock=clock,
        when=when,
        num=num,
        contract=contract_html,
        seat=seat,
        vul=lambda v: VULNERABILITY.get(v or "", v or ""),
        state=lambda s: STATES.get(s, s),
        action=lambda a: ACTIONS.get(a, a.replace("_", " ")),
        change=change_value,
        field=lambda name: FIELDS.get(name, name.replace("_", " ")),
        iso=lambda v: v.isoformat() if v else "",
    )
    env.globals.update(static=static_url, STATES=STATES)
    return templates
