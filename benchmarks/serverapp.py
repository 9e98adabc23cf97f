"""The server as an ASGI factory for ``uvicorn --factory benchmarks.serverapp:make``."""

from __future__ import annotations

from fastapi import FastAPI

from server.app import create_app
from server.config import Settings


def make() -> FastAPI:
    """An app configured from the TRAVELLER_* environment, as `traveller serve` would build."""
    return create_app(Settings())
