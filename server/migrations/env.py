"""Alembic environment: runs migrations on the engine the server hands over."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import server.core.models  # noqa: F401  (registers the tables on SQLModel.metadata)
from server.core.config import Settings
from server.core.db import make_engine

target_metadata = SQLModel.metadata


def run_migrations_online() -> None:
    engine = context.config.attributes.get("engine")
    if engine is None:
        engine = make_engine(Settings().database_url)
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
        )
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()


run_migrations_online()
