"""The event database: SQLModel tables for events, sections, tables, pairs, movement and results.

Every change to a result goes through the services, which also write an ``Audit`` row; nothing
here is updated directly by route handlers.
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import Column, DateTime, Dialect, String, UniqueConstraint
from sqlalchemy.types import TypeDecorator
from sqlmodel import AutoString, Field, SQLModel

from protocol import fair_play
from protocol.alerts import STORED_TEXT as STORED_ALERTS
from protocol.messages import (
    AUCTION_TEXT,
    PLAY_TEXT,
    AfterConfirm,
    AuctionEntry,
    PlayEntry,
    PlayerNumbers,
    ResultState,
)
from protocol.text import SingleLine


def utcnow() -> datetime:
    """Timezone-aware now, the one clock every timestamp uses."""
    return datetime.now(UTC)


def new_td_code() -> str:
    """A section's four-digit TD code: keyed at a terminal, it lets the TD mark a board."""
    return f"{secrets.randbelow(10**4):04d}"


class UTCDateTime(TypeDecorator[datetime]):
    """Stores UTC, always returns an aware datetime (SQLite would hand back naive values)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        return value.astimezone(UTC) if value is not None else None

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        stored: datetime = value
        return stored.replace(tzinfo=UTC) if stored.tzinfo is None else stored.astimezone(UTC)


class StateType(TypeDecorator[ResultState]):
    """A result's § 262 state: stored as its string (as before, no migration), read back as
    :class:`ResultState`; an unknown state is refused on the way in, never stored."""

    impl = String(16)
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:
        return None if value is None else ResultState(value).value

    def process_result_value(self, value: Any, dialect: Dialect) -> ResultState | None:
        return None if value is None else ResultState(value)


def _ts(nullable: bool = False) -> Any:
    """A UTC timestamp column."""
    return Column(UTCDateTime(), nullable=nullable)


#: How tricks are keyed: the number taken, or relative to the contract ("=", "+1", "-2").
TricksStyle = Literal["absolute", "relative"]

#: The languages of the pages (server/i18n/__init__.py LANGUAGES).
Language = Literal["en", "da", "nb", "de", "ru"]

#: The convention profiles (server/scoring/profiles.py PROFILES).
ScoringProfile = Literal["dbf", "ebu", "abf", "acbl", "ffb", "nz", "brian", "pianola", "ruter"]


class EventBase(SQLModel):
    """An event's settings, as the TD gives them: the fields the ``event`` table, the API's
    ``EventCreate`` and ``EventPublic`` share (server/api/schemas.py).

    The table does not validate (SQLModel tables never do); the API bodies built on this do,
    with these types and limits. ``sa_type`` keeps each column what the migrations made."""

    name: SingleLine = Field(
        min_length=1, max_length=200, schema_extra={"examples": ["Monday pairs"]}
    )
    scoring: str = Field(
        sa_type=AutoString(32),
        description="The scoring method's key (server/scoring/methods.py: the API checks it).",
    )
    lead_required: bool = False
    tricks_style: TricksStyle = Field(default="absolute", sa_type=AutoString(16))
    confirm_pin_required: bool = Field(
        default=False, description="E/W must key their pair's PIN to confirm a result."
    )
    after_confirm: AfterConfirm = Field(
        default="nothing",
        sa_type=AutoString(12),
        description="What a terminal shows after East confirms: nothing, the table's score "
        "on the board, or the board's traveller (only boards the table has played).",
    )
    show_ranking: bool = Field(
        default=False, description="Terminals show the ranking at the end of the session."
    )
    player_numbers: PlayerNumbers = Field(
        default="off",
        sa_type=AutoString(12),
        description="Players key their membership numbers at the terminal: off, in round 1, "
        "or every round.",
    )
    language: Language | None = Field(
        default=None,
        sa_type=AutoString(8),
        description="The club's language for the pages (browsers may still choose another).",
    )
    scoring_profile: ScoringProfile = Field(
        default="dbf",
        sa_type=AutoString(16),
        description="The conventions the rules leave open, as a federation or program settles "
        "them (Butler datum, rounding on boards, ...): dbf, the Danish regulations, by default.",
    )
    auction_entry: AuctionEntry = Field(
        default="off",
        sa_type=AutoString(8),
        description="North keys the auction at the table: off, optional or required (the "
        "contract and declarer then follow from it; Laws 18-19, 22).",
    )
    play_entry: PlayEntry = Field(
        default="off",
        sa_type=AutoString(8),
        description="North may key the play card by card: off or optional (checked against "
        "the deal when known; tricks keyed that differ from the play call the TD).",
    )
    deal_entry: bool = Field(
        default=False,
        description="Hand-dealt boards: the first table to play a board keys its deal, a "
        "later table checks one hand.",
    )


class Event(EventBase, table=True):
    """A club night or a congress: what the TD creates first."""

    id: int | None = Field(default=None, primary_key=True)
    token_ttl_hours: int = 24
    created_at: datetime = Field(default_factory=utcnow, sa_column=_ts())


class Team(SQLModel, table=True):
    """A team of an event; its pairs play in the open and closed rooms."""

    __table_args__ = (UniqueConstraint("event_id", "number"),)
    id: int | None = Field(default=None, primary_key=True)
    event_id: int = Field(foreign_key="event.id", index=True)
    number: int
    name: str = Field(default="", max_length=200)


class SectionBase(SQLModel):
    """A section as the TD sees it: the fields the ``section`` table and the API's
    ``SectionPublic`` share. Column lengths are ``sa_type`` only, so what the API sends is
    not checked again on the way out."""

    letter: str = Field(default="A", sa_type=AutoString(4))
    movement_name: str = Field(default="", sa_type=AutoString(100))
    tables: int
    rounds: int
    boards_per_round: int
    current_round: int = 0  # the highest round the TD has started; 0: not started
    closed_rounds: int = 0  # rounds 1..closed_rounds are closed to table entries
    td_code: str = Field(
        default_factory=new_td_code,
        sa_type=AutoString(8),
        description="Keyed at a terminal, it lets the TD mark a board not played.",
    )


class Section(SectionBase, table=True):
    """A section of an event: its tables play one movement; ``current_round`` is released."""

    __table_args__ = (UniqueConstraint("event_id", "letter"),)
    id: int | None = Field(default=None, primary_key=True)
    event_id: int = Field(foreign_key="event.id", index=True)
    session_number: int = 1
    movement_kind: str = Field(default="mitchell", max_length=32)
    shared_tables: str = Field(default="[]", max_length=400)  # JSON: groups sharing boards
    circuits: str = Field(default="[]", max_length=400)  # JSON: board circuits (web Mitchell)
    round_started_at: datetime | None = Field(default=None, sa_column=_ts(nullable=True))
    round_minutes: int | None = None  # the round time the TD set; later tables show as late
    publication: str = Field(default="live", max_length=12)  # live | provisional | final
    published_at: datetime | None = Field(default=None, sa_column=_ts(nullable=True))
    corrections_until: datetime | None = Field(default=None, sa_column=_ts(nullable=True))
    correction_minutes: int | None = None  # the period the TD set (§ X79); each change gets it


class BridgeTable(SQLModel, table=True):
    """A table of a section: its pairing code and the round it is playing now."""

    __tablename__ = "bridge_table"
    __table_args__ = (UniqueConstraint("section_id", "number"),)
    id: int | None = Field(default=None, primary_key=True)
    section_id: int = Field(foreign_key="section.id", index=True)
    number: int
    pairing_code: str = Field(max_length=12, unique=True)
    round: int = 0  # the round this table is on; advances by NextRound (§ 262C gate)
    round_entered_at: datetime | None = Field(default=None, sa_column=_ts(nullable=True))


class TableToken(SQLModel, table=True):
    """A terminal's credential for one table; only the SHA-256 of the token is stored."""

    __tablename__ = "table_token"
    id: int | None = Field(default=None, primary_key=True)
    table_id: int = Field(foreign_key="bridge_table.id", index=True)
    token_hash: str = Field(max_length=64, unique=True)
    device: str = Field(default="terminal", max_length=64)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_ts())
    expires_at: datetime = Field(sa_column=_ts())
    revoked_at: datetime | None = Field(default=None, sa_column=_ts(nullable=True))
    last_seen: datetime | None = Field(default=None, sa_column=_ts(nullable=True))
    queued: int | None = None  # commands in the device's outbox, as it last reported
    queued_at: datetime | None = Field(default=None, sa_column=_ts(nullable=True))
    #: Its wrong E/W PINs and TD codes still counting (server/limits/guesses.py), as JSON.
    guesses: str = Field(default="{}", max_length=400)


class TDSession(SQLModel, table=True):
    """A logged-in tournament director (bearer token or cookie); only the hash is stored."""

    __tablename__ = "td_session"
    id: int | None = Field(default=None, primary_key=True)
    token_hash: str = Field(max_length=64, unique=True)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_ts())
    expires_at: datetime = Field(sa_column=_ts())


class PairBase(SQLModel):
    """A pair: number (and direction in a Mitchell), players' names and membership numbers:
    the fields the ``pair`` table and the API's ``PairPublic`` share (column lengths are
    ``sa_type`` only, as in :class:`SectionBase`)."""

    number: int
    direction: str | None = Field(default=None, sa_type=AutoString(2))  # NS | EW | None (Howell)
    player1: str = Field(default="", sa_type=AutoString(100))
    player2: str = Field(default="", sa_type=AutoString(100))
    member1: str | None = Field(default=None, sa_type=AutoString(32))
    member2: str | None = Field(default=None, sa_type=AutoString(32))
    # E/W confirm with it if the event asks.
    pin: str = Field(
        default="",
        sa_type=AutoString(8),
        description="The pair's PIN for confirmations (TD only).",
    )
    # A handicap pairs event: percentage points, kept exactly as a decimal string ("2.5",
    # "-1"); None in a scratch event. How it counts is the event's profile (scoring/profiles).
    handicap: str | None = Field(
        default=None,
        sa_type=AutoString(12),
        description="The pair's handicap in percentage points, or null.",
    )


class Pair(PairBase, table=True):
    """A pair of a section (its team in a teams event)."""

    __table_args__ = (UniqueConstraint("section_id", "number", "direction"),)
    id: int | None = Field(default=None, primary_key=True)
    section_id: int = Field(foreign_key="section.id", index=True)
    team_id: int | None = Field(default=None, foreign_key="team.id")


class MovementAssignment(SQLModel, table=True):
    """One line of the movement: at this table in this round, these pairs play these boards."""

    __tablename__ = "movement_assignment"
    __table_args__ = (UniqueConstraint("section_id", "table_number", "round"),)
    id: int | None = Field(default=None, primary_key=True)
    section_id: int = Field(foreign_key="section.id", index=True)
    table_number: int
    round: int
    ns_pair_id: int | None = Field(default=None, foreign_key="pair.id")
    ew_pair_id: int | None = Field(default=None, foreign_key="pair.id")
    boards: str = Field(max_length=400)  # "1,2,3": the board numbers in playing order
    seats: str | None = Field(default=None, max_length=40)  # individual: "N,E,S,W" players

    def boards_listed(self) -> list[int]:
        """The boards the movement puts on this table this round, played or not."""
        return [int(b) for b in self.boards.split(",") if b]

    def board_numbers(self) -> list[int]:
        """The boards played here this round: none when a seat is empty (a sit-out, § 216A)."""
        if not fair_play.plays_here(self.ns_pair_id, self.ew_pair_id):
            return []
        return self.boards_listed()


class SectionPlayer(SQLModel, table=True):
    """A player of an individual section: the movement seats players, not pairs.

    Each partnership the movement forms is a ``Pair`` (direction None) that results and
    scoring use; ``MovementAssignment.seats`` says which player sits in which seat.
    """

    __tablename__ = "section_player"
    __table_args__ = (UniqueConstraint("section_id", "number"),)
    id: int | None = Field(default=None, primary_key=True)
    section_id: int = Field(foreign_key="section.id", index=True)
    number: int
    name: str = Field(default="", max_length=100)
    member: str | None = Field(default=None, max_length=32)


class Board(SQLModel, table=True):
    """A board of a section: dealer and vulnerability (Law 2), and the deal when known."""

    __table_args__ = (UniqueConstraint("section_id", "number"),)
    id: int | None = Field(default=None, primary_key=True)
    section_id: int = Field(foreign_key="section.id", index=True)
    number: int
    dealer: str = Field(max_length=1)
    vulnerability: str = Field(max_length=4)
    deal: str | None = Field(default=None, max_length=80)  # PBN "N:AKQ.. ..."


class KeyedDeal(SQLModel, table=True):
    """A hand-dealt board's deal keyed at a table and the checks of later tables.

    ``state``: keyed (one table's four hands), confirmed (a later table's check agreed: the
    board's deal is set from it) or conflict (a check differed: the TD decides, nothing is
    overwritten). ``checks`` is JSON: each later table's check (its table, round, entry id,
    the hand or deal it keyed, and what differed). Never sent to a table."""

    __tablename__ = "keyed_deal"
    __table_args__ = (UniqueConstraint("section_id", "board"),)
    id: int | None = Field(default=None, primary_key=True)
    section_id: int = Field(foreign_key="section.id", index=True)
    board: int
    deal: str = Field(max_length=80)  # PBN "N:AKQ.. ..."
    table_number: int
    round: int
    entry_id: str = Field(max_length=64)
    state: str = Field(default="keyed", max_length=12)  # keyed | confirmed | conflict
    checks: str = "[]"  # JSON list of the later tables' checks
    created_at: datetime = Field(default_factory=utcnow, sa_column=_ts())
    updated_at: datetime = Field(default_factory=utcnow, sa_column=_ts())


class Result(SQLModel, table=True):
    """A board's result at one table in one round: the current value and its § 262 state."""

    __table_args__ = (UniqueConstraint("section_id", "table_number", "round", "board"),)
    id: int | None = Field(default=None, primary_key=True)
    section_id: int = Field(foreign_key="section.id", index=True)
    table_number: int
    round: int
    board: int
    ns_pair_id: int | None = Field(default=None, foreign_key="pair.id")
    ew_pair_id: int | None = Field(default=None, foreign_key="pair.id")
    contract: str | None = Field(default=None, max_length=8)  # canonical: "4SX", "PASS"
    declarer: str | None = Field(default=None, max_length=1)
    tricks: int | None = None
    lead: str | None = Field(default=None, max_length=3)
    # The auction keyed at the table, canonical calls from the dealer: "1C 1NT! P 3NT P P P".
    auction: str | None = Field(default=None, max_length=AUCTION_TEXT)
    # The explanations of its alerted calls (protocol/alerts.py): '{"2":"12-14 balanced"}'.
    alerts: str | None = Field(default=None, max_length=STORED_ALERTS)
    # The play keyed at the table: cards from the opening lead, a last "=n" a claim (format_play).
    play: str | None = Field(default=None, max_length=PLAY_TEXT)
    ns_score: int | None = None
    state: ResultState = Field(sa_type=StateType, max_length=16, index=True)
    ruling_pending: bool = False
    adjusted: str | None = Field(default=None, max_length=400)  # "A60/40", "60% 4S S = + ..."
    version: int = 1
    entered_by: str | None = Field(default=None, max_length=64)
    confirmed_by: str | None = Field(default=None, max_length=64)
    entry_id: str | None = Field(default=None, max_length=64)  # the entry now in force
    conflict_entry_id: str | None = Field(default=None, max_length=64)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_ts())
    updated_at: datetime = Field(default_factory=utcnow, sa_column=_ts())
    confirmed_at: datetime | None = Field(default=None, sa_column=_ts(nullable=True))


class ReceivedEntry(SQLModel, table=True):
    """Every command a table sent with its client entry id: the idempotency log.

    A resend with the same id returns the stored outcome and changes nothing.
    """

    __tablename__ = "received_entry"
    __table_args__ = (UniqueConstraint("table_id", "entry_id"),)
    id: int | None = Field(default=None, primary_key=True)
    table_id: int = Field(foreign_key="bridge_table.id", index=True)
    entry_id: str = Field(max_length=64)
    kind: str = Field(max_length=24)
    request: str  # the command as JSON, to tell a resend from a reused id
    result_id: int | None = Field(default=None, foreign_key="result.id")
    received_at: datetime = Field(default_factory=utcnow, sa_column=_ts())


class TDCall(SQLModel, table=True):
    """A call for the tournament director from a table."""

    __tablename__ = "td_call"
    id: int | None = Field(default=None, primary_key=True)
    section_id: int = Field(foreign_key="section.id", index=True)
    table_number: int
    round: int
    reason: str = Field(default="", max_length=200)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_ts())
    acknowledged_at: datetime | None = Field(default=None, sa_column=_ts(nullable=True))


class Audit(SQLModel, table=True):
    """The audit trail: every change to a result (and TD action), with old and new values."""

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = Field(default_factory=utcnow, sa_column=_ts())
    actor: str = Field(max_length=64)  # "table 3 N/S", "table 3 E/W", "td", "system"
    action: str = Field(max_length=32)
    section_id: int | None = Field(default=None, foreign_key="section.id", index=True)
    result_id: int | None = Field(default=None, foreign_key="result.id", index=True)
    old: str | None = None  # JSON
    new: str | None = None  # JSON
    reason: str = Field(default="", max_length=500)
    # § X79: a change published after the results opens its own deadline for its errors.
    corrections_until: datetime | None = Field(default=None, sa_column=_ts(nullable=True))


class Sanction(SQLModel, table=True):
    """A warning or penalty the TD gave a pair (§ 211, § 213B, § 262C2), in the ranking's unit."""

    id: int | None = Field(default=None, primary_key=True)
    section_id: int = Field(foreign_key="section.id", index=True)
    pair_id: int = Field(foreign_key="pair.id", index=True)
    kind: str = Field(max_length=32)  # "262C2" missing entry | "213B" slow play | "other"
    warning: bool = False
    amount: str = Field(default="0", max_length=32)  # exact deduction, e.g. "2" or "12/5"
    reason: str = Field(default="", max_length=500)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_ts())
    withdrawn_at: datetime | None = Field(default=None, sa_column=_ts(nullable=True))


class Member(SQLModel, table=True):
    """A club member from the imported member list: membership number and name."""

    id: int | None = Field(default=None, primary_key=True)
    number: str = Field(max_length=32, unique=True)
    name: str = Field(max_length=100)


class DcSession(SQLModel, table=True):
    """A scoring program's session (Bridgemate Data Connector) and the Traveller event it fills.

    ``data`` keeps, as JSON, what the scoring program sent that Traveller has no column for:
    scoring groups, section details and the Bridgemate settings exactly as sent.
    """

    __tablename__ = "dc_session"
    id: int | None = Field(default=None, primary_key=True)
    session_guid: str = Field(max_length=32, unique=True)
    event_guid: str = Field(default="", max_length=32, index=True)
    event_id: int = Field(foreign_key="event.id", index=True)
    session_number: int = 1
    name: str = Field(default="", max_length=200)
    data: str = "{}"
    created_at: datetime = Field(default_factory=utcnow, sa_column=_ts())

    def kept(self) -> dict[str, Any]:
        """``data`` read: the scoring groups, sections and settings (each at least empty)."""
        kept: dict[str, Any] = json.loads(self.data or "{}")
        for key in ("groups", "sections", "settings"):
            kept.setdefault(key, {})
        return kept


#: The key, in a section's Bridgemate settings kept on its DcSession, of whether leads are
#: checked against the hand record (False when the program asked for no validation).
LEAD_CHECK = "lead_check"


class DcPlayer(SQLModel, table=True):
    """Player data a scoring program sent: the player number and name its participations use."""

    __tablename__ = "dc_player"
    __table_args__ = (UniqueConstraint("dc_session_id", "player_number"),)
    id: int | None = Field(default=None, primary_key=True)
    dc_session_id: int = Field(foreign_key="dc_session.id", index=True)
    player_number: str = Field(max_length=32)
    first_name: str = Field(default="", max_length=100)
    last_name: str = Field(default="", max_length=100)
    country_code: str = Field(default="", max_length=8)


class DcDelivery(SQLModel, table=True):
    """A queue item sent to the scoring program, and whether it has accepted it since."""

    __tablename__ = "dc_delivery"
    __table_args__ = (UniqueConstraint("dc_session_id", "kind", "item_id"),)
    id: int | None = Field(default=None, primary_key=True)
    dc_session_id: int = Field(foreign_key="dc_session.id", index=True)
    kind: str = Field(max_length=16)  # results | player_data | participations | ...
    item_id: int
    accepted: bool = False


class KeypadBinding(SQLModel, table=True):
    """A serial keypad's pairing as the gateway keeps it: (port, bus address) -> table token.

    Kept in the database so a restarted gateway still knows every keypad's table.
    ``next_round_from`` is the round a keypad asked to leave before the TD had started the next:
    the gateway moves it on once the TD does.
    """

    __tablename__ = "keypad_binding"
    __table_args__ = (UniqueConstraint("port", "address"),)
    id: int | None = Field(default=None, primary_key=True)
    port: str = Field(max_length=200)
    address: int
    token_id: int = Field(foreign_key="table_token.id", index=True)
    next_round_from: int | None = None
    bound_at: datetime = Field(default_factory=utcnow, sa_column=_ts())


class TableGeneration(SQLModel, table=True):
    """A bridge table's change counter, kept by database triggers (migration 0015): up by one
    with every INSERT, UPDATE or DELETE of the table's row, its tokens or its results. A table
    command locks this row (FOR UPDATE) first: it is the table's lock."""

    __tablename__ = "table_generation"
    table_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    section_id: int
    gen: int


class SectionGeneration(SQLModel, table=True):
    """A section's change counter, kept by database triggers (migrations 0015, 0018): up by one
    with every change to the section, its event, movement, pairs, boards, scoring-program
    session, sanctions or individual players."""

    __tablename__ = "section_generation"
    section_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    gen: int
