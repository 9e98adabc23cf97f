"""Deals as JSON: hand records (a PBN file or a dealing machine's) loaded into a section
that exists, and the TD settling a deal the tables keyed differently."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, UploadFile
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field
from sqlmodel import Session

from protocol.text import MAX_TEXT, SingleLine
from server.api.deps import RuntimeDep, require_td
from server.api.openapi import ERRORS, operation_id
from server.services.event import event_wizard, hand_records, setup, uploads
from server.services.table import deal_entry

router = APIRouter(
    prefix="/api/v1/sections/{section_id}",
    tags=["td"],
    dependencies=[Depends(require_td)],
    responses=ERRORS,
    generate_unique_id_function=operation_id,
)


class HandRecordsPublic(BaseModel):
    """What loading a hand-record file did."""

    read: int = Field(description="deals read from the file")
    stored: int = Field(description="boards given a deal they did not hold")
    refused: list[str] = Field(description="each board of the file refused: place and reason")
    not_in_section: list[int] = Field(description="boards of the file the section does not play")


@router.post("/hand-records", response_model=HandRecordsPublic)
async def load_hand_records(
    runtime: RuntimeDep,
    section_id: int,
    file: Annotated[UploadFile, File(description="PBN, Duplimate .dup/.dlm, BigDeal .bri/.dge")],
    strict: Annotated[bool, Form(description="a board refused stores nothing")] = False,
    replace: Annotated[bool, Form(description="overwrite deals the boards hold")] = False,
) -> HandRecordsPublic:
    """Load hand records into the section's boards (the format told from the content, as in
    the set-up wizard); each deal set is audited. A board holding another deal is refused
    (``deals_already_set``) unless ``replace``; nothing is half-stored."""
    data = uploads.within(await file.read(uploads.MAX_FILE + 1))
    hands = await run_in_threadpool(event_wizard.read_hand_records, data, file.filename)

    def work(s: Session) -> HandRecordsPublic:
        section = setup.get_section(s, section_id)
        done = hand_records.load(s, section, hands, strict=strict, replace=replace)
        return HandRecordsPublic(
            read=done.read,
            stored=done.stored,
            refused=list(done.refused),
            not_in_section=list(done.not_in_section),
        )

    return await runtime.run(work)


class KeyedDealPublic(BaseModel):
    """A deal keyed at a table (hand-dealt boards), with the later tables' checks."""

    board: int
    state: str = Field(examples=["keyed", "confirmed", "conflict"])
    deal: str
    table: int
    round: int
    checks: list[dict[str, Any]] = Field(
        description="each later table's check; one with kind deal may be taken (its entry_id)"
    )


@router.get("/deals", response_model=list[KeyedDealPublic])
async def keyed_deals(runtime: RuntimeDep, section_id: int) -> list[KeyedDealPublic]:
    """Every deal keyed at the tables, the conflicts first (the console's Deals page)."""

    def work(s: Session) -> list[KeyedDealPublic]:
        setup.get_section(s, section_id)
        return [
            KeyedDealPublic.model_validate(d, from_attributes=True)
            for d in deal_entry.keyed_deals(s, section_id)
        ]

    return await runtime.read(work)


class ResolveDealIn(BaseModel):
    """How the TD settles a keyed deal's conflict."""

    model_config = ConfigDict(extra="forbid")
    choice: str = Field("", max_length=16, examples=["keyed", "check", "deal"])
    entry_id: str = Field("", max_length=64, description="the checking table's entry (check)")
    deal: str = Field("", max_length=80, description="the deal as PBN (deal)")
    reason: SingleLine = Field("", max_length=MAX_TEXT)


class DealPublic(BaseModel):
    board: int
    deal: str = Field(examples=["N:AKQJ.T98.765.432 ..."])


@router.post("/deals/{board}/resolve", response_model=DealPublic)
async def resolve_deal(
    runtime: RuntimeDep, section_id: int, board: int, body: ResolveDealIn
) -> DealPublic:
    """Settle a conflicting keyed deal: keep the one keyed first (``keyed``), take a checking
    table's whole deal (``check`` with its ``entry_id``), or key it (``deal``). Audited; the
    conflict's TD calls are closed."""

    def work(s: Session) -> str:
        setup.get_section(s, section_id)
        return deal_entry.resolve(
            s,
            section_id,
            board,
            choice=body.choice,
            entry_id=body.entry_id,
            deal=body.deal,
            reason=body.reason,
        )

    return DealPublic(board=board, deal=await runtime.run(work))
