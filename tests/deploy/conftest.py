"""Deploy fixtures: servers in real subprocesses on loopback ports, stopped at the end
(helpers: tests/support/processes.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

# The helpers' old home: new tests import them from tests.support.
from tests.support.env import ROOT as ROOT
from tests.support.env import TD_PASSWORD as TD_PASSWORD
from tests.support.net import free_port as free_port
from tests.support.processes import ServerProcess
from tests.support.processes import start_process as start_process
from tests.support.processes import start_server as start_server


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "pg_restart: restarts the PostgreSQL server; runs last (or alone)"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Restarting PostgreSQL disturbs every other PostgreSQL test: those tests go last (and
    `traveller test` runs them in a pytest of their own, after the parallel run)."""
    items.sort(key=lambda item: item.get_closest_marker("pg_restart") is not None)


@pytest.fixture
def servers() -> Iterator[list[ServerProcess]]:
    """Register started servers here: they are stopped whatever the test does."""
    started: list[ServerProcess] = []
    yield started
    for server in started:
        server.stop()
