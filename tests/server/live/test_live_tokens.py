"""The open sockets' table tokens held live in memory (server/live/live_tokens.py): a push asks
the memory, not the database; a revocation committed by this process, or by another worker on
PostgreSQL, closes the token's sockets at once, even a quiet one whose periodic check is far off."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, event
from sqlmodel import Session, select
from starlette.websockets import WebSocketDisconnect

from server.core.config import Settings
from server.core.db import make_engine
from server.core.models import TableToken, utcnow
from server.live.live_tokens import LiveTokens
from server.services import tokens
from server.services.event import setup
from server.services.td import round_control
from tests.support.api import Club, open_club
from tests.support.app_factory import app_client
from tests.support.env import TD_PASSWORD

#: Far longer than any test: only a change heard of can close a socket in time.
NEVER = 600.0


def _hello(ws: Any, token: str) -> dict[str, Any]:
    ws.send_text(json.dumps({"type": "hello", "token": token}))
    info: dict[str, Any] = json.loads(ws.receive_text())
    return info


def _move_to_new_device(engine: Engine, section_id: int, table: int) -> None:
    with Session(engine) as s:
        round_control.move_to_new_device(s, setup.get_section(s, section_id), table)
        s.commit()


@pytest.fixture
def quiet(engine: Engine) -> Iterator[Club]:
    """A club whose sockets never re-read their tokens by the clock."""
    settings = Settings(td_password=TD_PASSWORD, token_check_seconds=NEVER)
    with app_client(engine, settings) as client:
        club = open_club(client, engine, tables=3, bpr=2)
        club.start_round(1)
        yield club


def test_a_revocation_closes_a_quiet_socket_at_once(quiet: Club) -> None:
    old, other = quiet.pair(1), quiet.pair(2)
    with (
        quiet.client.websocket_connect("/api/v1/table/ws") as ws,
        quiet.client.websocket_connect("/api/v1/table/ws") as still,
    ):
        assert _hello(ws, old.token)["table"] == 1
        assert _hello(still, other.token)["table"] == 2
        start = time.monotonic()
        _move_to_new_device(quiet.engine, quiet.section_id, 1)  # nothing is pushed to table 1
        assert json.loads(ws.receive_text())["code"] == "token_revoked"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == 4401
        assert time.monotonic() - start < NEVER / 10
        still.send_text('{"type": "get_round"}')  # table 2's terminal carries on
        assert json.loads(still.receive_text())["type"] == "round_info"


def test_pushes_to_a_live_token_ask_the_database_nothing(quiet: Club) -> None:
    """Three results keyed over HTTP and pushed to table 1's socket: its token is not read
    again for any of the pushes."""
    first = quiet.pair(1)
    boards = [b["board"] for b in first.round()["boards"]]
    reads: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if "table_token" in statement and "revoked_at" in statement:
            reads.append(statement)

    with quiet.client.websocket_connect("/api/v1/table/ws") as ws:
        assert _hello(ws, first.token)["table"] == 1
        event.listen(quiet.engine, "before_cursor_execute", seen)
        try:
            for board in boards:
                assert first.enter(board, "3NT", "N", 9).status_code == 200
                pushed = json.loads(ws.receive_text())
                assert (pushed["type"], pushed["result"]["board"]) == ("result_changed", board)
        finally:
            event.remove(quiet.engine, "before_cursor_execute", seen)
    token_checks = [s for s in reads if "SELECT table_token.revoked_at" in s]
    assert token_checks == []


def test_a_committed_change_is_heard_and_a_rolled_back_one_is_not(club: Club) -> None:
    """A committed change to a token's life wakes its sockets and has them read it again; a
    rolled-back one, or a change to another column, is not heard of."""
    engine, h1 = club.engine, tokens.digest(club.pair(1).token)
    live = LiveTokens(engine, recheck=NEVER)
    live.attach()
    try:
        woken: list[str] = []
        unwatch = live.watch(h1, lambda: woken.append("woken"), utcnow().replace(year=2999), 0)
        assert not live.must_read(h1)
        with Session(engine) as s:  # a revocation rolled back: nothing to hear
            row = s.exec(select(TableToken).where(TableToken.token_hash == h1)).one()
            row.revoked_at = utcnow()
            s.add(row)
            s.flush()
            s.rollback()
        assert (woken, live.must_read(h1)) == ([], False)
        with Session(engine) as s:  # the last-seen time is no change to the token's life
            row = s.exec(select(TableToken).where(TableToken.token_hash == h1)).one()
            row.last_seen = utcnow()
            s.add(row)
            s.commit()
        assert (woken, live.must_read(h1)) == ([], False)
        with Session(engine) as s:
            row = s.exec(select(TableToken).where(TableToken.token_hash == h1)).one()
            row.revoked_at = utcnow()
            s.add(row)
            s.commit()
        assert woken == ["woken"]
        assert live.must_read(h1)
        live.admit(h1, utcnow().replace(year=2999))  # what the socket does once it read it
        assert not live.must_read(h1)
        unwatch()
        assert live.must_read(h1)  # no socket holds it: not known here any more
        # A change heard of between a hello's read (at version ``since``) and its watch.
        since = live.version
        live.changed(h1)
        late: list[str] = []
        unwatch = live.watch(h1, lambda: late.append("woken"), utcnow().replace(year=2999), since)
        assert (late, live.must_read(h1)) == (["woken"], True)
        unwatch()
    finally:
        live.detach()


def test_another_engines_changes_are_not_heard_in_process(club: Club) -> None:
    """The hook hears its own engine only: another worker is heard through PostgreSQL."""
    engine, h2 = club.engine, tokens.digest(club.pair(2).token)
    other = make_engine(engine.url.render_as_string(hide_password=False))
    live = LiveTokens(other, recheck=NEVER)
    live.attach()
    try:
        unwatch = live.watch(h2, lambda: None, utcnow().replace(year=2999), 0)
        with Session(engine) as s:
            row = s.exec(select(TableToken).where(TableToken.token_hash == h2)).one()
            s.delete(row)
            s.commit()
        assert not live.must_read(h2)
        unwatch()
    finally:
        live.detach()
        other.dispose()


@pytest.mark.postgres
def test_a_revocation_on_one_worker_closes_the_socket_on_another(pg_url: str) -> None:
    """Two workers (two apps, two engines, one PostgreSQL database): the TD moves table 1 to a
    new device on worker A; the old device's quiet socket on worker B is closed at once, by
    the database's notification (B's clock would not check it for ten minutes)."""
    settings = Settings(td_password=TD_PASSWORD, token_check_seconds=NEVER)
    engine_a, engine_b = make_engine(pg_url), make_engine(pg_url)
    try:
        with app_client(engine_a, settings) as a:
            club = open_club(a, engine_a, tables=3, bpr=2)
            club.start_round(1)
            old = club.pair(1)
            with app_client(engine_b, settings) as b:
                fanout = b.app.state.fanout  # type: ignore[attr-defined]
                assert fanout is not None
                assert fanout.listening.is_set()
                with b.websocket_connect("/api/v1/table/ws") as ws:
                    assert _hello(ws, old.token)["table"] == 1
                    start = time.monotonic()
                    _move_to_new_device(engine_a, club.section_id, 1)
                    assert json.loads(ws.receive_text())["code"] == "token_revoked"
                    with pytest.raises(WebSocketDisconnect) as closed:
                        ws.receive_text()
                    assert closed.value.code == 4401
                    assert time.monotonic() - start < NEVER / 10
                # the token is refused on either worker
                for client in (a, b):
                    r = client.get(
                        "/api/v1/table/round", headers={"Authorization": f"Bearer {old.token}"}
                    )
                    assert (r.status_code, r.json()["code"]) == (401, "token_revoked")
    finally:
        engine_a.dispose()
        engine_b.dispose()
