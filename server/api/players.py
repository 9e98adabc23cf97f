"""The club's member list as JSON: import it ("number,name" lines, pasted or as a CSV file),
as the console's Players page does, and read it."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, File, Form, UploadFile
from pydantic import BaseModel, Field

from server.api.deps import RuntimeDep, require_td
from server.api.openapi import ERRORS, operation_id
from server.services.event import members, uploads

router = APIRouter(
    prefix="/api/v1/members",
    tags=["td"],
    dependencies=[Depends(require_td)],
    responses=ERRORS,
    generate_unique_id_function=operation_id,
)


class MemberPublic(BaseModel):
    number: str = Field(examples=["10234"])
    name: str = Field(examples=["Anna Jensen"])


class MemberImportPublic(BaseModel):
    """What an import did; each line skipped is named with its reason."""

    added: int
    updated: int
    problems: list[str] = Field(examples=[["line 4: expected number,name"]])


@router.get("", response_model=list[MemberPublic])
async def member_list(runtime: RuntimeDep) -> list[MemberPublic]:
    """The club's members, by number."""
    rows = await runtime.read(members.members)
    return [MemberPublic(number=m.number, name=m.name) for m in rows]


@router.post("/import", response_model=MemberImportPublic)
async def import_members(
    runtime: RuntimeDep,
    file: Annotated[UploadFile | None, File(description="a CSV file of number,name")] = None,
    text: Annotated[str, Form(max_length=uploads.MAX_MEMBER_LIST)] = "",
) -> MemberImportPublic:
    """Add or update members from "number,name" lines (a header line is skipped), sent as a
    file or as ``text``; in one transaction."""
    raw = await file.read(uploads.MAX_MEMBER_LIST + 1) if file is not None else None
    listed = members.member_list(raw, text)
    report = await runtime.run(lambda s: members.import_members(s, listed))
    return MemberImportPublic(
        added=report.added, updated=report.updated, problems=[str(p) for p in report.problems]
    )
