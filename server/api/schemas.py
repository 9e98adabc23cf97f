"""Request and response bodies of the TD API (the table side uses protocol.messages)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from protocol.messages import AfterConfirm, AuctionEntry, EntryValues, PlayEntry, PlayerNumbers
from protocol.text import MAX_NAME, MAX_TEXT, SingleLine
from server.core.models import (
    EventBase,
    Language,
    PairBase,
    ScoringProfile,
    SectionBase,
    TricksStyle,
)
from server.movements.catalog import KINDS
from server.scoring.methods import DEFAULT, Method
from server.services.td.actions import TableState


class TDLogin(BaseModel):
    password: str = Field(examples=["the-td-password"])


class TDToken(BaseModel):
    token: str
    expires_in_hours: int


class EventCreate(EventBase):
    # A new event's settings: EventBase's fields, types, limits and defaults (no docstring:
    # it would be the schema's description).
    model_config = ConfigDict(extra="forbid")  # type: ignore[assignment]
    scoring: Method = DEFAULT


class EventPatch(BaseModel):
    """Change an event's settings; fields left out keep their value."""

    # EventBase's fields, each optional: written out, as SQLModel's update models are (with
    # ``| None`` each field's type changes, and its limits must stay what they were).

    model_config = ConfigDict(extra="forbid")
    name: SingleLine | None = Field(default=None, min_length=1, max_length=200)
    scoring: Method | None = None
    lead_required: bool | None = None
    tricks_style: TricksStyle | None = None
    confirm_pin_required: bool | None = None
    after_confirm: AfterConfirm | None = None
    show_ranking: bool | None = None
    player_numbers: PlayerNumbers | None = None
    language: Language | None = None
    scoring_profile: ScoringProfile | None = None
    auction_entry: AuctionEntry | None = None
    play_entry: PlayEntry | None = None
    deal_entry: bool | None = None


class EventPublic(EventBase):
    # An event as the API sends it: EventBase's settings, its id and creation time. Every
    # field is always sent, so the response schema lists every field as required.
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)  # type: ignore[assignment]
    id: int
    scoring: Method
    name: str  # as stored: a name from before the check (protocol.text.neutral) is still sent
    created_at: datetime


IMPORTED = "imported"
"""The kind of a movement the TD brings as a file (``format`` and ``data``)."""
SPEC_KINDS = (*KINDS, IMPORTED)
"""The kinds a section's movement can be: the catalogue's (server/movements/catalog.py)."""
if TYPE_CHECKING:
    SpecKind = str
else:  # the catalogue's kinds as a Literal: the same validation and schema as written out
    SpecKind = Literal[SPEC_KINDS]


class MovementSpec(BaseModel):
    """A generated movement (``kind``) or an imported one (``kind="imported"`` with data)."""

    model_config = ConfigDict(extra="forbid")
    kind: SpecKind = next(iter(KINDS))
    tables: int | None = Field(default=None, ge=1, le=200, examples=[5])
    pairs: int | None = Field(
        default=None,
        ge=3,
        le=400,
        description="Howell and appendix Mitchell: number of pairs; individual: of players.",
    )
    rounds: int | None = Field(
        default=None, ge=1, le=60, description="web-mitchell: the number of board sets."
    )
    boards_per_round: int = Field(default=3, ge=1, le=12)
    even: Literal["skip", "relay"] = "skip"
    arrow_switch_rounds: int = Field(default=0, ge=0)
    name: str | None = Field(default=None, description="bundled: the movement file's name.")
    format: Literal["json", "csv", "round-data"] | None = Field(
        default=None, description="imported: the format of ``data``."
    )
    data: str | None = Field(default=None, max_length=2_000_000)
    arrow_switch_rounds_list: list[int] = Field(
        default_factory=list,
        description="imported RoundData: the rounds played arrow-switched (E/W pairs sit N/S).",
    )


class SectionCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    letter: str = Field(default="A", min_length=1, max_length=4, pattern=r"^[A-Za-z0-9]+$")
    movement: MovementSpec


class SectionPublic(SectionBase):
    # A section as the API sends it: SectionBase's fields, its id, event and pairing codes.
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)  # type: ignore[assignment]
    id: int
    event_id: int
    pairing_codes: dict[int, str]


class PairNamesIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    player1: SingleLine = Field(max_length=MAX_NAME, examples=["Anna Jensen"])
    player2: SingleLine = Field(max_length=MAX_NAME, examples=["Bo Nielsen"])
    member1: SingleLine | None = Field(default=None, max_length=32)
    member2: SingleLine | None = Field(default=None, max_length=32)
    handicap: str | None = Field(
        default=None,
        max_length=12,
        description="A handicap pairs event: the pair's handicap in percentage points "
        '("2.5", "-1"); blank or null clears it, leaving the field out keeps it.',
        examples=["2.5"],
    )


class PairPublic(PairBase):
    # A pair as the API sends it (TD only): PairBase's fields.
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)  # type: ignore[assignment]


class TableStatePublic(TableState):
    # services.td.actions.TableState as the API sends it (no docstring: no schema description)
    pass


class ResultRef(BaseModel):
    """Which board at which table in which round the TD acts on."""

    model_config = ConfigDict(extra="forbid")
    table: int = Field(ge=1)
    round: int = Field(ge=1)
    board: int = Field(ge=1)


#: § X79: past the correction deadline a result changes only for a ruling or appeal in time.
RULING_IN_TIME = Field(
    default=False,
    description="Past the correction deadline (§ X79): this change carries out a ruling or "
    "appeal started in time.",
)


class TDSetResult(ResultRef):
    values: EntryValues
    reason: SingleLine = Field(
        min_length=1, max_length=MAX_TEXT, examples=["wrong declarer entered"]
    )
    ruling_in_time: bool = RULING_IN_TIME


class TDAdjust(ResultRef):
    ns_percent: int = Field(ge=0, le=100, examples=[60])
    ew_percent: int = Field(ge=0, le=100, examples=[40])
    reason: SingleLine = Field(min_length=1, max_length=MAX_TEXT, examples=["fouled board"])
    ruling_in_time: bool = RULING_IN_TIME


class ScorePartIn(BaseModel):
    """One contract result of an assigned or weighted score."""

    model_config = ConfigDict(extra="forbid")
    weight: str = Field(
        default="",
        max_length=12,
        examples=["60%", "3/5", "0.4"],
        description="Percentages adding up to 100, or fractions adding up to 1; empty for "
        "a single (assigned) result.",
    )
    contract: str = Field(max_length=16, examples=["4S", "3NTX", "PASS"])
    declarer: Literal["N", "E", "S", "W"] | None = None
    tricks: int | str = Field(examples=[10, "=", "-1"])


class TDScore(ResultRef):
    """An assigned score (one result), a weighted score (§ X78A1: several, with weights) or,
    with ``ew`` or ``ew_percent``, an unbalanced score (§ X78A2)."""

    ns: list[ScorePartIn] = Field(min_length=1, max_length=4)
    ew: list[ScorePartIn] | None = Field(
        default=None, max_length=4, description="E/W's own results; None: the same as N/S."
    )
    ew_percent: str | None = Field(
        default=None, max_length=8, examples=["40"], description="E/W's artificial score, %."
    )
    reason: SingleLine = Field(min_length=1, max_length=MAX_TEXT, examples=["misinformation"])
    ruling_in_time: bool = RULING_IN_TIME


class TDNotPlayed(ResultRef):
    reason: SingleLine = Field(
        min_length=1, max_length=MAX_TEXT, examples=["late play not possible"]
    )
    ruling_in_time: bool = RULING_IN_TIME


class TDChooseEntry(ResultRef):
    entry_id: str = Field("", max_length=64, description="one of the board's `results/entries`")
    reason: SingleLine = Field("", max_length=MAX_TEXT, examples=["the table agreed on 4S="])


class EntryPublic(BaseModel):
    """An entry a table sent for a board (enter or correct)."""

    entry_id: str
    contract: str = Field(examples=["4S"])
    declarer: str | None
    tricks: int | str
    lead: str | None
    received_at: datetime
    in_force: bool = Field(description="the entry the result holds")


class AuditPublic(BaseModel):
    at: datetime
    actor: str
    action: str
    old: dict[str, object] | None
    new: dict[str, object] | None
    reason: str


class TDCallPublic(BaseModel):
    id: int
    table: int
    round: int
    reason: str
    created_at: datetime
