"""The terminal tells the server its outbox size after (re)connecting, and again once it has
delivered; an older server that does not know the message is left alone."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from protocol.messages import EntryValues, Error, TableStatus
from terminal.events import ClientEvent
from terminal.testing.server import FakeClient, FakeServer

FOUR_SPADES = EntryValues(contract="4S", declarer="S", tricks=10)


async def settled(condition: Callable[[], bool]) -> bool:
    """Let the client's loop run until ``condition`` holds (it yields; no clock involved)."""
    for _ in range(10_000):
        if condition():
            return True
        await asyncio.sleep(0)
    return condition()


async def test_the_outbox_size_is_reported_before_and_after_delivery() -> None:
    server = FakeServer(online=False)
    events: list[ClientEvent] = []
    client = FakeClient(server, table=1)
    client.start(events.append)
    client.enter(1, FOUR_SPADES)
    client.enter(2, FOUR_SPADES)
    assert client.waiting == 2
    server.set_online(True)
    await client.wait_for(lambda: client.online and client.waiting == 0)
    assert await settled(lambda: server.queued.get(1) == 0)
    sent = [c for c in server.received if c.type in ("table_status", "enter_result")]
    kinds = [c.queued if isinstance(c, TableStatus) else c.type for c in sent]
    assert kinds == [2, "enter_result", "enter_result", 0]
    await client.close()


async def test_an_older_server_that_refuses_the_status_is_not_asked_again() -> None:
    server = FakeServer()
    refused: list[int] = []
    handle = server.handle

    def old_server(table: int, command: object) -> object:
        if isinstance(command, TableStatus):
            refused.append(command.queued)
            return Error(code="invalid_message", message="The message is not valid: type")
        return handle(table, command)  # type: ignore[arg-type]

    server.handle = old_server  # type: ignore[method-assign, assignment]
    events: list[ClientEvent] = []
    client = FakeClient(server, table=1)
    client.start(events.append)
    await client.wait_for(lambda: client.online)
    client.enter(1, FOUR_SPADES)
    await client.wait_for(lambda: client.waiting == 0)
    client.enter(2, FOUR_SPADES)
    await client.wait_for(lambda: client.waiting == 0)
    assert len(refused) == 1  # asked once, then never again
    assert client.board(2) is not None
    await client.close()
