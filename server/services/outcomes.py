"""What a command or a TD action hands back: the reply, and the pushes for everyone watching
once its transaction has committed (the table itself, the other devices, the TD's views)."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy.orm import object_session
from sqlmodel import select

from protocol.messages import Error, Message, ResultChanged
from server.core.errors import TravellerError
from server.core.models import BridgeTable, Result
from server.services.views import result_view


@dataclass
class Push:
    """A message for the clients watching a section (``table`` None: every table of it)."""

    section_id: int
    table: int | None
    message: Message


#: The "table" of a push for the TD's views only: no table has the number 0.
TD_VIEWS = 0


def changed(result: Result) -> list[Push]:
    """Tell the result's own table while it is still in that round (and the TD's views): never
    another table's terminal, nor the next pair at that table number, who may have the board
    still to play (Law 16; e.g. the TD changes a result of a round the table has left)."""
    table = result.table_number
    session = object_session(result)
    if session is not None:
        now = session.execute(
            select(BridgeTable.round).where(
                BridgeTable.section_id == result.section_id, BridgeTable.number == table
            )
        ).scalar()
        if now is not None and now != result.round:
            table = TD_VIEWS
    return [Push(result.section_id, table, ResultChanged(result=result_view(result)))]


@dataclass
class Outcome:
    """The reply to the command and what to push once the transaction has committed.

    ``refusal``: the command is refused, but what it wrote stays (the audited lead refusal
    that must be counted): the caller commits, then answers with this error (``reply`` is the
    same refusal as a message, for a caller that sends messages)."""

    reply: Message
    pushes: list[Push] = field(default_factory=list)
    refusal: TravellerError | None = None


def refused_with_writes(
    error: TravellerError, entry_id: str | None, language: str | None
) -> Outcome:
    """A refusal whose writes are committed (an audited refusal, a counted wrong guess): in
    the event's ``language``, its reply the same refusal as a message."""
    error.language = language
    reply = Error(code=error.code, message=error.message, entry_id=entry_id)
    return Outcome(reply, refusal=error)
