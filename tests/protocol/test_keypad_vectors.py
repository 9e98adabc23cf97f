"""Wire vectors: one message of every frame TYPE and its payload, byte for byte.

The payloads were written by the codec before its layouts became declared field tables
(protocol/frame_fields.py), so they pin the wire format every keypad already speaks: a change to
a layout fails here, whichever direction it touches.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from protocol.keypad_codec import KeypadMessage, MessageType, decode, encode, keypad_view
from protocol.messages import (
    Ack,
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
)

VIEW = BoardResultView(
    board=5,
    round=2,
    table=3,
    state="entered",
    version=1,
    contract="4SX",
    declarer="S",
    tricks=8,
    result="-2",
    lead="SA",
    ns_score=-500,
    ruling_pending=True,
    adjusted="A60/40",
)
BARE = BoardResultView(board=6, round=2, table=3, state="missing", version=0)
ROUND = RoundInfo(
    event="",
    section="",
    table=3,
    round=2,
    rounds=7,
    ns=PairInfo(number=1, direction="NS", label="1"),
    ew=None,
    boards=[
        BoardStatus(board=5, dealer="N", vulnerability="NS", state="entered", result=VIEW),
        BoardStatus(board=6, dealer="W", vulnerability="BOTH", state="missing", deal="check"),
    ],
    complete=False,
    round_open=True,
    next_round_released=True,
    next=[
        NextPosition(pair="1", table=4, seat="NS", boards=[7, 8]),
        NextPosition(pair="8", table=None),
    ],
    lead_required=True,
    tricks_style="relative",
    confirm_pin_required=True,
    language="da",
)
VECTORS: list[tuple[KeypadMessage, MessageType, str]] = [
    (
        PairTerminal(code="4821", device="kp-3"),
        MessageType.PAIR_TERMINAL,
        "04 34 38 32 31 04 6b 70 2d 33",
    ),
    (
        Hello(token="t0k3n"),
        MessageType.HELLO,
        "05 74 30 6b 33 6e",
    ),
    (
        GetRound(),
        MessageType.GET_ROUND,
        "",
    ),
    (
        EnterResult(
            entry_id="kp03-0001",
            board=5,
            ruling_pending=True,
            values=EntryValues(
                contract="4SX", declarer="S", tricks="-2", lead="SA", auction="1S! X 4S P P X P P P"
            ),
        ),
        MessageType.ENTER_RESULT,
        "09 6b 70 30 33 2d 30 30 30 31 00 05 01 03 34 53 58 03 01 02 2d 32 02 53 "
        "41 09 86 01 15 00 00 01 00 00 00",
    ),
    (
        CorrectResult(
            entry_id="kp03-0002", board=5, version=2, values=EntryValues(contract="PASS", tricks=0)
        ),
        MessageType.CORRECT_RESULT,
        "09 6b 70 30 33 2d 30 30 30 32 00 05 00 02 00 04 50 41 53 53 00 00 00 00 ff",
    ),
    (
        ConfirmResult(entry_id="kp03-0003", board=5, version=2, pin="1234"),
        MessageType.CONFIRM_RESULT,
        "09 6b 70 30 33 2d 30 30 30 33 00 05 00 02 04 31 32 33 34",
    ),
    (
        RejectResult(entry_id="kp03-0004", board=5, version=2, reason="lead"),
        MessageType.REJECT_RESULT,
        "09 6b 70 30 33 2d 30 30 30 34 00 05 00 02 04 6c 65 61 64",
    ),
    (
        NextRound(),
        MessageType.NEXT_ROUND,
        "",
    ),
    (
        CallTD(entry_id="kp03-0005", reason="revoke"),
        MessageType.CALL_TD,
        "09 6b 70 30 33 2d 30 30 30 35 06 72 65 76 6f 6b 65",
    ),
    (
        GetTableSettings(),
        MessageType.GET_TABLE_SETTINGS,
        "",
    ),
    (
        EnterDeal(entry_id="kp03-0006", board=6, deal="N:AKQ.JT9.876.5432 - - -"),
        MessageType.ENTER_DEAL,
        "09 6b 70 30 33 2d 30 30 30 36 00 06 18 4e 3a 41 4b 51 2e 4a 54 39 2e 38 "
        "37 36 2e 35 34 33 32 20 2d 20 2d 20 2d",
    ),
    (
        CheckDeal(entry_id="kp03-0007", board=6, seat="E", hand="AKQ.JT9.876.5432"),
        MessageType.CHECK_DEAL,
        "09 6b 70 30 33 2d 30 30 30 37 00 06 02 10 41 4b 51 2e 4a 54 39 2e 38 37 36 2e 35 34 33 32",
    ),
    (
        Paired(
            token="t0k3n",
            event="Club",
            section="A",
            table=3,
            expires_at=datetime(2026, 3, 1, 22, 30, tzinfo=UTC),
        ),
        MessageType.PAIRED,
        "05 74 30 6b 33 6e 04 43 6c 75 62 01 41 00 03 19 32 30 32 36 2d 30 33 2d "
        "30 31 54 32 32 3a 33 30 3a 30 30 2b 30 30 3a 30 30",
    ),
    (
        ROUND,
        MessageType.ROUND_INFO,
        "00 03 00 02 00 07 7e 00 01 01 01 31 02 00 05 14 01 00 05 00 02 00 03 01 "
        "00 01 ff 03 34 53 58 03 08 02 2d 32 02 53 41 fe 0c 06 41 36 30 2f 34 30 "
        "00 06 4f 00 02 01 31 00 04 01 02 00 07 00 08 01 38 00 00 00 00 02 64 61",
    ),
    (
        ResultAck(entry_id="kp03-0001", duplicate=True, result=VIEW),
        MessageType.RESULT_ACK,
        "09 6b 70 30 33 2d 30 30 30 31 01 00 05 00 02 00 03 01 00 01 ff 03 34 53 "
        "58 03 08 02 2d 32 02 53 41 fe 0c 06 41 36 30 2f 34 30",
    ),
    (
        Ack(entry_id=None, detail="ok"),
        MessageType.ACK,
        "ff 02 6f 6b",
    ),
    (
        Error(code="not_paired", message="Pair again", entry_id="kp03-0001"),
        MessageType.ERROR,
        "0a 6e 6f 74 5f 70 61 69 72 65 64 0a 50 61 69 72 20 61 67 61 69 6e 09 6b "
        "70 30 33 2d 30 30 30 31",
    ),
    (
        ResultChanged(result=BARE),
        MessageType.RESULT_CHANGED,
        "00 06 00 02 00 03 00 00 00 00",
    ),
    (
        RoundChanged(round=ROUND.model_copy(update={"ew": ROUND.ns, "language": None})),
        MessageType.ROUND_CHANGED,
        "00 03 00 02 00 07 fe 00 01 01 01 31 00 01 01 01 31 02 00 05 14 01 00 05 "
        "00 02 00 03 01 00 01 ff 03 34 53 58 03 08 02 2d 32 02 53 41 fe 0c 06 41 "
        "36 30 2f 34 30 00 06 4f 00 02 01 31 00 04 01 02 00 07 00 08 01 38 00 00 "
        "00 00",
    ),
    (
        ConflictRaised(result=VIEW, message="differs"),
        MessageType.CONFLICT_RAISED,
        "00 05 00 02 00 03 01 00 01 ff 03 34 53 58 03 08 02 2d 32 02 53 41 fe 0c "
        "06 41 36 30 2f 34 30 07 64 69 66 66 65 72 73",
    ),
    (
        TableSettings(
            auction_entry="required", play_entry="optional", show_ranking=True, deal_entry=True
        ),
        MessageType.TABLE_SETTINGS,
        "00 00 02 01 05",
    ),
    (
        DealAck(board=6, state="conflict", differences=["SA missing", "HK extra"]),
        MessageType.DEAL_ACK,
        "00 06 02 02 0a 53 41 20 6d 69 73 73 69 6e 67 08 48 4b 20 65 78 74 72 61",
    ),
]


def test_every_frame_type_has_a_vector() -> None:
    assert sorted(kind for _, kind, _ in VECTORS) == sorted(MessageType)


@pytest.mark.parametrize(
    ("message", "kind", "payload"), VECTORS, ids=[kind.name for _, kind, _ in VECTORS]
)
def test_the_payload_is_byte_for_byte_the_vector(
    message: KeypadMessage, kind: MessageType, payload: str
) -> None:
    assert encode(message) == (kind, bytes.fromhex(payload))
    assert decode(kind, bytes.fromhex(payload)) == keypad_view(message)
