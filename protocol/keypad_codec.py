"""Keypad frame payloads <-> the messages of protocol/messages.py, so both transports agree.

``encode(message) -> (msg_type, payload)`` and ``decode(msg_type, payload) -> message``. Payloads
are compact binary, big-endian, built from:

* ``u8`` / ``u16`` / ``i16``: unsigned or signed integers of 1 or 2 bytes;
* ``str``: a u8 byte count then that many UTF-8 bytes; ``opt``: the same, 0xFF meaning None;
* ``seat``: u8, 0 = None, 1..4 = N, E, S, W; ``state``: u8 index into ``RESULT_STATES``.

A table command is carried exactly (or CodecError if it does not fit a frame). A server message
is carried as :func:`keypad_view` trims it for a 2x16 keypad: ``RoundInfo`` without the event and
section names and the players' names, any ``BoardResultView`` without its ``description`` (the
keypad describes a result itself), and free text (error messages, details) clipped to
``TEXT_LIMIT`` bytes. ``decode(*encode(m)) == keypad_view(m)`` for every message ``m``.
The byte layout of each message is listed in protocol/README.md.
"""

from __future__ import annotations

from datetime import datetime
from enum import IntEnum
from typing import Final, get_args

from pydantic import ValidationError

from .bridge.auction import Call
from .bridge.enums import Strain
from .bridge.errors import BridgeError
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
#: BoardStatus.deal, in bits 5-6 of a board's dealer/vulnerability byte (issue 20).
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


class CodecError(ValueError):
    """A payload that cannot be decoded, or a message that cannot be encoded into one frame."""


# ------------------------------------------------------------------------------ primitives


class _Writer:
    def __init__(self) -> None:
        self.buf = bytearray()

    def u8(self, value: int) -> None:
        if not 0 <= value <= 0xFF:
            raise CodecError(f"{value} does not fit in one byte")
        self.buf.append(value)

    def u16(self, value: int) -> None:
        if not 0 <= value <= 0xFFFF:
            raise CodecError(f"{value} does not fit in 0..65535")
        self.buf += value.to_bytes(2, "big")

    def i16(self, value: int) -> None:
        if not -0x8000 <= value <= 0x7FFF:
            raise CodecError(f"{value} does not fit in -32768..32767")
        self.buf += value.to_bytes(2, "big", signed=True)

    def text(self, value: str, limit: int = 0xFF) -> None:
        data = value.encode("utf-8")
        if len(data) > limit:
            raise CodecError(f"text of {len(data)} bytes exceeds {limit}: {value[:20]!r}")
        self.buf.append(len(data))
        self.buf += data

    def opt(self, value: str | None) -> None:
        if value is None:
            self.buf.append(0xFF)
        else:
            self.text(value, 0xFE)

    def choice(self, value: object, options: tuple[object, ...]) -> None:
        self.u8(options.index(value))


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def _take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise CodecError("payload ends too early")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def u8(self) -> int:
        return self._take(1)[0]

    def u16(self) -> int:
        return int.from_bytes(self._take(2), "big")

    def i16(self) -> int:
        return int.from_bytes(self._take(2), "big", signed=True)

    def text(self) -> str:
        return self._text(self.u8())

    def opt(self) -> str | None:
        n = self.u8()
        return None if n == 0xFF else self._text(n)

    def _text(self, n: int) -> str:
        try:
            return self._take(n).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CodecError("text is not UTF-8") from exc

    def choice(self, options: tuple[object, ...]) -> object:
        index = self.u8()
        if index >= len(options):
            raise CodecError(f"choice {index} out of range")
        return options[index]

    def more(self) -> bool:
        return self.pos < len(self.data)

    def end(self) -> None:
        if self.pos != len(self.data):
            raise CodecError(f"{len(self.data) - self.pos} bytes left over")


def clip(text: str, limit: int = TEXT_LIMIT) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes, on a character boundary."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", errors="ignore")


# ----------------------------------------------------------------------- shared structures

_VIEW_FLAGS: Final = (
    "contract",
    "declarer",
    "tricks",
    "result",
    "lead",
    "ns_score",
    "ruling_pending",
    "adjusted",
)


def _put_view(w: _Writer, view: BoardResultView) -> None:
    w.u16(view.board)
    w.u16(view.round)
    w.u16(view.table)
    w.choice(view.state, RESULT_STATES)
    w.u16(view.version)
    flags = 0
    for bit, name in enumerate(_VIEW_FLAGS):
        value = getattr(view, name)
        if value is not None and value is not False:
            flags |= 1 << bit
    w.u8(flags)
    if view.contract is not None:
        w.text(view.contract)
    if view.declarer is not None:
        w.choice(view.declarer, SEATS)
    if view.tricks is not None:
        w.u8(view.tricks)
    if view.result is not None:
        w.text(view.result)
    if view.lead is not None:
        w.text(view.lead)
    if view.ns_score is not None:
        w.i16(view.ns_score)
    if view.adjusted is not None:
        w.text(view.adjusted)


def _get_view(r: _Reader) -> BoardResultView:
    fields: dict[str, object] = {
        "board": r.u16(),
        "round": r.u16(),
        "table": r.u16(),
        "state": r.choice(RESULT_STATES),
        "version": r.u16(),
    }
    flags = r.u8()

    def has(name: str) -> bool:
        return bool(flags & (1 << _VIEW_FLAGS.index(name)))

    if has("contract"):
        fields["contract"] = r.text()
    if has("declarer"):
        fields["declarer"] = r.choice(SEATS)
    if has("tricks"):
        fields["tricks"] = r.u8()
    if has("result"):
        fields["result"] = r.text()
    if has("lead"):
        fields["lead"] = r.text()
    if has("ns_score"):
        fields["ns_score"] = r.i16()
    fields["ruling_pending"] = has("ruling_pending")
    if has("adjusted"):
        fields["adjusted"] = r.text()
    return BoardResultView.model_validate(fields)


def _put_values(w: _Writer, values: EntryValues) -> None:
    w.text(values.contract)
    w.choice(values.declarer, SEATS)
    if isinstance(values.tricks, int):
        w.u8(0)
        w.i16(values.tricks)
    else:
        w.u8(1)
        w.text(values.tricks)
    w.opt(values.lead)
    if values.play is not None:
        raise CodecError("the keypad does not key the play (protocol/keys.md)")
    if values.auction is not None:  # optional trailing field: an entry without it ends here
        _put_auction(w, values.auction)


def _call_byte(call: Call) -> int:
    if call.is_bid:
        assert call.strain is not None
        code = 3 + (call.level - 1) * 5 + _STRAINS.index(call.strain)
    else:
        code = _CALL_KINDS.index(call.kind)
    return code | (ALERT_BIT if call.alert else 0)


def _put_auction(w: _Writer, text: str) -> None:
    """The calls one byte each (exact: the text must be the calls' canonical form)."""
    try:
        calls = [Call.parse(word) for word in text.split()]
    except BridgeError as exc:
        raise CodecError(f"auction: {exc}") from exc
    if " ".join(str(call) for call in calls) != text:
        raise CodecError(f"auction {text[:20]!r} is not in canonical form (1C P X XX, ! alerts)")
    w.u8(len(calls))
    for call in calls:
        w.u8(_call_byte(call))


def _get_auction(r: _Reader) -> str:
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


def _get_values(r: _Reader) -> EntryValues:
    contract = r.text()
    declarer = r.choice(SEATS)
    tag = r.u8()
    if tag == 0:
        tricks: int | str = r.i16()
    elif tag == 1:
        tricks = r.text()
    else:
        raise CodecError(f"tricks tag {tag} is neither 0 (count) nor 1 (text)")
    lead = r.opt()
    auction = _get_auction(r) if r.more() else None
    return EntryValues.model_validate(
        {
            "contract": contract,
            "declarer": declarer,
            "tricks": tricks,
            "lead": lead,
            "auction": auction,
        }
    )


def _put_pair(w: _Writer, pair: PairInfo) -> None:
    w.u16(pair.number)
    w.choice(pair.direction, SIDES)
    w.text(pair.label)


def _get_pair(r: _Reader) -> PairInfo:
    number, direction, label = r.u16(), r.choice(SIDES), r.text()
    return PairInfo.model_validate({"number": number, "direction": direction, "label": label})


_ROUND_FLAGS: Final = (
    "complete",
    "round_open",
    "next_round_released",
    "lead_required",
    "confirm_pin_required",
)


def _put_round(w: _Writer, info: RoundInfo) -> None:
    w.u16(info.table)
    w.u16(info.round)
    w.u16(info.rounds)
    flags = sum(1 << bit for bit, name in enumerate(_ROUND_FLAGS) if getattr(info, name))
    flags |= (info.tricks_style == "relative") << 5
    flags |= (info.ns is not None) << 6
    flags |= (info.ew is not None) << 7
    w.u8(flags)
    for pair in (info.ns, info.ew):
        if pair is not None:
            _put_pair(w, pair)
    w.u8(len(info.boards))
    for status in info.boards:
        w.u16(status.board)
        dealer = DEALERS.index(status.dealer)
        vul = VULNERABILITIES.index(status.vulnerability)
        ask = DEAL_ASKS.index(status.deal) << 5
        w.u8(dealer | vul << 2 | (status.result is not None) << 4 | ask)
        w.choice(status.state, RESULT_STATES)
        if status.result is not None:
            _put_view(w, status.result)
    w.u8(len(info.next))
    for position in info.next:
        w.text(position.pair)
        w.u16(position.table or 0)
        w.choice(position.seat, SIDES)
        w.u8(len(position.boards))
        for board in position.boards:
            w.u16(board)
    if info.language is not None:  # optional trailing field: older keypads never get one
        w.text(info.language[:8])


def _get_round(r: _Reader) -> dict[str, object]:
    fields: dict[str, object] = {"event": "", "section": ""}
    fields["table"] = r.u16()
    fields["round"] = r.u16()
    fields["rounds"] = r.u16()
    flags = r.u8()
    for bit, name in enumerate(_ROUND_FLAGS):
        fields[name] = bool(flags & (1 << bit))
    fields["tricks_style"] = "relative" if flags & 1 << 5 else "absolute"
    fields["ns"] = _get_pair(r) if flags & 1 << 6 else None
    fields["ew"] = _get_pair(r) if flags & 1 << 7 else None
    boards = []
    for _ in range(r.u8()):
        board = r.u16()
        packed = r.u8()
        if packed >> 7 or packed >> 5 >= len(DEAL_ASKS):
            raise CodecError("unused bits set in a board's dealer/vulnerability byte")
        state = r.choice(RESULT_STATES)
        result = _get_view(r) if packed & 0x10 else None
        boards.append(
            BoardStatus.model_validate(
                {
                    "board": board,
                    "dealer": DEALERS[packed & 3],
                    "vulnerability": VULNERABILITIES[packed >> 2 & 3],
                    "state": state,
                    "result": result,
                    "deal": DEAL_ASKS[packed >> 5],
                }
            )
        )
    fields["boards"] = boards
    positions = []
    for _ in range(r.u8()):
        pair = r.text()
        table = r.u16()
        seat = r.choice(SIDES)
        position_boards = [r.u16() for _ in range(r.u8())]
        positions.append(
            NextPosition.model_validate(
                {"pair": pair, "table": table or None, "seat": seat, "boards": position_boards}
            )
        )
    fields["next"] = positions
    fields["language"] = r.text() if r.more() else None
    return fields


# --------------------------------------------------------------------------------- messages


def _put(w: _Writer, m: KeypadMessage) -> MessageType:
    if isinstance(m, PairTerminal):
        w.text(m.code)
        w.text(m.device)
        return MessageType.PAIR_TERMINAL
    if isinstance(m, Hello):
        w.text(m.token)
        return MessageType.HELLO
    if isinstance(m, GetRound):
        return MessageType.GET_ROUND
    if isinstance(m, NextRound):
        return MessageType.NEXT_ROUND
    if isinstance(m, EnterResult):
        w.text(m.entry_id)
        w.u16(m.board)
        w.u8(int(m.ruling_pending))
        _put_values(w, m.values)
        return MessageType.ENTER_RESULT
    if isinstance(m, CorrectResult):
        w.text(m.entry_id)
        w.u16(m.board)
        w.u16(m.version)
        w.u8(int(m.ruling_pending))
        _put_values(w, m.values)
        return MessageType.CORRECT_RESULT
    if isinstance(m, ConfirmResult):
        w.text(m.entry_id)
        w.u16(m.board)
        w.u16(m.version)
        w.opt(m.pin)
        return MessageType.CONFIRM_RESULT
    if isinstance(m, RejectResult):
        w.text(m.entry_id)
        w.u16(m.board)
        w.u16(m.version)
        w.text(m.reason)
        return MessageType.REJECT_RESULT
    if isinstance(m, CallTD):
        w.text(m.entry_id)
        w.text(m.reason)
        return MessageType.CALL_TD
    if isinstance(m, GetTableSettings):
        return MessageType.GET_TABLE_SETTINGS
    if isinstance(m, EnterDeal):
        w.text(m.entry_id)
        w.u16(m.board)
        w.text(m.deal)
        return MessageType.ENTER_DEAL
    if isinstance(m, CheckDeal):
        w.text(m.entry_id)
        w.u16(m.board)
        w.choice(m.seat, SEATS)
        w.text(m.hand)
        return MessageType.CHECK_DEAL
    if isinstance(m, TableSettings):
        w.choice(m.after_confirm, AFTER_CONFIRM)
        w.choice(m.player_numbers, PLAYER_NUMBERS)
        w.choice(m.auction_entry, AUCTION_ENTRY)
        w.choice(m.play_entry, PLAY_ENTRY)
        w.u8(m.show_ranking | m.hand_records << 1 | m.deal_entry << 2)
        return MessageType.TABLE_SETTINGS
    if isinstance(m, DealAck):
        w.u16(m.board)
        w.choice(m.state, DEAL_STATES)
        w.u8(len(m.differences))
        for difference in m.differences:
            w.text(difference)
        return MessageType.DEAL_ACK
    if isinstance(m, Paired):
        w.text(m.token)
        w.text(m.event)
        w.text(m.section)
        w.u16(m.table)
        w.opt(None if m.expires_at is None else m.expires_at.isoformat())
        return MessageType.PAIRED
    if isinstance(m, RoundInfo):
        _put_round(w, m)
        return MessageType.ROUND_INFO
    if isinstance(m, RoundChanged):
        _put_round(w, m.round)
        return MessageType.ROUND_CHANGED
    if isinstance(m, ResultAck):
        w.text(m.entry_id)
        w.u8(int(m.duplicate))
        _put_view(w, m.result)
        return MessageType.RESULT_ACK
    if isinstance(m, Ack):
        w.opt(m.entry_id)
        w.text(m.detail)
        return MessageType.ACK
    if isinstance(m, Error):
        w.text(m.code)
        w.text(m.message)
        w.opt(m.entry_id)
        return MessageType.ERROR
    if isinstance(m, ResultChanged):
        _put_view(w, m.result)
        return MessageType.RESULT_CHANGED
    if isinstance(m, ConflictRaised):
        _put_view(w, m.result)
        w.text(m.message)
        return MessageType.CONFLICT_RAISED
    raise CodecError(f"{type(m).__name__} is not sent over keypad frames")


def _get(kind: MessageType, r: _Reader) -> KeypadMessage:
    if kind is MessageType.PAIR_TERMINAL:
        return PairTerminal(code=r.text(), device=r.text())
    if kind is MessageType.HELLO:
        return Hello(token=r.text())
    if kind is MessageType.GET_ROUND:
        return GetRound()
    if kind is MessageType.NEXT_ROUND:
        return NextRound()
    if kind is MessageType.ENTER_RESULT:
        entry_id, board, pending = r.text(), r.u16(), r.u8()
        return EnterResult(
            entry_id=entry_id, board=board, ruling_pending=_flag(pending), values=_get_values(r)
        )
    if kind is MessageType.CORRECT_RESULT:
        entry_id, board, version, pending = r.text(), r.u16(), r.u16(), r.u8()
        return CorrectResult(
            entry_id=entry_id,
            board=board,
            version=version,
            ruling_pending=_flag(pending),
            values=_get_values(r),
        )
    if kind is MessageType.CONFIRM_RESULT:
        return ConfirmResult(entry_id=r.text(), board=r.u16(), version=r.u16(), pin=r.opt())
    if kind is MessageType.REJECT_RESULT:
        return RejectResult(entry_id=r.text(), board=r.u16(), version=r.u16(), reason=r.text())
    if kind is MessageType.CALL_TD:
        return CallTD(entry_id=r.text(), reason=r.text())
    if kind is MessageType.GET_TABLE_SETTINGS:
        return GetTableSettings()
    if kind is MessageType.ENTER_DEAL:
        return EnterDeal(entry_id=r.text(), board=r.u16(), deal=r.text())
    if kind is MessageType.CHECK_DEAL:
        entry_id, board, seat = r.text(), r.u16(), r.choice(SEATS)
        return CheckDeal.model_validate(
            {"entry_id": entry_id, "board": board, "seat": seat, "hand": r.text()}
        )
    if kind is MessageType.TABLE_SETTINGS:
        after, numbers = r.choice(AFTER_CONFIRM), r.choice(PLAYER_NUMBERS)
        auction, play, flags = r.choice(AUCTION_ENTRY), r.choice(PLAY_ENTRY), r.u8()
        if flags >> 3:
            raise CodecError("unused bits set in the settings' flags")
        return TableSettings.model_validate(
            {
                "after_confirm": after,
                "player_numbers": numbers,
                "auction_entry": auction,
                "play_entry": play,
                "show_ranking": bool(flags & 1),
                "hand_records": bool(flags & 2),
                "deal_entry": bool(flags & 4),
            }
        )
    if kind is MessageType.DEAL_ACK:
        board, state = r.u16(), r.choice(DEAL_STATES)
        differences = [r.text() for _ in range(r.u8())]
        return DealAck.model_validate({"board": board, "state": state, "differences": differences})
    if kind is MessageType.PAIRED:
        token, event, section, table, expires = r.text(), r.text(), r.text(), r.u16(), r.opt()
        return Paired(
            token=token, event=event, section=section, table=table, expires_at=_when(expires)
        )
    if kind is MessageType.ROUND_INFO:
        return RoundInfo.model_validate(_get_round(r))
    if kind is MessageType.ROUND_CHANGED:
        return RoundChanged(round=RoundInfo.model_validate(_get_round(r)))
    if kind is MessageType.RESULT_ACK:
        entry_id, duplicate = r.text(), r.u8()
        return ResultAck(entry_id=entry_id, duplicate=_flag(duplicate), result=_get_view(r))
    if kind is MessageType.ACK:
        return Ack(entry_id=r.opt(), detail=r.text())
    if kind is MessageType.ERROR:
        return Error(code=r.text(), message=r.text(), entry_id=r.opt())
    if kind is MessageType.RESULT_CHANGED:
        return ResultChanged(result=_get_view(r))
    assert kind is MessageType.CONFLICT_RAISED
    return ConflictRaised(result=_get_view(r), message=r.text())


def _flag(value: int) -> bool:
    if value > 1:
        raise CodecError(f"flag byte {value} is neither 0 nor 1")
    return bool(value)


def _when(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError as exc:
        raise CodecError(f"{text!r} is not an ISO 8601 time") from exc


# ------------------------------------------------------------------------------- public API


def _trim_view(view: BoardResultView | None) -> BoardResultView | None:
    """A result as a keypad gets it: without the description (the keypad words a result
    itself), the auction and the play (the keypad shows neither)."""
    if view is None or (view.description is None and view.auction is None and view.play is None):
        return view
    return view.model_copy(update={"description": None, "auction": None, "play": None})


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
    w = _Writer()
    try:
        _put_round(w, info)
    except CodecError:
        return True  # not a size problem: let encode report it
    return len(w.buf) <= MAX_PAYLOAD


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
    w = _Writer()
    kind = _put(w, keypad_view(message))
    if len(w.buf) > MAX_PAYLOAD:
        raise CodecError(f"{kind.name} needs {len(w.buf)} bytes; a frame holds {MAX_PAYLOAD}")
    return int(kind), bytes(w.buf)


def decode(msg_type: int, payload: bytes) -> KeypadMessage:
    """The message in a frame; CodecError (only) for an unknown type or a malformed payload."""
    try:
        kind = MessageType(msg_type)
    except ValueError:
        raise CodecError(f"unknown message type {msg_type:#04x}") from None
    r = _Reader(bytes(payload))
    try:
        message = _get(kind, r)
    except ValidationError as exc:
        raise CodecError(f"{kind.name}: {exc.error_count()} invalid field(s)") from exc
    r.end()
    return message
