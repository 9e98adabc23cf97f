"""The console's form and its JSON twin call one service function: for each action, the
function is watched and both the form and the route must reach it (a twin that grew its own
copy of the rule would not)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from server.api import backups
from server.services import tokens
from server.services.event import members
from server.services.results import exports, team_matches
from server.services.table import deal_entry
from server.services.td import actions as td
from server.services.td import publication, round_control, sanctions
from tests.support.api import Club, open_club
from tests.support.app_factory import AppFactory
from tests.support.web import web_login

W = "/td/s/{id}"
A = "/api/v1/sections/{id}"

#: (module, function, the form: method, path, fields; the route: method, path, JSON body).
ACTIONS: list[tuple[Any, str, tuple[str, str, dict[str, Any]], tuple[str, str, Any]]] = [
    (
        publication,
        "publish",
        ("POST", W + "/publish", {"status": "final", "confirmed": "yes", "amount": "72"}),
        ("POST", A + "/publish", {"status": "final", "confirmed": True}),
    ),
    (exports, "export", ("GET", W + "/publish/export/pbn", {}), ("GET", A + "/exports/pbn", None)),
    (backups, "take_backup", ("POST", W + "/end/backup", {}), ("POST", A + "/backup", None)),
    (
        round_control,
        "start_round_once",
        ("POST", W + "/rounds/start", {"round": "2", "confirmed": "yes"}),
        ("POST", A + "/rounds/2/start", None),
    ),
    (
        round_control,
        "reopen_round",
        ("POST", W + "/rounds/reopen", {"round": "1"}),
        ("POST", A + "/rounds/1/reopen", None),
    ),
    (
        round_control,
        "set_round_time",
        ("POST", W + "/round-time", {"minutes": "20"}),
        ("PUT", A + "/round-time", {"minutes": 20}),
    ),
    (
        round_control,
        "release_table",
        ("POST", W + "/tables/1/release", {"reason": ""}),
        ("POST", A + "/tables/1/release", {"reason": ""}),
    ),
    (
        round_control,
        "move_to_new_device",
        ("POST", W + "/tables/2/new-device", {}),
        ("POST", A + "/tables/2/new-device", None),
    ),
    (
        round_control,
        "revoke_terminal",
        ("POST", W + "/terminals/999/revoke", {}),
        ("POST", A + "/terminals/999/revoke", None),
    ),
    (
        members,
        "member_list",
        ("POST", W + "/players/import", {"text": "7,Anna Berg"}),
        ("POST", "/api/v1/members/import", {"text": "7,Anna Berg"}),
    ),
    (
        sanctions,
        "record_offence",
        ("POST", W + "/penalties/offence", {"pair": "1NS"}),
        ("POST", A + "/penalties/offence", {"pair": "1NS"}),
    ),
    (
        sanctions,
        "deduct",
        ("POST", W + "/penalties/deduct", {"pair": "1NS", "reason": "noise"}),
        ("POST", A + "/penalties/deduct", {"pair": "1NS", "reason": "noise"}),
    ),
    (
        sanctions,
        "withdraw",
        ("POST", W + "/penalties/999/withdraw", {}),
        ("POST", A + "/penalties/999/withdraw", {}),
    ),
    (
        td,
        "choose_entry",
        ("POST", W + "/tables/1/rounds/1/boards/1/choose", {"entry_id": "x", "reason": "x"}),
        (
            "POST",
            A + "/results/choose",
            {"table": 1, "round": 1, "board": 1, "entry_id": "x", "reason": "x"},
        ),
    ),
    (
        deal_entry,
        "resolve",
        ("POST", W + "/deals/1/resolve", {"choice": "keyed", "reason": "x"}),
        ("POST", A + "/deals/1/resolve", {"choice": "keyed", "reason": "x"}),
    ),
    (
        team_matches,
        "pair_next_round",
        ("POST", W + "/teams/pair", {}),
        ("POST", A + "/teams/pair-next-round", None),
    ),
    (tokens, "td_logout", ("POST", "/td/logout", {}), ("POST", "/api/v1/td/logout", None)),
]


@pytest.fixture
def engine(apps: AppFactory, tmp_path: Path) -> Engine:
    return apps.engine(f"sqlite:///{tmp_path / 'same.db'}")


@pytest.fixture
def client(apps: AppFactory, engine: Engine) -> TestClient:
    return apps.client(engine)


@pytest.fixture
def club(client: TestClient, engine: Engine) -> Club:
    made = open_club(client, engine, tables=4, bpr=2)
    made.start_round(1)
    return made


@pytest.mark.parametrize("action", ACTIONS, ids=lambda a: f"{a[0].__name__}.{a[1]}")
def test_the_form_and_the_route_call_one_service(
    club: Club, client: TestClient, monkeypatch: pytest.MonkeyPatch, action: Any
) -> None:
    module, name, (form_method, form_path, fields), (api_method, api_path, body) = action
    real = getattr(module, name)
    calls: list[str] = []

    def watched(*args: Any, **kwargs: Any) -> Any:
        calls.append(name)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, watched)
    csrf = web_login(client)
    sid = str(club.section_id)
    r = client.request(
        form_method,
        form_path.replace("{id}", sid),
        data={"csrf": csrf, **fields} if form_method == "POST" else None,
        follow_redirects=False,
    )
    assert r.status_code in (200, 303), r.text
    assert calls == [name], "the form does not call the service"
    calls.clear()
    url = api_path.replace("{id}", sid)
    r = (
        club.td(api_method, url, data=body)
        if "members" in url
        else club.td(api_method, url, json=body)
    )
    assert r.status_code < 500, r.text
    assert calls == [name], "the JSON route does not call the service"
