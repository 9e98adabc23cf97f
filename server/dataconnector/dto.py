"""The Data Connector's data transfer objects, read from and written with their wire names."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator
from pydantic.alias_generators import to_pascal

from server.dataconnector.wire import DcError, ErrorType

M = TypeVar("M", bound="Wire")


class Wire(BaseModel):
    """A DTO: PascalCase wire names, JSON null means the default, unknown fields are ignored.

    A field's wire name is its name in PascalCase (``session_guid`` is ``SessionGuid``); the
    few the Data Connector spells otherwise (``PairNS``, ``EWMoveBeforePlay``: the seats in
    capitals) name their alias. tests/dataconnector/test_wire_names.py holds every wire name."""

    model_config = ConfigDict(alias_generator=to_pascal, populate_by_name=True, extra="ignore")

    @model_validator(mode="before")
    @classmethod
    def _null_is_default(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {key: value for key, value in data.items() if value is not None}
        return data

    def wire(self) -> dict[str, Any]:
        """The DTO as the scoring program reads it."""
        return self.model_dump(by_alias=True)


class RoundDTO(Wire):
    """Who plays at a table in a round, and the boards (LowBoardNumber..HighBoardNumber)."""

    session_guid: str = ""
    section_letters: str = ""
    table_number: int = 0
    round_number: int = 0
    low_board_number: int = 0
    high_board_number: int = 0
    # The seats in capitals, not PascalCase: their wire names are spelled out.
    pair_ns: int = Field(0, alias="PairNS")
    pair_ew: int = Field(0, alias="PairEW")
    team_ns: int = Field(0, alias="TeamNS")
    team_ew: int = Field(0, alias="TeamEW")


class TableDTO(Wire):
    """A table of a section with its rounds."""

    session_guid: str = ""
    section_letters: str = ""
    table_number: int = 0
    rounds: list[RoundDTO] = Field(default_factory=list)


class SectionDTO(Wire):
    """A section and its movement."""

    session_guid: str = ""
    scoring_group_number: int = 0
    letters: str = ""
    name: str = ""
    winners: int = 0
    game_type: int = 0
    ew_move_before_play: int = Field(0, alias="EWMoveBeforePlay")  # the seats in capitals
    missing_pair: int = 0
    keep_bridgemates_alive: bool = False
    is_combi_section: bool = False
    has_explicit_participations: bool = False
    tables: list[TableDTO] = Field(default_factory=list)


class PlayerDataDTO(Wire):
    """A player: number, name, country."""

    session_guid: str = ""
    player_number: str = ""
    first_name: str = ""
    last_name: str = ""
    country_code: str = ""


class ParticipationDTO(Wire):
    """A player's seat (table, direction 1-4 = N E S W) in the first round."""

    session_guid: str = ""
    section_letters: str = ""
    table_number: int = 0
    direction: int = 0
    round_number: int = 0
    player_number: str = ""
    is_player_swap: bool = False
    is_removal: bool = False
    first_name: str = ""
    last_name: str = ""
    country_code: str = ""


class SectionUpdateDTO(SectionDTO):
    """UpdateMovement: a section's new or changed movement, or its deletion."""

    scoring_group_scoring_method: int = 0
    is_deleted: bool = False
    added_players: list[PlayerDataDTO] = Field(default_factory=list)
    participations: list[ParticipationDTO] = Field(default_factory=list)


class ScoringGroupDTO(Wire):
    """Sections scored together, and how."""

    session_guid: str = ""
    sections: list[SectionDTO] = Field(default_factory=list)
    scoring_group_number: int = 0
    scoring_method: int = 0
    name: str = ""
    is_deleted: bool = False


class SessionDTO(Wire):
    """A session: its scoring groups, name and date."""

    scoring_groups: list[ScoringGroupDTO] = Field(default_factory=list)
    event_guid: str = ""
    session_guid: str = ""
    name: str = ""
    year: int = 0
    month: int = 0
    day: int = 0
    hour: int = 0
    minute: int = 0


SUIT_FIELDS = tuple(
    f"{seat}{suit}"
    for seat in ("North", "East", "South", "West")
    for suit in ("Spades", "Hearts", "Diamonds", "Clubs")
)


class HandrecordDTO(Wire):
    """The deal of a board: thirteen cards per hand, suit by suit (a void is "")."""

    model_config = ConfigDict(extra="allow")  # the 16 holdings, e.g. NorthSpades
    session_guid: str = ""
    scoring_group_number: int = 0
    section_letters: str = ""
    board_number: int = 0

    def holding(self, seat: str, suit: str) -> str | None:
        """The cards of one seat ("North") in one suit ("Spades"); None when not sent."""
        value = (self.model_extra or {}).get(f"{seat}{suit}")
        return value if isinstance(value, str) else None


class _SessionContents(Wire):
    """What InitializeEvent and AddSession both carry besides the sessions: players, seats,
    deals and the Bridgemate settings."""

    player_data: list[PlayerDataDTO] = Field(default_factory=list)
    participations: list[ParticipationDTO] = Field(default_factory=list)
    handrecords: list[HandrecordDTO] = Field(default_factory=list)
    bridgemate2_settings: list[dict[str, Any]] = Field(default_factory=list)
    bridgemate3_settings: list[dict[str, Any]] = Field(default_factory=list)


class InitDTO(_SessionContents):
    """InitializeEvent: sessions with their movements, players, seats, deals and settings."""

    commands: int = 0
    event_guid: str = ""
    sessions: list[SessionDTO] = Field(default_factory=list)


class AddSessionDTO(_SessionContents):
    """AddSession: one more session for an event initialized before (its own sections and
    scoring groups), with its players, first-round seats, deals and settings."""

    event_guid: str = ""
    club_id: str = ""
    session: SessionDTO | None = None


class BCSManagementRequestDTO(Wire):
    """ManageBCS: shut down (1), the running sessions (2), the scoring file (4), every known
    session (8), the Data Connector's file (16), or one of the allowed sums."""

    command: int = 0


class SessionInfoDTO(Wire):
    """A session in a ManageBCS answer."""

    event_guid: str = ""
    session_guid: str = ""
    session_name: str = ""
    session_date_time: str = ""


class BCSManagementResponseDTO(Wire):
    """The ManageBCS answer: the running event (or none), its or every session, the files."""

    event_guid: str = ""
    session_information: list[SessionInfoDTO] = Field(default_factory=list)
    is_running: bool = True
    scoring_file_path: str = ""
    data_connector_file_path: str = ""
    validation_messages: list[str] | None = None


class ContinueDTO(Wire):
    """ContinueEvent: carry on with an event initialized before."""

    event_guid: str = ""
    commands: int = 0


class ResultDTO(Wire):
    """A board result at a table in a round; Level -1..-9 artificial, -10 not played."""

    session_guid: str = ""
    section_letters: str = ""
    table_number: int = 0
    round_number: int = 0
    board_number: int = 0
    scoring_direction: int = 0
    is_deleted: bool = False
    pair_north_south: int = 0
    pair_east_west: int = 0
    declaring_pair: int = 0
    declarer_direction: int = 0
    level: int = 0
    denomination: int = 0
    stake: int = 0
    total_tricks: int = 0
    lead_card_rank: int = 0
    lead_card_suit: int = 0


class TdCallDTO(Wire):
    """A call for the TD: where, when, and its status (1 launched .. 4 deferred)."""

    session_guid: str = ""
    section_letters: str = ""
    table_number: int = 0
    round_number: int = 0
    hour: int = 0
    minute: int = 0
    status: int = 0


def _problem(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "data"
    return f"Invalid {where}: {first.get('msg', 'invalid value')}"


def read(model: type[M], data: Any) -> M:
    """One DTO from decoded JSON, or a Validation error naming the bad field."""
    if data is None:
        raise DcError(ErrorType.NO_DATA, f"The request carries no {model.__name__}.")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise DcError(ErrorType.VALIDATION, f"{model.__name__}: {_problem(exc)}") from exc


def read_list(model: type[M], data: Any) -> list[M]:
    """A non-empty array of DTOs, or a NoData / Validation error."""
    if data is None or data == []:
        raise DcError(ErrorType.NO_DATA, f"The request carries no {model.__name__}s.")
    try:
        return TypeAdapter(list[model]).validate_python(data)  # type: ignore[valid-type]
    except ValidationError as exc:
        raise DcError(ErrorType.VALIDATION, f"{model.__name__}: {_problem(exc)}") from exc
