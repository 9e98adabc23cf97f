"""The OpenAPI document is one a generated client can use: every JSON route has its own
operationId, every schema name is one schema, and every route declares the error body the
app answers with (``server/api/openapi.py``)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from protocol.messages import Error
from server.api.openapi import InvalidRequestError
from server.app import create_app
from server.core.config import Settings
from server.scoring.methods import KEYS
from tests.support.app_factory import app_client, engine_at
from tests.support.env import TD_PASSWORD

#: The Bridgemate Data Connector speaks Bridgemate's protocol (errors inside its envelope),
#: not the JSON API's: its routes are documented, but not with the API's error body.
NOT_THE_API = ("/dc",)


@cache
def _document() -> dict[str, Any]:
    app = create_app(Settings(td_password=TD_PASSWORD))
    doc: dict[str, Any] = app.openapi()
    return doc


def _operations() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, op)
        for path, ops in _document()["paths"].items()
        for method, op in ops.items()
    ]


def test_every_route_has_an_operation_id_of_its_own() -> None:
    ids = [op.get("operationId") for _, _, op in _operations()]
    assert len(ids) >= 60
    assert all(ids), "a route without an operationId"
    assert len(set(ids)) == len(ids), sorted(i for i in ids if ids.count(i) > 1)
    # Named as a client's methods would be: the route function's name, no path or method.
    by_path = {(m, p): op["operationId"] for m, p, op in _operations()}
    assert by_path[("post", "/api/v1/sections/{section_id}/publish")] == "publish"
    assert by_path[("post", "/api/v1/sections/{section_id}/hand-records")] == "load_hand_records"
    assert all("_api_v1_" not in i for i in ids)


def test_one_schema_per_name() -> None:
    """FastAPI names a second class of a name after its module (``server__api__...``)."""
    names = list(_document()["components"]["schemas"])
    assert not [n for n in names if "__" in n]
    assert "PlayerLinePublic" in names


def test_the_players_line_is_the_same_in_the_public_and_the_td_ranking() -> None:
    schemas = _document()["components"]["schemas"]
    line = schemas["PlayerLinePublic"]["properties"]
    assert set(line) == {"place", "number", "name", "total", "percentage", "boards"}
    player_ranking = schemas["PlayerRankingPublic"]["properties"]["lines"]["items"]
    public_ranking = schemas["RankingPublic"]["properties"]["players"]["items"]
    assert player_ranking == public_ranking == {"$ref": "#/components/schemas/PlayerLinePublic"}


def _refs(response: dict[str, Any]) -> str | None:
    content = response.get("content", {}).get("application/json", {})
    ref = content.get("schema", {}).get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def test_every_api_route_declares_the_error_body() -> None:
    checked = 0
    for method, path, op in _operations():
        if path.startswith(NOT_THE_API):
            continue
        responses = op["responses"]
        errors = {code: r for code, r in responses.items() if code.upper().startswith("4")}
        assert errors, f"{method} {path} declares no error"
        assert "4XX" in errors, f"{method} {path}: no 4XX"
        for code, response in errors.items():
            assert _refs(response) in ("Error", "InvalidRequestError"), (method, path, code)
        checked += 1
    assert checked >= 60
    schemas = _document()["components"]["schemas"]
    assert "HTTPValidationError" not in schemas  # never sent: a 422 is the API's error body
    invalid = schemas["InvalidRequestError"]["properties"]
    assert {"code", "message", "detail"} <= set(invalid)


def test_a_refusal_matches_the_declared_error_bodies(tmp_path: Path) -> None:
    """Each body parses as the model declared for it (unknown fields are refused)."""
    with (
        engine_at(f"sqlite:///{tmp_path / 'errors.db'}") as engine,
        app_client(engine) as client,
    ):
        r = client.post("/api/v1/td/login", json={})
        assert r.status_code == 422
        assert InvalidRequestError.model_validate(r.json()).detail
        r = client.post("/api/v1/sections/1/publish", json={})
        assert r.status_code == 401
        assert Error.model_validate(r.json()).code == "token_missing"
        token = client.post("/api/v1/td/login", json={"password": TD_PASSWORD}).json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        event = client.post("/api/v1/events", json={"name": "x"}, headers=headers).json()
        section = client.post(
            f"/api/v1/events/{event['id']}/sections",
            json={"letter": "A", "movement": {"tables": 3, "boards_per_round": 2}},
            headers=headers,
        ).json()
        r = client.post(
            f"/api/v1/sections/{section['id']}/tables/1/release",
            json={"reason": ""},
            headers=headers,
        )
        assert r.status_code == 422
        refused = InvalidRequestError.model_validate(r.json())
        assert (refused.code, refused.detail) == ("reason_required", None)
    engine.dispose()


def test_the_table_commands_keep_their_examples() -> None:
    commands = _document()["paths"]["/api/v1/table/commands"]["post"]
    body = commands["requestBody"]["content"]["application/json"]
    assert body.get("examples") or body.get("schema", {}).get("examples")


def test_an_events_scoring_is_one_of_the_registrys_methods() -> None:
    """EventCreate, EventPatch and EventPublic take the keys from server/scoring/methods.py."""
    schemas = _document()["components"]["schemas"]
    assert schemas["Method"]["enum"] == list(KEYS)
    for name in ("EventCreate", "EventPublic"):
        assert schemas[name]["properties"]["scoring"]["$ref"] == "#/components/schemas/Method"
    assert schemas["EventCreate"]["properties"]["scoring"]["default"] == KEYS[0]
