"""The table websocket (commands in, replies and pushes out), durability across a server restart,
concurrent deliveries, and the schema migrations."""

from __future__ import annotations

import asyncio
import threading
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine
from sqlmodel import Session, SQLModel, func, select
from starlette.websockets import WebSocketDisconnect, WebSocketDisconnected

from protocol.messages import Error, parse_server_message
from server.api.table import _Link, _pushes
from server.app import create_app
from server.core.config import ConfigError, Settings
from server.core.db import make_engine, migrate
from server.core.models import Result, utcnow
from server.live.bus import Bus
from server.live.live_tokens import LiveTokens
from tests.support.api import Club, new_id, open_club
from tests.support.app_factory import app_client, engine_at


def _recv(ws: Any) -> Any:
    return parse_server_message(ws.receive_text())


def _recv_until(ws: Any, kind: str, limit: int = 10) -> Any:
    for _ in range(limit):
        message = _recv(ws)
        if message.type == kind:
            return message
    raise AssertionError(f"no {kind} message in {limit} messages")


def test_websocket_hello_commands_and_pushes(club: Club) -> None:
    club.start_round(1)
    t1 = club.pair(1)
    t2 = club.pair(2)
    with (
        club.client.websocket_connect("/api/v1/table/ws") as ws1,
        club.client.websocket_connect("/api/v1/table/ws") as ws1b,
        club.client.websocket_connect("/api/v1/table/ws") as ws2,
    ):
        for ws, token in ((ws1, t1.token), (ws1b, t1.token), (ws2, t2.token)):
            ws.send_text(f'{{"type": "hello", "token": "{token}"}}')
            assert _recv(ws).type == "round_info"
        entry = new_id()
        ws1.send_json(
            {
                "type": "enter_result",
                "entry_id": entry,
                "board": 1,
                "values": {"contract": "3NT", "declarer": "N", "tricks": 9},
            }
        )
        ack = _recv_until(ws1, "result_ack")
        assert ack.entry_id == entry
        assert ack.result.ns_score == 400
        # The table's second device hears about it; table 2 (which has not played board 1) not.
        pushed = _recv_until(ws1b, "result_changed")
        assert pushed.result.board == 1
        ws2.send_text('{"type": "get_round"}')
        assert _recv(ws2).type == "round_info"  # the reply, not a push about board 1
        # A bad message gets an error and the socket stays usable.
        ws1.send_text('{"type": "enter_result", "board": "x"}')
        err = _recv_until(ws1, "error")
        assert err.code == "invalid_message"
        ws1.send_json({"type": "confirm_result", "entry_id": new_id(), "board": 1, "version": 1})
        assert _recv_until(ws1, "result_ack").result.state == "confirmed"


def test_websocket_refuses_a_bad_token(club: Club) -> None:
    with club.client.websocket_connect("/api/v1/table/ws") as ws:
        ws.send_text('{"type": "hello", "token": "forged"}')
        message = _recv(ws)
        assert (message.type, message.code) == ("error", "token_invalid")


def test_results_survive_a_server_restart_mid_round(db_url: str) -> None:
    with engine_at(db_url) as engine, app_client(engine) as client:
        club = open_club(client, engine)
        club.start_round(1)
        t1 = club.pair(1)
        entry = new_id()
        first = t1.enter(1, "4H", "E", 10, entry_id=entry).json()["result"]
    # A new server process on the same database: the token, the result and the dedup survive.
    with engine_at(db_url) as engine2, app_client(engine2) as client2:
        t1.client = client2
        again = t1.enter(1, "4H", "E", 10, entry_id=entry).json()
        assert again["duplicate"] is True
        assert again["result"] == first
        assert t1.confirm(1, first["version"]).json()["result"]["state"] == "confirmed"


def test_concurrent_deliveries_of_one_entry_store_it_once(club: Club) -> None:
    club.start_round(1)
    t1 = club.pair(1)
    entry = new_id()
    replies: list[Any] = []

    def deliver() -> None:
        replies.append(t1.enter(2, "5DX", "W", 9, entry_id=entry))

    threads = [threading.Thread(target=deliver) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert [r.status_code for r in replies] == [200] * 6
    assert sum(1 for r in replies if not r.json()["duplicate"]) == 1
    assert {r.json()["result"]["ns_score"] for r in replies} == {300}
    with Session(club.engine) as s:
        assert s.exec(select(func.count()).select_from(Result)).one() == 1


def test_migrations_build_exactly_the_models(db_url: str) -> None:
    engine: Engine = make_engine(db_url)
    migrate(engine)
    migrate(engine)  # idempotent
    with engine.connect() as conn:
        diff = compare_metadata(
            MigrationContext.configure(conn, opts={"compare_type": True}), SQLModel.metadata
        )
    engine.dispose()
    assert diff == []


def test_production_server_needs_a_td_password() -> None:
    with pytest.raises(ConfigError, match="TRAVELLER_TD_PASSWORD"):
        create_app(Settings(td_password=None, demo=False))
    with pytest.raises(ConfigError, match="8 characters"):
        create_app(Settings(td_password="abc"))


def test_openapi_documents_every_route_with_errors_and_examples(club: Club) -> None:
    schema = club.client.get("/openapi.json").json()
    paths = schema["paths"]
    assert "/api/v1/table/commands" in paths
    enter = paths["/api/v1/table/commands"]["post"]
    assert {"401", "404", "409", "422"} <= set(enter["responses"])
    assert "enter" in enter["requestBody"]["content"]["application/json"]["examples"]
    for path, ops in paths.items():
        for method, op in ops.items():
            assert op.get("responses"), f"{method} {path} has no responses"
    assert "EnterResult" in schema["components"]["schemas"]


@pytest.mark.parametrize("gone", ["disconnect", "closed"])
def test_a_push_to_a_terminal_that_has_just_gone_ends_quietly(gone: str) -> None:
    """The race CI hit twice: a push is sent as the client vanishes (Starlette raises
    WebSocketDisconnect) or just after the socket closed (WebSocketDisconnected). The pusher
    must end without an exception (which uvicorn would log as a traceback) and leave the bus
    subscription."""

    class GoneSocket:
        sent = 0

        async def send_text(self, data: str) -> None:
            self.sent += 1
            if gone == "disconnect":
                raise WebSocketDisconnect(code=1006)
            raise WebSocketDisconnected('Cannot call "send" once a close message has been sent.')

    async def token_live(_work: object) -> datetime:
        return utcnow() + timedelta(hours=1)

    async def scenario() -> tuple[int, int]:
        bus = Bus()
        settings = SimpleNamespace(token_check_seconds=5.0)
        tokens = LiveTokens(make_engine("sqlite://"), recheck=5.0)
        runtime = SimpleNamespace(bus=bus, settings=settings, read=token_live, tokens=tokens)
        socket = GoneSocket()
        link = _Link(socket, None)  # type: ignore[arg-type]
        task = asyncio.create_task(_pushes(link, runtime, "token", 1, 3))  # type: ignore[arg-type]
        await asyncio.sleep(0)
        assert bus.subscribers == 1
        bus.publish([(1, 3, Error(code="x", message="a push"))])
        await asyncio.wait_for(task, 5)  # returns instead of raising
        return socket.sent, bus.subscribers

    sent, left = asyncio.run(scenario())
    assert (sent, left) == (1, 0)
