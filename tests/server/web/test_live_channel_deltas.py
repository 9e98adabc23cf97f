"""A live channel sends a view's deltas without reading the section again, numbers every
message, re-renders the whole page from memory for a watcher that asks (after a gap or a delta
it could not place) and falls back to the full read for what the view cannot follow
(server/web/live.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Sequence

import pytest

from protocol.messages import Ack, Message
from server.live.bus import Bus
from server.web.live import Channel, Delta, Fragments, _asks_refresh, _resend
from tests.support.wait import wait_until_async


class Counter:
    """A view of one number: an ``Ack`` whose entry id is a number adds it; anything else
    can only be shown by a full read."""

    def __init__(self) -> None:
        self.stored = 0  # what "the database" holds
        self.shown = 0
        self.loads = 0
        self.renders = 0
        self.tells = False  # whether it can tell it is current (else: read at every poll)
        self.checks = 0

    async def load(self) -> None:
        self.loads += 1
        self.shown = self.stored

    def fragments(self) -> Fragments:
        self.renders += 1
        return {"n": str(self.shown)}

    def apply(self, messages: Sequence[Message]) -> Delta | None:
        for m in messages:
            if not isinstance(m, Ack) or not m.entry_id.isdigit():
                return None
            self.shown += int(m.entry_id)
        return {"totals": {"n": self.shown}}

    async def current(self) -> bool:
        self.checks += 1
        return self.tells and self.shown == self.stored


def push(bus: Bus, entry_id: str) -> None:
    bus.publish([(1, None, Ack(entry_id=entry_id, detail="stored"))])


@contextlib.asynccontextmanager
async def running(channel: Channel) -> AsyncIterator[None]:
    """The channel's loop, its first page read, until the block ends."""
    task = asyncio.create_task(channel.run())
    try:
        await channel.ready.wait()
        yield
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def sent(channel: Channel, deltas: int) -> None:
    """Wait (bounded) until the channel has sent ``deltas`` deltas."""
    await wait_until_async(lambda: channel.deltas >= deltas, 30, f"{deltas} deltas sent")


async def next_message(queue: asyncio.Queue[str]) -> dict[str, object]:
    body: dict[str, object] = json.loads(await asyncio.wait_for(queue.get(), 30))
    return body


def test_deltas_are_numbered_and_need_no_read_and_the_rest_is_read_in_full() -> None:
    async def scenario() -> None:
        bus, view = Bus(), Counter()
        channel = Channel(("td", 1), view, bus, poll=3600)
        async with running(channel):
            watcher: asyncio.Queue[str] = asyncio.Queue()
            channel.watchers.add(watcher)
            first = json.loads(channel.snapshot())
            assert (first["type"], first["full"], first["fragments"], first["seq"]) == (
                "fragments",
                True,
                {"n": "0"},
                1,
            )
            view.stored = 5
            push(bus, "5")
            delta = await next_message(watcher)
            assert delta == {"type": "delta", "totals": {"n": 5}, "seq": 2}
            assert (view.loads, channel.renders, channel.deltas) == (1, 1, 1)
            # a new watcher (or one that lost a delta) gets the page as it stands now
            again = json.loads(channel.snapshot())
            assert (again["fragments"], again["seq"], again["full"]) == ({"n": "5"}, 2, True)
            assert view.loads == 1  # rendered from memory, not read
            renders = view.renders
            assert channel.snapshot() == channel.snapshot()
            assert view.renders == renders  # once a message number, however many watchers ask
            assert channel.last == {"n": "0"}  # what every watcher was sent stays the baseline
            view.stored = 7
            push(bus, "not a number")  # the view cannot follow it: a full read
            full = await next_message(watcher)
            assert full == {"type": "fragments", "fragments": {"n": "7"}, "seq": 3}
            assert view.loads == 2

    asyncio.run(scenario())


def test_a_watcher_that_asks_again_gets_the_whole_page_in_its_queue() -> None:
    async def scenario() -> None:
        bus, view = Bus(), Counter()
        channel = Channel(("td", 1), view, bus, poll=3600)
        async with running(channel):
            watcher: asyncio.Queue[str] = asyncio.Queue(maxsize=1)
            channel.watchers.add(watcher)
            view.stored = 3
            push(bus, "1")
            await sent(channel, 1)
            push(bus, "2")  # the watcher's queue holds one: the first delta is dropped
            await sent(channel, 2)
            kept = await next_message(watcher)
            assert kept["seq"] == 3  # the page sees seq 1 then 3, and asks for the page
            assert _asks_refresh('{"type": "refresh"}')
            assert not _asks_refresh('{"type": "other"}')
            assert not _asks_refresh("x" * 200)
            _resend(channel, watcher)
            page = await next_message(watcher)
            assert (page["full"], page["fragments"], page["seq"]) == (True, {"n": "3"}, 3)

    asyncio.run(scenario())


def test_the_periodic_read_is_put_off_while_pushes_come_and_never_past_its_limit() -> None:
    channel = Channel(("td", 1), Counter(), Bus(), poll=3.0, quiet=0.5, defer=3.0)
    rendered, never = 100.0, float("-inf")
    assert channel._until_read(101.0, rendered, never) == 2.0  # not due yet
    assert channel._until_read(103.0, rendered, never) == 0.0  # due, and no push: now
    assert channel._until_read(103.0, rendered, 102.9) == pytest.approx(0.4)  # a push just came
    assert channel._until_read(103.6, rendered, 103.0) == 0.0  # they paused long enough
    assert channel._until_read(105.9, rendered, 105.8) == pytest.approx(0.1)  # ... not past 106
    assert channel._until_read(106.0, rendered, 105.99) == 0.0


def test_a_stream_of_deltas_holds_the_periodic_read_back_until_it_pauses() -> None:
    async def scenario() -> None:
        bus, view = Bus(), Counter()
        # Due at once once the pushes have begun, but put off while they come (a burst of
        # results). Not due before the first push: on a busy machine the channel's first
        # read alone can outlast a poll of 10 ms, and a read due before any push is no burst.
        channel = Channel(("td", 1), view, bus, poll=3600, quiet=10.0, defer=3600)
        async with running(channel):
            for n in range(1, 21):
                push(bus, "1")
                await sent(channel, n)
                channel.poll = 0.01
                await asyncio.sleep(0.02)
            assert view.loads == 1  # the first page only: every push was a delta
            channel.quiet = 0.01  # the next pause counts: the read comes after it
            push(bus, "1")
            await wait_until_async(lambda: view.loads == 2, 30, "the read after the pause")

    asyncio.run(scenario())


def test_pushes_that_never_pause_still_get_the_periodic_read() -> None:
    async def scenario() -> None:
        bus, view = Bus(), Counter()
        channel = Channel(("td", 1), view, bus, poll=0.01, quiet=3600, defer=0.1)
        async with running(channel):
            deadline = time.monotonic() + 30
            while view.loads < 2:
                assert time.monotonic() < deadline, "no periodic read under a stream of pushes"
                push(bus, "1")
                await asyncio.sleep(0.01)

    asyncio.run(scenario())


def test_a_view_that_is_current_is_not_read_at_the_poll_until_the_reread() -> None:
    async def scenario() -> None:
        bus, view = Bus(), Counter()
        view.tells = True
        channel = Channel(("public", 1), view, bus, poll=0.01, quiet=0.0, reread=3600)
        async with running(channel):
            watcher: asyncio.Queue[str] = asyncio.Queue()
            channel.watchers.add(watcher)
            await wait_until_async(lambda: view.checks >= 20, 30, "twenty polls")
            assert (view.loads, channel.renders) == (1, 1)  # every poll found it current
            assert channel.skipped >= 20
            view.stored = 4  # changed with no push: the next poll's check says so, and it reads
            page = await next_message(watcher)
            assert (page["type"], page["fragments"]) == ("fragments", {"n": "4"})
            assert view.loads == 2
            channel.poll = 3600  # no poll between the push and its delta (the test's "database"
            await asyncio.sleep(0.05)  # is written at once, the delta comes a moment later)
            push(bus, "2")  # a delta keeps it current...
            view.stored = 6
            await sent(channel, 1)
            channel.poll = 0.01
            push(bus, "0")  # wakes the channel from its long wait: polls every 0.01 s again
            await sent(channel, 2)
            checks = view.checks
            await wait_until_async(lambda: view.checks >= checks + 10, 30, "ten more polls")
            assert view.loads == 2  # ...and nothing is read

    asyncio.run(scenario())


def test_a_current_view_is_read_all_the_same_once_the_reread_is_past() -> None:
    async def scenario() -> None:
        bus, view = Bus(), Counter()
        view.tells = True  # always current: only the reread reads it
        channel = Channel(("public", 1), view, bus, poll=0.01, quiet=0.0, reread=0.2)
        async with running(channel):
            started = time.monotonic()
            await wait_until_async(lambda: view.loads >= 3, 30, "reads at every reread")
            assert time.monotonic() - started >= 2 * 0.2  # not before the reread: polls skipped
            assert channel.skipped > 0

    asyncio.run(scenario())
    channel = Channel(("public", 1), Counter(), Bus(), reread=10.0)
    draws = [channel._reread() for _ in range(200)]
    assert all(10.0 <= d <= 15.0 for d in draws)
    assert max(draws) - min(draws) > 2.0  # spread: channels opened together read apart


def test_a_view_that_cannot_tell_is_read_at_every_poll() -> None:
    async def scenario() -> None:
        bus, view = Bus(), Counter()  # tells nothing: current() is False
        channel = Channel(("td", 1), view, bus, poll=0.01, quiet=0.0, reread=3600)
        async with running(channel):
            await wait_until_async(lambda: view.loads >= 10, 30, "a read at every poll")
            assert channel.skipped == 0

    asyncio.run(scenario())


def test_a_skipped_poll_does_not_hold_back_the_next_whole_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The shortest time between two whole reads counts from the last read, not from the last
    poll that found the view current: a push that needs a read after quiet polls is not held
    back by them."""
    paused: list[float] = []
    real_sleep = asyncio.sleep

    async def sleep(delay: float, *args: object) -> object:
        paused.append(delay)
        return await real_sleep(delay, *args)

    async def scenario() -> None:
        bus, view = Bus(), Counter()
        view.tells = True
        channel = Channel(("public", 1), view, bus, poll=0.01, quiet=0.0, min_interval=0.3)
        async with running(channel):
            started = time.monotonic()
            await wait_until_async(
                lambda: time.monotonic() - started > 1.0 and channel.skipped > 5, 30, "quiet polls"
            )
            paused.clear()
            view.stored = 1
            push(bus, "a full read")  # not a number: only a whole read shows it
            await wait_until_async(lambda: view.loads == 2, 30, "the whole read")
            assert not [p for p in paused if p > 0.1]  # the last read was over a second ago

    monkeypatch.setattr(asyncio, "sleep", sleep)
    asyncio.run(scenario())
