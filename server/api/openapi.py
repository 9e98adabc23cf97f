"""What the OpenAPI document says of every JSON route: its operationId and its error shape.

A generated client names its methods after the ``operationId``: the route function's name
(``publish``, ``load_hand_records``), unique across the API (``tests/server/api/test_openapi.py``).
Every route declares the one error body the app answers with (``server.app``'s handlers):
``{"type": "error", "code": ..., "message": ...}`` for any 4xx, plus ``detail`` (each field
refused) when the request itself does not parse (422, ``invalid_request``)."""

from __future__ import annotations

from typing import Any

from fastapi.routing import APIRoute
from pydantic import BaseModel

from protocol.messages import Error


def operation_id(route: APIRoute) -> str:
    """A route's operationId: the name of its function."""
    return route.name


class FieldRefused(BaseModel):
    """One refused field of a request that does not parse."""

    loc: list[str | int]
    msg: str


class InvalidRequestError(Error):
    """A value refused (422): a request that does not parse (code ``invalid_request``, with
    each field refused in ``detail``), or a value the rules refuse (``reason_required``,
    ``bad_hand_records``, ...; no ``detail``)."""

    detail: list[FieldRefused] | None = None


#: The error responses every JSON route declares (a router's own add to or refine them).
ERRORS: dict[int | str, dict[str, Any]] = {
    "4XX": {"model": Error, "description": "Refused: `code` for programs, `message` for people."},
    422: {
        "model": InvalidRequestError,
        "description": "A value refused, or a request that does not parse.",
    },
}


def _as_json(model: type[BaseModel]) -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}}


#: ``ERRORS`` for a route whose answer is text or a file: its refusals are still JSON (FastAPI
#: would declare them in the route's own media type).
TEXT_ROUTE_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"description": spec["description"], "content": _as_json(spec["model"])}
    for code, spec in ERRORS.items()
}
