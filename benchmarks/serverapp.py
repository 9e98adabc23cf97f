"""The server as an ASGI factory for ``uvicorn --factory benchmarks.serverapp:make``."""

from __future__ import annotations

import os

from fastapi import FastAPI
from sqlmodel import create_engine

from server.app import server_app
from server.core.config import Settings
from server.core.db import is_sqlite

#: "size,overflow": a what-if PostgreSQL pool per worker (the shipped default is 5 + 5:
#: TRAVELLER_DB_POOL_SIZE, TRAVELLER_DB_MAX_OVERFLOW).
POOL_ENV = "TRAVELLER_BENCH_PG_POOL"


def make() -> FastAPI:
    """An app configured from the TRAVELLER_* environment, as `traveller serve` would build."""
    settings = Settings()
    pool = os.environ.get(POOL_ENV)
    if not pool or is_sqlite(settings.database_url):
        return server_app(settings)
    size, overflow = (int(x) for x in pool.split(","))
    engine = create_engine(
        settings.database_url, pool_pre_ping=True, pool_size=size, max_overflow=overflow
    )
    return server_app(settings, engine=engine)
