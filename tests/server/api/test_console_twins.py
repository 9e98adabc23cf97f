"""Every action of the TD's web console has a JSON twin under /api/v1: each POST route of the
console (server/web) is listed here with the API route(s) doing the same, or in NO_TWIN with
the reason it needs none. A console action added without either fails the test, and so does a
twin that is not (or no longer) an API route."""

from __future__ import annotations

from functools import cache

from fastapi import FastAPI
from fastapi.routing import APIRoute

from server.app import create_app
from server.core.config import Settings
from tests.support.env import TD_PASSWORD

Route = tuple[str, str]
S = "/api/v1/sections/{section_id}"

#: A console action (method, path) -> the API route(s) a script calls for it.
TWINS: dict[Route, tuple[Route, ...]] = {
    ("POST", "/td/login"): (("POST", "/api/v1/td/login"),),
    ("POST", "/td/logout"): (("POST", "/api/v1/td/logout"),),
    ("POST", "/td/s/{section_id}/rounds/start"): (("POST", S + "/rounds/{round_}/start"),),
    ("POST", "/td/s/{section_id}/rounds/close"): (("POST", S + "/rounds/{round_}/close"),),
    ("POST", "/td/s/{section_id}/rounds/reopen"): (("POST", S + "/rounds/{round_}/reopen"),),
    ("POST", "/td/s/{section_id}/round-time"): (("PUT", S + "/round-time"),),
    ("POST", "/td/s/{section_id}/calls/{call_id}/ack"): (
        ("POST", "/api/v1/calls/{call_id}/acknowledge"),
    ),
    ("POST", "/td/s/{section_id}/tables/{table}/release"): (
        ("POST", S + "/tables/{table}/release"),
    ),
    ("POST", "/td/s/{section_id}/tables/{table}/rounds/{round_}/boards/{board}/set"): (
        ("POST", S + "/results/set"),
    ),
    ("POST", "/td/s/{section_id}/tables/{table}/rounds/{round_}/boards/{board}/adjust"): (
        ("POST", S + "/results/adjust"),
    ),
    ("POST", "/td/s/{section_id}/tables/{table}/rounds/{round_}/boards/{board}/score"): (
        ("POST", S + "/results/score"),
    ),
    ("POST", "/td/s/{section_id}/tables/{table}/rounds/{round_}/boards/{board}/not-played"): (
        ("POST", S + "/results/not-played"),
    ),
    ("POST", "/td/s/{section_id}/tables/{table}/rounds/{round_}/boards/{board}/choose"): (
        ("GET", S + "/results/entries"),
        ("POST", S + "/results/choose"),
    ),
    ("POST", "/td/s/{section_id}/tables/{table}/new-device"): (
        ("POST", S + "/tables/{table}/new-device"),
    ),
    ("POST", "/td/s/{section_id}/terminals/{token_id}/revoke"): (
        ("GET", S + "/terminals"),
        ("POST", S + "/terminals/{token_id}/revoke"),
    ),
    ("POST", "/td/s/{section_id}/players/import"): (("POST", "/api/v1/members/import"),),
    ("POST", "/td/s/{section_id}/pairs"): (("PUT", S + "/pairs/{pair}"),),
    ("POST", "/td/s/{section_id}/penalties/offence"): (("POST", S + "/penalties/offence"),),
    ("POST", "/td/s/{section_id}/penalties/deduct"): (("POST", S + "/penalties/deduct"),),
    ("POST", "/td/s/{section_id}/penalties/{sanction_id}/withdraw"): (
        ("GET", S + "/penalties"),
        ("POST", S + "/penalties/{sanction_id}/withdraw"),
    ),
    ("POST", "/td/s/{section_id}/deals/{board}/resolve"): (
        ("GET", S + "/deals"),
        ("POST", S + "/deals/{board}/resolve"),
    ),
    ("POST", "/td/s/{section_id}/publish"): (("POST", S + "/publish"),),
    ("POST", "/td/s/{section_id}/end/backup"): (("POST", S + "/backup"),),
    ("POST", "/td/s/{section_id}/teams/pair"): (("POST", S + "/teams/pair-next-round"),),
    ("POST", "/td/s/{section_id}/changes"): (
        ("POST", S + "/movement/late-pair"),
        ("POST", S + "/movement/late-table"),
        ("POST", S + "/movement/pair-left"),
        ("POST", S + "/movement/stop-after"),
        ("POST", S + "/movement/boards-per-round"),
        ("POST", S + "/movement/swap"),
    ),
    # Not a form, but an action of the console a script wants too: the downloads.
    ("GET", "/td/s/{section_id}/publish/export/{kind}"): (("GET", S + "/exports/{kind}"),),
}

#: Console actions with no JSON route of their own, and why none is needed.
NO_TWIN: dict[Route, str] = {
    ("POST", "/td/events"): (
        "the console's quick event (a Mitchell in section A) is two API calls: "
        "POST /api/v1/events, then POST /api/v1/events/{event_id}/sections with any movement"
    ),
    ("POST", "/td/setup"): (
        "the set-up wizard's last step is the API's event, section, pair-name and hand-record "
        "routes in turn (docs/script-your-night.md); its movement proposals are "
        "POST /api/v1/movements/preview"
    ),
}


@cache
def _app() -> FastAPI:
    return create_app(Settings(td_password=TD_PASSWORD))


def _routes() -> set[Route]:
    return {
        (method, route.path)
        for route in _app().routes
        if isinstance(route, APIRoute)
        for method in route.methods
    }


def _console_posts() -> set[Route]:
    """Every POST of the web console (server/web: included in no schema, not the API)."""
    return {
        (method, path)
        for method, path in _routes()
        if method == "POST" and not path.startswith(("/api/", "/dc"))
    }


def test_every_console_action_has_a_json_twin_or_a_reason() -> None:
    console = _console_posts()
    assert len(console) >= 25  # the enumeration finds the console's forms
    untwinned = sorted(console - set(TWINS) - set(NO_TWIN))
    assert not untwinned, f"console actions without a JSON twin: {untwinned}"
    assert all(reason.strip() for reason in NO_TWIN.values())


def test_every_twin_is_an_api_route() -> None:
    routes = _routes()
    stale = sorted(set(TWINS) - routes) + sorted(set(NO_TWIN) - routes)
    assert not stale, f"listed console routes that are gone: {stale}"
    missing = sorted(twin for twins in TWINS.values() for twin in twins if twin not in routes)
    assert not missing, f"JSON twins that are not API routes: {missing}"


def test_a_console_action_without_a_twin_is_caught() -> None:
    """The check itself: a route missing from both lists is reported."""
    console = _console_posts()
    example = ("POST", "/td/s/{section_id}/publish")
    assert example in console
    without = {k: v for k, v in TWINS.items() if k != example}
    assert sorted(console - set(without) - set(NO_TWIN)) == [example]
