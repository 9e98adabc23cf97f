"""A real Traveller server on loopback (uvicorn in a thread) with its Data Connector port, the
official Python client pointed at it, and helpers that act as the TD and as table terminals."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from server.app import create_app
from server.core.config import Settings
from server.core.db import make_engine
from tests.support.dataconnector import CLUB_ID, LICENCE, Served

# The helpers' old home: new tests import them from tests.support.
from tests.support.dataconnector import TD as TD
from tests.support.dataconnector import Terminal as Terminal
from tests.support.dataconnector import new_guid as new_guid
from tests.support.env import TD_PASSWORD
from tests.support.live import ThreadServer
from tests.support.net import free_port

if TYPE_CHECKING:
    from bridgemate_dataconnector import DataConnectorClient

if importlib.util.find_spec("bridgemate_dataconnector") is None:
    # The official client is a test dependency (dev extra); without it only the pure
    # conversion tests run.
    collect_ignore = [
        "test_club_session.py",
        "test_protocol_answers.py",
        "test_validation.py",
        "scenario.py",
    ]


@pytest.fixture
def served(db_url: str) -> Iterator[Served]:
    engine = make_engine(db_url)
    settings = Settings(
        td_password=TD_PASSWORD,
        database_url="unused://",
        dc_club_id=CLUB_ID,
        dc_license=LICENCE,
        dc_port=free_port(),  # the app opens this listener itself
    )
    try:
        with ThreadServer(create_app(settings, engine=engine)) as server:
            yield Served(server.url, f"http://127.0.0.1:{settings.dc_port}", engine)
    finally:
        engine.dispose()


@pytest.fixture
def dc(served: Served) -> DataConnectorClient:
    """The official client, as a scoring program configures it: club id, licence, address."""
    # Optional: the official client (dev extra); without it the tests that use it are not
    # collected (collect_ignore above).
    from bridgemate_dataconnector import DataConnectorClient, UrllibTransport  # noqa: PLC0415

    transport = UrllibTransport(timeout_seconds=20)  # bounded: the default waits 100 s
    return DataConnectorClient(CLUB_ID, LICENCE, base_address=served.dc_url, transport=transport)
