"""ManageBCS: which event Traveller is running, every session it knows, and "shut down".

Scoring programs call it at start-up (BCSManagementRequestDTO, Command 2) to choose between
ContinueEvent (the event they want is running) and InitializeEvent. BCS runs one event at a
time: the last one initialized, continued or given a session. Traveller answers the same way;
it has no scoring file (its data is in its database: `traveller backup`), so the file paths
are empty. "Shut down now" is answered OK and changes nothing: Traveller is the server of the
tables and the TD, and keeps running for them.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, select

from server.core.models import DcSession, utcnow
from server.dataconnector.dto import (
    BCSManagementRequestDTO,
    BCSManagementResponseDTO,
    SessionInfoDTO,
)
from server.dataconnector.store import load, save
from server.dataconnector.wire import Command, DataType, DcError, ErrorType, Response, ok

SHUT_DOWN, RUNNING, SCORING_FILE, ALL_SESSIONS, CONNECTOR_FILE = 1, 2, 4, 8, 16
#: The commands and sums BCSManagementRequestDTO.Validate allows.
ALLOWED = frozenset({1, 2, 4, 8, 16, 2 + 4, 2 + 16, 2 + 4 + 16, 4 + 16})
#: Where a session keeps when it was last opened (initialized, continued, added).
OPENED = "opened"


def opened(session: Session, dcs: DcSession) -> None:
    """The session's event is now the running one."""
    data = load(dcs)
    data[OPENED] = utcnow().isoformat()
    save(session, dcs, data)


def event_guid(dcs: DcSession) -> str:
    """The session's event guid (a single session's event guid may be its own guid)."""
    return dcs.event_guid or dcs.session_guid


def _info(dcs: DcSession) -> SessionInfoDTO:
    when = load(dcs).get("session", {})
    date, time = when.get("date", ""), when.get("time", "00:00")
    return SessionInfoDTO(
        event_guid=event_guid(dcs),
        session_guid=dcs.session_guid,
        session_name=dcs.name,
        session_date_time=f"{date}T{time}:00" if date else "",
    )


def _last_opened(dcs: DcSession) -> tuple[datetime, int]:
    stamp = load(dcs).get(OPENED)
    at = datetime.fromisoformat(stamp) if isinstance(stamp, str) else datetime.min
    return (at.replace(tzinfo=None), dcs.id or 0)


def manage(session: Session, dto: BCSManagementRequestDTO) -> Response:
    """The answer to one ManageBCS request."""
    if dto.command not in ALLOWED:
        raise DcError(
            ErrorType.VALIDATION,
            f"BCSManagementRequestDTO: invalid Command ({dto.command}); "
            "valid values are 1, 2, 4, 2+4, 2+16, 2+4+16, 4+16 or 8.",
        )
    cmd = Command.MANAGE_BCS
    if dto.command == SHUT_DOWN:
        return ok(cmd, "Traveller keeps running: it serves the tables and the TD as well.")
    rows = list(session.exec(select(DcSession).order_by(col(DcSession.id))))
    answer = BCSManagementResponseDTO()
    if dto.command == ALL_SESSIONS:
        answer.session_information = [_info(r) for r in rows]
        return Response(cmd, DataType.ALL_SESSIONS_INFO, answer.wire())
    if dto.command & RUNNING:
        if rows:
            running = event_guid(max(rows, key=_last_opened))
            answer.event_guid = running
            answer.session_information = [_info(r) for r in rows if event_guid(r) == running]
        return Response(cmd, DataType.EVENT_INFO, answer.wire())
    return Response(cmd, DataType.SCORING_FILE_LOCATION, answer.wire())
