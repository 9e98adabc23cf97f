"""schemathesis against the server's OpenAPI: generated requests (valid and invalid) never get a
5xx, and every /api/ error is well-formed JSON with a code and a message."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.openapi import from_asgi

from server.app import create_app
from server.core.config import Settings
from server.core.db import make_engine
from tests.support.api import open_club
from tests.support.env import TD_PASSWORD

EXAMPLES = 10  # per operation: bounded, the whole API takes well under a minute


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FastAPI, dict[str, str]]]:
    """The app (lifespan running), a club with round 1 started, a TD and a table token (and
    a second TD token for the logout route)."""
    path: Path = tmp_path_factory.mktemp("fuzz") / "fuzz.db"
    engine = make_engine(f"sqlite:///{path}")
    app = create_app(Settings(td_password=TD_PASSWORD), engine=engine)
    with TestClient(app) as client:
        club = open_club(client, engine, tables=4, bpr=2)
        club.start_round(1)
        table = club.pair(1)
        # a TD token of its own for the logout route, which ends the token it is called with
        login = client.post("/api/v1/td/login", json={"password": TD_PASSWORD})
        assert login.status_code == 200, login.text
        yield (
            app,
            {
                "td": club.td_headers["Authorization"],
                "table": f"Bearer {table.token}",
                "logout": f"Bearer {login.json()['token']}",
            },
        )
    engine.dispose()


@pytest.fixture(scope="module")
def api(served: tuple[FastAPI, dict[str, str]]) -> Any:
    return from_asgi("/openapi.json", served[0])


schema = schemathesis.pytest.from_fixture("api")


def well_formed_error(response: Any) -> None:
    if response.status_code < 400:
        return
    try:
        body = response.json()
    except ValueError as exc:
        raise AssertionError(f"{response.status_code} without JSON: {response.text[:200]}") from exc
    ok = (
        isinstance(body, dict)
        and isinstance(body.get("code"), str)
        and isinstance(body.get("message"), str)
    )
    assert ok, f"{response.status_code} error is not {{code, message}}: {body}"


@pytest.mark.slow  # 26-49 s: out of `traveller test --fast` (the full suite runs it)
@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_the_api_never_fails_with_5xx_and_errors_are_well_formed(
    case: Any, served: tuple[FastAPI, dict[str, str]]
) -> None:
    if case.path.startswith("/api/v1/table"):
        role = "table"
    else:
        role = "logout" if case.path == "/api/v1/td/logout" else "td"
    response = case.call(headers={"Authorization": served[1][role]})
    case.validate_response(response, checks=[not_a_server_error])
    if case.path.startswith("/api/"):  # /dc speaks the Bridgemate Data Connector's own format
        well_formed_error(response)


def test_numbers_beyond_the_database_range_are_refused_not_500(
    served: tuple[FastAPI, dict[str, str]],
) -> None:
    """Found by the fuzzer: an id of 10**20 crashed the SQLite driver (OverflowError -> 500)."""
    app, auth = served
    huge = 10**20
    with TestClient(app, raise_server_exceptions=False) as client:
        for path in (f"/api/v1/sections/{huge}/tables", f"/api/v1/events/{huge}"):
            r = client.get(path, headers={"Authorization": auth["td"]})
            assert (r.status_code, r.json()["code"]) == (422, "out_of_range"), r.text
        command = {"type": "enter_result", "entry_id": "e" * 12, "board": huge}
        command["values"] = {"contract": "3NT", "declarer": "N", "tricks": 9}
        r = client.post(
            "/api/v1/table/commands", json=command, headers={"Authorization": auth["table"]}
        )
        assert r.status_code < 500, r.text
        assert r.json()["code"]
