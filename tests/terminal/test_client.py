"""SyncingClient on the fake server: queued commands shown at once, refusals, tokens, backoff."""

from __future__ import annotations

from protocol.messages import EnterResult, EntryValues
from terminal.events import ClientEvent, CommandRefused, RoundUpdated, Unpaired
from terminal.testing.server import FakeClient, FakeServer

FOUR_SPADES = EntryValues(contract="4S", declarer="S", tricks=10)


async def started(server: FakeServer, events: list[ClientEvent]) -> FakeClient:
    client = FakeClient(server, table=1)
    client.start(events.append)
    await client.wait_for(lambda: client.online)
    return client


async def test_a_queued_entry_is_shown_at_once_and_then_stored() -> None:
    server = FakeServer()
    events: list[ClientEvent] = []
    client = await started(server, events)
    client.enter(1, FOUR_SPADES)
    board = client.board(1)
    assert board is not None
    assert board.state == "entered"
    assert board.result is not None
    assert board.result.ns_score == 420
    assert board.result.version == 1
    await client.wait_for(lambda: client.waiting == 0)
    assert server.results[(1, 1, 1)].state == "entered"
    client.confirm(board.result)
    await client.wait_for(lambda: client.waiting == 0)
    assert server.results[(1, 1, 1)].state == "confirmed"
    assert any(isinstance(e, RoundUpdated) for e in events)
    await client.close()


async def test_a_refused_command_is_reported_and_the_round_fetched_again() -> None:
    server = FakeServer()
    events: list[ClientEvent] = []
    client = await started(server, events)
    client.enter(1, FOUR_SPADES)
    await client.wait_for(lambda: client.waiting == 0)
    stale = server.results[(1, 1, 1)]
    client.correct(1, stale.version, EntryValues(contract="4S", declarer="S", tricks=9))
    await client.wait_for(lambda: client.waiting == 0)
    # East confirms the version shown before the correction: the server says it is stale.
    client.submit(
        EnterResult(entry_id="late-entry-1", board=9, values=FOUR_SPADES)  # not this round
    )
    await client.wait_for(lambda: client.waiting == 0)
    refused = [e for e in events if isinstance(e, CommandRefused)]
    assert [(e.code, e.board) for e in refused] == [("board_not_in_round", 9)]
    assert "not played at table 1" in refused[0].message
    assert client.board(1).result.tricks == 9  # type: ignore[union-attr]
    await client.close()


async def test_confirming_a_changed_result_is_refused_as_stale() -> None:
    server = FakeServer()
    events: list[ClientEvent] = []
    client = await started(server, events)
    client.enter(1, FOUR_SPADES)
    await client.wait_for(lambda: client.waiting == 0)
    shown = server.results[(1, 1, 1)]
    client.correct(1, shown.version, EntryValues(contract="4S", declarer="S", tricks=11))
    client.confirm(shown)  # East still looks at 4S=, which is no longer what is stored
    await client.wait_for(lambda: client.waiting == 0)
    assert [e.code for e in events if isinstance(e, CommandRefused)] == ["stale_version"]
    assert server.results[(1, 1, 1)].state == "entered"
    await client.close()


async def test_a_revoked_token_asks_for_pairing_again(tmp_path: object) -> None:
    server = FakeServer()
    events: list[ClientEvent] = []
    client = FakeClient(server)
    client._config = client.config.__class__(server="fake", token="revoked", table=1)
    client.start(events.append)
    await client.wait_for(lambda: any(isinstance(e, Unpaired) for e in events))
    assert not client.config.paired
    paired = await client.pair("0202")
    assert paired.table == 2
    await client.wait_for(lambda: client.online and client.round is not None)
    assert client.round is not None
    assert client.round.table == 2
    await client.close()


async def test_reconnects_after_the_server_comes_back() -> None:
    server = FakeServer(online=False)
    events: list[ClientEvent] = []
    client = FakeClient(server, table=1)
    client.start(events.append)
    client.enter(1, FOUR_SPADES)  # no round known yet: queued, shown once the round arrives
    assert client.waiting == 1
    assert not client.online
    server.set_online(True)
    await client.wait_for(lambda: client.online and client.waiting == 0)
    # Keyed before any round was known, so it was not tied to a round: it is still delivered.
    assert [c.type for c in server.received if c.type == "enter_result"] == ["enter_result"]
    await client.close()
