"""In-process publish/subscribe of server messages to the websockets watching a section."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field

from protocol.messages import Message


@dataclass(eq=False)
class Subscription:
    """One websocket's inbox: messages for its section (and its table, for terminals)."""

    section_id: int
    table: int | None
    queue: asyncio.Queue[Message] = field(default_factory=lambda: asyncio.Queue(maxsize=1000))


class Bus:
    """Fan-out of pushes. Slow consumers lose their oldest pushes, never block a result."""

    def __init__(self) -> None:
        self._subs: set[Subscription] = set()

    def subscribe(self, section_id: int, table: int | None) -> Subscription:
        sub = Subscription(section_id, table)
        self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        self._subs.discard(sub)

    def publish(self, pushes: Iterable[tuple[int, int | None, Message]]) -> None:
        for section_id, table, message in pushes:
            for sub in list(self._subs):
                if sub.section_id != section_id:
                    continue
                # A terminal (sub.table set) sees only its own table's pushes; the TD's views
                # (sub.table None) see everything in the section.
                if sub.table is not None and table is not None and sub.table != table:
                    continue
                if sub.queue.full():
                    sub.queue.get_nowait()
                sub.queue.put_nowait(message)

    @property
    def subscribers(self) -> int:
        return len(self._subs)
