"""The keypad state machine, driven by key sequences against the fake server."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_sim import i18n
from firmware_sim.device import WAITING, WIDTH, Device, Key, Screen, fit, lcd, result_line
from firmware_sim.fake_gateway import FakeTables
from firmware_sim.store import MemoryStore
from protocol.keypad_codec import KeypadReply
from protocol.messages import (
    Ack,
    BoardResultView,
    BoardStatus,
    CallTD,
    ConfirmResult,
    EnterResult,
    Error,
    NextPosition,
    NextRound,
    PairInfo,
    RejectResult,
    ResultAck,
    ResultChanged,
    RoundChanged,
    RoundInfo,
)
from tests.support.keypad import Table


def paired(table: Table) -> Table:
    table.press("0003", "ENT")
    return table


def seated(table: Table) -> Table:
    paired(table).press("ENT")
    return table


def test_pairing_then_seat_check(table: Table) -> None:
    assert table.lines == ("T3 Pair code:", "_")
    assert table.press("00") == ("T3 Pair code:", "00_")
    assert table.press("BACK") == ("T3 Pair code:", "0_")
    assert table.press("00", "ENT") == ("T3 Pair code:", "000_")  # too short: ignored
    assert table.device.screen is Screen.PAIR
    assert table.press("3", "ENT") == ("T3 R1 NS3 EW6", "ENT=OK *=TD")
    assert table.device.store.token == "token-table-3"
    assert table.press("ENT") == ("T3 R1 B5 N/S 3-6", "0-7=enter *=TD")


def test_wrong_pairing_code_is_refused(table: Table) -> None:
    assert table.press("9999", "ENT") == ("Pairing refused", "Unknown pairing")
    assert table.press("ENT") == ("T3 Pair code:", "_")


def test_north_enters_and_east_confirms(table: Table, tables: FakeTables) -> None:
    """The grammar of protocol/keys.py: the level's digit opens the entry, * doubles at any
    point after the level, 1-4 = N E S W, ENT sends, ENT confirms."""
    seated(table)
    assert table.press("4") == ("B5 4", "1C 2D 3H 4S 5NT")
    assert table.press("4") == ("B5 4S *=X", "Decl 1N 2E 3S 4W")
    assert table.press("*") == ("B5 4SX *=X", "Decl 1N 2E 3S 4W")
    assert table.press("3") == ("B5 4SX S", "Tricks 0-13: _")
    # Board 5: N/S vulnerable, so 4SX two down is -500 for N/S; the score shows at once.
    assert table.press("8") == ("4SX S -2 -500?", "ENT=send BK=edit")
    assert table.press("ENT") == ("4SX S -2 -500", "EW:ENT=OK BK=no")
    assert tables.results[(3, 5)].state == "entered"
    assert table.press("ENT") == ("T3 R1 B6 N/S 3-6", "0-7=enter *=TD")
    assert tables.results[(3, 5)].state == "confirmed"
    assert table.device.store.pending() == []
    assert table.device.stored_count == 1


def test_enter_still_opens_the_entry(table: Table) -> None:
    seated(table)
    assert table.press("ENT") == ("B5 contract", "Level 1-7 0=pass")
    assert table.press("BACK") == ("T3 R1 B5 N/S 3-6", "0-7=enter *=TD")


def test_back_takes_back_one_key_at_a_time(table: Table) -> None:
    seated(table)
    table.press("3", "5", "1", "9")
    assert table.lines == ("3NT N = +600?", "ENT=send BK=edit")
    assert table.press("BACK", "BACK") == ("B5 3NT *=X", "Decl 1N 2E 3S 4W")
    assert table.press("*", "*", "2", "0") == ("3NTXX E-9 +4600?", "ENT=send BK=edit")
    # "3NTXX E -9 +4600?" is 17 characters: the preview drops a space to fit.
    assert table.press(*["BACK"] * 6) == ("B5 contract", "Level 1-7 0=pass")
    assert table.press("BACK") == ("T3 R1 B5 N/S 3-6", "0-7=enter *=TD")


def test_passed_out_board(table: Table, tables: FakeTables) -> None:
    seated(table)
    assert table.press("0") == ("PASS 0?", "ENT=send BK=edit")
    assert table.press("ENT") == ("PASS 0", "EW:ENT=OK BK=no")
    table.press("ENT")
    assert tables.results[(3, 5)].contract == "PASS"


def test_fourteen_tricks_are_not_possible_and_the_one_goes_too(
    table: Table, tables: FakeTables
) -> None:
    seated(table)
    table.press("7", "5", "1", "1")
    assert table.press("4") == ("B5 7NT N", "14 not possible")
    draft = table.device.draft
    assert draft is not None
    assert draft.tricks == ""  # not "7NT N -12", one ENT from being sent
    table.press("ENT")
    assert tables.results == {}
    assert table.press("1", "3") == ("7NT N = +2220?", "ENT=send BK=edit")


def test_fourteen_in_german(table: Table) -> None:
    seated(table)
    table.device.store.save_language("de")
    table.press("7", "5", "1", "1")
    assert table.press("4")[1] == "14 unmöglich"


def test_east_rejects_and_north_keeps_the_keys(table: Table, tables: FakeTables) -> None:
    seated(table)
    table.press("4", "4", "3", "10", "ENT")
    assert table.press("BACK") == ("4S S = +620?", "EW rejected")
    assert tables.results[(3, 5)].state == "rejected"
    table.press("BACK")  # the 0 of 10: 1 trick
    assert table.press("1") == ("4S S +1 +650?", "ENT=send BK=edit")
    table.press("ENT", "ENT")
    assert tables.results[(3, 5)].state == "confirmed"
    assert tables.results[(3, 5)].tricks == 11


def test_a_rejected_board_reopens_with_its_keys(table: Table, tables: FakeTables) -> None:
    seated(table)
    table.press("4", "4", "3", "10", "ENT", "BACK")
    table.press("BACK", "BACK", "BACK", "BACK", "BACK", "BACK")  # all keys, then the board
    assert table.lines == ("T3 R1 B5 N/S 3-6", "Rejected ENT=fix")
    assert table.press("ENT") == ("4S S = +620?", "ENT=send BK=edit")


def test_relative_tricks(tables: FakeTables) -> None:
    """UP and DOWN key "over" and "down" (the terminal's + and -); 0 is made."""
    table = Table(tables).boot()
    seated(table)
    info = table.device.round
    assert info is not None
    table.device.round = info.model_copy(update={"tricks_style": "relative"})
    table.press("3", "5", "2")
    assert table.lines == ("B5 3NT E 0 ^+ v-", "Result: _")
    assert table.press("DOWN") == (table.lines[0], "Result: -_")
    assert table.press("1")[0] == "3NT E -1 +50?"
    assert table.press("BACK", "BACK")[1] == "Result: _"
    assert table.press("0")[0] == "3NT E = -400?"
    assert table.press("BACK", "UP", "1")[0] == "3NT E +1 -430?"


def test_the_opening_lead_when_the_event_asks(tables: FakeTables) -> None:
    """The same lead keys as the terminal: suit 1-4, then 2-9, 0 ten, 11-14 J Q K A."""
    table = seated(Table(tables).boot())
    info = table.device.round
    assert info is not None
    table.device.round = info.model_copy(update={"lead_required": True})
    assert table.press("3", "5", "1") == ("B5 3NT N", "Lead 1C 2D 3H 4S")
    assert table.press("4") == ("B5 3NT N S", "Card 2-9 0 11-14")
    assert table.press("1") == ("B5 3NT N S1", "Card 2-9 0 11-14")
    assert table.press("4") == ("B5 3NT N SA", "Tricks 0-13: _")
    table.hold = True  # keep the entry in the store to read it
    table.press("9", "ENT")
    [entry] = table.device.store.pending()
    assert isinstance(entry, EnterResult)
    assert (entry.values.contract, entry.values.lead, entry.values.tricks) == ("3NT", "SA", 9)


def test_round_summary_gates_the_next_round(table: Table, tables: FakeTables) -> None:
    seated(table)
    assert table.press("#") == ("R1 done 0/2", "ENT=boards ^v")
    table.press("#")  # # is the summary, always: no NextRound
    assert "next_round" not in table.sent
    assert table.press("DOWN") == ("B5 missing", "missing")
    assert table.press("ENT") == ("T3 R1 B5 N/S 3-6", "0-7=enter *=TD")  # the first open board
    table.press("1", "4", "1", "10", "ENT", "ENT")
    table.press("2", "1", "2", "8", "ENT", "ENT")
    assert table.lines == ("R1 done 2/2", "ENT=next round")
    assert table.press("DOWN") == ("B5 confirmed", "1S N +3 +170")
    assert table.press("DOWN") == ("B6 confirmed", "2C E = -90")
    assert table.press("DOWN", "ENT") == ("T3 R2 NS3 EW4", "ENT=OK *=TD")
    assert table.press("#") == ("T3 R2 NS3 EW4", "ENT=OK *=TD")  # no language switch
    assert table.device.language == "en"
    assert table.press("ENT") == ("T3 R2 B1 N/S 3-4", "0-7=enter *=TD")


def round_ended(tables: FakeTables, moves: list[NextPosition], language: str = "en") -> Table:
    """A keypad that has played its round and sent NextRound, the TD not yet answering, on a
    round whose pairs go on as ``moves`` say."""
    plain = tables.round_info
    tables.round_info = lambda t: plain(t).model_copy(update={"next": moves})  # type: ignore[method-assign]
    table = Table(tables)
    table.device = Device(3, MemoryStore(3), language=language)
    table.boot()
    seated(table)
    table.press("1", "4", "1", "10", "ENT", "ENT")
    table.press("2", "1", "2", "8", "ENT", "ENT")
    table.hold = True  # the TD has not started the next round
    table.press("ENT")
    assert table.device.screen is Screen.NEXT_WAIT
    return table


HOWELL_MOVES = [
    NextPosition(pair="5", table=4, seat="EW", boards=[10, 11, 12]),
    NextPosition(pair="4", table=2, seat="NS", boards=[4, 5, 6]),
]


def test_the_move_screen_names_each_pair_and_its_next_table_and_seat(tables: FakeTables) -> None:
    """A Howell: pair 5 (N/S now) goes to table 4 as E/W, pair 4 to table 2 as N/S. The screen
    once said "EW>T4 NS>T2", which players read as "E/W stays, N/S goes to table 2"."""
    assert round_ended(tables, HOWELL_MOVES).lines == ("Pair 5>T4 EW", "Pair 4>T2 NS")


def test_the_move_screen_in_every_language_and_a_sit_out() -> None:
    moves = [
        NextPosition(pair="10 NS", table=10, seat="NS", boards=[1]),
        NextPosition(pair="9 EW", table=None),
    ]
    shown = {lang: round_ended(FakeTables(), moves, lang).lines for lang in i18n.LANGUAGES}
    assert shown == {
        "en": ("Pair 10NS>T10 NS", "Pair 9EW out"),
        "da": ("Par 10NS>B10 NS", "Par 9EW over"),
        "nb": ("Par 10NS>B10 NS", "Par 9EW over"),
        "de": ("Paar 10NS>T10 NS", "Paar 9EW Pause"),
        "ru": ("Пара 10NS>С10 СЮ", "Пара 9EW отдых"),
    }
    danish = round_ended(FakeTables(), HOWELL_MOVES, "da").lines
    assert danish == ("Par 5>B4 ØV", "Par 4>B2 NS")


INDIVIDUAL_MOVES = [
    NextPosition(pair="1", table=2, seat="E", boards=[3, 4], player=True),
    NextPosition(pair="12", table=None, player=True),
    NextPosition(pair="3", table=3, seat="S", boards=[5, 6], player=True),
    NextPosition(pair="4", table=1, seat="W", boards=[1, 2], player=True),
]


def test_the_move_screen_of_an_individual_names_each_player_and_their_next_seat() -> None:
    """An individual: four players, two a line in the order they sit now (N, E, S, W), each
    with the next table and seat, or a sit-out, in every language."""
    shown = {
        lang: round_ended(FakeTables(), INDIVIDUAL_MOVES, lang).lines for lang in i18n.LANGUAGES
    }
    assert shown == {
        "en": ("1>T2E 12 out", "3>T3S 4>T1W"),
        "da": ("1>B2Ø 12 over", "3>B3S 4>B1V"),
        "nb": ("1>B2Ø 12 over", "3>B3S 4>B1V"),
        "de": ("1>T2O 12 aus", "3>T3S 4>T1W"),
        "ru": ("1>С2В 12 отд.", "3>С3Ю 4>С1З"),
    }


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_two_players_at_their_widest_fit_one_line_uncut(lang: str) -> None:
    """Two moves a line with two-digit players and tables, each seat, and sit-outs: the
    line is both moves whole, within the display's width."""
    seat = {letter: i18n.seat(lang, letter) for letter in "NESW"}
    going = [
        (
            NextPosition(pair="99", table=99, seat=letter, boards=[1], player=True),
            i18n.text(lang, "{player}>T{table}{seat}", player=99, table=99, seat=seat[letter]),
        )
        for letter in ("N", "E", "S", "W")
    ]
    out = (
        NextPosition(pair="98", table=None, player=True),
        i18n.text(lang, "{player} out", player=98),
    )
    for moves in (going, [out] * 4, [going[1], out, out, going[3]]):
        lines = round_ended(FakeTables(), [m for m, _ in moves], lang).lines
        whole = tuple(" ".join(text for _, text in moves[i : i + 2]) for i in (0, 2))
        assert lines == whole
        assert all(len(line) <= WIDTH for line in lines), lines


def test_the_move_screen_without_the_movement_s_word_waits_for_the_td(
    tables: FakeTables,
) -> None:
    assert round_ended(tables, []).lines == ("R1 done, wait", "for the TD")
    one = [NextPosition(pair="5", table=4, seat="EW", boards=[1])]
    assert round_ended(FakeTables(), one).lines == ("R1 done, wait", "Pair 5>T4 EW")


def test_hash_is_the_summary_from_an_entry_and_from_easts_screen(table: Table) -> None:
    seated(table)
    assert table.press("4", "4", "#") == ("R1 done 0/2", "ENT=boards ^v")
    table.press("ENT", "4", "4", "3", "10", "ENT")
    assert table.device.screen is Screen.EW_CONFIRM
    assert table.press("#")[0] == "R1 done 0/2"


def test_the_last_round_does_not_offer_a_next_round(tables: FakeTables) -> None:
    table = seated(Table(tables).boot())
    info = table.device.round
    assert info is not None
    table.device.round = info.model_copy(update={"rounds": 1})
    table.press("1", "4", "1", "10", "ENT", "ENT", "2", "1", "2", "8", "ENT", "ENT")
    assert table.lines == ("R1 done 2/2", "Last round ^v")
    table.press("ENT")
    assert "next_round" not in table.sent


def test_call_the_td(table: Table, tables: FakeTables) -> None:
    seated(table)
    assert table.press("*") == ("Call the TD?", "ENT=yes BACK=no")
    assert table.press("ENT") == ("TD is called", "ENT=continue")
    assert tables.td_calls == [3]
    assert table.press("ENT") == ("T3 R1 B5 N/S 3-6", "0-7=enter *=TD")


def test_seating_wrong_calls_the_td(table: Table, tables: FakeTables) -> None:
    paired(table).press("*", "ENT")
    assert tables.td_calls == [3]
    assert table.press("ENT") == ("T3 R1 NS3 EW6", "ENT=OK *=TD")


def test_east_pin_when_the_event_requires_one() -> None:
    tables = FakeTables(confirm_pin="42")
    table = Table(tables).boot()
    seated(table).press("1", "1", "1", "7", "ENT")
    assert table.lines == ("1C N = +70", "EW PIN, then ENT")
    assert table.press("ENT") == ("1C N = +70", "EW PIN, then ENT")  # no PIN yet: nothing
    assert table.press("4", "3") == ("1C N = +70", "**_")
    assert table.press("BACK", "2") == ("1C N = +70", "**_")
    table.press("ENT")
    assert tables.results[(3, 5)].state == "confirmed"


def test_wrong_pin_is_refused_and_the_board_stays_entered() -> None:
    tables = FakeTables(confirm_pin="42")
    table = Table(tables).boot()
    seated(table).press("1", "1", "1", "7", "ENT", "99", "ENT")
    # The server's code (pin_wrong) is too long for the 16-character line beside "Refused: ".
    assert table.lines == ("Refused", "Wrong PIN.")
    codes = [a.code for a in tables.answers.values() if isinstance(a, Error)]
    assert codes == ["pin_wrong"]
    assert table.press("ENT") == ("T3 R1 B5 N/S 3-6", "ENT=EW confirm")
    assert table.press("ENT") == ("1C N = +70", "EW PIN, then ENT")


def test_offline_entry_is_kept_and_marked(table: Table) -> None:
    seated(table)
    table.hold = True
    table.device.link_status(False)
    table.press("4", "4", "3", "10", "ENT")
    assert table.lines == ("4S S = +620", "Saved, no link")
    assert table.device.busy
    assert table.press("BACK") == ("T3 R1 B5 N/S 3-6", "Saved, sending")
    assert [type(c) for c in table.device.store.pending()] == [EnterResult]
    table.hold = False
    table.flush()
    assert table.device.store.pending() == []
    assert table.lines == ("T3 R1 B5 N/S 3-6", "ENT=EW confirm")


def test_round_zero_waits_and_a_pushed_round_starts_it(tables: FakeTables) -> None:
    table = Table(tables).boot()
    paired(table)
    info = table.device.round
    assert info is not None
    table.device.receive(info.model_copy(update={"round": 0}))
    assert table.lines == ("T3 Traveller", "Wait for round 1")
    assert table.device.busy
    table.device.receive(RoundChanged(round=info))
    assert table.lines == ("T3 R1 NS3 EW6", "ENT=OK *=TD")


def test_pushed_result_change_updates_the_board(table: Table) -> None:
    seated(table)
    view = BoardResultView(
        board=5, round=1, table=3, state="adjusted", version=3, adjusted="A60/40"
    )
    table.device.receive(ResultChanged(result=view))
    assert table.lines == ("T3 R1 B5 N/S 3-6", "adjusted")
    assert table.press("DOWN", "UP", "ENT", "4") == ("T3 R1 B5 N/S 3-6", "adjusted")  # no entry


def test_gateway_that_forgot_us_gets_a_hello_and_the_entry_again(table: Table) -> None:
    seated(table)
    table.bound = None  # the gateway restarted and lost its table binding
    table.press("1", "1", "1", "7", "ENT")
    assert table.sent[-3:] == ["enter_result", "hello", "enter_result"]
    assert table.lines == ("1C N = +70", "EW:ENT=OK BK=no")


def test_revoked_token_asks_to_pair_again_and_keeps_entries(table: Table) -> None:
    seated(table)
    table.hold = True
    table.press("1", "1", "1", "7", "ENT")
    table.device.receive(Error(code="invalid_token", message="Token expired"))
    assert table.lines == ("Pair again", "Token expired")
    assert table.device.store.token is None
    assert len(table.device.store.pending()) == 1


def test_restart_resends_unanswered_entries_with_the_same_id(tables: FakeTables) -> None:
    store = MemoryStore(3)
    first = seated(Table(tables, store=store).boot())
    first.hold = True
    first.press("4", "4", "3", "10", "ENT")
    [entry] = store.pending()
    # Power cut. The new firmware run has the same battery-backed store.
    second = Table(tables, store=store).boot()
    assert second.sent == ["hello", "enter_result", "get_round", "get_table_settings"]
    assert tables.applied[entry.entry_id] == 1
    assert store.pending() == []
    # Seating was kept; B5 was still unanswered when the round came, so B6 is offered first.
    assert second.lines == ("T3 R1 B6 N/S 3-6", "0-7=enter *=TD")
    assert second.press("UP") == ("T3 R1 B5 N/S 3-6", "ENT=EW confirm")


def test_keys_are_ignored_while_waiting(table: Table) -> None:
    seated(table)
    table.hold = True
    table.press("1", "1", "1", "7", "ENT")
    before = table.lines
    assert table.press("5", "#", "*", "UP") == before


@pytest.mark.parametrize(
    ("token", "key"),
    [
        ("ent", Key.ENTER),
        ("Enter", Key.ENTER),
        ("bk", Key.BACK),
        ("clr", Key.BACK),
        ("dn", Key.DOWN),
    ],
)
def test_key_names(token: str, key: Key) -> None:
    assert Key.parse(token) is key


def test_unknown_key_name() -> None:
    with pytest.raises(ValueError, match="not a key"):
        Key.parse("F1")


def test_fit_and_lcd() -> None:
    assert fit("a" * 17, "short") == "short"
    assert fit("a" * 17, "b" * 18) == "b" * 16
    assert lcd("4♠X") == "4?X" + " " * 13


@given(
    st.builds(
        BoardResultView,
        board=st.integers(1, 999),
        round=st.integers(1, 99),
        table=st.integers(1, 999),
        state=st.sampled_from(["entered", "confirmed", "adjusted", "td_pending"]),
        version=st.integers(0, 99),
        contract=st.none() | st.sampled_from(["7NTXX", "PASS", "1C", "4SX"]),
        declarer=st.none() | st.sampled_from(["N", "E", "S", "W"]),
        result=st.none() | st.sampled_from(["=", "+6", "-13", "-7"]),
        ns_score=st.none() | st.integers(-7600, 7600),
        adjusted=st.none() | st.sampled_from(["A60/40", "A50", "A40/40 weighted"]),
    )
)
def test_result_lines_fit_sixteen_characters(view: BoardResultView) -> None:
    assert len(result_line(view)) <= WIDTH


big_rounds = st.builds(
    RoundInfo,
    event=st.just("E"),
    section=st.just("A"),
    table=st.integers(1, 99),
    round=st.integers(1, 99),
    rounds=st.integers(1, 99),
    ns=st.builds(PairInfo, number=st.integers(1, 999), label=st.just("x")),
    ew=st.builds(PairInfo, number=st.integers(1, 999), label=st.just("y")),
    boards=st.lists(
        st.builds(
            BoardStatus,
            board=st.integers(1, 999),
            dealer=st.just("N"),
            vulnerability=st.sampled_from(["NONE", "NS", "EW", "BOTH"]),
            state=st.sampled_from(["missing", "entered", "confirmed", "conflict", "not_played"]),
        ),
        min_size=1,
        max_size=4,
        unique_by=lambda b: b.board,
    ),
    complete=st.booleans(),
    round_open=st.just(True),
    next_round_released=st.booleans(),
    tricks_style=st.sampled_from(["absolute", "relative"]),
)
keys = st.lists(st.sampled_from(list(Key)), max_size=60)


def server_replies(info: RoundInfo, command: object, score: int) -> list[KeypadReply]:
    """What a server would say, with extreme numbers, so every screen gets drawn."""
    if isinstance(command, EnterResult):
        values = command.values
        view = BoardResultView(
            board=command.board, round=info.round, table=info.table, state="entered",
            version=1, contract=values.contract, declarer=values.declarer,
            tricks=values.tricks if isinstance(values.tricks, int) else None,
            result="-13", ns_score=score,
        )  # fmt: skip
        return [ResultAck(entry_id=command.entry_id, result=view)]
    if isinstance(command, ConfirmResult | RejectResult):
        state = "confirmed" if isinstance(command, ConfirmResult) else "rejected"
        view = BoardResultView(
            board=command.board, round=info.round, table=info.table, state=state,
            version=command.version + 1, contract="7NTXX", declarer="W", result="+6",
            ns_score=-score,
        )  # fmt: skip
        return [ResultAck(entry_id=command.entry_id, result=view)]
    if isinstance(command, CallTD):
        return [Ack(entry_id=command.entry_id)]
    if isinstance(command, NextRound):
        return [Ack()]
    return [info]


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(big_rounds, keys, st.integers(-7600, 7600))
def test_every_screen_fits_the_lcd_whatever_is_pressed(
    info: RoundInfo, presses: list[Key], score: int
) -> None:
    device = Device(info.table, MemoryStore(info.table))
    device.store.save_pairing("t", None)
    device.boot()
    device.receive(info)
    for key in presses:
        device.press(key)
        for command in device.outgoing():
            for reply in server_replies(info, command, score):
                device.receive(reply)
        for line in device.display:
            assert len(line) == WIDTH
            assert line.isascii() or device.language != "en"  # UP/DOWN may switch it
            assert line.isprintable()


def test_the_random_walk_reaches_the_deep_screens() -> None:
    """The property above is only worth something if key mashing gets past the first screens."""
    info = RoundInfo(
        event="E", section="A", table=99, round=99, rounds=99,
        ns=PairInfo(number=999, label="x"), ew=PairInfo(number=998, label="y"),
        boards=[BoardStatus(board=999, dealer="N", vulnerability="BOTH", state="missing")],
        complete=False, round_open=True, next_round_released=False,
    )  # fmt: skip
    device = Device(99, MemoryStore(99))
    device.store.save_pairing("t", None)
    device.boot()
    device.receive(info)
    screens = []
    for key in ["ENT", "ENT", "7", "5", "*", "*", "4", "0", "ENT", "ENT", "#"]:
        device.press(key)
        for command in device.outgoing():
            for reply in server_replies(info, command, -7600):
                device.receive(reply)
        screens.append((device.screen, device.display))
    assert screens[7] == (Screen.ENTRY, ("7NTXXW-13 +7600?", "ENT=send BK=edit"))
    assert screens[8][0] is Screen.EW_CONFIRM
    assert all(len(line) == WIDTH for _, lines in screens for line in lines)


def test_every_screen_is_in_the_dispatch_tables() -> None:
    """Each screen has its LCD lines; a screen that ignores keys is one that waits."""
    device = Device(3, MemoryStore(3))
    assert set(device._screen_lines) == set(Screen)
    assert set(Screen) - set(device._key_handlers) <= WAITING
