"""The keyed deals of a section as the tables' round info reads them: which boards
ask a table to key their deal, or to check one. The commands are
server/services/table/deal_entry.py.
"""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import Session, col, select

from protocol.messages import DealAsk
from server.core.models import KeyedDeal


def keyed_deal(session: Session, section_id: int, board: int) -> KeyedDeal | None:
    return session.exec(
        select(KeyedDeal).where(KeyedDeal.section_id == section_id, KeyedDeal.board == board)
    ).first()


def checks_of(row: KeyedDeal) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads(row.checks or "[]")
    return found


def asks(
    session: Session, section_id: int, table_number: int, round_: int, unknown: list[int]
) -> dict[int, DealAsk | None]:
    """What each board of a table's round whose deal is `unknown` (no hand record) asks of it
    (BoardStatus.deal): "enter" when no table has keyed its deal, "check" when another table
    has, None for a deal this table keyed, a deal already confirmed or one that waits for the
    TD. A board with a hand record asks nothing."""
    if not unknown:
        return {}
    rows = session.exec(
        select(KeyedDeal).where(
            KeyedDeal.section_id == section_id,
            col(KeyedDeal.board).in_(unknown),
        )
    ).all()
    by_board = {row.board: row for row in rows}
    out: dict[int, DealAsk | None] = {}
    for number in unknown:
        row = by_board.get(number)
        if row is None:
            out[number] = "enter"
        elif row.state == "keyed" and not keyed_here(row, table_number, round_):
            out[number] = "check" if not _checked_here(row, table_number, round_) else None
        else:
            out[number] = None
    return out


def keyed_here(row: KeyedDeal, table_number: int, round_: int) -> bool:
    return (row.table_number, row.round) == (table_number, round_)


def _checked_here(row: KeyedDeal, table_number: int, round_: int) -> bool:
    return any((c.get("table"), c.get("round")) == (table_number, round_) for c in checks_of(row))
