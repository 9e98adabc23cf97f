"""In-process publish/subscribe of server messages to the websockets watching a section."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from protocol.messages import Message

Delivery = tuple[int, int | None, Message]
"""One push: (section id, table number or None for the whole section, message)."""

Observer = Callable[[list[Delivery]], None]

log = logging.getLogger(__name__)


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
        self._observers: list[Observer] = []

    def subscribe(self, section_id: int, table: int | None) -> Subscription:
        sub = Subscription(section_id, table)
        self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        self._subs.discard(sub)

    def terminals(self, section_id: int) -> dict[int, int]:
        """How many terminal websockets each table of a section has open in this process."""
        counts: dict[int, int] = {}
        for sub in list(self._subs):
            if sub.section_id == section_id and sub.table is not None:
                counts[sub.table] = counts.get(sub.table, 0) + 1
        return counts

    def observe(self, observer: Observer) -> Callable[[], None]:
        """Also hand every published batch to ``observer`` (the PostgreSQL fan-out, backups);
        returns the function that detaches it."""
        self._observers.append(observer)
        return lambda: self._observers.remove(observer)

    def publish(self, pushes: Iterable[Delivery]) -> None:
        """Deliver to this process's subscribers, then tell the observers."""
        batch = list(pushes)
        self.deliver(batch)
        for observer in list(self._observers):
            try:
                observer(batch)
            except Exception:  # an observer never stops a push reaching the websockets
                log.exception("bus observer %r failed", observer)

    def deliver(self, pushes: Iterable[Delivery]) -> None:
        """Deliver to this process's subscribers only (pushes relayed from another worker)."""
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
