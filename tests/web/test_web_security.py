"""Security of the web pages: headers, TD login and sessions, CSRF, rate limits, table tokens."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from server.limits import ratelimit
from server.limits.ratelimit import LoginLimiter
from server.web import live
from server.web.auth import COOKIE, csrf_for
from tests.support.api import Club
from tests.support.web import web_login


def test_pages_send_a_strict_csp_and_the_api_forbids_framing(client: TestClient) -> None:
    page = client.get("/td/login")
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp
    assert "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["cache-control"] == "no-store"
    api = client.get("/api/v1/health")
    assert api.headers["content-security-policy"] == "frame-ancestors 'none'"
    assert client.get("/results").headers["referrer-policy"] == "same-origin"


def test_pages_have_no_inline_scripts_or_styles(client: TestClient, club: Club) -> None:
    web_login(client)
    for path in (f"/td/s/{club.section_id}", f"/results/{club.section_id}", "/td/login"):
        html = client.get(path).text
        assert "<script>" not in html
        assert "style=" not in html
        assert "onclick" not in html
        assert "http://" not in html.replace("http://www.w3.org", "")


def test_td_pages_need_the_login(client: TestClient, club: Club) -> None:
    r = client.get(f"/td/s/{club.section_id}", follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == f"/td/login?next=/td/s/{club.section_id}"


def test_login_sets_a_server_side_httponly_session(client: TestClient) -> None:
    web_login(client)
    cookie = next(c for c in client.cookies.jar if c.name == COOKIE)
    assert cookie.has_nonstandard_attr("HttpOnly")
    assert client.get("/td").status_code == 200
    page = client.get("/td")
    assert csrf_for(cookie.value or "") in page.text


def test_wrong_password_and_missing_login_nonce_are_refused(client: TestClient) -> None:
    form = client.get("/td/login")
    nonce = form.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    r = client.post("/td/login", data={"password": "nope-nope", "csrf": nonce})
    assert r.status_code == 401
    assert "Wrong TD password" in r.text
    client.cookies.clear()
    r = client.post("/td/login", data={"password": "x", "csrf": "forged"})
    assert r.status_code == 403


def test_login_attempts_are_rate_limited(client: TestClient) -> None:
    statuses = []
    for _ in range(7):
        form = client.get("/td/login")
        nonce = form.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        statuses.append(client.post("/td/login", data={"password": "guess", "csrf": nonce}))
    assert [r.status_code for r in statuses[:5]] == [401] * 5
    assert statuses[5].status_code == 429
    assert int(statuses[5].headers["retry-after"]) > 0
    with pytest.raises(AssertionError):
        web_login(client)  # even the right password waits out the limit


def test_limiter_forgets_after_the_back_off() -> None:
    limiter = LoginLimiter(per_client=2, overall=100)
    limiter.failed("a", now=0)
    limiter.failed("a", now=1)
    assert limiter.retry_after("a", now=1) == 30
    assert limiter.retry_after("b", now=1) == 0
    assert limiter.retry_after("a", now=31) == 0
    limiter.failed("a", now=31)  # each further mistake doubles the wait
    assert limiter.retry_after("a", now=31) == 60


def test_limiter_holds_many_addresses_and_a_right_password_clears_one() -> None:
    limiter = LoginLimiter(per_client=3, overall=4)
    for client, at in (("a", 0), ("a", 1), ("b", 2), ("b", 3)):
        limiter.failed(client, now=at)
    assert limiter.retry_after("a", now=3) == 30  # held: 4 failures overall, 2 of its own
    assert limiter.retry_after("c", now=3) == 0  # no mistakes of its own: never held
    limiter.succeeded("a", now=3)
    assert limiter.retry_after("a", now=3) == 0


def test_the_web_login_and_the_api_share_one_limiter(client: TestClient) -> None:
    app = client.app
    assert app.state.web.limiter is ratelimit.limiter_of(app, "td_login")  # type: ignore[attr-defined]


def test_forms_need_the_csrf_token_and_the_same_origin(client: TestClient, club: Club) -> None:
    csrf = web_login(client)
    url = f"/td/s/{club.section_id}/round-time"
    assert client.post(url, data={"minutes": "20"}).status_code == 403
    assert client.post(url, data={"minutes": "20", "csrf": "0" * 43}).status_code == 403
    evil = client.post(
        url, data={"minutes": "20", "csrf": csrf}, headers={"origin": "http://evil.example"}
    )
    assert evil.status_code == 403
    ok = client.post(url, data={"minutes": "20", "csrf": csrf}, follow_redirects=False)
    assert ok.status_code == 303
    assert 'value="20"' in client.get(f"/td/s/{club.section_id}").text


def test_table_tokens_cannot_open_td_pages(client: TestClient, club: Club) -> None:
    table = club.pair(1)
    headers = {"Authorization": f"Bearer {table.token}"}
    r = client.get(f"/td/s/{club.section_id}", headers=headers, follow_redirects=False)
    assert r.status_code == 303
    client.cookies.set(COOKIE, table.token)
    r = client.get(f"/td/s/{club.section_id}", follow_redirects=False)
    assert r.status_code == 303
    with (
        pytest.raises(WebSocketDisconnect),
        client.websocket_connect(
            f"/td/s/{club.section_id}/live", headers={"cookie": f"{COOKIE}={table.token}"}
        ) as ws,
    ):
        ws.receive_text()


def test_logout_ends_the_session_on_the_server(client: TestClient) -> None:
    csrf = web_login(client)
    token = client.cookies.get(COOKIE)
    assert client.post("/td/logout", data={"csrf": csrf}, follow_redirects=False).status_code == 303
    client.cookies.set(COOKIE, token or "")
    assert client.get("/td", follow_redirects=False).status_code == 303


def test_login_never_redirects_off_site(client: TestClient) -> None:
    page = client.get("/td/login?next=//evil.example/x")
    assert 'name="next" value="/td"' in page.text


def test_static_files_are_only_the_known_ones(client: TestClient) -> None:
    assert client.get("/static/app.css").status_code == 200
    assert client.get("/static/live.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/static/..%2Fsite.py").status_code == 404
    assert client.get("/static/render.py").status_code == 404


def test_td_live_socket_streams_fragments_after_an_entry(client: TestClient, club: Club) -> None:
    web_login(client)
    cookie = f"{COOKIE}={client.cookies.get(COOKIE)}"
    with client.websocket_connect(
        f"/td/s/{club.section_id}/live", headers={"cookie": cookie}
    ) as ws:
        first = json.loads(ws.receive_text())
        assert first["type"] == "fragments"
        assert 'data-table="1"' in first["fragments"]["grid"]
        table = club.pair(1)
        board = table.round()["boards"][0]["board"]
        ack = table.enter(board, "3NT", "N", 9).json()
        table.confirm(board, ack["result"]["version"])
        for _ in range(5):
            update = json.loads(ws.receive_text())
            # a delta carries the table's grid row; a full refresh the whole grid
            grid = update.get("fragments", {}).get("grid", "") + "".join(
                update.get("rows", {}).values()
            )
            if 'data-confirmed="1"' in grid:
                break
        else:
            pytest.fail("the confirmation never reached the dashboard socket")


def test_td_live_socket_ends_with_the_session(
    client: TestClient, club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live, "RECHECK_SECONDS", 0.05)
    csrf = web_login(client)
    cookie = f"{COOKIE}={client.cookies.get(COOKIE)}"
    with client.websocket_connect(
        f"/td/s/{club.section_id}/live", headers={"cookie": cookie}
    ) as ws:
        assert json.loads(ws.receive_text())["type"] == "fragments"
        client.post("/td/logout", data={"csrf": csrf})
        with pytest.raises(WebSocketDisconnect):
            _read_until_closed(ws)


def _read_until_closed(ws: Any) -> None:
    for _ in range(100):
        ws.receive_text()
