"""The § 262 board rules (protocol/board_rules.py), table-driven over every state and command.

The expected table is written out by hand from rules.md § 4 and § 262B/C, not computed: each
row says what a command does to a board standing in a state (the audit action and new state,
"same" for nothing changed, or the refusal's code).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from protocol import board_rules as rules
from protocol.keypad_codec import RESULT_STATES
from protocol.messages import (
    AGREED_STATES,
    COMPLETE_STATES,
    TD_STATES,
    BoardResultView,
    BoardStatus,
    ConfirmResult,
    CorrectResult,
    EnterResult,
    EntryValues,
    RejectResult,
    ResultState,
    RoundInfo,
)

S = ResultState
V = 2  # the stored version of every board in the table below
A = EntryValues(contract="4S", declarer="S", tricks=10)
EID = "0b9f6f2e-5d1c-4d5e-9d2a-1f2e3d4c5b6a"

Command = Callable[[], rules.BoardCommand]
COMMANDS: dict[str, tuple[Command, bool]] = {
    # name: (the command, whether its values equal the stored ones)
    "enter_same": (lambda: EnterResult(entry_id=EID, board=1, values=A), True),
    "enter_other": (lambda: EnterResult(entry_id=EID, board=1, values=A), False),
    "confirm": (lambda: ConfirmResult(entry_id=EID, board=1, version=V), False),
    "confirm_older": (lambda: ConfirmResult(entry_id=EID, board=1, version=V - 1), False),
    "confirm_newer": (lambda: ConfirmResult(entry_id=EID, board=1, version=V + 1), False),
    "reject": (lambda: RejectResult(entry_id=EID, board=1, version=V), False),
    "reject_stale": (lambda: RejectResult(entry_id=EID, board=1, version=V + 1), False),
    "correct": (lambda: CorrectResult(entry_id=EID, board=1, version=V, values=A), False),
    "correct_stale": (
        lambda: CorrectResult(entry_id=EID, board=1, version=V + 1, values=A),
        False,
    ),
}

STALE, NOT_ENTERED, TD, CONFIRMED_ALREADY = (
    "stale_version",
    "not_entered",
    "td_decided",
    "already_confirmed",
)
AGREED_ROW: dict[str, tuple[str, S] | str] = {
    "enter_same": ("same", S.CONFIRMED),
    "enter_other": ("conflict", S.CONFLICT),
    "confirm": ("same", S.CONFIRMED),  # confirmed again from a second device: harmless
    "confirm_older": ("same", S.CONFIRMED),
    "confirm_newer": STALE,
    "reject": CONFIRMED_ALREADY,
    "reject_stale": STALE,
    "correct": ("corrected", S.ENTERED),  # North corrects within the round (§ 262B)
    "correct_stale": STALE,
}
TD_ROW: dict[str, tuple[str, S] | str] = dict.fromkeys(COMMANDS, TD)

#: state -> command -> (action, new state) | refusal code. None: nothing stored yet.
EXPECTED: dict[S | None, dict[str, tuple[str, S] | str]] = {
    None: {
        "enter_same": ("entered", S.ENTERED),
        "enter_other": ("entered", S.ENTERED),
        "confirm": NOT_ENTERED,
        "confirm_older": NOT_ENTERED,
        "confirm_newer": NOT_ENTERED,
        "reject": NOT_ENTERED,
        "reject_stale": NOT_ENTERED,
        "correct": NOT_ENTERED,
        "correct_stale": NOT_ENTERED,
    },
    S.MISSING: {
        "enter_same": ("entered", S.ENTERED),
        "enter_other": ("entered", S.ENTERED),
        "confirm": NOT_ENTERED,
        "confirm_older": NOT_ENTERED,
        "confirm_newer": NOT_ENTERED,
        "reject": NOT_ENTERED,
        "reject_stale": NOT_ENTERED,
        "correct": NOT_ENTERED,
        "correct_stale": NOT_ENTERED,
    },
    S.ENTERED: {
        "enter_same": ("same", S.ENTERED),  # the same result keyed on a second device
        "enter_other": ("conflict", S.CONFLICT),  # never overwritten: the TD decides
        "confirm": ("confirmed", S.CONFIRMED),
        "confirm_older": STALE,
        "confirm_newer": STALE,
        "reject": ("rejected", S.REJECTED),
        "reject_stale": STALE,
        "correct": ("corrected", S.ENTERED),
        "correct_stale": STALE,
    },
    S.REJECTED: {
        "enter_same": ("re-entered", S.ENTERED),
        "enter_other": ("re-entered", S.ENTERED),
        "confirm": NOT_ENTERED,
        "confirm_older": NOT_ENTERED,
        "confirm_newer": NOT_ENTERED,
        "reject": NOT_ENTERED,
        "reject_stale": NOT_ENTERED,
        "correct": ("corrected", S.ENTERED),
        "correct_stale": STALE,
    },
    S.CONFIRMED: AGREED_ROW,
    S.TD_PENDING: {
        k: (v[0], S.TD_PENDING) if isinstance(v, tuple) and v[0] == "same" else v
        for k, v in AGREED_ROW.items()
    },
    S.NOT_PLAYED: TD_ROW,
    S.ADJUSTED: TD_ROW,
    S.CONFLICT: {
        **TD_ROW,
        "enter_same": ("conflict", S.CONFLICT),  # another entry on a conflict: still the TD's
        "enter_other": ("conflict", S.CONFLICT),
    },
}


def test_the_table_covers_every_state_and_command() -> None:
    assert set(EXPECTED) == {None, *ResultState}
    for row in EXPECTED.values():
        assert set(row) == set(COMMANDS)


CASES = [(state, name) for state, row in EXPECTED.items() for name in row]


@pytest.mark.parametrize(("state", "name"), CASES)
def test_a_command_on_a_board_in_a_state(state: S | None, name: str) -> None:
    make, same = COMMANDS[name]
    stored = None if state is None else rules.Stored(state, V)
    expected = EXPECTED[state][name]
    if isinstance(expected, str):
        with pytest.raises(rules.RuleError) as refused:
            rules.decide(make(), stored, same_values=same)
        assert refused.value.code == expected
        assert refused.value.board == 1
        return
    step = rules.decide(make(), stored, same_values=same)
    action, new_state = expected
    assert (step.action or "same", step.state) == (action, new_state)
    assert step.keyed == (action in ("entered", "re-entered", "corrected"))
    assert step.clears_confirmation == (action == "corrected")


def test_a_ruling_pending_entry_is_confirmed_into_td_pending() -> None:
    stored = rules.Stored(S.ENTERED, V, ruling_pending=True)
    step = rules.decide(ConfirmResult(entry_id=EID, board=1, version=V), stored)
    assert (step.action, step.state) == ("confirmed", S.TD_PENDING)
    entered = rules.decide(EnterResult(entry_id=EID, board=1, values=A, ruling_pending=True), None)
    assert entered.ruling_pending is True


@pytest.mark.parametrize(
    ("pin", "outcome"),
    [
        (rules.Pin.NOT_ASKED, "confirmed"),
        (rules.Pin.RIGHT, "confirmed"),
        (rules.Pin.MISSING, "pin_required"),
        (rules.Pin.WRONG, "pin_wrong"),
    ],
)
def test_the_pin_counts_only_for_an_entry_that_can_be_confirmed(
    pin: rules.Pin, outcome: str
) -> None:
    confirm = ConfirmResult(entry_id=EID, board=1, version=V)
    entered = rules.Stored(S.ENTERED, V)
    if outcome == "confirmed":
        assert rules.decide(confirm, entered, pin=pin).state == S.CONFIRMED
    else:
        with pytest.raises(rules.RuleError) as refused:
            rules.decide(confirm, entered, pin=pin)
        assert refused.value.code == outcome
    # A confirmation repeated is harmless whatever the PIN; one of a stale version is stale.
    repeated = rules.decide(confirm, rules.Stored(S.CONFIRMED, V), pin=pin)
    assert repeated.action is None
    with pytest.raises(rules.RuleError) as stale:
        rules.decide(confirm, rules.Stored(S.ENTERED, V + 1), pin=pin)
    assert stale.value.code == "stale_version"


def test_the_td_actions() -> None:
    assert (rules.td_set_result().action, rules.td_set_result().state) == (
        "td_set_result",
        S.CONFIRMED,
    )
    assert rules.td_set_result().ruling_pending is False
    assert rules.td_adjusted().state == S.ADJUSTED
    assert rules.td_not_played().state == S.NOT_PLAYED
    assert rules.closes_conflict("conflict", "confirmed")
    assert not rules.closes_conflict("conflict", "conflict")
    assert not rules.closes_conflict("entered", "confirmed")


def test_the_state_sets() -> None:
    assert {*COMPLETE_STATES} == {S.CONFIRMED, S.TD_PENDING, S.NOT_PLAYED, S.ADJUSTED}
    assert {*AGREED_STATES} == {S.CONFIRMED, S.TD_PENDING}
    assert {*TD_STATES} == {S.CONFLICT, S.ADJUSTED, S.NOT_PLAYED}
    assert {*rules.CORRECTABLE} == {S.ENTERED, S.CONFIRMED, S.TD_PENDING, S.REJECTED}
    # The keypad wire sends a state as its index: the order is the protocol's, never changed.
    assert RESULT_STATES == (
        "missing",
        "entered",
        "rejected",
        "confirmed",
        "td_pending",
        "not_played",
        "adjusted",
        "conflict",
    )
    assert S("td_pending") is S.TD_PENDING
    assert f"{S.CONFLICT}" == "conflict"  # in sentences and in the database, as before


# ---------------------------------------------------------------------------- on views


def view(state: S, version: int, contract: str = "4S", **extra: object) -> BoardResultView:
    return BoardResultView(
        board=1,
        round=1,
        table=1,
        state=state,
        version=version,
        contract=contract,
        declarer="S",
        tricks=10,
        **extra,
    )


def test_apply_to_view_follows_decide() -> None:
    keyed = view(S.MISSING, 0)
    enter = EnterResult(entry_id=EID, board=1, values=A)
    first = rules.apply_to_view(None, enter, keyed=keyed)
    assert (first.state, first.version) == (S.ENTERED, 1)
    assert rules.apply_to_view(first, enter, keyed=keyed) is first  # the same entry again
    other = rules.apply_to_view(first, enter, keyed=view(S.MISSING, 0, contract="3NT"))
    assert (other.state, other.version, other.contract) == (S.CONFLICT, 2, "4S")  # kept
    confirmed = rules.apply_to_view(first, ConfirmResult(entry_id=EID, board=1, version=1))
    assert (confirmed.state, confirmed.version) == (S.CONFIRMED, 2)
    with pytest.raises(ValueError, match="keyed"):
        rules.apply_to_view(first, enter)


def round_of(*states: S) -> RoundInfo:
    boards = [
        BoardStatus(
            board=n,
            dealer="N",
            vulnerability="NONE",
            state=state,
            result=view(state, 1).model_copy(update={"board": n}) if state != S.MISSING else None,
        )
        for n, state in enumerate(states, start=1)
    ]
    return RoundInfo(
        event="e",
        section="A",
        table=1,
        round=1,
        rounds=2,
        ns=None,
        ew=None,
        boards=boards,
        complete=rules.complete(states),
        round_open=True,
        next_round_released=False,
    )


def test_fold_replaces_one_board_and_recomputes_complete() -> None:
    info = round_of(S.CONFIRMED, S.ENTERED)
    assert not info.complete
    done = rules.fold(info, view(S.CONFIRMED, 2).model_copy(update={"board": 2}))
    assert done.complete
    assert [b.state for b in done.boards] == [S.CONFIRMED, S.CONFIRMED]
    assert done.boards[0] == info.boards[0]
    # An older version never replaces a newer one; another table's or round's result is ignored.
    older = rules.fold(done, view(S.ENTERED, 1).model_copy(update={"board": 2}))
    assert older.boards[1].state == S.CONFIRMED
    assert rules.fold(info, view(S.CONFIRMED, 9).model_copy(update={"table": 2})) is info
    assert rules.fold(info, view(S.CONFIRMED, 9).model_copy(update={"round": 2})) is info
    assert not rules.complete([S.CONFIRMED, S.CONFLICT])
    assert rules.complete([S.NOT_PLAYED, S.ADJUSTED, S.TD_PENDING])
