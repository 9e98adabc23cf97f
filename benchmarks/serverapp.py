"""The server as an ASGI factory for ``uvicorn --factory benchmarks.serverapp:make``."""

from __future__ import annotations

import os

from fastapi import FastAPI
from sqlmodel import create_engine

from server.app import create_app
from server.core.config import Settings
from server.core.db import is_sqlite
from server.live.runtime import settle_heap, tune_interpreter

#: "size,overflow": a what-if PostgreSQL pool per worker (the shipped default is 5 + 5:
#: TRAVELLER_DB_POOL_SIZE, TRAVELLER_DB_MAX_OVERFLOW).
POOL_ENV = "TRAVELLER_BENCH_PG_POOL"


def make() -> FastAPI:
    """An app configured from the TRAVELLER_* environment, as `traveller serve` would build."""
    tune_interpreter()  # as `traveller serve` does (server.app.app_from_env)
    settings = Settings()
    pool = os.environ.get(POOL_ENV)
    if not pool or is_sqlite(settings.database_url):
        app = create_app(settings)
    else:
        size, overflow = (int(x) for x in pool.split(","))
        engine = create_engine(
            settings.database_url, pool_pre_ping=True, pool_size=size, max_overflow=overflow
        )
        app = create_app(settings, engine=engine)
    settle_heap()  # as `traveller serve` does
    return app
