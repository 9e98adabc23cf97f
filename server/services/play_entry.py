"""The play keyed at the table (issue 20): tricks keyed that differ from the tricks played.

The entry is taken as keyed (the table's score stands until the TD rules), but never silently:
the difference is audited and the TD is called to the table, once per board and difference.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlmodel import select

from server.models import TDCall
from server.services import audit
from server.services.entries import CheckedValues, play_call_reason

if TYPE_CHECKING:
    from server.services.table_context import TableContext


def call_td_if_differs(cmds: TableContext, board: int, values: CheckedValues) -> bool:
    """Call the TD when the tricks keyed and the tricks played differ; whether they do."""
    if not values.play_differs:
        return False
    reason = play_call_reason(board, values)
    section_id = cmds.section.id or 0
    open_call = cmds.s.exec(
        select(TDCall.id).where(
            TDCall.section_id == section_id,
            TDCall.table_number == cmds.table.number,
            TDCall.round == cmds.table.round,
            TDCall.reason == reason,
            TDCall.acknowledged_at == None,  # noqa: E711
        )
    ).first()
    if open_call is None:
        cmds.s.add(
            TDCall(
                section_id=section_id,
                table_number=cmds.table.number,
                round=cmds.table.round,
                reason=reason,
            )
        )
        audit.record(
            cmds.s,
            actor=cmds.label,
            action="play_differs",
            section_id=section_id,
            new={
                "table": cmds.table.number,
                "round": cmds.table.round,
                "board": board,
                "tricks": values.tricks,
                "played": values.play_tricks,
            },
            reason=reason,
        )
    return True
