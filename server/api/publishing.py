"""The TD's end of the evening as JSON: publish (provisional or final, § X79 correction
deadlines) or take back to live, download the exports, back up the database."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Path
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlmodel import Session

from server.api import backups
from server.api.deps import RuntimeDep, require_td
from server.api.openapi import ERRORS, operation_id
from server.core.errors import ConflictError, InvalidError
from server.services.event import setup
from server.services.results import exports
from server.services.td import publication, round_control

router = APIRouter(
    prefix="/api/v1/sections/{section_id}",
    tags=["td"],
    dependencies=[Depends(require_td)],
    responses=ERRORS,
    generate_unique_id_function=operation_id,
)

#: The exports (``/exports/{kind}``), as on the TD's publish page (another is ``unknown_export``).
ExportKind = Annotated[
    str, Path(max_length=16, examples=["usebio", "pbn", "ranking", "travellers"])
]


class PublishIn(BaseModel):
    """Publish the results, or take them back to live. The correction period (§ X79) is
    ``hours`` (72 by default) or a short provisional deadline of ``minutes`` (5 or more)."""

    model_config = ConfigDict(extra="forbid")
    status: str = Field("provisional", max_length=12, examples=["provisional", "final", "live"])
    hours: int | None = Field(None, examples=[72])
    minutes: int | None = Field(None, examples=[30])
    confirmed: bool = Field(
        False,
        description="Publish although boards are unsettled (or take published results back "
        "to live): without it such a request is refused with `confirmation_needed`, as the "
        "console asks first.",
    )


class UnsettledPublic(BaseModel):
    table: int
    round: int
    board: int
    state: str = Field(examples=["missing", "entered", "conflict"])


class PublicationPublic(BaseModel):
    """Where the section's results stand after the request."""

    section_id: int
    publication: str = Field(examples=["provisional"])
    published_at: datetime | None
    corrections_until: datetime | None
    unsettled: list[UnsettledPublic]


@router.post("/publish", response_model=PublicationPublic)
async def publish(runtime: RuntimeDep, section_id: int, body: PublishIn) -> PublicationPublic:
    """Publish as provisional or final (the correction deadline runs from now), or take the
    results back to live. Audited. With boards unsettled, or to un-publish, send
    ``confirmed: true``: the TD console asks the same question first."""
    if body.hours is not None and body.minutes is not None:
        raise InvalidError("invalid_deadline", "Give the correction period in hours or minutes.")

    def work(s: Session) -> PublicationPublic:
        section = setup.get_section(s, section_id)
        unsettled = round_control.unsettled(s, section)
        if not body.confirmed and publication.asks_first(
            section.publication, body.status, unsettled
        ):
            if body.status == "live":
                raise ConflictError(
                    "confirmation_needed",
                    "Taking published results back to live hides the boards not every table "
                    "has played: send confirmed true to go ahead.",
                )
            count = len(unsettled)
            raise ConflictError(
                "confirmation_needed",
                "{count} boards are missing, unconfirmed or in conflict: send confirmed "
                "true to publish anyway.",
                count=count,
            )
        publication.publish(s, section, status=body.status, minutes=body.minutes, hours=body.hours)
        return PublicationPublic(
            section_id=section_id,
            publication=section.publication,
            published_at=section.published_at,
            corrections_until=section.corrections_until,
            unsettled=[UnsettledPublic.model_validate(u, from_attributes=True) for u in unsettled],
        )

    return await runtime.run(work)


@router.get(
    "/exports/{kind}",
    response_class=Response,
    responses={200: {"content": {"application/octet-stream": {}}, "description": "The file."}},
)
async def export(runtime: RuntimeDep, section_id: int, kind: ExportKind) -> Response:
    """Download the section's results: USEBIO XML, PBN, or the travellers or the ranking as
    CSV (the same files as the console's publish page)."""
    data = await runtime.read(lambda s: exports.load(s, setup.get_section(s, section_id)))
    made = await run_in_threadpool(exports.export, data, kind)
    return Response(
        made.content,
        media_type=made.media_type,
        headers={"content-disposition": f'attachment; filename="{made.name}"'},
    )


@router.post(
    "/backup",
    response_class=FileResponse,
    responses={200: {"content": {"application/octet-stream": {}}, "description": "The copy."}},
)
async def backup(runtime: RuntimeDep, section_id: int) -> FileResponse:
    """Back up the whole database now and download the copy (SQLite: an online copy;
    PostgreSQL: a ``pg_dump`` archive); audited. ``backup_failed`` when it cannot be made."""
    made = await backups.take_backup(runtime, section_id)
    return FileResponse(made, media_type="application/octet-stream", filename=made.name)
