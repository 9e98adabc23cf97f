"""The check every fault run ends with: each acknowledged result is in the database exactly once."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session, select

from benchmarks.outbox import values_for
from server.core.db import make_engine
from server.core.models import Audit, BridgeTable, ReceivedEntry, Result


@dataclass
class Verdict:
    """What the database holds against what the terminals were told."""

    acked: int = 0
    results: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def verify(
    database_url: str,
    section_id: int,
    acks: list[dict[str, Any]],
    *,
    expect_complete: bool = True,
    expected_values: bool = True,
) -> Verdict:
    """Every acknowledged entry id is stored once, its result exists once and was entered and
    confirmed once (audit), with the values the terminal keyed; and SQLite is not corrupt."""
    verdict = Verdict(acked=len(acks))
    engine = make_engine(database_url)
    try:
        with Session(engine) as s:
            tables = {
                t.number: t
                for t in s.exec(select(BridgeTable).where(BridgeTable.section_id == section_id))
            }
            received = Counter(
                (r.table_id, r.entry_id) for r in s.exec(select(ReceivedEntry)).all()
            )
            results = s.exec(select(Result).where(Result.section_id == section_id)).all()
            verdict.results = len(results)
            by_key = Counter((r.table_number, r.round, r.board) for r in results)
            for key, count in by_key.items():
                if count != 1:
                    verdict.problems.append(f"result {key} stored {count} times")
            by_board = {(r.table_number, r.board): r for r in results}
            actions = Counter(
                (a.result_id, a.action)
                for a in s.exec(select(Audit).where(Audit.section_id == section_id)).all()
            )
            for ack in acks:
                table = tables.get(int(ack["table"]))
                if table is None:
                    verdict.problems.append(f"ack for unknown table {ack['table']}")
                    continue
                seen = received[(table.id or 0, ack["entry_id"])]
                if seen != 1:
                    verdict.problems.append(
                        f"table {ack['table']} {ack['kind']} {ack['entry_id']}: stored {seen} times"
                    )
                result = by_board.get((table.number, int(ack["board"])))
                if result is None:
                    verdict.problems.append(
                        f"acknowledged board {ack['board']} at table {ack['table']} is missing"
                    )
                    continue
                for action in ("entered", "confirmed"):
                    n = actions[(result.id, action)]
                    if n > 1 or (expect_complete and n != 1):
                        verdict.problems.append(
                            f"board {result.board} at table {table.number}: {action} {n} times"
                        )
                if expected_values:
                    want = values_for(table.number, result.board)
                    if result.contract != want.contract or result.declarer != want.declarer:
                        verdict.problems.append(
                            f"board {result.board} at table {table.number}: "
                            f"{result.contract} {result.declarer}, keyed {want.contract}"
                        )
                if expect_complete and result.state != "confirmed":
                    verdict.problems.append(
                        f"board {result.board} at table {table.number} is {result.state}"
                    )
            if database_url.startswith("sqlite"):
                check = s.connection().exec_driver_sql("PRAGMA integrity_check").scalar()
                if check != "ok":
                    verdict.problems.append(f"integrity_check: {check}")
    finally:
        engine.dispose()
    return verdict
