"""Request and response bodies of the TD API (the table side uses protocol.messages)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from protocol.messages import AfterConfirm, EntryValues, PlayerNumbers

#: The languages of the pages (server/i18n.py LANGUAGES).
Language = Literal["en", "da", "nb", "de", "ru"]


class TDLogin(BaseModel):
    password: str = Field(examples=["the-td-password"])


class TDToken(BaseModel):
    token: str
    expires_in_hours: int


class EventCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=200, examples=["Monday pairs"])
    scoring: Literal["mp", "mp-american", "imps", "butler", "total"] = "mp"
    lead_required: bool = False
    tricks_style: Literal["absolute", "relative"] = "absolute"
    confirm_pin_required: bool = Field(
        default=False, description="E/W must key their pair's PIN to confirm a result."
    )
    after_confirm: AfterConfirm = Field(
        default="nothing",
        description="What a terminal shows after East confirms: nothing, the table's score "
        "on the board, or the board's traveller (only boards the table has played).",
    )
    show_ranking: bool = Field(
        default=False, description="Terminals show the ranking at the end of the session."
    )
    player_numbers: PlayerNumbers = Field(
        default="off",
        description="Players key their membership numbers at the terminal: off, in round 1, "
        "or every round.",
    )
    language: Language | None = Field(
        default=None,
        description="The club's language for the pages (browsers may still choose another).",
    )


class EventPatch(BaseModel):
    """Change an event's settings; fields left out keep their value."""

    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(default=None, min_length=1, max_length=200)
    scoring: Literal["mp", "mp-american", "imps", "butler", "total"] | None = None
    lead_required: bool | None = None
    tricks_style: Literal["absolute", "relative"] | None = None
    confirm_pin_required: bool | None = None
    after_confirm: AfterConfirm | None = None
    show_ranking: bool | None = None
    player_numbers: PlayerNumbers | None = None
    language: Language | None = None


class EventPublic(BaseModel):
    id: int
    name: str
    scoring: str
    lead_required: bool
    tricks_style: str
    confirm_pin_required: bool
    after_confirm: str
    show_ranking: bool
    player_numbers: str
    language: str | None = None
    created_at: datetime


class MovementSpec(BaseModel):
    """A generated movement (``kind``) or an imported one (``kind="imported"`` with data)."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal[
        "mitchell",
        "howell",
        "three-quarter-howell",
        "hesitation",
        "rover-mitchell",
        "team-match",
        "bundled",
        "imported",
    ] = "mitchell"
    tables: int | None = Field(default=None, ge=1, le=200, examples=[5])
    pairs: int | None = Field(default=None, ge=3, le=400, description="Howell: number of pairs.")
    rounds: int | None = Field(default=None, ge=1, le=60)
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


class SectionPublic(BaseModel):
    id: int
    event_id: int
    letter: str
    movement_name: str
    tables: int
    rounds: int
    boards_per_round: int
    current_round: int
    closed_rounds: int
    pairing_codes: dict[int, str]
    td_code: str = Field(description="Keyed at a terminal, it lets the TD mark a board not played.")


class PairNamesIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    player1: str = Field(max_length=100, examples=["Anna Jensen"])
    player2: str = Field(max_length=100, examples=["Bo Nielsen"])
    member1: str | None = Field(default=None, max_length=32)
    member2: str | None = Field(default=None, max_length=32)


class PairPublic(BaseModel):
    number: int
    direction: str | None
    player1: str
    player2: str
    member1: str | None = None
    member2: str | None = None
    pin: str = Field(description="The pair's PIN for confirmations (TD only).")


class TableStatePublic(BaseModel):
    table: int
    round: int
    boards: int
    missing: int
    entered: int
    confirmed: int
    conflict: int
    td_pending: int
    complete: bool
    terminals_online: int
    last_seen: str | None


class ResultRef(BaseModel):
    """Which board at which table in which round the TD acts on."""

    model_config = ConfigDict(extra="forbid")
    table: int = Field(ge=1)
    round: int = Field(ge=1)
    board: int = Field(ge=1)


class TDSetResult(ResultRef):
    values: EntryValues
    reason: str = Field(min_length=1, max_length=500, examples=["wrong declarer entered"])


class TDAdjust(ResultRef):
    ns_percent: int = Field(ge=0, le=100, examples=[60])
    ew_percent: int = Field(ge=0, le=100, examples=[40])
    reason: str = Field(min_length=1, max_length=500, examples=["fouled board"])


class TDNotPlayed(ResultRef):
    reason: str = Field(min_length=1, max_length=500, examples=["late play not possible"])


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
