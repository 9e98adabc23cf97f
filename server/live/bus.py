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
    """Fan-out of pushes. Slow consumers lose their oldest pushes, never block a result.

    Its subscriptions are kept by section and table: a push reaches its table's sockets and
    the section's views without a look at the other sections' and tables' sockets."""

    def __init__(self) -> None:
        #: section id -> table number (None: the TD's and the public's views) -> its inboxes
        self._sections: dict[int, dict[int | None, set[Subscription]]] = {}
        self._observers: list[Observer] = []

    def subscribe(self, section_id: int, table: int | None) -> Subscription:
        sub = Subscription(section_id, table)
        self._sections.setdefault(section_id, {}).setdefault(table, set()).add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        tables = self._sections.get(sub.section_id, {})
        subs = tables.get(sub.table)
        if subs is None:
            return
        subs.discard(sub)
        if not subs:
            del tables[sub.table]
            if not tables:
                del self._sections[sub.section_id]

    def terminals(self, section_id: int) -> dict[int, int]:
        """How many terminal websockets each table of a section has open in this process."""
        tables = self._sections.get(section_id, {})
        return {table: len(subs) for table, subs in tables.items() if table is not None}

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
            tables = self._sections.get(section_id)
            if not tables:
                continue
            # A terminal (its table set) sees only its own table's pushes; the TD's views
            # (table None) see everything in the section.
            if table is None:
                subs = [sub for each in tables.values() for sub in each]
            else:
                subs = [*tables.get(None, ()), *tables.get(table, ())]
            for sub in subs:
                if sub.queue.full():
                    sub.queue.get_nowait()
                sub.queue.put_nowait(message)

    @property
    def subscribers(self) -> int:
        return sum(len(subs) for tables in self._sections.values() for subs in tables.values())
