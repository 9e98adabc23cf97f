"""The keypad codec: commands round-trip exactly, replies as keypad_view trims them."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime, timedelta, timezone
from typing import get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.framing import MAX_PAYLOAD
from protocol.keypad_codec import (
    AFTER_CONFIRM,
    AUCTION_ENTRY,
    FRAMES,
    PLAY_ENTRY,
    PLAYER_NUMBERS,
    TEXT_LIMIT,
    TYPES,
    CodecError,
    KeypadMessage,
    MessageType,
    clip,
    decode,
    encode,
    keypad_view,
)
from protocol.messages import (
    Ack,
    AlertExplanation,
    BoardResultView,
    BoardStatus,
    CallTD,
    CheckDeal,
    ConfirmResult,
    ConflictRaised,
    CorrectResult,
    DealAck,
    EnterDeal,
    EnterResult,
    EntryValues,
    Error,
    GetRound,
    GetTableSettings,
    Hello,
    NextPosition,
    NextRound,
    Paired,
    PairInfo,
    PairTerminal,
    RejectResult,
    ResultAck,
    ResultChanged,
    RoundChanged,
    RoundInfo,
    TableSettings,
    parse_command,
    parse_server_message,
)
from protocol.text import refusal

text = st.text(max_size=12)
u16 = st.integers(0, 0xFFFF)
board = st.integers(1, 0xFFFF)
entry_id = st.text(min_size=8, max_size=64).filter(lambda s: len(s.encode()) <= 255)
seat = st.sampled_from(["N", "E", "S", "W"])
state = st.sampled_from(
    [
        "missing",
        "entered",
        "rejected",
        "confirmed",
        "td_pending",
        "not_played",
        "adjusted",
        "conflict",
    ]
)

#: Auctions as the keypad keys them (canonical: Auction.__str__), legal or not: the codec
#: carries calls, the server judges them.
call = st.sampled_from(["P", "X", "XX", "1C", "1NT", "3H", "7NT", "2S!", "P!", "XX!"])
auctions = st.none() | st.lists(call, max_size=40).map(" ".join)
values = st.builds(
    EntryValues,
    contract=st.text(max_size=16),
    declarer=st.none() | seat,
    tricks=st.integers(-5, 20) | st.sampled_from(["=", "+1", "-2", "10"]),
    lead=st.none() | st.text(max_size=3),
    auction=auctions,
)
views = st.builds(
    BoardResultView,
    board=u16,
    round=u16,
    table=u16,
    state=state,
    version=u16,
    contract=st.none() | st.sampled_from(["4SX", "3NT", "PASS", "7NTXX"]),
    declarer=st.none() | seat,
    tricks=st.none() | st.integers(0, 13),
    result=st.none() | st.sampled_from(["=", "+1", "-2"]),
    lead=st.none() | st.sampled_from(["SA", "H7", "DT"]),
    ns_score=st.none() | st.integers(-7600, 7600),
    description=st.none() | text,
    ruling_pending=st.booleans(),
    adjusted=st.none() | st.sampled_from(["A60/40", "A50"]),
    auction=st.none() | st.sampled_from(["1NT P 3NT P P P", "P P P P"]),
    play=st.none() | st.sampled_from(["HK H2 =9"]),
)
pairs = st.builds(
    PairInfo,
    number=u16,
    direction=st.none() | st.sampled_from(["NS", "EW"]),
    names=st.lists(text, max_size=2),
    label=st.text(max_size=6),
)
statuses = st.builds(
    BoardStatus,
    board=u16,
    dealer=seat,
    vulnerability=st.sampled_from(["NONE", "NS", "EW", "BOTH"]),
    state=state,
    result=st.none() | views,
    deal=st.none() | st.sampled_from(["enter", "check"]),
)
positions = st.builds(
    NextPosition,
    pair=st.text(max_size=5),
    table=st.none() | st.integers(1, 0xFFFF),
    seat=st.none() | st.sampled_from(["NS", "EW"]),
    boards=st.lists(u16, max_size=4),
)
rounds = st.builds(
    RoundInfo,
    event=text,
    section=text,
    table=u16,
    round=u16,
    rounds=u16,
    ns=st.none() | pairs,
    ew=st.none() | pairs,
    boards=st.lists(statuses, max_size=6),
    complete=st.booleans(),
    round_open=st.booleans(),
    next_round_released=st.booleans(),
    next=st.lists(positions, max_size=2),
    lead_required=st.booleans(),
    tricks_style=st.sampled_from(["absolute", "relative"]),
    confirm_pin_required=st.booleans(),
)


def fits_one_frame(message: KeypadMessage) -> bool:
    """Whether a message is small enough for one frame. The models allow texts of more bytes
    than a frame holds (a 64-character entry id of 4-byte characters is 256 bytes): those are
    refused with CodecError (test_commands_that_cannot_be_carried_raise_codec_error)."""
    try:
        encode(message)
    except CodecError as exc:
        return "a frame holds" not in str(exc)
    return True


# Names and reasons the protocol takes: no control or formatting characters (protocol.text).
reason = st.text(max_size=30).filter(lambda t: refusal(t) is None)
device = st.text(max_size=64).filter(lambda t: refusal(t) is None)
commands = st.one_of(
    st.builds(PairTerminal, code=st.text(min_size=4, max_size=12), device=device),
    st.builds(Hello, token=st.text(max_size=60)),
    st.builds(GetRound),
    st.builds(NextRound),
    st.builds(
        EnterResult, entry_id=entry_id, board=board, values=values, ruling_pending=st.booleans()
    ),
    st.builds(
        CorrectResult,
        entry_id=entry_id,
        board=board,
        version=u16,
        values=values,
        ruling_pending=st.booleans(),
    ),
    st.builds(
        ConfirmResult,
        entry_id=entry_id,
        board=board,
        version=u16,
        pin=st.none() | st.text(max_size=8),
    ),
    st.builds(RejectResult, entry_id=entry_id, board=board, version=u16, reason=reason),
    st.builds(CallTD, entry_id=entry_id, reason=reason),
    st.builds(GetTableSettings),
    st.builds(EnterDeal, entry_id=entry_id, board=board, deal=st.text(max_size=80)),
    st.builds(CheckDeal, entry_id=entry_id, board=board, seat=seat, hand=st.text(max_size=20)),
).filter(fits_one_frame)
times = st.none() | st.datetimes(timezones=st.sampled_from([UTC, timezone(timedelta(hours=2))]))
replies = st.one_of(
    st.builds(
        Paired,
        token=st.text(max_size=60),
        event=st.text(),
        section=text,
        table=u16,
        expires_at=times,
    ),
    rounds,
    st.builds(RoundChanged, round=rounds),
    st.builds(ResultAck, entry_id=entry_id, duplicate=st.booleans(), result=views),
    st.builds(Ack, entry_id=st.none() | entry_id, detail=st.text()),
    st.builds(Error, code=st.text(max_size=30), message=st.text(), entry_id=st.none() | entry_id),
    st.builds(ResultChanged, result=views),
    st.builds(ConflictRaised, result=views, message=st.text()),
    st.builds(TableSettings),
    st.builds(
        DealAck,
        board=u16,
        state=st.sampled_from(["keyed", "confirmed", "conflict"]),
        differences=st.lists(st.sampled_from(["SA missing", "HK extra"]), max_size=13),
    ),
).filter(fits_one_frame)


@settings(max_examples=300)
@given(commands)
def test_commands_round_trip_exactly(command: KeypadMessage) -> None:
    msg_type, payload = encode(command)
    assert len(payload) <= MAX_PAYLOAD
    assert 0x10 <= msg_type < 0x20
    assert decode(msg_type, payload) == command
    assert keypad_view(command) == command


@settings(max_examples=300)
@given(replies)
def test_replies_round_trip_as_the_keypad_view(reply: KeypadMessage) -> None:
    msg_type, payload = encode(reply)
    assert len(payload) <= MAX_PAYLOAD
    assert 0x20 <= msg_type < 0x30
    assert decode(msg_type, payload) == keypad_view(reply)
    assert keypad_view(keypad_view(reply)) == keypad_view(reply)


COMMAND_TYPES = {"get_round", "enter_result", "correct_result", "confirm_result", "reject_result"}
COMMAND_TYPES |= {"next_round", "call_td", "get_table_settings", "enter_deal", "check_deal"}


def via_websocket(message: KeypadMessage) -> KeypadMessage:
    """The message as it arrives over a websocket: JSON, parsed by the shared parsers."""
    data = message.model_dump_json()
    if message.type in COMMAND_TYPES:
        return parse_command(data)
    if message.type in ("pair_terminal", "hello"):
        return type(message).model_validate_json(data)  # sent before/around the union
    return parse_server_message(data)


@given(commands | replies)
def test_a_frame_and_a_websocket_message_carry_the_same_content(message: KeypadMessage) -> None:
    assert decode(*encode(via_websocket(message))) == keypad_view(message)


@settings(max_examples=500)
@given(st.integers(0, 255), st.binary(max_size=300))
def test_fuzz_decode_raises_only_codec_error(msg_type: int, payload: bytes) -> None:
    with contextlib.suppress(CodecError):
        decode(msg_type, payload)


@given(commands | replies, st.data())
def test_damaged_payloads_raise_only_codec_error(
    message: KeypadMessage, data: st.DataObject
) -> None:
    msg_type, payload = encode(message)
    if not payload:
        return
    cut = data.draw(st.integers(0, len(payload) - 1))
    for damaged in (payload[:cut], payload + b"\0", payload[:cut] + b"\xff" + payload[cut + 1 :]):
        with contextlib.suppress(CodecError):
            decode(msg_type, damaged)


ROUND = RoundInfo(
    event="Club night",
    section="A",
    table=3,
    round=2,
    rounds=7,
    ns=PairInfo(number=1, direction="NS", names=["Ann", "Bob"], label="1"),
    ew=PairInfo(number=8, direction="EW", names=["Cat", "Dan"], label="8"),
    boards=[
        BoardStatus(board=5, dealer="N", vulnerability="NS", state="missing"),
        BoardStatus(board=6, dealer="E", vulnerability="EW", state="missing"),
    ],
    complete=False,
    round_open=True,
    next_round_released=False,
)


def test_enter_result_bytes_match_the_readme() -> None:
    command = EnterResult(
        entry_id="kp03-0001",
        board=5,
        values=EntryValues(contract="4SX", declarer="S", tricks=8),
    )
    msg_type, payload = encode(command)
    assert msg_type == MessageType.ENTER_RESULT == 0x13
    assert payload.hex(" ") == ("09 6b 70 30 33 2d 30 30 30 31 00 05 00 03 34 53 58 03 00 00 08 ff")


def test_round_info_loses_only_what_a_keypad_does_not_show() -> None:
    got = decode(*encode(ROUND))
    assert isinstance(got, RoundInfo)
    assert (got.event, got.section) == ("", "")
    assert got.ns is not None
    assert got.ns.names == []
    assert got.ns.number == 1
    assert got.boards == ROUND.boards
    assert (
        got.model_copy(
            update={"event": "Club night", "section": "A", "ns": ROUND.ns, "ew": ROUND.ew}
        )
        == ROUND
    )


def test_result_description_is_dropped_and_free_text_clipped() -> None:
    view = BoardResultView(
        board=5, round=2, table=3, state="entered", version=1, contract="4SX", declarer="S",
        tricks=8, result="-2", ns_score=-500, description="4♠ doubled by South, two down",
    )  # fmt: skip
    ack = decode(*encode(ResultAck(entry_id="kp03-0001", result=view)))
    assert isinstance(ack, ResultAck)
    assert ack.result == view.model_copy(update={"description": None})
    error = decode(*encode(Error(code="x", message="é" * 100)))
    assert isinstance(error, Error)
    assert error.message == "é" * (TEXT_LIMIT // 2)


def test_clip_cuts_on_a_character_boundary() -> None:
    assert clip("ab♠", 4) == "ab"
    assert clip("ab♠", 5) == "ab♠"


def test_a_long_round_drops_settled_results_to_fit_a_frame() -> None:
    view = BoardResultView(
        board=1, round=2, table=3, state="confirmed", version=2, contract="4SX", declarer="S",
        tricks=8, result="-2", lead="SA", ns_score=-500, adjusted=None,
    )  # fmt: skip
    boards = [
        BoardStatus(
            board=b,
            dealer="N",
            vulnerability="NONE",
            state="entered" if b == 3 else "confirmed",
            result=view.model_copy(
                update={"board": b, "state": "entered" if b == 3 else "confirmed"}
            ),
        )
        for b in range(1, 13)
    ]
    big = ROUND.model_copy(update={"boards": boards})
    msg_type, payload = encode(big)
    assert len(payload) <= MAX_PAYLOAD
    got = decode(msg_type, payload)
    assert isinstance(got, RoundInfo)
    assert [b.state for b in got.boards] == [b.state for b in boards]
    assert [b.board for b in got.boards if b.result is not None] == [3]


@pytest.mark.parametrize(
    "message",
    [
        EnterResult(
            entry_id="x" * 64,
            board=70_000,
            values=EntryValues(contract="3NT", declarer="N", tricks=9),
        ),
        ConfirmResult(entry_id="x" * 64, board=1, version=-1),
        CallTD(entry_id="x" * 64, reason="é" * 200),
        EnterResult(
            entry_id="x" * 8,
            board=1,
            values=EntryValues(contract="3NT", declarer="N", tricks=9, play="HK H2 =9"),
        ),
        EnterResult(
            entry_id="x" * 8,
            board=1,
            values=EntryValues(contract="", tricks=9, auction="1nt p 3nt p p p"),
        ),
        EnterResult(  # the keypad keys no text: an alert's explanation never goes in a frame
            entry_id="x" * 8,
            board=1,
            values=EntryValues(
                contract="",
                tricks=9,
                auction="1NT! P 3NT P P P",
                alerts=[AlertExplanation(call=1, text="15-17")],
            ),
        ),
    ],
)
def test_commands_that_cannot_be_carried_raise_codec_error(message: KeypadMessage) -> None:
    with pytest.raises(CodecError):
        encode(message)


def test_unknown_type_and_leftover_bytes_raise_codec_error() -> None:
    with pytest.raises(CodecError, match="unknown message type"):
        decode(0x7F, b"")
    with pytest.raises(CodecError, match="left over"):
        decode(MessageType.GET_ROUND, b"\0")
    with pytest.raises(CodecError, match="ends too early"):
        decode(MessageType.HELLO, b"\x05ab")


def test_paired_keeps_its_expiry_time() -> None:
    when = datetime(2026, 3, 1, 22, 30, tzinfo=UTC)
    paired = Paired(token="t0k3n", event="Club", section="A", table=3, expires_at=when)
    assert decode(*encode(paired)) == paired


def test_an_auction_goes_one_byte_a_call() -> None:
    plain = EnterResult(entry_id="e" * 8, board=1, values=EntryValues(contract="3NT", tricks=9))
    auction = "1NT! P 3NT P P P"
    command = plain.model_copy(
        update={"values": plain.values.model_copy(update={"auction": auction})}
    )
    assert len(encode(command)[1]) == len(encode(plain)[1]) + 1 + 6
    assert decode(*encode(command)) == command


def test_settings_and_the_deal_asked_reach_the_keypad() -> None:
    settings = TableSettings(auction_entry="required", deal_entry=True, play_entry="optional")
    assert decode(*encode(settings)) == settings
    status = BoardStatus(board=3, dealer="S", vulnerability="EW", state="missing", deal="check")
    info = ROUND.model_copy(update={"boards": [status]})
    got = decode(*encode(info))
    assert isinstance(got, RoundInfo)
    assert got.boards[0].deal == "check"


# ------------------------------------------------- the declared layouts (protocol.frame_fields)

#: A strategy for every frame TYPE, so each layout in FRAMES is exercised on its own.
BY_TYPE: dict[MessageType, st.SearchStrategy[KeypadMessage]] = {
    MessageType.PAIR_TERMINAL: st.builds(
        PairTerminal, code=st.text(min_size=4, max_size=12), device=device
    ),
    MessageType.HELLO: st.builds(Hello, token=st.text(max_size=60)),
    MessageType.GET_ROUND: st.builds(GetRound),
    MessageType.ENTER_RESULT: st.builds(
        EnterResult, entry_id=entry_id, board=board, values=values, ruling_pending=st.booleans()
    ),
    MessageType.CORRECT_RESULT: st.builds(
        CorrectResult,
        entry_id=entry_id,
        board=board,
        version=u16,
        values=values,
        ruling_pending=st.booleans(),
    ),
    MessageType.CONFIRM_RESULT: st.builds(
        ConfirmResult, entry_id=entry_id, board=board, version=u16, pin=st.none() | text
    ),
    MessageType.REJECT_RESULT: st.builds(
        RejectResult, entry_id=entry_id, board=board, version=u16, reason=reason
    ),
    MessageType.NEXT_ROUND: st.builds(NextRound),
    MessageType.CALL_TD: st.builds(CallTD, entry_id=entry_id, reason=reason),
    MessageType.GET_TABLE_SETTINGS: st.builds(GetTableSettings),
    MessageType.ENTER_DEAL: st.builds(
        EnterDeal, entry_id=entry_id, board=board, deal=st.text(max_size=80)
    ),
    MessageType.CHECK_DEAL: st.builds(
        CheckDeal, entry_id=entry_id, board=board, seat=seat, hand=st.text(max_size=20)
    ),
    MessageType.PAIRED: st.builds(
        Paired,
        token=st.text(max_size=60),
        event=st.text(),
        section=text,
        table=u16,
        expires_at=times,
    ),
    MessageType.ROUND_INFO: st.builds(
        lambda info, language: info.model_copy(update={"language": language}),
        rounds,
        st.none() | st.sampled_from(["en", "da", "nb", "de", "ru", "en-GB-oxendict"]),
    ),
    MessageType.RESULT_ACK: st.builds(
        ResultAck, entry_id=entry_id, duplicate=st.booleans(), result=views
    ),
    MessageType.ACK: st.builds(Ack, entry_id=st.none() | entry_id, detail=st.text()),
    MessageType.ERROR: st.builds(
        Error, code=st.text(max_size=30), message=st.text(), entry_id=st.none() | entry_id
    ),
    MessageType.RESULT_CHANGED: st.builds(ResultChanged, result=views),
    MessageType.ROUND_CHANGED: st.builds(RoundChanged, round=rounds),
    MessageType.CONFLICT_RAISED: st.builds(ConflictRaised, result=views, message=st.text()),
    MessageType.TABLE_SETTINGS: st.builds(
        TableSettings,
        after_confirm=st.sampled_from(AFTER_CONFIRM),
        player_numbers=st.sampled_from(PLAYER_NUMBERS),
        auction_entry=st.sampled_from(AUCTION_ENTRY),
        play_entry=st.sampled_from(PLAY_ENTRY),
        show_ranking=st.booleans(),
        hand_records=st.booleans(),
        deal_entry=st.booleans(),
    ),
    MessageType.DEAL_ACK: st.builds(
        DealAck,
        board=u16,
        state=st.sampled_from(["keyed", "confirmed", "conflict"]),
        differences=st.lists(st.sampled_from(["SA missing", "HK extra"]), max_size=13),
    ),
}
BY_TYPE = {kind: strategy.filter(fits_one_frame) for kind, strategy in BY_TYPE.items()}
any_frame = st.sampled_from(MessageType).flatmap(lambda kind: BY_TYPE[kind])


def test_every_frame_type_has_one_declared_layout() -> None:
    assert set(FRAMES) == set(MessageType) == set(BY_TYPE)
    assert set(TYPES) == set(get_args(KeypadMessage))
    assert all(TYPES[frame.model] is kind for kind, frame in FRAMES.items())


@pytest.mark.parametrize("kind", list(MessageType), ids=lambda kind: kind.name)
@settings(max_examples=60)
@given(data=st.data())
def test_encode_after_decode_is_the_identity(kind: MessageType, data: st.DataObject) -> None:
    message = data.draw(BY_TYPE[kind])
    msg_type, payload = encode(message)
    assert msg_type == kind
    decoded = decode(msg_type, payload)
    assert type(decoded) is FRAMES[kind].model
    assert encode(decoded) == (msg_type, payload)


def without_trailing(message: KeypadMessage) -> KeypadMessage | None:
    """The message with its optional last field left out, or None if it has none set."""
    if isinstance(message, EnterResult | CorrectResult) and message.values.auction is not None:
        values = message.values.model_copy(update={"auction": None})
        return message.model_copy(update={"values": values})
    if isinstance(message, RoundInfo) and message.language is not None:
        return message.model_copy(update={"language": None})
    if isinstance(message, RoundChanged) and message.round.language is not None:
        return message.model_copy(update={"round": without_trailing(message.round)})
    return None


@settings(max_examples=300)
@given(any_frame)
def test_a_truncated_frame_is_a_codec_error_or_the_frame_without_its_last_field(
    message: KeypadMessage,
) -> None:
    msg_type, payload = encode(message)
    shorter = without_trailing(keypad_view(message))
    accepted = []
    for cut in range(len(payload)):
        try:
            decoded = decode(msg_type, payload[:cut])
        except CodecError:
            continue
        accepted.append(cut)
        assert decoded == shorter
        assert encode(decoded) == (msg_type, payload[:cut])
    assert len(accepted) == (0 if shorter is None else 1)


@settings(max_examples=300)
@given(any_frame, st.data())
def test_a_corrupt_frame_is_a_codec_error_or_a_message(
    message: KeypadMessage, data: st.DataObject
) -> None:
    msg_type, payload = encode(message)
    at = data.draw(st.integers(0, len(payload)))
    byte = data.draw(st.integers(0, 255).filter(lambda b: payload[at : at + 1] != bytes([b])))
    for corrupt in (
        payload[:at] + bytes([byte]) + payload[at + 1 :],  # one byte changed
        payload[:at] + bytes([byte]) + payload[at:],  # one byte inserted
        payload[:at] + payload[at + 1 :],  # one byte lost
    ):
        try:
            decoded = decode(msg_type, corrupt)
        except CodecError:
            continue
        assert type(decoded) is FRAMES[MessageType(msg_type)].model


def test_a_keypad_view_has_no_auction_and_no_explanation() -> None:
    view = BoardResultView(
        board=1,
        round=1,
        table=1,
        state="entered",
        version=1,
        contract="3NT",
        declarer="N",
        tricks=9,
        auction="1NT! P 3NT P P P",
        alerts=[AlertExplanation(call=1, text="15-17")],
    )
    trimmed = keypad_view(ResultChanged(result=view))
    assert isinstance(trimmed, ResultChanged)
    assert (trimmed.result.auction, trimmed.result.alerts) == (None, None)
    assert decode(*encode(trimmed)) == trimmed
