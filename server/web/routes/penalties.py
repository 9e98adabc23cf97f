"""Warnings and penalties (§ 211, § 213B, § 262C2), with the standard deduction button."""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from server import scoring
from server.core.models import Sanction
from server.i18n.notice_words import Notice, said
from server.services.event import setup
from server.services.glance import dashboard
from server.services.results import standings
from server.services.td import sanctions
from server.web.auth import TDForm, TDPage
from server.web.respond import act, page
from server.web.state import RuntimeDep

router = APIRouter(prefix="/td/s/{section_id}/penalties", include_in_schema=False)

PairKey = Annotated[str, Form(max_length=8)]
Reason = Annotated[str, Form(max_length=500)]


@router.get("", response_class=HTMLResponse)
async def penalties_page(
    request: Request, runtime: RuntimeDep, td_: TDPage, section_id: int, pair: str = ""
) -> Response:
    def work(s: Session) -> dict[str, Any]:
        section = setup.get_section(s, section_id)
        deduction = sanctions.standard_deduction(s, section)
        return {
            "head": dashboard.head(s, section),
            "pairs": standings.pairs(s, section),
            "lines": sanctions.sanctions(s, section),
            "deduction": scoring.to_decimal(deduction, 2) if deduction is not None else None,
            "offences": sanctions.OFFENCES,
            "chosen": pair,
        }

    ctx = await runtime.read(work)
    return page(request, "td/penalties.html", td_, active="penalties", **ctx)


def _said(row: Sanction) -> Notice:
    if row.warning:
        return said("notice", "Warning recorded.")
    amount = scoring.to_decimal(Fraction(row.amount), 2)
    return said("notice", "Deduction of {amount} recorded.", amount=amount)


@router.post("/offence")
async def offence(
    runtime: RuntimeDep,
    _td: TDForm,
    section_id: int,
    pair: PairKey = "",
    kind: Annotated[str, Form(max_length=8)] = "262C2",
    reason: Reason = "",
    immediate: Annotated[str, Form(max_length=4)] = "",
) -> Response:
    """An offence: a warning the first time, a standard deduction after (§ X90C)."""
    return await act(
        runtime,
        lambda s: sanctions.record_offence(
            s,
            setup.get_section(s, section_id),
            pair_key=pair,
            kind=kind,
            reason=reason,
            immediate=bool(immediate),
        ),
        f"/td/s/{section_id}/penalties",
        _said,
    )


@router.post("/deduct")
async def deduct(
    runtime: RuntimeDep,
    _td: TDForm,
    section_id: int,
    pair: PairKey = "",
    times: Annotated[int, Form(ge=1, le=5)] = 1,
    amount: Annotated[str, Form(max_length=16)] = "",
    reason: Reason = "",
) -> Response:
    """The standard deduction button (or an explicit amount)."""
    return await act(
        runtime,
        lambda s: sanctions.deduct(
            s,
            setup.get_section(s, section_id),
            pair_key=pair,
            times=times,
            amount=amount.strip() or None,
            reason=reason,
        ),
        f"/td/s/{section_id}/penalties",
        _said,
    )


@router.post("/{sanction_id}/withdraw")
async def withdraw(
    runtime: RuntimeDep, _td: TDForm, section_id: int, sanction_id: int, reason: Reason = ""
) -> Response:
    return await act(
        runtime,
        lambda s: sanctions.withdraw(s, setup.get_section(s, section_id), sanction_id, reason),
        f"/td/s/{section_id}/penalties",
        said("notice", "Withdrawn."),
    )
