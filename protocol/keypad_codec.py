"""Keypad frame payloads <-> the messages of protocol/messages.py, so both transports agree.

``encode(message) -> (msg_type, payload)`` and ``decode(msg_type, payload) -> message``. Each
payload is declared once, in :data:`FRAMES` (a ``protocol.frame_fields.Struct`` a frame TYPE:
the fields in wire order, their kinds and tables); the one generic encoder and decoder of
``protocol/frame_fields.py`` read it both ways. Payloads are compact binary, big-endian: u8, u16
and i16 integers, text after a u8 byte count (0xFF for None where text is optional), a seat or a
state as a u8 index (``SEATS``, ``RESULT_STATES``), an auction one byte a call (:class:`Calls`).

A table command is carried exactly (or CodecError if it does not fit a frame). A server message
is carried as :func:`keypad_view` trims it for a 2x16 keypad: ``RoundInfo`` without the event and
section names and the players' names, any ``BoardResultView`` without its ``description`` (the
keypad describes a result itself), and free text (error messages, details) clipped to
``TEXT_LIMIT`` bytes. ``decode(*encode(m)) == keypad_view(m)`` for every message ``m``.
The byte layout of each message is listed in protocol/README.md.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final, get_args

from pydantic import BaseModel, ValidationError

from .bridge.auction import Call
from .bridge.enums import Strain
from .bridge.errors import BridgeError
from .frame_fields import (
    FLAG,
    I16,
    OPT_TEXT,
    TEXT,
    TIME,
    U8,
    U16,
    Absent,
    Alternative,
    Bits,
    Choice,
    EnumBits,
    Field,
    FlagBit,
    Kind,
    ListOf,
    On,
    OneOf,
    PresentBit,
    Reader,
    Struct,
    Text,
    Writer,
    ZeroIsNone,
)
from .frame_fields import CodecError as CodecError  # the codec's one error, re-exported
from .framing import MAX_PAYLOAD
from .messages import (
    Ack,
    AfterConfirm,
    AuctionEntry,
    BoardResultView,
    BoardStatus,
    CallTD,
    CheckDeal,
    ConfirmResult,
    ConflictRaised,
    CorrectResult,
    DealAck,
    DealAsk,
    EnterDeal,
    EnterResult,
    EntryValues,
    Error,
    GetRound,
    GetTableSettings,
    Hello,
    Message,
    NextPosition,
    NextRound,
    Paired,
    PairInfo,
    PairTerminal,
    PlayEntry,
    PlayerNumbers,
    RejectResult,
    ResultAck,
    ResultChanged,
    ResultState,
    RoundChanged,
    RoundInfo,
    TableSettings,
)

#: Longest free text (error message, detail) sent to a keypad, in UTF-8 bytes.
TEXT_LIMIT: Final = 64
RESULT_STATES: Final[tuple[str, ...]] = tuple(state.value for state in ResultState)
SEATS: Final = (None, "N", "E", "S", "W")
SIDES: Final = (None, "NS", "EW")
VULNERABILITIES: Final = ("NONE", "NS", "EW", "BOTH")
DEALERS: Final = ("N", "E", "S", "W")
#: BoardStatus.deal, in bits 5-6 of a board's dealer/vulnerability byte.
DEAL_ASKS: Final[tuple[str | None, ...]] = (None, *get_args(DealAsk))
DEAL_STATES: Final = ("keyed", "confirmed", "conflict")
AFTER_CONFIRM: Final = get_args(AfterConfirm)
PLAYER_NUMBERS: Final = get_args(PlayerNumbers)
AUCTION_ENTRY: Final = get_args(AuctionEntry)
PLAY_ENTRY: Final = get_args(PlayEntry)
#: A call in one byte: 0 pass, 1 double, 2 redouble, 3 + (level - 1) * 5 + strain a bid (1C = 3
#: ... 7NT = 37); the high bit marks an alert.
_CALL_KINDS: Final = ("P", "X", "XX")
_STRAINS: Final = (Strain.C, Strain.D, Strain.H, Strain.S, Strain.NT)
ALERT_BIT: Final = 0x80


class MessageType(IntEnum):
    """Frame TYPE of each message: 0x10.. keypad -> gateway, 0x20.. gateway -> keypad."""

    PAIR_TERMINAL = 0x10
    HELLO = 0x11
    GET_ROUND = 0x12
    ENTER_RESULT = 0x13
    CORRECT_RESULT = 0x14
    CONFIRM_RESULT = 0x15
    REJECT_RESULT = 0x16
    NEXT_ROUND = 0x17
    CALL_TD = 0x18
    GET_TABLE_SETTINGS = 0x19
    ENTER_DEAL = 0x1A
    CHECK_DEAL = 0x1B
    PAIRED = 0x20
    ROUND_INFO = 0x21
    RESULT_ACK = 0x22
    ACK = 0x23
    ERROR = 0x24
    RESULT_CHANGED = 0x25
    ROUND_CHANGED = 0x26
    CONFLICT_RAISED = 0x27
    TABLE_SETTINGS = 0x28
    DEAL_ACK = 0x29


KeypadCommand = (
    PairTerminal
    | Hello
    | GetRound
    | EnterResult
    | CorrectResult
    | ConfirmResult
    | RejectResult
    | NextRound
    | CallTD
    | GetTableSettings
    | EnterDeal
    | CheckDeal
)
KeypadReply = (
    Paired
    | RoundInfo
    | ResultAck
    | Ack
    | Error
    | ResultChanged
    | RoundChanged
    | ConflictRaised
    | TableSettings
    | DealAck
)
KeypadMessage = KeypadCommand | KeypadReply


def clip(text: str, limit: int = TEXT_LIMIT) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes, on a character boundary."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", errors="ignore")


class Calls(Kind):
    """An auction (its canonical text, ``Auction.__str__``): the count of calls in one byte,
    then one byte a call (exact: any other spelling cannot be encoded)."""

    def put(self, w: Writer, value: object) -> None:
        if not isinstance(value, str):
            raise CodecError(f"{value!r} is not an auction")
        text = value
        try:
            calls = [Call.parse(word) for word in text.split()]
        except BridgeError as exc:
            raise CodecError(f"auction: {exc}") from exc
        if " ".join(str(call) for call in calls) != text:
            raise CodecError(
                f"auction {text[:20]!r} is not in canonical form (1C P X XX, ! alerts)"
            )
        w.u8(len(calls))
        for call in calls:
            if call.is_bid:
                assert call.strain is not None
                code = 3 + (call.level - 1) * 5 + _STRAINS.index(call.strain)
            else:
                code = _CALL_KINDS.index(call.kind)
            w.u8(code | (ALERT_BIT if call.alert else 0))

    def get(self, r: Reader) -> str:
        calls = []
        for _ in range(r.u8()):
            byte = r.u8()
            code, alert = byte & ~ALERT_BIT, bool(byte & ALERT_BIT)
            if code < 3:
                calls.append(Call(_CALL_KINDS[code], alert=alert))
            elif code <= 37:
                level, strain = divmod(code - 3, 5)
                calls.append(Call("bid", level + 1, _STRAINS[strain], alert))
            else:
                raise CodecError(f"call byte {byte:#04x} is not a call")
        return " ".join(str(call) for call in calls)


# ------------------------------------------------------------------------------ layouts
# Each payload is declared once, here; frame_fields encodes and decodes it. protocol/README.md
# draws the same layouts byte by byte.

_VIEW = Struct(
    BoardResultView,
    (
        Field("board", U16),
        Field("round", U16),
        Field("table", U16),
        Field("state", Choice(RESULT_STATES)),
        Field("version", U16),
        Bits(
            "a result's flags",
            (
                PresentBit("contract"),
                PresentBit("declarer"),
                PresentBit("tricks"),
                PresentBit("result"),
                PresentBit("lead"),
                PresentBit("ns_score"),
                FlagBit("ruling_pending"),
                PresentBit("adjusted"),
            ),
        ),
        Field("contract", TEXT, On.FLAGGED),
        Field("declarer", Choice(SEATS), On.FLAGGED),
        Field("tricks", U8, On.FLAGGED),
        Field("result", TEXT, On.FLAGGED),
        Field("lead", TEXT, On.FLAGGED),
        Field("ns_score", I16, On.FLAGGED),
        Field("adjusted", TEXT, On.FLAGGED),
    ),
)
_TRICKS = OneOf((Alternative("count", int, I16), Alternative("text", str, TEXT)))
_VALUES = Struct(
    EntryValues,
    (
        Field("contract", TEXT),
        Field("declarer", Choice(SEATS)),
        Field("tricks", _TRICKS),
        Field("lead", OPT_TEXT),
        Absent("play", "the keypad does not key the play (protocol/keys.md)"),
        Absent("alerts", "the keypad keys no text: its alerts are Alert (protocol/keys.md)"),
        # An entry without an auction ends before it.
        Field("auction", Calls(), On.TRAILING),
    ),
)
_PAIR = Struct(
    PairInfo, (Field("number", U16), Field("direction", Choice(SIDES)), Field("label", TEXT))
)
_BOARD = Struct(
    BoardStatus,
    (
        Field("board", U16),
        Bits(
            "a board's dealer/vulnerability byte",
            (
                EnumBits("dealer", DEALERS, 2),
                EnumBits("vulnerability", VULNERABILITIES, 2),
                PresentBit("result"),
                EnumBits("deal", DEAL_ASKS, 2),
            ),
        ),
        Field("state", Choice(RESULT_STATES)),
        Field("result", _VIEW, On.FLAGGED),
    ),
)
_POSITION = Struct(
    NextPosition,
    (
        Field("pair", TEXT),
        Field("table", ZeroIsNone(U16)),
        # A pair's side as its index in SIDES, as every keypad reads it; a player's seat (an
        # individual) after those, with the player bit set.
        Bits(
            "a position's seat byte",
            (EnumBits("seat", (*SIDES, *SEATS[1:]), 3), FlagBit("player")),
        ),
        Field("boards", ListOf(U16)),
    ),
)
_ROUND = Struct(
    RoundInfo,
    (
        Field("table", U16),
        Field("round", U16),
        Field("rounds", U16),
        Bits(
            "the round's flags",
            (
                FlagBit("complete"),
                FlagBit("round_open"),
                FlagBit("next_round_released"),
                FlagBit("lead_required"),
                FlagBit("confirm_pin_required"),
                EnumBits("tricks_style", ("absolute", "relative"), 1),
                PresentBit("ns"),
                PresentBit("ew"),
            ),
        ),
        Field("ns", _PAIR, On.FLAGGED),
        Field("ew", _PAIR, On.FLAGGED),
        Field("boards", ListOf(_BOARD)),
        Field("next", ListOf(_POSITION)),
        # Older keypads never get a language.
        Field("language", Text(cut=8), On.TRAILING),
    ),
    fixed={"event": "", "section": ""},
)

#: The payload of every frame TYPE.
FRAMES: Final[dict[MessageType, Struct]] = {
    # Firmware older than players' positions leaves out their trailing flag.
    MessageType.PAIR_TERMINAL: Struct(
        PairTerminal,
        (Field("code", TEXT), Field("device", TEXT), Field("player_positions", FLAG, On.TRAILING)),
    ),
    MessageType.HELLO: Struct(
        Hello, (Field("token", TEXT), Field("player_positions", FLAG, On.TRAILING))
    ),
    MessageType.GET_ROUND: Struct(GetRound, ()),
    MessageType.ENTER_RESULT: Struct(
        EnterResult,
        (
            Field("entry_id", TEXT),
            Field("board", U16),
            Field("ruling_pending", FLAG),
            Field("values", _VALUES),
        ),
    ),
    MessageType.CORRECT_RESULT: Struct(
        CorrectResult,
        (
            Field("entry_id", TEXT),
            Field("board", U16),
            Field("version", U16),
            Field("ruling_pending", FLAG),
            Field("values", _VALUES),
        ),
    ),
    MessageType.CONFIRM_RESULT: Struct(
        ConfirmResult,
        (
            Field("entry_id", TEXT),
            Field("board", U16),
            Field("version", U16),
            Field("pin", OPT_TEXT),
        ),
    ),
    MessageType.REJECT_RESULT: Struct(
        RejectResult,
        (
            Field("entry_id", TEXT),
            Field("board", U16),
            Field("version", U16),
            Field("reason", TEXT),
        ),
    ),
    MessageType.NEXT_ROUND: Struct(NextRound, ()),
    MessageType.CALL_TD: Struct(CallTD, (Field("entry_id", TEXT), Field("reason", TEXT))),
    MessageType.GET_TABLE_SETTINGS: Struct(GetTableSettings, ()),
    MessageType.ENTER_DEAL: Struct(
        EnterDeal, (Field("entry_id", TEXT), Field("board", U16), Field("deal", TEXT))
    ),
    MessageType.CHECK_DEAL: Struct(
        CheckDeal,
        (
            Field("entry_id", TEXT),
            Field("board", U16),
            Field("seat", Choice(SEATS)),
            Field("hand", TEXT),
        ),
    ),
    MessageType.PAIRED: Struct(
        Paired,
        (
            Field("token", TEXT),
            Field("event", TEXT),
            Field("section", TEXT),
            Field("table", U16),
            Field("expires_at", TIME),
        ),
    ),
    MessageType.ROUND_INFO: _ROUND,
    MessageType.RESULT_ACK: Struct(
        ResultAck, (Field("entry_id", TEXT), Field("duplicate", FLAG), Field("result", _VIEW))
    ),
    MessageType.ACK: Struct(Ack, (Field("entry_id", OPT_TEXT), Field("detail", TEXT))),
    MessageType.ERROR: Struct(
        Error, (Field("code", TEXT), Field("message", TEXT), Field("entry_id", OPT_TEXT))
    ),
    MessageType.RESULT_CHANGED: Struct(ResultChanged, (Field("result", _VIEW),)),
    MessageType.ROUND_CHANGED: Struct(RoundChanged, (Field("round", _ROUND),)),
    MessageType.CONFLICT_RAISED: Struct(
        ConflictRaised, (Field("result", _VIEW), Field("message", TEXT))
    ),
    MessageType.TABLE_SETTINGS: Struct(
        TableSettings,
        (
            Field("after_confirm", Choice(AFTER_CONFIRM)),
            Field("player_numbers", Choice(PLAYER_NUMBERS)),
            Field("auction_entry", Choice(AUCTION_ENTRY)),
            Field("play_entry", Choice(PLAY_ENTRY)),
            Bits(
                "the settings' flags",
                (FlagBit("show_ranking"), FlagBit("hand_records"), FlagBit("deal_entry")),
            ),
        ),
    ),
    MessageType.DEAL_ACK: Struct(
        DealAck,
        (
            Field("board", U16),
            Field("state", Choice(DEAL_STATES)),
            Field("differences", ListOf(TEXT)),
        ),
    ),
}
#: The frame TYPE of each message class.
TYPES: Final[dict[type[BaseModel], MessageType]] = {
    frame.model: kind for kind, frame in FRAMES.items()
}


# ------------------------------------------------------------------------------- public API


def _trim_view(view: BoardResultView | None) -> BoardResultView | None:
    """A result as a keypad gets it: without the description (the keypad words a result
    itself), the auction with its alerts' explanations and the play (the keypad shows neither)."""
    hidden = ("description", "auction", "alerts", "play")
    if view is None or all(getattr(view, name) is None for name in hidden):
        return view
    return view.model_copy(update=dict.fromkeys(hidden))


def _trim_round(info: RoundInfo) -> RoundInfo:
    """The round as a keypad gets it; drops more (see keypad_view) while it does not fit."""

    def pair(p: PairInfo | None) -> PairInfo | None:
        return None if p is None else p.model_copy(update={"names": []})

    boards = [b.model_copy(update={"result": _trim_view(b.result)}) for b in info.boards]
    trimmed = info.model_copy(
        update={
            "event": "",
            "section": "",
            "ns": pair(info.ns),
            "ew": pair(info.ew),
            "boards": boards,
        }
    )
    if _fits_round(trimmed):
        return trimmed
    # Too big for one frame: keep results only where East still has to look at them.
    boards = [
        b if b.state in ("entered", "conflict") else b.model_copy(update={"result": None})
        for b in boards
    ]
    trimmed = trimmed.model_copy(update={"boards": boards})
    if _fits_round(trimmed):
        return trimmed
    positions = [p.model_copy(update={"boards": []}) for p in trimmed.next]
    return trimmed.model_copy(update={"next": positions})


def _fits_round(info: RoundInfo) -> bool:
    w = Writer()
    try:
        _ROUND.put(w, info)
    except CodecError:
        return True  # not a size problem: let encode report it
    return len(w.buf) <= MAX_PAYLOAD


def without_player_positions(message: Message) -> Message:
    """A round as a keypad that never said it reads players' positions gets it (no
    ``player_positions`` in its pairing or Hello): an individual's players' next positions
    left out, the pairs' kept. Firmware older than players' positions cannot read a round
    that holds one (the seat byte is out of its range), so it would never show its round.
    Other messages unchanged."""
    if isinstance(message, RoundChanged):
        return message.model_copy(update={"round": without_player_positions(message.round)})
    if isinstance(message, RoundInfo) and any(p.player for p in message.next):
        return message.model_copy(update={"next": [p for p in message.next if not p.player]})
    return message


def keypad_view(message: KeypadMessage) -> KeypadMessage:
    """The message as a keypad frame carries it (see the module docstring); commands unchanged.

    A RoundInfo that would not fit one frame also loses the results of boards no longer waiting
    for East (their states stay), then the board lists of the next positions.
    """
    if isinstance(message, RoundInfo):
        return _trim_round(message)
    if isinstance(message, RoundChanged):
        return message.model_copy(update={"round": _trim_round(message.round)})
    if isinstance(message, ResultAck | ResultChanged):
        return message.model_copy(update={"result": _trim_view(message.result)})
    if isinstance(message, ConflictRaised):
        return message.model_copy(
            update={"result": _trim_view(message.result), "message": clip(message.message)}
        )
    if isinstance(message, Error):
        return message.model_copy(update={"message": clip(message.message)})
    if isinstance(message, Ack):
        return message.model_copy(update={"detail": clip(message.detail)})
    if isinstance(message, Paired):
        return message.model_copy(
            update={"event": clip(message.event), "section": clip(message.section)}
        )
    if isinstance(message, DealAck):
        return message.model_copy(update={"differences": [clip(d) for d in message.differences]})
    return message


def encode(message: Message) -> tuple[int, bytes]:
    """The frame TYPE and payload for a message; CodecError if it cannot go in one frame."""
    if not isinstance(message, KeypadMessage):
        raise CodecError(f"{type(message).__name__} is not sent over keypad frames")
    view = keypad_view(message)
    kind = TYPES.get(type(view))
    if kind is None:
        raise CodecError(f"{type(view).__name__} is not sent over keypad frames")
    w = Writer()
    FRAMES[kind].put(w, view)
    if len(w.buf) > MAX_PAYLOAD:
        raise CodecError(f"{kind.name} needs {len(w.buf)} bytes; a frame holds {MAX_PAYLOAD}")
    return int(kind), bytes(w.buf)


def decode(msg_type: int, payload: bytes) -> KeypadMessage:
    """The message in a frame; CodecError (only) for an unknown type or a malformed payload."""
    try:
        kind = MessageType(msg_type)
    except ValueError:
        raise CodecError(f"unknown message type {msg_type:#04x}") from None
    r = Reader(bytes(payload))
    try:
        message = FRAMES[kind].get(r)
    except ValidationError as exc:
        raise CodecError(f"{kind.name}: {exc.error_count()} invalid field(s)") from exc
    r.end()
    assert isinstance(message, KeypadMessage)
    return message
