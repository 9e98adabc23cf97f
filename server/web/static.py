"""The dashboard's own CSS and JavaScript, served from the package (no CDN, no build step)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse, Response

from server.core.errors import NotFoundError
from server.web.render import STATIC

router = APIRouter(include_in_schema=False)

TYPES = {".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml"}
FILES = {p.name: p for p in STATIC.iterdir() if p.suffix in TYPES} if STATIC.exists() else {}


@router.get("/static/{name}")
async def static_file(name: str) -> Response:
    """Only the known files of the static folder; never a path outside it."""
    path = FILES.get(name)
    if path is None:
        raise NotFoundError("unknown_file", "There is no static file {name}.", name=repr(name))
    return FileResponse(
        path,
        media_type=TYPES[path.suffix],
        headers={"cache-control": "public, max-age=31536000, immutable"},
    )


@router.get("/favicon.ico")
async def favicon() -> Response:
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")
