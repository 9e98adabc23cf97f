"""Changes made by others, for a gateway in its own process: a look at the watched tables'
rows every second or so, turned into the pushes the server would have sent over its bus.

Inside the server process the bus brings every push; in a process of its own the gateway only
shares the database (on PostgreSQL it also joins the NOTIFY fan-out, but it does not rely on it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from protocol.messages import ResultChanged, RoundChanged
from server.core.db import read
from server.core.models import BridgeTable, Event, Result, Section
from server.live.bus import Delivery
from server.services.views import result_view, round_info

Table = tuple[int, int]  # (section id, table number)


@dataclass(frozen=True, slots=True)
class Mark:
    """What a keypad sees of its table, in brief: a change in it is news for the keypad."""

    round: int
    released: int  # the section's current round
    closed: int
    boards: tuple[tuple[int, int, str], ...]  # (board, version, state) of this round's results


class Watcher:
    """Remembers each watched table's Mark; ``scan`` returns pushes for what changed since."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.marks: dict[Table, Mark] = {}
        self.scans = 0

    def scan(self, tables: Iterable[Table]) -> list[Delivery]:
        """Look at the tables now (in a worker thread: it queries the database, on a snapshot
        that takes no write lock: the server's writer never waits for the look)."""
        wanted = set(tables)
        for gone in set(self.marks) - wanted:
            del self.marks[gone]  # watched again later: it starts from a fresh mark
        if not wanted:
            return []
        self.scans += 1
        return read(self.engine, lambda s: self._scan(s, wanted))

    def _scan(self, session: Session, wanted: set[Table]) -> list[Delivery]:
        by_section: dict[int, set[int]] = defaultdict(set)
        for section_id, number in wanted:
            by_section[section_id].add(number)
        out: list[Delivery] = []
        for section_id, numbers in by_section.items():
            section = session.get(Section, section_id)
            if section is None:
                continue
            tables = session.exec(
                select(BridgeTable).where(
                    BridgeTable.section_id == section_id, col(BridgeTable.number).in_(numbers)
                )
            ).all()
            results = session.exec(
                select(Result).where(
                    Result.section_id == section_id, col(Result.table_number).in_(numbers)
                )
            ).all()
            for table in tables:
                here = [
                    r for r in results if r.table_number == table.number and r.round == table.round
                ]
                out += self._compare(session, section, table, here)
        return out

    def _compare(
        self, session: Session, section: Section, table: BridgeTable, results: list[Result]
    ) -> list[Delivery]:
        key = (section.id or 0, table.number)
        mark = Mark(
            table.round,
            section.current_round,
            section.closed_rounds,
            tuple(sorted((r.board, r.version, r.state) for r in results)),
        )
        old = self.marks.get(key)
        self.marks[key] = mark
        if old is None or old == mark:
            return []
        if (old.round, old.released, old.closed) != (mark.round, mark.released, mark.closed):
            event = session.get(Event, section.event_id)
            assert event is not None
            info = round_info(session, event, section, table)
            return [(key[0], key[1], RoundChanged(round=info))]
        before = set(old.boards)
        return [
            (key[0], key[1], ResultChanged(result=result_view(r)))
            for r in results
            if (r.board, r.version, r.state) not in before
        ]
