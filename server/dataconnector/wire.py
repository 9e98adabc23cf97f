"""The Data Connector's envelopes: command numbers, data and error types, request and response."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

#: The GET ping answer; scoring-program clients look for this phrase in it.
PING_TEXT = "Bridgemate dataconnector service version 5 (compatible): Traveller"

#: The actor written into the audit trail for every change a scoring program makes.
PROGRAM = "scoring program"


class Command(IntEnum):
    """ScoringProgramRequest.Command: what the scoring program asks for."""

    NONE = 0
    CONNECT = 1
    STOP_BCS = 2
    DISCONNECT = 3
    PING = 4
    INITIALIZE_EVENT = 5
    UPDATE_MOVEMENT = 6
    ADD_SESSION = 7
    UPDATE_SCORING_GROUPS = 8
    PUT_TABLE_GRAPH = 9
    PUT_RESULTS = 10
    PUT_PLAYER_DATA = 11
    PUT_PARTICIPATIONS = 12
    PUT_HANDRECORDS = 13
    PUT_BRIDGEMATE2_SETTINGS = 14
    PUT_BRIDGEMATE3_SETTINGS = 15
    UPDATE_SESSION = 16
    UPDATE_SECTION = 17
    UPDATE_TABLE = 18
    POLL_NEW_RESULTS = 19
    POLL_NEW_PLAYER_DATA = 20
    POLL_NEW_PARTICIPATIONS = 21
    POLL_NEW_HANDRECORDS = 22
    POLL_ALL_RESULTS = 23
    POLL_ALL_PLAYER_DATA = 24
    POLL_ALL_PARTICIPATIONS = 25
    POLL_ALL_HANDRECORDS = 26
    ACCEPT_RESULTS = 27
    ACCEPT_PLAYER_DATA = 28
    ACCEPT_PARTICIPATIONS = 29
    ACCEPT_HANDRECORDS = 30
    CONTINUE_EVENT = 31
    GET_MOVEMENT = 32
    GET_ALL_MOVEMENTS = 33
    MANAGE_BCS = 34
    CLEAR_DATA = 35
    POLL_NEW_TD_CALLS = 36
    POLL_ALL_TD_CALLS = 37
    ACCEPT_TD_CALLS = 38
    PUT_TD_CALLS = 39
    TEST_DATA = 40


class DataType(IntEnum):
    """ScoringProgramResponse.DataType: what SerializedData holds."""

    NONE = 0
    OK = 1
    WARNING = 3
    ERROR = 4
    PLAYER_DATA = 10
    PARTICIPATIONS = 11
    RESULTS = 12
    HANDRECORDS = 13
    MOVEMENT = 14
    SESSION = 15
    SESSIONS = 16
    EVENT_INFO = 17
    ALL_SESSIONS_INFO = 18
    SCORING_FILE_LOCATION = 19
    TD_CALLS = 21


class ErrorType(IntEnum):
    """ScoringProgramResponse.ErrorType: why a request failed."""

    NONE = 0
    BUSY = 1
    NO_DATA = 2
    NO_UPDATES = 3
    MOVEMENT = 4
    VALIDATION = 5
    ENTRY_UNKNOWN = 6
    EXCEPTION = 7
    NOT_IMPLEMENTED = 8


class DcError(Exception):
    """A request the Data Connector answers with DataType Error (never an HTTP error)."""

    def __init__(self, error_type: ErrorType, message: str) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.message = message


@dataclass(frozen=True)
class Request:
    """A parsed ScoringProgramRequest envelope."""

    command: Command
    club_id: str
    licence_key: str
    session_guid: str
    serialized_data: str

    def data(self) -> Any:
        """SerializedData decoded from JSON (None when empty), or a Validation error."""
        if not self.serialized_data.strip():
            return None
        try:
            return json.loads(self.serialized_data)
        except json.JSONDecodeError as exc:
            raise DcError(
                ErrorType.VALIDATION, f"SerializedData is not JSON: {exc.msg} at {exc.pos}"
            ) from exc


def _text(envelope: dict[str, Any], key: str) -> str:
    value = envelope.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise DcError(ErrorType.VALIDATION, f"{key} must be a string.")
    return value


def parse_request(body: bytes) -> Request:
    """The envelope from the POSTed body, or a Validation error."""
    try:
        envelope = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DcError(ErrorType.VALIDATION, f"The request is not JSON: {exc}") from exc
    if not isinstance(envelope, dict):
        raise DcError(ErrorType.VALIDATION, "The request must be a ScoringProgramRequest object.")
    number = envelope.get("Command")
    if not isinstance(number, int) or isinstance(number, bool):
        raise DcError(ErrorType.VALIDATION, "Command must be a command number.")
    try:
        command = Command(number)
    except ValueError as exc:
        raise DcError(ErrorType.VALIDATION, f"Unknown command {number}.") from exc
    return Request(
        command=command,
        club_id=_text(envelope, "ClubId"),
        licence_key=_text(envelope, "LicenceKey"),
        session_guid=_text(envelope, "SessionGuid"),
        serialized_data=_text(envelope, "SerializedData"),
    )


@dataclass(frozen=True)
class Response:
    """A ScoringProgramResponse; ``payload`` is serialized to JSON into SerializedData."""

    command: Command
    data_type: DataType
    payload: Any
    session_guid: str = ""
    last_queue_item_id: int = 0
    error_type: ErrorType = ErrorType.NONE

    def wire(self) -> dict[str, Any]:
        """The envelope with its wire names."""
        return {
            "RequestCommand": int(self.command),
            "DataType": int(self.data_type),
            "LastQueueItemId": self.last_queue_item_id,
            "ErrorType": int(self.error_type),
            "SessionGuid": self.session_guid,
            "SerializedData": json.dumps(self.payload, separators=(",", ":")),
        }


def ok(command: Command, message: str, session_guid: str = "") -> Response:
    """A successful answer carrying a plain-words message."""
    return Response(command, DataType.OK, message, session_guid)


def error(command: Command, exc: DcError, session_guid: str = "") -> Response:
    """The protocol's error answer: DataType Error, the error type and the message."""
    return Response(command, DataType.ERROR, exc.message, session_guid, 0, exc.error_type)
