"""The play keyed at the table: checked against the hand record, and tricks keyed
that differ from the tricks played.

A play the hand record rules out is refused with the card and the reason, at most as often as a
wrong lead (protocol/fair_play.py LEAD_REFUSALS), each refusal audited; then it is taken and
flagged for the TD. Tricks keyed that differ from the tricks played are taken as keyed (the
table's score stands until the TD rules), but never silently: the difference is audited and the
TD is called to the table, once per board and difference.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlmodel import select

from protocol import fair_play as rule
from protocol.bridge import TableResult
from server.core.errors import InvalidError
from server.core.models import Audit, TDCall
from server.services import audit
from server.services.entries import CheckedValues, check_play, play_call_reason
from server.services.outcomes import Outcome, refused_with_writes

if TYPE_CHECKING:
    from server.services.table.table_context import TableContext


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
        cmds.call_td(reason)
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


# ---------------------------------------------------------------- the play against the deal

#: The audit action of a play refused against the hand record (counted per table and board).
PLAY_REFUSED = "play_refused"
#: The audit action of a play taken unchecked once its refusals ran out (flagged for the TD).
PLAY_FLAGGED = "play_flagged"


@dataclass(frozen=True)
class PlayCheck:
    """The play of an actual entry checked against the hand record: refused (the reply,
    committed so that the refusal stays audited and counted), or taken and flagged."""

    refusal: Outcome | None = None
    flagged: bool = False


def _where(cmds: TableContext, board: int) -> dict[str, int]:
    return {"table": cmds.table.number, "round": cmds.table.round, "board": board}


def play_refusals(cmds: TableContext, board: int) -> set[str]:
    """The entry ids whose play was refused on this board at this table in this round."""
    rows = cmds.s.exec(
        select(Audit.new).where(
            Audit.section_id == cmds.section.id,
            Audit.action == PLAY_REFUSED,
            Audit.actor == cmds.label,
        )
    ).all()
    where = _where(cmds, board)
    found = (json.loads(new) for new in rows if new)
    return {str(d.get("entry_id")) for d in found if all(d.get(k) == v for k, v in where.items())}


def check_against_deal(
    cmds: TableContext, entry_id: str, board: int, values: CheckedValues
) -> PlayCheck:
    """Refuse a play the hand record rules out (a card not in the hand, a revoke), at most
    ``LEAD_REFUSALS`` times per table and board as a wrong lead is, each refusal audited: each
    tells a table something of the cards, so a cap keeps it from rebuilding the deal. After
    that the entry is taken and flagged for the TD. Only an actual entry is checked (a query
    never reads the deal: entries.checked_entry with_deal=False)."""
    if values.play is None or values.declarer is None:
        return PlayCheck()
    deal = cmds.deal(board)
    if not deal:
        return PlayCheck()
    try:
        check_play(board, values.play, TableResult.make(values.contract, values.declarer, 0), deal)
    except InvalidError as error:
        refused = play_refusals(cmds, board)
        if entry_id not in refused:  # a resend of a refused entry is refused again, not counted
            if not rule.lead_checked(len(refused)):
                return PlayCheck(flagged=True)
            audit.record(
                cmds.s,
                actor=cmds.label,
                action=PLAY_REFUSED,
                section_id=cmds.section.id,
                new={**_where(cmds, board), "entry_id": entry_id, "code": error.code},
                reason=f"the play does not fit the hand record on board {board}",
            )
        return PlayCheck(refusal=refused_with_writes(error, entry_id, cmds.event.language))
    return PlayCheck()


def flag_play(cmds: TableContext, board: int, entry_id: str) -> None:
    """A play taken as keyed once its refusals ran out: audited, and a call for the TD."""
    reason = (
        f"board {board}: the play does not fit the hand record (taken after "
        f"{rule.LEAD_REFUSALS} refusals): check the play"
    )
    audit.record(
        cmds.s,
        actor=cmds.label,
        action=PLAY_FLAGGED,
        section_id=cmds.section.id,
        new={**_where(cmds, board), "entry_id": entry_id},
        reason=reason,
    )
    cmds.call_td(reason)
