"""The push bus: a push reaches its own table's sockets and its section's views, and nobody
else; the TD's views count the terminals each table has open."""

from __future__ import annotations

import asyncio

from protocol.messages import Ack, Message
from server.live.bus import Bus, Subscription


def drained(sub: Subscription) -> list[str]:
    got: list[Message] = []
    while not sub.queue.empty():
        got.append(sub.queue.get_nowait())
    return [m.detail for m in got if isinstance(m, Ack)]


def test_a_push_reaches_its_table_and_its_section_views_only() -> None:
    async def scenario() -> None:
        bus = Bus()
        t3, t3_again, t4 = bus.subscribe(1, 3), bus.subscribe(1, 3), bus.subscribe(1, 4)
        view, other_section, other_view = (
            bus.subscribe(1, None),
            bus.subscribe(2, 3),
            bus.subscribe(2, None),
        )
        bus.publish([(1, 3, Ack(detail="table 3"))])
        bus.publish([(1, None, Ack(detail="section 1"))])
        bus.publish([(9, 3, Ack(detail="no such section"))])
        assert drained(t3) == drained(t3_again) == ["table 3", "section 1"]
        assert drained(t4) == ["section 1"]
        assert drained(view) == ["table 3", "section 1"]
        assert drained(other_section) == drained(other_view) == []
        assert bus.terminals(1) == {3: 2, 4: 1}
        assert bus.terminals(2) == {3: 1}
        assert bus.subscribers == 6

        bus.unsubscribe(t3)
        bus.unsubscribe(t3)  # twice: harmless
        bus.unsubscribe(t4)
        bus.publish([(1, 4, Ack(detail="table 4"))])
        assert drained(t4) == []
        assert drained(view) == ["table 4"]
        assert bus.terminals(1) == {3: 1}
        for sub in (t3_again, view, other_section, other_view):
            bus.unsubscribe(sub)
        assert (bus.subscribers, bus.terminals(1), bus.terminals(2)) == (0, {}, {})

    asyncio.run(scenario())


def test_a_full_inbox_loses_its_oldest_push() -> None:
    async def scenario() -> list[str]:
        bus = Bus()
        sub = bus.subscribe(1, 2)
        size = sub.queue.maxsize
        bus.publish([(1, 2, Ack(detail=str(n))) for n in range(size + 2)])
        return drained(sub)

    got = asyncio.run(scenario())
    assert got[0] == "2"
    assert got[-1] == str(len(got) + 1)
