"""Bad requests (M3, L4): each is a 4xx with the usual ``{type, code, message}`` (or, after a
TD form, a notice on the page), never a 500 or a traceback, and changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, select
from starlette.testclient import WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect

from server.core.config import Settings
from server.core.models import Event
from server.dataconnector.router import own_app
from server.web.routes.players import MAX_UPLOAD
from tests.support.api import Club, open_club
from tests.support.app_factory import AppFactory, app_client
from tests.support.env import TD_PASSWORD
from tests.support.web import web_login

LIMIT = 2**20  # a small body limit for these tests (the default is 8 MiB)


@pytest.fixture
def engine(apps: AppFactory, tmp_path: Path) -> Engine:
    return apps.engine(f"sqlite:///{tmp_path / 'traveller.db'}")


@pytest.fixture
def client(apps: AppFactory, engine: Engine) -> TestClient:
    settings = Settings(td_password=TD_PASSWORD, database_url="unused://", max_body_bytes=LIMIT)
    return apps.client(engine, settings, raise_server_exceptions=False)


@pytest.fixture
def club(client: TestClient, engine: Engine) -> Club:
    return open_club(client, engine)


def _error(response: object, status: int, code: str) -> None:
    body = response.json()  # type: ignore[attr-defined]
    assert response.status_code == status, body  # type: ignore[attr-defined]
    assert (body["type"], body["code"]) == ("error", code)
    assert body["message"]


def _events(client: TestClient, club: Club) -> int:
    """Events stored (the TD API has no list of them)."""
    with Session(club.engine) as session:
        return len(session.exec(select(Event)).all())


# ------------------------------------------------------------------------ M3: request bodies


def test_a_body_declared_too_large_is_refused_before_it_is_read(
    client: TestClient, club: Club
) -> None:
    before = _events(client, club)
    name = "x" * (LIMIT + 1)
    r = client.post("/api/v1/events", json={"name": name}, headers=club.td_headers)
    _error(r, 413, "body_too_large")
    assert _events(client, club) == before


def test_a_streamed_body_is_counted_and_refused_past_the_limit(
    client: TestClient, club: Club
) -> None:
    """Chunked (no Content-Length): the middleware counts as the app reads."""
    before = _events(client, club)
    sent = []

    def chunks() -> Iterator[bytes]:
        yield b'{"name": "'
        for _ in range(64):
            sent.append(1)
            yield b"y" * 65_536
        yield b'"}'

    headers = {**club.td_headers, "content-type": "application/json"}
    r = client.post("/api/v1/events", content=chunks(), headers=headers)
    _error(r, 413, "body_too_large")
    assert _events(client, club) == before
    # no login needed to be refused: the pairing route ...
    _error(client.post("/api/v1/table/pair", content=chunks()), 413, "body_too_large")
    # ... and the web login form (which answers 403 unread without its cookie: not buffered)
    big = {"password": "x" * (LIMIT + 1)}
    _error(client.post("/td/login", data=big), 413, "body_too_large")


def test_bodies_under_the_limit_still_work(client: TestClient, club: Club) -> None:
    before = _events(client, club)
    r = client.post("/api/v1/events", json={"name": "Tuesday teams"}, headers=club.td_headers)
    assert r.status_code == 201, r.text
    assert _events(client, club) == before + 1


def test_the_default_limit_fits_the_largest_upload() -> None:
    """The TD's player list (2 MB of text, the largest upload) fits with room for multipart."""
    assert Settings().max_body_bytes >= 2 * MAX_UPLOAD


def test_a_player_list_upload_under_the_limit_is_read(client: TestClient, club: Club) -> None:
    csrf = web_login(client)
    lines = b"".join(b"%d,Player %d\n" % (n, n) for n in range(1, 20_001))  # ~0.4 MB
    r = client.post(
        f"/td/s/{club.section_id}/players/import",
        data={"csrf": csrf},
        files={"file": ("members.csv", lines, "text/csv")},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    page = client.get(f"/td/s/{club.section_id}/players").text
    assert "20000 added" in page


# ------------------------------------------------------------------ L4: no traceback, ever


@pytest.mark.parametrize(
    "path",
    [
        "/results/{section}/pairs/{long}/qr.svg",
        "/results/{section}/players/{long}/qr.svg",
        "/results/{section}/pairs/{long}",
        "/api/v1/sections/{long}",
        "/td/s/{section}/audit/{long}",
    ],
)
def test_an_over_long_path_segment_is_refused(client: TestClient, club: Club, path: str) -> None:
    url = path.format(section=club.section_id, long="1" * 5000)
    _error(client.get(url, headers=club.td_headers), 414, "path_too_long")


def test_a_qr_code_of_a_normal_pair_key_still_draws(client: TestClient, club: Club) -> None:
    r = client.get(f"/results/{club.section_id}/pairs/{'7N' * 20}/qr.svg")
    assert r.status_code == 200
    assert r.text.startswith("<svg")


def test_a_live_socket_of_an_unknown_section_is_refused_at_the_handshake(
    client: TestClient, club: Club
) -> None:
    """It used to raise ``'WebSocket' object has no attribute 'method'`` (a 500)."""
    with (
        pytest.raises(WebSocketDenialResponse) as refused,
        client.websocket_connect("/results/999/live"),
    ):
        pass
    _error(refused.value, 404, "unknown_section")
    web_login(client)  # the TD's dashboard feed, the same
    with (
        pytest.raises(WebSocketDenialResponse) as refused,
        client.websocket_connect("/td/s/999/live"),
    ):
        pass
    _error(refused.value, 404, "unknown_section")


def test_a_websocket_with_an_over_long_path_is_refused(client: TestClient) -> None:
    long = "/results/1/live/" + "x" * 5000
    with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(long):
        pass  # closed before it is accepted
    assert refused.value.code == 1008


SUPERSCRIPT = "²"  # str.isdigit() says yes, int() says no


def _form_posts(section: int) -> list[tuple[str, dict[str, str]]]:
    board = f"/td/s/{section}/tables/1/rounds/1/boards/1"
    return [
        (f"/td/s/{section}/round-time", {"minutes": SUPERSCRIPT}),
        (f"/td/s/{section}/publish", {"amount": SUPERSCRIPT, "status": "provisional"}),
        (f"{board}/set", {"contract": "3NT", "declarer": "N", "tricks": SUPERSCRIPT}),
        (f"{board}/adjust", {"preset": f"{SUPERSCRIPT}/{SUPERSCRIPT}", "reason": "test"}),
        (f"/td/s/{section}/changes", {"kind": "stop_after", "rounds": SUPERSCRIPT}),
        (f"/td/s/{section}/changes", {"kind": "boards_per_round", "boards": SUPERSCRIPT}),
    ]


def test_superscript_digits_in_the_forms_give_a_notice_not_a_500(
    client: TestClient, club: Club
) -> None:
    club.start_round(1)
    csrf = web_login(client)
    section = club.section_id
    for path, data in _form_posts(section):
        r = client.post(path, data={**data, "csrf": csrf}, follow_redirects=False)
        assert r.status_code in (200, 303, 400, 404, 409, 422), (path, r.status_code, r.text[:300])
    r = client.get(f"/td/s/{section}/audit", params={"table": SUPERSCRIPT, "board": SUPERSCRIPT})
    assert r.status_code == 200
    for field in ("pairs", "sections", "minutes", "bpr"):
        r = client.get("/td/setup/movements", params={field: SUPERSCRIPT})
        assert r.status_code in (200, 400), (field, r.status_code, r.text[:300])
    r = client.get(
        f"/td/s/{section}/changes/preview", params={"kind": "stop_after", "rounds": SUPERSCRIPT}
    )
    assert r.status_code in (200, 400, 409, 422), (r.status_code, r.text[:300])
    # nothing was changed by them: no result stored, no round time set
    results = client.get(f"/api/v1/sections/{section}/results", headers=club.td_headers)
    assert results.status_code == 200
    assert all(not row.get("contract") for row in results.json()), results.json()
    assert client.get(f"/api/v1/sections/{section}", headers=club.td_headers).status_code == 200


def test_the_data_connectors_own_port_bounds_bodies_as_the_main_port(engine: Engine) -> None:
    settings = Settings(
        td_password=TD_PASSWORD,
        database_url="unused://",
        max_body_bytes=LIMIT,
        dc_club_id="club-4711",
        dc_license="licence-for-tests",
        dc_port=0,
    )
    with app_client(engine, settings) as main:
        own = TestClient(own_app(main.app.state.runtime))  # type: ignore[attr-defined]
        path = "/dc-scoringprogram"
        _error(own.post(path, content=b"x" * (LIMIT + 1)), 413, "body_too_large")

        def chunks() -> Iterator[bytes]:
            for _ in range(LIMIT // 65_536 + 2):
                yield b"y" * 65_536

        _error(own.post(path, content=chunks()), 413, "body_too_large")
        small = own.post(path, content=b"{}")  # under the limit: the connector answers
        assert small.status_code == 200
