"""Mid-session changes to the movement from the TD's console: a late pair, a late table sharing
boards, a pair that left, stop after N rounds, boards per round, two pairs swapped.

Each is first shown as a preview (the new grid and its balance); the TD applies it with a
second click. Rounds already started are never changed (``movement_admin.preview_change``)
and every change is audited. The routes only read the form; the services do the work.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field
from sqlmodel import Session

from server.core.errors import InvalidError, TravellerError
from server.core.models import Section
from server.i18n import error_words
from server.i18n.notice_words import said
from server.movements import PairRef
from server.services.event import movement_admin, setup
from server.services.glance import dashboard, movement_views
from server.web.auth import TDForm, TDPage
from server.web.fields import whole_number
from server.web.respond import language, page, redirect, refuse
from server.web.state import RuntimeDep

router = APIRouter(prefix="/td/s/{section_id}/changes", include_in_schema=False)

#: The changes, with the reason audited when the TD gives none.
KINDS = {
    "late_pair": "late pair",
    "late_table": "late pair at a new table",
    "pair_left": "pair left",
    "stop_after": "session shortened",
    "boards_per_round": "boards per round changed",
    "swap": "pairs swapped",
}
#: The changes that seat pairs (not for an individual, whose players are seated).
PAIR_KINDS = frozenset({"late_pair", "late_table", "pair_left", "swap"})


class ChangeFields(BaseModel):
    """A change's form: which change, and the values it needs (text, checked by the services)."""

    kind: str = Field("", max_length=40)
    pair: str = Field("", max_length=40)
    second: str = Field("", max_length=40)
    from_round: str = Field("", max_length=40)
    rounds: str = Field("", max_length=40)
    boards: str = Field("", max_length=40)
    share_with: str = Field("", max_length=40)
    opponent: str = Field("", max_length=40)
    reason: str = Field("", max_length=200)


def _pair(text: str) -> PairRef:
    try:
        return PairRef.parse(text.strip())
    except ValueError as exc:
        raise InvalidError(
            "invalid_pair", "{text} is not a pair: use 7, 3NS or 3EW.", text=repr(text)
        ) from exc


def _whole(text: str, default: int | None = None) -> int:
    value = text.strip()
    if not value and default is not None:
        return default
    number = whole_number(value)
    if number is None:
        raise InvalidError("invalid_number", "{value} is not a whole number.", value=repr(value))
    return number


def edit_for(f: ChangeFields, first: int) -> movement_admin.Edit:
    """The change a form describes (``first``: the first round not yet started)."""
    kind = f.kind
    if kind == "late_pair":
        return movement_admin.late_pair(_pair(f.pair))
    if kind == "late_table":
        share, opponent = f.share_with.strip(), f.opponent.strip()
        return movement_admin.late_table(
            _pair(f.pair), _whole(share) if share else None, _pair(opponent) if opponent else None
        )
    if kind == "pair_left":
        return movement_admin.pair_left(_pair(f.pair), _whole(f.from_round, first))
    if kind == "stop_after":
        return movement_admin.stop_after(_whole(f.rounds))
    if kind == "boards_per_round":
        return movement_admin.boards_per_round(_whole(f.boards), _whole(f.from_round, first))
    if kind == "swap":
        return movement_admin.swap_pairs(
            _pair(f.pair), _pair(f.second), _whole(f.from_round, first)
        )
    raise InvalidError("unknown_change", "There is no change called {kind}.", kind=repr(kind))


def _edit(section: Section, fields: ChangeFields) -> movement_admin.Edit:
    if fields.kind in PAIR_KINDS:
        movement_admin.require_pairs(section)
    return edit_for(fields, section.current_round + 1)


def _form_page(session: Session, section: Section, lang: str) -> dict[str, Any]:
    m = movement_views.section_movement(session, section)
    return {
        "head": dashboard.head(session, section),
        "mv": movement_views.view(m, lang),
        "pairs": [str(p) for p in m.pairs()],
        "individual": section.movement_kind == "individual",
    }


@router.get("", response_class=HTMLResponse)
async def changes_page(
    request: Request, runtime: RuntimeDep, td_: TDPage, section_id: int
) -> Response:
    """The changes the TD can make, each a small form leading to its preview."""
    lang = language(request)
    ctx = await runtime.read(lambda s: _form_page(s, setup.get_section(s, section_id), lang))
    return page(request, "td/changes.html", td_, active="movement", lang=lang, values={}, **ctx)


@router.get("/preview", response_class=HTMLResponse)
async def preview(
    request: Request,
    runtime: RuntimeDep,
    td_: TDPage,
    section_id: int,
    fields: Annotated[ChangeFields, Query()],
) -> Response:
    """The movement as the change would make it, with its balance, before anything is stored.
    A change that cannot be made is shown on the changes page with its reason."""
    lang = language(request)

    def work(s: Session) -> dict[str, Any]:
        section = setup.get_section(s, section_id)
        try:
            worked = movement_admin.preview_change(s, section, _edit(section, fields))
        except TravellerError as exc:
            return {**_form_page(s, section, lang), "refused": error_words.movement_refusal(exc)}
        return {
            "head": dashboard.head(s, section),
            "before": movement_views.view(worked.before, lang),
            "after": movement_views.view(worked.after, lang),
            "changed": worked.changed,
        }

    ctx = await runtime.read(work)
    refused = ctx.pop("refused", None)
    if refused is not None:
        return page(
            request,
            "td/changes.html",
            td_,
            status_code=refused.status,
            active="movement",
            lang=lang,
            values=fields.model_dump(),
            kind=fields.kind,
            refusal=error_words.translate(lang, refused),
            **ctx,
        )
    return page(
        request,
        "td/changes_preview.html",
        td_,
        active="movement",
        lang=lang,
        kind=fields.kind,
        fields=fields.model_dump(),
        **ctx,
    )


@router.post("")
async def apply(
    runtime: RuntimeDep, _td: TDForm, section_id: int, fields: Annotated[ChangeFields, Form()]
) -> Response:
    """Make the change previewed (checked again: a round may have started since)."""

    def work(s: Session) -> object:
        section = setup.get_section(s, section_id)
        edit = _edit(section, fields)
        what = fields.reason.strip() or KINDS.get(fields.kind, fields.kind)
        return movement_admin.change_movement(s, section, edit, what=what)

    try:
        await runtime.run(work)
    except TravellerError as exc:
        refused = error_words.movement_refusal(exc)
        return refuse(f"/td/s/{section_id}/changes", refused)
    return redirect(
        f"/td/s/{section_id}/movement",
        said("notice", "Movement changed: the tables see it from the next round."),
    )
