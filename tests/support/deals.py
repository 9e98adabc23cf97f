"""Deals keyed at the table (`enter_deal`) and a board's deal set in the database, with two
deals that differ by one card in two hands."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from server.core.models import Board, BridgeTable, MovementAssignment
from tests.support.api import Table, new_id

DEAL = "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432"
OTHER = "N:AKQT.AKQ.AKQ.AKQ J987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432"


def later(engine: Engine, board: int) -> tuple[int, int]:
    """The table and round that play ``board`` after round 1."""
    with Session(engine) as s:
        rows = s.exec(select(MovementAssignment).order_by(col(MovementAssignment.round))).all()
    return next(
        (r.table_number, r.round) for r in rows if r.round > 1 and board in r.board_numbers()
    )


def seat_at(engine: Engine, table: int, round_: int) -> None:
    """Move a table to a later round (as the end-of-round gate would once its boards are in)."""
    with Session(engine) as s:
        row = s.exec(select(BridgeTable).where(BridgeTable.number == table)).one()
        row.round = round_
        s.add(row)
        s.commit()


def enter_deal(table: Table, board: int, deal: str, entry_id: str | None = None) -> Any:
    return table.send(
        {"type": "enter_deal", "entry_id": entry_id or new_id(), "board": board, "deal": deal}
    )


def put_deal(engine: Engine, board: int, deal: str) -> None:
    with Session(engine) as s:
        row = s.exec(select(Board).where(Board.number == board)).one()
        row.deal = deal
        s.add(row)
        s.commit()
