"""The table-side language: every message between a terminal (or keypad gateway) and the server.

One pydantic v2 model per message, a discriminated union on ``type``, each carrying the protocol
version ``v``. The Textual terminal, the serial gateway and the load generator all speak these,
over HTTP, a websocket, or keypad frames.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from protocol.alerts import ALERT_TEXT, MAX_CALLS, MAX_EXPLAINED
from protocol.text import MAX_NAME, SingleLine

PROTOCOL_VERSION: Literal[1] = 1

#: The longest auction text kept: the longest legal auction has 319 calls ("3NT!" and a space
#: at most five characters each).
AUCTION_TEXT = 1600

#: Whether an event takes the auction at the table: not at all, when keyed, or always.
AuctionEntry = Literal["off", "optional", "required"]
#: The longest play text kept: 52 cards of three characters at most ("SA " ...) and a claim.
PLAY_TEXT = 200
#: Whether an event takes the play at the table: not at all, or when keyed.
PlayEntry = Literal["off", "optional"]
#: What the server asks of a table for a board whose deal is not known: the first
#: table to play it keys the four hands ("enter"), a later table checks one hand ("check").
DealAsk = Literal["enter", "check"]


class ResultState(StrEnum):
    """Where a board's result at one table stands (§ 262). Stored and sent as its value."""

    MISSING = "missing"  # nothing entered yet (never stored)
    ENTERED = "entered"  # N/S entered, waiting for E/W
    REJECTED = "rejected"  # E/W rejected the entry; N/S must enter it again
    CONFIRMED = "confirmed"  # E/W confirmed (§ 262B3)
    TD_PENDING = "td_pending"  # confirmed at the table, a TD ruling is awaited (§ 262B1)
    NOT_PLAYED = "not_played"  # TD: the board was not played at this table
    ADJUSTED = "adjusted"  # TD: an adjusted score replaces the table result
    CONFLICT = "conflict"  # two different entries for the same table and board: the TD decides


#: States in which a board counts as done for the end-of-round check (§ 262C).
COMPLETE_STATES: frozenset[str] = frozenset(
    {ResultState.CONFIRMED, ResultState.TD_PENDING, ResultState.NOT_PLAYED, ResultState.ADJUSTED}
)
#: States in which the board was played at the table and its result agreed (§ 262B3).
AGREED_STATES: frozenset[str] = frozenset({ResultState.CONFIRMED, ResultState.TD_PENDING})
#: States only the TD may change: the table gets a clear refusal.
TD_STATES: frozenset[str] = frozenset(
    {ResultState.CONFLICT, ResultState.ADJUSTED, ResultState.NOT_PLAYED}
)


class Message(BaseModel):
    """Base of every message: forbids unknown fields so a typo is an error, not a silent drop."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    v: Literal[1] = PROTOCOL_VERSION


# ---------------------------------------------------------------------------- shared pieces


class PairInfo(BaseModel):
    """A pair as the table sees it: number, direction label and the players' names."""

    model_config = ConfigDict(frozen=True)
    number: int
    direction: Literal["NS", "EW"] | None = None
    names: list[str] = Field(default_factory=list)
    label: str = Field(description='How the pair is shown, e.g. "7" or "3 NS".')


class AlertExplanation(BaseModel):
    """What an alerted call means, as the table keyed it (protocol/alerts.py): the call's
    number in the auction (1 = the dealer's first call) and one short line of text."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    call: int = Field(ge=1, le=MAX_CALLS, examples=[2])
    text: SingleLine = Field(min_length=1, max_length=ALERT_TEXT, examples=["12-14 balanced"])


class EntryValues(BaseModel):
    """What North keys for one board: contract, declarer, tricks taken, optional lead card,
    and (when the event takes it) the auction, which the contract and declarer must agree with."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    contract: str = Field(examples=["4SX", "3NT", "PASS"], max_length=16)
    declarer: Literal["N", "E", "S", "W"] | None = Field(
        default=None, description="None only for a passed-out board."
    )
    tricks: int | str = Field(
        examples=[10, "=", "+1", "-2"],
        description="Tricks taken by declarer (0-13), or relative to the contract.",
    )
    lead: str | None = Field(default=None, examples=["SA", "H7"], max_length=3)
    auction: str | None = Field(
        default=None,
        examples=["1C 1NT! P 3NT P P P"],
        max_length=AUCTION_TEXT,
        description='The calls from the board\'s dealer: 1C..7NT, P, X, XX; "!" an alert.',
    )
    alerts: list[AlertExplanation] | None = Field(
        default=None,
        max_length=MAX_EXPLAINED,
        description="Explanations of alerted calls of the auction (a call without one: Alert).",
    )
    play: str | None = Field(
        default=None,
        examples=["HK H2 H4 HA S3 S2 SK S5 =9"],
        max_length=PLAY_TEXT,
        description=(
            "The cards in the order played from the opening lead (protocol.bridge.play."
            'format_play); a last token "=n" is a claim of n tricks in all for declarer.'
        ),
    )


class BoardResultView(BaseModel):
    """A board's result at one table, as stored: what terminals and dashboards display."""

    model_config = ConfigDict(frozen=True)
    board: int
    round: int
    table: int
    state: ResultState
    version: int = Field(description="Increases on every change; East confirms a version.")
    contract: str | None = None
    declarer: Literal["N", "E", "S", "W"] | None = None
    tricks: int | None = None
    result: str | None = Field(default=None, description='Relative result: "=", "+1", "-2".')
    lead: str | None = None
    auction: str | None = Field(default=None, description="The calls from the dealer, if keyed.")
    alerts: list[AlertExplanation] | None = Field(
        default=None, description="The explanations of alerted calls keyed with the auction."
    )
    play: str | None = Field(default=None, description="The cards played (and a claim), if keyed.")
    ns_score: int | None = None
    description: str | None = Field(
        default=None, examples=["4♠ doubled by South, two down, N/S -500"]
    )
    ruling_pending: bool = False
    adjusted: str | None = Field(default=None, description='e.g. "A60/40" for Ave+/Ave-.')


class BoardStatus(BaseModel):
    """One board of the table's current round and where it stands."""

    model_config = ConfigDict(frozen=True)
    board: int
    dealer: Literal["N", "E", "S", "W"]
    vulnerability: Literal["NONE", "NS", "EW", "BOTH"]
    state: ResultState
    result: BoardResultView | None = None
    deal: DealAsk | None = Field(
        default=None,
        description="For a hand-dealt board without a deal: key the four hands, or check one.",
    )


class NextPosition(BaseModel):
    """Where a pair, or in an individual a player, goes after this round (from the movement)."""

    model_config = ConfigDict(frozen=True)
    pair: str = Field(
        description='Who moves: the pair\'s label ("7", "3 NS"), or the player\'s number.'
    )
    table: int | None = Field(description="None: the pair (player) sits out next round.")
    seat: Literal["NS", "EW", "N", "E", "S", "W"] | None = Field(
        default=None, description="A pair's side, or a player's seat (N, E, S, W)."
    )
    boards: list[int] = Field(default_factory=list)
    player: bool = Field(
        default=False,
        description="An individual: the position is one player's, named by their number.",
    )


# ------------------------------------------------------------------ terminal -> server


#: A keypad whose firmware reads an individual's players' next positions says so (True) when
#: it pairs and in every Hello; a keypad that does not say so gets the pairs' positions only,
#: which every firmware reads (protocol/keypad_codec.without_player_positions).
PlayerPositions = Annotated[
    bool | None,
    Field(
        description="A keypad's firmware reads an individual's players' next positions (True); "
        "without it, a keypad gets the pairs' positions only."
    ),
]


class PairTerminal(Message):
    """Exchange the table's pairing code (shown to the TD) for a table token."""

    type: Literal["pair_terminal"] = "pair_terminal"
    code: str = Field(min_length=4, max_length=12, examples=["483920"])
    device: SingleLine = Field(default="terminal", max_length=64, examples=["pi-table-3"])
    player_positions: PlayerPositions = None


class Hello(Message):
    """First message on a websocket: authenticates with the table token."""

    type: Literal["hello"] = "hello"
    token: str
    player_positions: PlayerPositions = None


class GetRound(Message):
    """Ask for the table's current round information."""

    type: Literal["get_round"] = "get_round"


class EnterResult(Message):
    """North enters a board's result (§ 262B2). ``entry_id`` is generated by the client."""

    type: Literal["enter_result"] = "enter_result"
    entry_id: str = Field(min_length=8, max_length=64, examples=["3f1e9a4c-7c1b-4d3e"])
    board: int = Field(ge=1)
    values: EntryValues
    ruling_pending: bool = Field(default=False, description="A TD ruling is awaited (§ 262B1).")


class CorrectResult(Message):
    """North corrects a board of the current round; it needs East's confirmation again."""

    type: Literal["correct_result"] = "correct_result"
    entry_id: str = Field(min_length=8, max_length=64)
    board: int = Field(ge=1)
    version: int = Field(description="The version being corrected (optimistic concurrency).")
    values: EntryValues
    ruling_pending: bool = False


class ConfirmResult(Message):
    """East confirms the version of the result shown on the screen (§ 262B3)."""

    type: Literal["confirm_result"] = "confirm_result"
    entry_id: str = Field(min_length=8, max_length=64)
    board: int = Field(ge=1)
    version: int
    pin: str | None = Field(default=None, description="E/W PIN, if the event requires one.")


class RejectResult(Message):
    """East rejects the entry; it goes back to North."""

    type: Literal["reject_result"] = "reject_result"
    entry_id: str = Field(min_length=8, max_length=64)
    board: int = Field(ge=1)
    version: int
    reason: SingleLine = Field(default="", max_length=200)


class NextRound(Message):
    """The table asks to move on; refused while any board is missing (§ 262C)."""

    type: Literal["next_round"] = "next_round"


class CallTD(Message):
    """Call the tournament director to the table."""

    type: Literal["call_td"] = "call_td"
    entry_id: str = Field(min_length=8, max_length=64)
    reason: SingleLine = Field(default="", max_length=200, examples=["we are pair 7, not 5"])


class GetTableSettings(Message):
    """Ask which extras the event shows at the table (answered by TableSettings)."""

    type: Literal["get_table_settings"] = "get_table_settings"


class LookupMember(Message):
    """A player keyed a membership number: the server answers with the member's name."""

    type: Literal["lookup_member"] = "lookup_member"
    number: SingleLine = Field(min_length=1, max_length=32, examples=["10234"])


class PlayerEntry(BaseModel):
    """One player of a pair: a membership number, or a visitor's name (neither: unchanged)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    member: SingleLine | None = Field(default=None, max_length=32, examples=["10234"])
    name: SingleLine | None = Field(default=None, max_length=MAX_NAME, examples=["Visitor Vera"])


class SetPlayers(Message):
    """The players of the pair sitting N/S or E/W at this table (North or East first)."""

    type: Literal["set_players"] = "set_players"
    entry_id: str = Field(min_length=8, max_length=64)
    seat: Literal["NS", "EW"]
    players: list[PlayerEntry] = Field(min_length=2, max_length=2)


class CheckEntry(Message):
    """Before sending: is the entry well formed (contract, declarer, tricks, lead)? It never
    looks at the hand record: a query must not tell a table anything about a board's cards."""

    type: Literal["check_entry"] = "check_entry"
    board: int = Field(ge=1)
    values: EntryValues


class GetBoardReport(Message):
    """After confirmation: the table's score, the traveller or the deal, as the event allows."""

    type: Literal["get_board_report"] = "get_board_report"
    board: int = Field(ge=1)


class GetRanking(Message):
    """At the end of the session: the ranking, if the event shows it at the tables."""

    type: Literal["get_ranking"] = "get_ranking"


class MarkNotPlayed(Message):
    """The TD, at the table, marks a board not played; only the section's TD code allows it."""

    type: Literal["mark_not_played"] = "mark_not_played"
    entry_id: str = Field(min_length=8, max_length=64)
    board: int = Field(ge=1)
    td_code: str = Field(min_length=1, max_length=12)
    reason: SingleLine = Field(default="", max_length=200)


class EnterDeal(Message):
    """The first table to play a hand-dealt board keys its four hands: 13 cards each
    and 52 in all (protocol.bridge.deal.check_deal). Answered by DealAck."""

    type: Literal["enter_deal"] = "enter_deal"
    entry_id: str = Field(min_length=8, max_length=64)
    board: int = Field(ge=1)
    deal: str = Field(
        max_length=80, examples=["N:AKQ2.JT9.876.543 ... ... ..."], description="A PBN [Deal]."
    )


class CheckDeal(Message):
    """A later table checks the deal keyed for a board by keying one hand. A hand
    that differs goes to the TD as a conflict; the stored deal is never overwritten."""

    type: Literal["check_deal"] = "check_deal"
    entry_id: str = Field(min_length=8, max_length=64)
    board: int = Field(ge=1)
    seat: Literal["N", "E", "S", "W"]
    hand: str = Field(max_length=20, examples=["AKQ2.JT9.876.543"], description="S.H.D.C")


class TableStatus(Message):
    """The terminal's state for the TD's pairing page: how many commands wait in its outbox.

    Sent after (re)connecting, before and after delivering what was queued, so the TD sees
    "offline with N queued" when the link drops again. Answered by Ack. Added within protocol
    version 1: an older server answers ``invalid_message``, and the terminal stops sending it.
    """

    type: Literal["table_status"] = "table_status"
    queued: int = Field(ge=0, le=100_000, description="Commands waiting in the outbox.")


TableCommand = Annotated[
    GetRound
    | EnterResult
    | CorrectResult
    | ConfirmResult
    | RejectResult
    | NextRound
    | CallTD
    | GetTableSettings
    | LookupMember
    | SetPlayers
    | CheckEntry
    | GetBoardReport
    | GetRanking
    | MarkNotPlayed
    | EnterDeal
    | CheckDeal
    | TableStatus,
    Field(discriminator="type"),
]

# ------------------------------------------------------------------ server -> terminal


class Paired(Message):
    """Answer to PairTerminal: keep the token; it authorises this table only."""

    type: Literal["paired"] = "paired"
    token: str
    event: str
    section: str
    table: int
    expires_at: datetime | None = None


class RoundInfo(Message):
    """The table's current round: who sits where and which boards, with their states."""

    type: Literal["round_info"] = "round_info"
    event: str
    section: str
    table: int
    round: int = Field(description="0 before the TD starts the first round.")
    rounds: int
    ns: PairInfo | None
    ew: PairInfo | None
    boards: list[BoardStatus]
    complete: bool = Field(description="Every board is confirmed or settled (§ 262C).")
    round_open: bool = Field(description="False when the TD has closed the round.")
    next_round_released: bool = Field(description="The TD has started the next round.")
    next: list[NextPosition] = Field(default_factory=list)
    lead_required: bool = False
    tricks_style: Literal["absolute", "relative"] = "absolute"
    confirm_pin_required: bool = False
    language: str | None = Field(
        default=None,
        description="The event's language (en, da, nb, de, ru) for the table's screens; "
        "None: the terminal keeps its own. Older servers do not send it.",
    )


class ResultAck(Message):
    """The server stored the command: the result as it now stands (committed before sending)."""

    type: Literal["result_ack"] = "result_ack"
    entry_id: str
    duplicate: bool = Field(default=False, description="True when the entry_id was seen before.")
    result: BoardResultView
    warning: str | None = Field(
        default=None,
        description='"Are you sure?": the tricks are far from double dummy. Given once, on a '
        "board's first entry at the table, and never with the number.",
    )


class Ack(Message):
    """A command without a result (call TD, next round) was accepted."""

    type: Literal["ack"] = "ack"
    entry_id: str | None = None
    detail: str = ""


class Error(Message):
    """A refused command: ``code`` for programs, ``message`` in plain words for people."""

    type: Literal["error"] = "error"
    code: str = Field(examples=["board_not_in_round"])
    message: str = Field(examples=["Board 9 is not played at table 3 in round 2."])
    entry_id: str | None = None


class ResultChanged(Message):
    """Pushed: a result at this table changed (entered, confirmed, corrected, by the TD...)."""

    type: Literal["result_changed"] = "result_changed"
    result: BoardResultView


class RoundChanged(Message):
    """Pushed: the table's round information changed (round started or closed, movement)."""

    type: Literal["round_changed"] = "round_changed"
    round: RoundInfo


class ConflictRaised(Message):
    """Pushed: a second, different entry arrived for a board; the TD has been called."""

    type: Literal["conflict_raised"] = "conflict_raised"
    result: BoardResultView
    message: str


AfterConfirm = Literal["nothing", "score", "traveller"]
PlayerNumbers = Literal["off", "first_round", "every_round"]


class TableSettings(Message):
    """What the event shows at the table beyond § 262 entry (answer to GetTableSettings)."""

    type: Literal["table_settings"] = "table_settings"
    after_confirm: AfterConfirm = Field(
        default="nothing", description="After East confirms: nothing, the score, the traveller."
    )
    show_ranking: bool = Field(default=False, description="The ranking at the session's end.")
    player_numbers: PlayerNumbers = Field(
        default="off", description="Players key membership numbers: round 1, or every round."
    )
    hand_records: bool = Field(default=False, description="The section's boards have deals.")
    auction_entry: AuctionEntry = Field(
        default="off", description="North keys the auction: off, optional, required."
    )
    play_entry: PlayEntry = Field(default="off", description="North may key the play card by card.")
    deal_entry: bool = Field(
        default=False, description="Hand-dealt boards: the tables key and check the deal."
    )


class SettingsChanged(Message):
    """Pushed: the TD changed the event's table settings."""

    type: Literal["settings_changed"] = "settings_changed"
    settings: TableSettings


class MemberFound(Message):
    """Answer to LookupMember: the member's name, for the player to confirm."""

    type: Literal["member_found"] = "member_found"
    number: str
    name: str


class EntryChecked(Message):
    """Answer to CheckEntry: the entry is well formed. The lead and the tricks are checked
    against the hand record only on the entry itself (docs/rules.md § 11): ``warning`` stays None
    from a current server (an older one answered the lead and double-dummy checks here)."""

    type: Literal["entry_checked"] = "entry_checked"
    board: int
    warning: str | None = Field(
        default=None, description="Set when the tricks are far from the double-dummy result."
    )


class DealAck(Message):
    """Answer to EnterDeal and CheckDeal: where the board's keyed deal stands ("confirmed": the
    check agrees; "conflict": it differs, or another check did, and the TD is called).
    ``differences`` is empty until everyone seated has played the board and confirmed its
    result; then it names the cards of the checked hand that the keyed deal puts elsewhere
    ("HK extra"), cards the table keyed itself (protocol/fair_play.deal_differences_shown). A
    table has protocol/fair_play.DEAL_CHECKS checks of a board in a round."""

    type: Literal["deal_ack"] = "deal_ack"
    board: int
    state: Literal["keyed", "confirmed", "conflict"]
    differences: list[str] = Field(default_factory=list)


class TravellerLineView(BaseModel):
    """One table's result on a board's traveller (``ours``: the asking table's)."""

    model_config = ConfigDict(frozen=True)
    table: int | None = None
    ns: str | None = None
    ew: str | None = None
    contract: str | None = None
    declarer: Literal["N", "E", "S", "W"] | None = None
    lead: str | None = None
    result: str | None = None
    ns_score: str = ""
    ew_score: str = ""
    ns_percent: float | None = None
    ew_percent: float | None = None
    ours: bool = False


class BoardReport(Message):
    """Answer to GetBoardReport, only for a board this table has played and confirmed."""

    type: Literal["board_report"] = "board_report"
    board: int
    show: AfterConfirm
    unit: str = Field(default="MP", examples=["MP", "IMP"])
    results: int = Field(default=0, description="How many tables' results are scored so far.")
    ns_percent: float | None = None
    ew_percent: float | None = None
    ns_value: str | None = Field(default=None, description="N/S's score on the board, e.g. 3.5")
    ew_value: str | None = None
    rows: list[TravellerLineView] = Field(default_factory=list)
    deal: str | None = Field(default=None, description='PBN "N:AKQ.. ..." when known.')
    dd_tricks: dict[str, dict[str, int]] | None = Field(
        default=None, description="Double-dummy tricks: declarer -> strain -> tricks."
    )


class RankingLineView(BaseModel):
    """One pair's line in the ranking (``ours``: a pair of the asking table)."""

    model_config = ConfigDict(frozen=True)
    place: str
    pair: str
    names: str = ""
    total: str = ""
    percent: float | None = None
    ours: bool = False


class RankingGroupView(BaseModel):
    """A ranked group: N/S, E/W, or all pairs."""

    model_config = ConfigDict(frozen=True)
    title: str
    rows: list[RankingLineView]


class RankingReport(Message):
    """Answer to GetRanking: the ranking on the boards every table has finished."""

    type: Literal["ranking_report"] = "ranking_report"
    event: str
    section: str
    unit: str
    boards_shown: int
    boards_total: int
    final: bool = Field(description="Every board is in (else the ranking is provisional).")
    groups: list[RankingGroupView]
    kind: Literal["pairs", "individual"] = Field(
        default="pairs", description="An individual ranks players (rows name a player)."
    )


ServerMessage = Annotated[
    Paired
    | RoundInfo
    | ResultAck
    | Ack
    | Error
    | ResultChanged
    | RoundChanged
    | ConflictRaised
    | TableSettings
    | SettingsChanged
    | MemberFound
    | EntryChecked
    | DealAck
    | BoardReport
    | RankingReport,
    Field(discriminator="type"),
]

table_command_adapter: TypeAdapter[TableCommand] = TypeAdapter(TableCommand)
server_message_adapter: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


def parse_command(data: str | bytes) -> TableCommand:
    """Parse one JSON table command (raises pydantic.ValidationError on bad input)."""
    return table_command_adapter.validate_json(data)


def parse_server_message(data: str | bytes) -> ServerMessage:
    """Parse one JSON server message."""
    return server_message_adapter.validate_json(data)
