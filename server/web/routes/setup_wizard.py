"""The set-up wizard: the field and the time, the movements that fit, the settings and names,
then the event with its sections (and the guide cards to print before play).

Steps 1-3 are GET pages carrying the answers so far in the query (back and reload just work);
the last step posts the whole form (multipart: a movement file and a hand-record file, PBN or
a dealing machine's .dup/.dlm/.bri/.dge, may come with it). A refusal shows the form again
with its message and stores nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session
from starlette.datastructures import FormData, UploadFile

from server.core.errors import InvalidError, TravellerError
from server.i18n import N_
from server.i18n.notice_words import Notice, said
from server.movements import Movement, PairRef
from server.movements.advice import (
    DEFAULT_MINUTES,
    DEFAULT_MINUTES_PER_BOARD,
    MAX_BOARDS_PER_ROUND,
    Advice,
    proposal_for,
    propose,
)
from server.movements.upload import MovementFileError, read_movement
from server.scoring import methods
from server.scoring.profiles import PROFILES
from server.services.event import event_wizard, members, setup, uploads
from server.services.glance import dashboard
from server.web.auth import TDForm, TDPage
from server.web.fields import whole_number
from server.web.respond import page, redirect, refuse
from server.web.state import RuntimeDep

router = APIRouter(prefix="/td/setup", include_in_schema=False)

MAX_SECTIONS = 8
MAX_PAIRS = 80
MAX_FILE = uploads.MAX_FILE
#: The choice that takes the movement from an uploaded file.
IMPORT = "import"

TITLES = {
    "mitchell": N_("Mitchell"),
    "mitchell-relay": N_("Mitchell, relay and bye stand"),
    "mitchell-arrow": N_("Mitchell, arrow-switch (one winner)"),
    "hesitation": N_("Hesitation Mitchell"),
    "appendix-mitchell": N_("Appendix Mitchell"),
    "web-mitchell": N_("Web Mitchell (two circuits)"),
    "rover-mitchell": N_("Mitchell with a rover pair"),
    "howell": N_("Howell (complete)"),
    "three-quarter-howell": N_("Three-quarter Howell"),
    "individual": N_("Individual"),
    "team-match": N_("Team match (two rooms)"),
    "teams-round-robin": N_("Round-robin teams"),
    "teams-swiss": N_("Swiss teams"),
}
REASONS = {
    "too_few_pairs": N_("needs at least %(least)s pairs"),
    "odd_tables_no_relay": N_("a relay is for an even number of tables, not %(tables)s"),
    "even_pairs_only": N_("for an even number of pairs"),
    "odd_pairs_only": N_("for an odd number of pairs"),
    "web_tables": N_("for an even number of tables, 6 or more (%(least)s pairs or more)"),
    "howell_size": N_("Howells are for %(least)s to %(most)s pairs"),
    "too_long": N_(
        "%(rounds)s rounds need %(boards)s boards or more; the time allows %(fit)s boards"
    ),
    "individual_size": N_("for 8 or 12 players (4 or 6 pairs), not %(players)s"),
    "two_teams": N_("a match is two teams of two pairs: %(pairs)s pairs"),
    "round_robin_size": N_("round robins are for %(least)s to %(most)s pairs (two a team)"),
    "swiss_size": N_("Swiss is for %(least)s to %(most)s pairs (two a team)"),
    "not_built": N_("the engine has no such movement for this size"),
}
#: The scoring methods (server/scoring/methods.py), the default first; their labels.
SCORING = methods.KEYS
SCORING_LABELS = {entry.key.value: entry.label for entry in methods.METHODS.values()}
AFTER_CONFIRM = ("nothing", "score", "traveller")
TRICKS_STYLES = ("absolute", "relative")
PLAYER_NUMBERS = ("off", "first_round", "every_round")
AUCTION_ENTRIES = ("off", "optional", "required")
PLAY_ENTRIES = ("off", "optional")
LANGUAGES = ("", "en", "da", "nb", "de", "ru")
#: The convention profiles, DBf (the default) first; shown by their names, not translated.
PROFILE_TITLES = {name: profile.title for name, profile in PROFILES.items()}
SCORING_PROFILES = tuple(PROFILE_TITLES)


@dataclass(frozen=True)
class Ask:
    """The answers of step 1: the event, its sections, the field and the time."""

    name: str
    sections: int
    pairs: int
    minutes: int
    per_board: float
    bpr: int | None
    choice: str = ""

    def query(self, **changes: Any) -> str:
        values = {
            "name": self.name,
            "sections": self.sections,
            "pairs": self.pairs,
            "minutes": self.minutes,
            "per_board": f"{self.per_board:g}",
            "bpr": self.bpr or "",
            "choice": self.choice,
            **changes,
        }
        return urlencode({k: v for k, v in values.items() if v != ""})


def default_ask() -> Ask:
    """A club night: one section of 20 pairs, three and a half hours."""
    return Ask(
        name=f"Pairs {date.today().isoformat()}",
        sections=1,
        pairs=20,
        minutes=DEFAULT_MINUTES,
        per_board=DEFAULT_MINUTES_PER_BOARD,
        bpr=None,
    )


def _number(values: dict[str, str], key: str, low: float, high: float, *, whole: bool) -> float:
    text = values.get(key, "").strip().replace(",", ".")
    try:
        value = int(text) if whole else float(text)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise InvalidError(
            "wizard_value",
            "{key}: give a number from {low} to {high} (not {text}).",
            key=key,
            low=format(low, "g"),
            high=format(high, "g"),
            text=repr(text),
        )
    return value


def read_ask(values: dict[str, str]) -> Ask:
    """Step 1's answers checked; InvalidError naming the field."""
    defaults = default_ask()
    name = " ".join(values.get("name", "").split()) or defaults.name
    event_wizard.clean_name(name, "Event")
    bpr_text = values.get("bpr", "").strip()
    return Ask(
        name=name[:200],
        sections=int(_number(values, "sections", 1, MAX_SECTIONS, whole=True)),
        pairs=int(_number(values, "pairs", 2, MAX_PAIRS, whole=True)),
        minutes=int(_number(values, "minutes", 10, 24 * 60, whole=True)),
        per_board=_number(values, "per_board", 1, 30, whole=False),
        bpr=None
        if not bpr_text
        else int(_number(values, "bpr", 1, MAX_BOARDS_PER_ROUND, whole=True)),
        choice=values.get("choice", "").strip(),
    )


async def advice_for(ask: Ask) -> Advice:
    """The proposals, worked out off the event loop (a balance figure per movement)."""
    return await run_in_threadpool(
        propose,
        ask.pairs,
        minutes=ask.minutes,
        minutes_per_board=ask.per_board,
        boards_per_round=ask.bpr,
    )


def letters(count: int) -> list[str]:
    return [chr(ord("A") + i) for i in range(count)]


def _start(request: Request, td_: TDPage, ask: Ask, error: str | None, status: int) -> Response:
    return page(
        request, "td/wizard_start.html", td_, ask=ask, error=error, step=1, status_code=status
    )


@router.get("", response_class=HTMLResponse)
async def start(request: Request, td_: TDPage) -> Response:
    """Step 1: the event's name, sections, pairs and time (the answers so far, if any)."""
    values = dict(request.query_params)
    try:
        ask = read_ask(values) if values.get("pairs") else default_ask()
    except InvalidError:
        ask = _typed(values)
    return _start(request, td_, ask, None, 200)


@router.get("/movements", response_class=HTMLResponse)
async def movements(request: Request, td_: TDPage) -> Response:
    """Step 2: the movements that fit, with boards, time and balance; why the others don't."""
    values = dict(request.query_params)
    try:
        ask = read_ask(values)
    except InvalidError as exc:
        return _start(request, td_, _typed(values), exc.message, 400)
    advice = await advice_for(ask)
    chosen = ask.choice if ask.choice in (IMPORT, *(p.key for p in advice.proposals)) else ""
    return page(
        request,
        "td/wizard_movements.html",
        td_,
        ask=ask,
        advice=advice,
        chosen=chosen or advice.recommended or IMPORT,
        titles=TITLES,
        reasons=REASONS,
        step=2,
    )


def _typed(values: dict[str, str]) -> Ask:
    """The answers as typed, to show them again next to the refusal."""
    d = default_ask()
    return Ask(
        name=values.get("name", d.name)[:200],
        sections=_or(values.get("sections"), d.sections),
        pairs=_or(values.get("pairs"), d.pairs),
        minutes=_or(values.get("minutes"), d.minutes),
        per_board=d.per_board,
        bpr=None,
    )


def _or(text: str | None, default: int) -> int:
    number = whole_number(text) if text else None
    return default if number is None else number


async def _movement(ask: Ask) -> Movement | None:
    """The chosen generated movement (None for a file); InvalidError if it does not fit."""
    if ask.choice == IMPORT:
        return None
    proposal = await run_in_threadpool(
        proposal_for,
        ask.choice,
        ask.pairs,
        minutes=ask.minutes,
        minutes_per_board=ask.per_board,
        boards_per_round=ask.bpr,
    )
    if proposal is None:
        raise InvalidError(
            "movement_unfit",
            "The movement {choice} does not fit {pairs} pairs in {minutes} minutes: choose "
            "one of the proposals.",
            choice=repr(ask.choice),
            pairs=ask.pairs,
            minutes=ask.minutes,
        )
    return proposal.movement


def _details_context(s: Session, ask: Ask, movement: Movement | None) -> dict[str, Any]:
    refs = sorted(movement.pairs(), key=PairRef.sort_key) if movement else []
    teams = movement is not None and movement.kind == "teams"
    return {
        "ask": ask,
        "movement": movement,
        "refs": [] if movement and movement.kind == "individual" else [str(r) for r in refs],
        "teams": sorted({r.number for r in refs}) if teams else [],
        "letters": letters(ask.sections),
        "members": members.members(s),
        "title": TITLES.get(ask.choice, ""),
        "scorings": SCORING,
        "scoring_labels": SCORING_LABELS,
        "scoring_default": methods.TEAMS_DEFAULT if teams else methods.DEFAULT,
        "after_confirms": AFTER_CONFIRM,
        "tricks_styles": TRICKS_STYLES,
        "player_numbers": PLAYER_NUMBERS,
        "auction_entries": AUCTION_ENTRIES,
        "play_entries": PLAY_ENTRIES,
        "languages": LANGUAGES,
        "scoring_profiles": SCORING_PROFILES,
        "profile_titles": PROFILE_TITLES,
        "step": 3,
    }


@router.get("/details", response_class=HTMLResponse)
async def details(request: Request, runtime: RuntimeDep, td_: TDPage) -> Response:
    """Step 3: settings (each with a default), names from the member list, files."""
    values = dict(request.query_params)
    try:
        ask = read_ask(values)
        movement = await _movement(ask)
    except InvalidError as exc:
        return refuse(f"/td/setup/movements?{urlencode(values)}", exc)
    ctx = await runtime.read(lambda s: _details_context(s, ask, movement))
    return page(request, "td/wizard_details.html", td_, form={}, error=None, **ctx)


_NAME_FIELD = re.compile(r"^n_([A-H])_(\d+(?:NS|EW)?)_([12])$")


def _names(form: FormData, section_letters: list[str]) -> dict[str, dict[str, tuple[str, str]]]:
    """The typed names by section letter and pair: {"A": {"7NS": ("Anna", "123")}}."""
    typed: dict[str, dict[str, list[str]]] = {}
    for key, value in form.multi_items():
        match = _NAME_FIELD.match(key)
        if match is None or not isinstance(value, str) or match.group(1) not in section_letters:
            continue
        seats = typed.setdefault(match.group(1), {}).setdefault(match.group(2), ["", ""])
        seats[int(match.group(3)) - 1] = value
    return {
        letter: {ref: (pair[0], pair[1]) for ref, pair in refs.items()}
        for letter, refs in typed.items()
    }


_TEAM_FIELD = re.compile(r"^team_(\d{1,2})$")


def _team_names(form: FormData) -> dict[int, str]:
    """The typed team names by team number (a teams movement): {3: "Aces"}."""
    return {
        int(match.group(1)): value
        for key, value in form.multi_items()
        if (match := _TEAM_FIELD.match(key)) and isinstance(value, str) and value.strip()
    }


async def _bytes(upload: Any) -> tuple[bytes, str] | None:
    """An uploaded file's bytes and name, None when no file was chosen."""
    if not isinstance(upload, UploadFile) or not upload.filename:
        return None
    return uploads.within(await upload.read(MAX_FILE + 1)), upload.filename


async def _text(upload: Any) -> str | None:
    """An uploaded file's text, None when no file was chosen."""
    got = await _bytes(upload)
    if got is None:
        return None
    return uploads.text_of(got[0])


def _choice(form: FormData, key: str, allowed: tuple[str, ...]) -> str:
    """The chosen option; a field left out takes the first (the default)."""
    value = form.get(key, allowed[0])
    text = value if isinstance(value, str) else ""
    if text not in allowed:
        raise InvalidError(
            "wizard_value",
            "{key}: {text} is not one of {value}.",
            key=key,
            text=repr(text),
            value=", ".join(allowed),
        )
    return text


def _settings(form: FormData) -> event_wizard.WizardSettings:
    language = _choice(form, "language", LANGUAGES)
    return event_wizard.WizardSettings(
        scoring=_choice(form, "scoring", SCORING),
        lead_required=form.get("lead_required") == "on",
        tricks_style=_choice(form, "tricks_style", TRICKS_STYLES),
        confirm_pin_required=form.get("confirm_pin_required") == "on",
        after_confirm=_choice(form, "after_confirm", AFTER_CONFIRM),
        show_ranking=form.get("show_ranking") == "on",
        player_numbers=_choice(form, "player_numbers", PLAYER_NUMBERS),
        language=language or None,
        scoring_profile=_choice(form, "scoring_profile", SCORING_PROFILES),
        auction_entry=_choice(form, "auction_entry", AUCTION_ENTRIES),
        play_entry=_choice(form, "play_entry", PLAY_ENTRIES),
        deal_entry=form.get("deal_entry") == "on",
    )


@router.post("", response_class=HTMLResponse)
async def create(request: Request, runtime: RuntimeDep, td_: TDForm) -> Response:
    """Create the event, its sections, names and hand records; or show the refusal."""
    form = await request.form()
    values = {k: v for k, v in form.items() if isinstance(v, str)}
    try:
        ask = read_ask(values)
        movement = await _movement(ask)
    except InvalidError as exc:
        return refuse(f"/td/setup/movements?{urlencode(values)}", exc)
    try:
        settings = _settings(form)
        if movement is None:
            text = await _text(form.get("movement_file"))
            if text is None:
                raise InvalidError("no_movement_file", "Choose the movement file to import.")
            movement = _read_movement(text)
        upload = await _bytes(form.get("pbn_file"))
        hands = None if upload is None else event_wizard.read_hand_records(*upload)
        if hands is not None and hands.refused and form.get("strict_hand_records") == "on":
            read, refused, places = _summary(hands)
            raise InvalidError(
                "hand_records_refused",
                "The hand-record file: {read} read, {refused} refused: {places}. Strict mode: "
                "nothing was created.",
                read=read,
                refused=refused,
                places=places,
            )
        deals = None if hands is None else hands.deals
        names = _names(form, letters(ask.sections))
        teams = _team_names(form)
        plans = [
            event_wizard.SectionPlan(letter, movement, names.get(letter, {}), teams)
            for letter in letters(ask.sections)
        ]
        made = await runtime.run(
            lambda s: event_wizard.create(
                s, name=ask.name, settings=settings, sections=plans, deals=deals
            )
        )
    except TravellerError as exc:
        ctx = await runtime.read(lambda s: _details_context(s, ask, movement))
        return page(
            request,
            "td/wizard_details.html",
            td_,
            form=values,
            error=exc.message,
            status_code=exc.status,
            **ctx,
        )
    ids = ",".join(str(i) for i in made.section_ids)
    return redirect(f"/td/setup/done?sections={ids}", _created(made, hands))


def _summary(hands: event_wizard.HandRecords) -> tuple[int, int, str]:
    """(deals read, boards refused, the first five refusals with their places)."""
    read, refused = len(hands.deals), len(hands.refused)
    return read, refused, "; ".join(hands.refused[:5]) + ("; ..." if refused > 5 else "")


def _created(made: event_wizard.Created, hands: event_wizard.HandRecords | None = None) -> Notice:
    count, deals = len(made.section_ids), made.deals
    if hands is not None and hands.refused:
        read, refused, places = _summary(hands)
        return said(
            "notice",
            "Event created. Sections: {count}; deals: {deals}. Hand records: {read} read, "
            "{refused} refused: {places}.",
            count=count,
            deals=deals,
            read=read,
            refused=refused,
            places=places,
        )
    if hands is not None:
        read = len(hands.deals)
        return said(
            "notice",
            "Event created. Sections: {count}; deals: {deals}. Hand records: {read} read, "
            "0 refused.",
            count=count,
            deals=deals,
            read=read,
        )
    if deals:
        return said(
            "notice", "Event created. Sections: {count}; deals: {deals}.", count=count, deals=deals
        )
    return said("notice", "Event created. Sections: {count}.", count=count)


def _read_movement(text: str) -> Movement:
    try:
        return read_movement(text)
    except MovementFileError as exc:
        raise InvalidError("bad_movement_file", "The movement file: {exc}", exc=exc) from exc


@router.get("/done", response_class=HTMLResponse)
async def done(request: Request, runtime: RuntimeDep, td_: TDPage, sections: str = "") -> Response:
    """The last step: each section with its dashboard, movement and guide cards to print."""
    ids = [n for x in sections.split(",") if (n := whole_number(x)) is not None][:MAX_SECTIONS]

    def work(s: Session) -> tuple[list[dashboard.SectionHead], set[int]]:
        sections = [setup.get_section(s, i) for i in ids]
        teams = {x.id or 0 for x in sections if x.movement_kind == "teams"}
        return [dashboard.head(s, x) for x in sections], teams

    heads, teams = await runtime.read(work)
    return page(request, "td/wizard_done.html", td_, heads=heads, teams=teams, step=4)
