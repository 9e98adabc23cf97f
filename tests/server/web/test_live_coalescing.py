"""Live pages coalesce their renders (server/web/live.py): a burst of pushes costs one render,
never none — the last change is always shown."""

from __future__ import annotations

import asyncio

from protocol.messages import Ack
from server.live.bus import Bus
from server.web.live import Channel, Hub, min_interval


class Gate(asyncio.Lock):
    """The hub's render lock, telling the test when a render waits for it."""

    def __init__(self) -> None:
        super().__init__()
        self.waited = asyncio.Event()

    async def acquire(self) -> bool:
        if self.locked():
            self.waited.set()
        return await super().acquire()


def test_a_burst_of_pushes_is_one_render_showing_the_last_change() -> None:
    async def scenario() -> tuple[int, str]:
        bus = Bus()
        state = {"n": 0}

        async def render() -> dict[str, str]:
            return {"n": str(state["n"])}

        gate = Gate()
        channel = Channel(("td", 1), render, bus, min_interval=0.01, gate=gate)
        task = asyncio.create_task(channel.run())
        await channel.ready.wait()
        watcher: asyncio.Queue[str] = asyncio.Queue()
        channel.watchers.add(watcher)
        async with gate:  # hold renders back while 100 results arrive
            for n in range(1, 101):
                state["n"] = n
                bus.publish([(1, None, Ack(entry_id=f"e{n}", detail="stored"))])
            await asyncio.wait_for(gate.waited.wait(), 30)  # the channel woke up, waits for it
        sent = await asyncio.wait_for(watcher.get(), 30)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return channel.renders, sent

    renders, sent = asyncio.run(scenario())
    assert renders == 2  # the first page, then one for the whole burst
    assert '"n": "100"' in sent


def test_another_sections_pushes_cause_no_render() -> None:
    async def scenario() -> int:
        bus = Bus()
        rendered = asyncio.Event()

        async def render() -> dict[str, str]:
            rendered.set()
            return {}

        channel = Channel(("td", 1), render, bus, poll=3600)
        task = asyncio.create_task(channel.run())
        await channel.ready.wait()
        bus.publish([(2, None, Ack(entry_id="x", detail="stored"))])
        await asyncio.sleep(0.05)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return channel.renders

    assert asyncio.run(scenario()) == 1


def test_the_td_dashboard_renders_more_often_than_public_pages() -> None:
    assert min_interval("td") < min_interval("public")
    assert min_interval("td") <= 0.25  # the dashboard's push goal


def test_channels_of_a_hub_share_one_render_gate() -> None:
    async def scenario() -> bool:
        hub = Hub(Bus())
        return isinstance(hub.gate, asyncio.Lock)

    assert asyncio.run(scenario())
