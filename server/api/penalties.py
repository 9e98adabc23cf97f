"""Warnings and penalties as JSON (§ 211, § 213B, § 262C2): an offence (a warning the first
time, a standard deduction after, § X90C), an explicit deduction, withdrawing one. The same
services as the console's penalties page, audited the same."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field
from sqlmodel import Session

from protocol.text import MAX_TEXT
from server.api.deps import RuntimeDep, require_td
from server.api.openapi import ERRORS, operation_id
from server.core.models import Sanction, Section
from server.services.event import setup
from server.services.td import sanctions

router = APIRouter(
    prefix="/api/v1/sections/{section_id}/penalties",
    tags=["td"],
    dependencies=[Depends(require_td)],
    responses=ERRORS,
    generate_unique_id_function=operation_id,
)

PAIR = Field(max_length=8, examples=["3NS", "7"])
REASON = Field("", max_length=MAX_TEXT)


class PenaltyPublic(BaseModel):
    """A warning or deduction, in the ranking's unit."""

    id: int
    pair: str = Field(examples=["3 NS"])
    kind: str = Field(examples=["262C2", "213B", "211"])
    warning: bool
    amount: Decimal
    reason: str
    created_at: datetime
    withdrawn: bool
    applied: bool


def _public(line: sanctions.SanctionLine) -> PenaltyPublic:
    return PenaltyPublic.model_validate(line, from_attributes=True)


def _line(s: Session, section: Section, row: Sanction) -> PenaltyPublic:
    return _public(next(x for x in sanctions.sanctions(s, section) if x.id == row.id))


@router.get("", response_model=list[PenaltyPublic])
async def penalties(runtime: RuntimeDep, section_id: int) -> list[PenaltyPublic]:
    """Every warning and penalty of the section, newest first."""
    rows = await runtime.read(lambda s: sanctions.sanctions(s, setup.get_section(s, section_id)))
    return [_public(x) for x in rows]


class OffenceIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pair: str = PAIR
    kind: str = Field("262C2", max_length=8, examples=["262C2", "213B"])
    reason: str = REASON
    immediate: bool = Field(False, description="penalise at once (e.g. 3+ minutes late)")


@router.post("/offence", response_model=PenaltyPublic, status_code=201)
async def record_offence(runtime: RuntimeDep, section_id: int, body: OffenceIn) -> PenaltyPublic:
    """An offence: the pair's first of its kind is a warning, each later one a standard
    deduction (§ X90C)."""

    def work(s: Session) -> PenaltyPublic:
        section = setup.get_section(s, section_id)
        row = sanctions.record_offence(
            s,
            section,
            pair_key=body.pair,
            kind=body.kind,
            reason=body.reason,
            immediate=body.immediate,
        )
        s.flush()
        return _line(s, section, row)

    return await runtime.run(work)


class DeductIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pair: str = PAIR
    times: int = Field(1, ge=1, le=5, description="standard deductions (§ X90B3)")
    amount: str | None = Field(None, max_length=16, description="an explicit amount instead")
    reason: str = REASON


@router.post("/deduct", response_model=PenaltyPublic, status_code=201)
async def deduct(runtime: RuntimeDep, section_id: int, body: DeductIn) -> PenaltyPublic:
    """A penalty of ``times`` standard deductions, or of an explicit ``amount``."""

    def work(s: Session) -> PenaltyPublic:
        section = setup.get_section(s, section_id)
        row = sanctions.deduct(
            s,
            section,
            pair_key=body.pair,
            times=body.times,
            amount=(body.amount or "").strip() or None,
            reason=body.reason,
        )
        s.flush()
        return _line(s, section, row)

    return await runtime.run(work)


class WithdrawIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str = REASON


@router.post("/{sanction_id}/withdraw", status_code=204)
async def withdraw_penalty(
    runtime: RuntimeDep, section_id: int, sanction_id: int, body: WithdrawIn
) -> None:
    """Take back a warning or penalty (kept in the audit trail); ``unknown_sanction`` for
    one of another section."""
    await runtime.run(
        lambda s: sanctions.withdraw(s, setup.get_section(s, section_id), sanction_id, body.reason)
    )
