"""The one way a test builds the server in its own process: an engine on a database address, the
shipped app on it (``create_app`` with the TD password the helpers log in with) and a TestClient
that has run the app's start-up. A club on it is ``tests.support.api.open_club``.

- :func:`engine_at` and :func:`app_client` are context managers, for a test that opens and
  closes the server itself (a restart on the same database, two apps on one database);
- :class:`AppFactory`, the root conftest's ``apps`` fixture, makes the same things and closes
  them when the test ends (the ``engine`` and ``client`` fixtures are made by it).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from server.app import create_app
from server.core.config import Settings
from server.core.db import make_engine
from tests.support.env import TD_PASSWORD


def test_settings(**overrides: Any) -> Settings:
    """The settings of a test's app: the helpers' TD password, and no database address of its
    own (the app is handed its engine)."""
    return Settings(**{"td_password": TD_PASSWORD, "database_url": "unused://", **overrides})


@contextmanager
def engine_at(url: str) -> Iterator[Engine]:
    """An engine on ``url``, disposed of afterwards."""
    engine = make_engine(url)
    try:
        yield engine
    finally:
        engine.dispose()


@contextmanager
def app_client(
    engine: Engine, settings: Settings | None = None, **client: Any
) -> Iterator[TestClient]:
    """The shipped app on ``engine`` behind a TestClient (``client``: TestClient's own keywords),
    started and, afterwards, shut down."""
    app = create_app(settings or test_settings(), engine=engine)
    with TestClient(app, **client) as served:
        yield served


class AppFactory:
    """Engines and served apps for one test, closed (clients first) when it ends."""

    def __init__(self, stack: ExitStack) -> None:
        self._stack = stack

    def engine(self, url: str) -> Engine:
        return self._stack.enter_context(engine_at(url))

    def client(self, engine: Engine, settings: Settings | None = None, **client: Any) -> TestClient:
        return self._stack.enter_context(app_client(engine, settings, **client))
