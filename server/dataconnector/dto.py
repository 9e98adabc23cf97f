"""The Data Connector's data transfer objects, read from and written with their wire names."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from server.dataconnector.wire import DcError, ErrorType

M = TypeVar("M", bound="Wire")


class Wire(BaseModel):
    """A DTO: PascalCase wire names, JSON null means the default, unknown fields are ignored."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")

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

    session_guid: str = Field("", alias="SessionGuid")
    section_letters: str = Field("", alias="SectionLetters")
    table_number: int = Field(0, alias="TableNumber")
    round_number: int = Field(0, alias="RoundNumber")
    low_board_number: int = Field(0, alias="LowBoardNumber")
    high_board_number: int = Field(0, alias="HighBoardNumber")
    pair_ns: int = Field(0, alias="PairNS")
    pair_ew: int = Field(0, alias="PairEW")
    team_ns: int = Field(0, alias="TeamNS")
    team_ew: int = Field(0, alias="TeamEW")


class TableDTO(Wire):
    """A table of a section with its rounds."""

    session_guid: str = Field("", alias="SessionGuid")
    section_letters: str = Field("", alias="SectionLetters")
    table_number: int = Field(0, alias="TableNumber")
    rounds: list[RoundDTO] = Field(default_factory=list, alias="Rounds")


class SectionDTO(Wire):
    """A section and its movement."""

    session_guid: str = Field("", alias="SessionGuid")
    scoring_group_number: int = Field(0, alias="ScoringGroupNumber")
    letters: str = Field("", alias="Letters")
    name: str = Field("", alias="Name")
    winners: int = Field(0, alias="Winners")
    game_type: int = Field(0, alias="GameType")
    ew_move_before_play: int = Field(0, alias="EWMoveBeforePlay")
    missing_pair: int = Field(0, alias="MissingPair")
    keep_bridgemates_alive: bool = Field(False, alias="KeepBridgematesAlive")
    is_combi_section: bool = Field(False, alias="IsCombiSection")
    has_explicit_participations: bool = Field(False, alias="HasExplicitParticipations")
    tables: list[TableDTO] = Field(default_factory=list, alias="Tables")


class PlayerDataDTO(Wire):
    """A player: number, name, country."""

    session_guid: str = Field("", alias="SessionGuid")
    player_number: str = Field("", alias="PlayerNumber")
    first_name: str = Field("", alias="FirstName")
    last_name: str = Field("", alias="LastName")
    country_code: str = Field("", alias="CountryCode")


class ParticipationDTO(Wire):
    """A player's seat (table, direction 1-4 = N E S W) in the first round."""

    session_guid: str = Field("", alias="SessionGuid")
    section_letters: str = Field("", alias="SectionLetters")
    table_number: int = Field(0, alias="TableNumber")
    direction: int = Field(0, alias="Direction")
    round_number: int = Field(0, alias="RoundNumber")
    player_number: str = Field("", alias="PlayerNumber")
    is_player_swap: bool = Field(False, alias="IsPlayerSwap")
    is_removal: bool = Field(False, alias="IsRemoval")
    first_name: str = Field("", alias="FirstName")
    last_name: str = Field("", alias="LastName")
    country_code: str = Field("", alias="CountryCode")


class SectionUpdateDTO(SectionDTO):
    """UpdateMovement: a section's new or changed movement, or its deletion."""

    scoring_group_scoring_method: int = Field(0, alias="ScoringGroupScoringMethod")
    is_deleted: bool = Field(False, alias="IsDeleted")
    added_players: list[PlayerDataDTO] = Field(default_factory=list, alias="AddedPlayers")
    participations: list[ParticipationDTO] = Field(default_factory=list, alias="Participations")


class ScoringGroupDTO(Wire):
    """Sections scored together, and how."""

    session_guid: str = Field("", alias="SessionGuid")
    sections: list[SectionDTO] = Field(default_factory=list, alias="Sections")
    scoring_group_number: int = Field(0, alias="ScoringGroupNumber")
    scoring_method: int = Field(0, alias="ScoringMethod")
    name: str = Field("", alias="Name")
    is_deleted: bool = Field(False, alias="IsDeleted")


class SessionDTO(Wire):
    """A session: its scoring groups, name and date."""

    scoring_groups: list[ScoringGroupDTO] = Field(default_factory=list, alias="ScoringGroups")
    event_guid: str = Field("", alias="EventGuid")
    session_guid: str = Field("", alias="SessionGuid")
    name: str = Field("", alias="Name")
    year: int = Field(0, alias="Year")
    month: int = Field(0, alias="Month")
    day: int = Field(0, alias="Day")
    hour: int = Field(0, alias="Hour")
    minute: int = Field(0, alias="Minute")


SUIT_FIELDS = tuple(
    f"{seat}{suit}"
    for seat in ("North", "East", "South", "West")
    for suit in ("Spades", "Hearts", "Diamonds", "Clubs")
)


class HandrecordDTO(Wire):
    """The deal of a board: thirteen cards per hand, suit by suit (a void is "")."""

    model_config = ConfigDict(populate_by_name=True, extra="allow")
    session_guid: str = Field("", alias="SessionGuid")
    scoring_group_number: int = Field(0, alias="ScoringGroupNumber")
    section_letters: str = Field("", alias="SectionLetters")
    board_number: int = Field(0, alias="BoardNumber")

    def holding(self, seat: str, suit: str) -> str | None:
        """The cards of one seat ("North") in one suit ("Spades"); None when not sent."""
        value = (self.model_extra or {}).get(f"{seat}{suit}")
        return value if isinstance(value, str) else None


class _SessionContents(Wire):
    """What InitializeEvent and AddSession both carry besides the sessions: players, seats,
    deals and the Bridgemate settings."""

    player_data: list[PlayerDataDTO] = Field(default_factory=list, alias="PlayerData")
    participations: list[ParticipationDTO] = Field(default_factory=list, alias="Participations")
    handrecords: list[HandrecordDTO] = Field(default_factory=list, alias="Handrecords")
    bridgemate2_settings: list[dict[str, Any]] = Field(
        default_factory=list, alias="Bridgemate2Settings"
    )
    bridgemate3_settings: list[dict[str, Any]] = Field(
        default_factory=list, alias="Bridgemate3Settings"
    )


class InitDTO(_SessionContents):
    """InitializeEvent: sessions with their movements, players, seats, deals and settings."""

    commands: int = Field(0, alias="Commands")
    event_guid: str = Field("", alias="EventGuid")
    sessions: list[SessionDTO] = Field(default_factory=list, alias="Sessions")


class AddSessionDTO(_SessionContents):
    """AddSession: one more session for an event initialized before (its own sections and
    scoring groups), with its players, first-round seats, deals and settings."""

    event_guid: str = Field("", alias="EventGuid")
    club_id: str = Field("", alias="ClubId")
    session: SessionDTO | None = Field(None, alias="Session")


class BCSManagementRequestDTO(Wire):
    """ManageBCS: shut down (1), the running sessions (2), the scoring file (4), every known
    session (8), the Data Connector's file (16), or one of the allowed sums."""

    command: int = Field(0, alias="Command")


class SessionInfoDTO(Wire):
    """A session in a ManageBCS answer."""

    event_guid: str = Field("", alias="EventGuid")
    session_guid: str = Field("", alias="SessionGuid")
    session_name: str = Field("", alias="SessionName")
    session_date_time: str = Field("", alias="SessionDateTime")


class BCSManagementResponseDTO(Wire):
    """The ManageBCS answer: the running event (or none), its or every session, the files."""

    event_guid: str = Field("", alias="EventGuid")
    session_information: list[SessionInfoDTO] = Field(
        default_factory=list, alias="SessionInformation"
    )
    is_running: bool = Field(True, alias="IsRunning")
    scoring_file_path: str = Field("", alias="ScoringFilePath")
    data_connector_file_path: str = Field("", alias="DataConnectorFilePath")
    validation_messages: list[str] | None = Field(None, alias="ValidationMessages")


class ContinueDTO(Wire):
    """ContinueEvent: carry on with an event initialized before."""

    event_guid: str = Field("", alias="EventGuid")
    commands: int = Field(0, alias="Commands")


class ResultDTO(Wire):
    """A board result at a table in a round; Level -1..-9 artificial, -10 not played."""

    session_guid: str = Field("", alias="SessionGuid")
    section_letters: str = Field("", alias="SectionLetters")
    table_number: int = Field(0, alias="TableNumber")
    round_number: int = Field(0, alias="RoundNumber")
    board_number: int = Field(0, alias="BoardNumber")
    scoring_direction: int = Field(0, alias="ScoringDirection")
    is_deleted: bool = Field(False, alias="IsDeleted")
    pair_north_south: int = Field(0, alias="PairNorthSouth")
    pair_east_west: int = Field(0, alias="PairEastWest")
    declaring_pair: int = Field(0, alias="DeclaringPair")
    declarer_direction: int = Field(0, alias="DeclarerDirection")
    level: int = Field(0, alias="Level")
    denomination: int = Field(0, alias="Denomination")
    stake: int = Field(0, alias="Stake")
    total_tricks: int = Field(0, alias="TotalTricks")
    lead_card_rank: int = Field(0, alias="LeadCardRank")
    lead_card_suit: int = Field(0, alias="LeadCardSuit")


class TdCallDTO(Wire):
    """A call for the TD: where, when, and its status (1 launched .. 4 deferred)."""

    session_guid: str = Field("", alias="SessionGuid")
    section_letters: str = Field("", alias="SectionLetters")
    table_number: int = Field(0, alias="TableNumber")
    round_number: int = Field(0, alias="RoundNumber")
    hour: int = Field(0, alias="Hour")
    minute: int = Field(0, alias="Minute")
    status: int = Field(0, alias="Status")


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
