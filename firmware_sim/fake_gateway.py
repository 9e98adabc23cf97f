"""A stand-in for the server and its gateway, for keypad tests, demos and benchmarks.

``FakeTables`` keeps a tiny event in memory with the server's rules that a keypad relies on:
idempotent entry ids, versions that East confirms, the end-of-round gate. ``FakeGateway`` puts it
behind a link endpoint (a PointToPointLink or a BusMaster) through the keypad codec. The real
gateway is server/gateway.py; this one only exists so firmware_sim can be exercised alone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from protocol import board_rules, fair_play
from protocol.bridge import BridgeError, TableResult, dealer, ns_score, vulnerability
from protocol.bridge.auction import Auction
from protocol.bridge.deal import Hand, confirm_hand, parse_deal, parse_hand
from protocol.bridge.enums import Seat
from protocol.keypad_codec import CodecError, KeypadCommand, KeypadReply, decode, encode
from protocol.link import BusEvent, BusMaster, Delivered, PeerRestarted, PointToPointLink
from protocol.messages import (
    Ack,
    AuctionEntry,
    BoardResultView,
    BoardStatus,
    CallTD,
    CheckDeal,
    ConfirmResult,
    CorrectResult,
    DealAck,
    EnterDeal,
    EnterResult,
    Error,
    GetRound,
    GetTableSettings,
    Hello,
    Message,
    NextRound,
    Paired,
    PairInfo,
    PairTerminal,
    PlayEntry,
    RejectResult,
    ResultAck,
    ResultState,
    RoundInfo,
    TableSettings,
)

#: The rules' refusals, in the fake's few words (the server words its own).
WORDS = {
    "not_entered": "Not entered yet.",
    "td_decided": "The TD decides.",
    "stale_version": "Result changed.",
    "already_confirmed": "Already confirmed.",
    "pin_required": "Wrong PIN.",
    "pin_wrong": "Wrong PIN.",
}


@dataclass
class FakeTables:
    """An event of ``tables`` tables, ``rounds`` rounds of ``boards_per_round`` boards."""

    tables: int = 3
    rounds: int = 3
    boards_per_round: int = 2
    codes: dict[str, int] = field(default_factory=dict)  # pairing code -> table
    confirm_pin: str | None = None
    tricks_style: Literal["absolute", "relative"] = "absolute"
    round_of: dict[int, int] = field(default_factory=dict)
    results: dict[tuple[int, int], BoardResultView] = field(default_factory=dict)
    applied: Counter[str] = field(default_factory=Counter)  # entry id -> times applied
    answers: dict[str, KeypadReply] = field(default_factory=dict)  # entry id -> first answer
    td_calls: list[int] = field(default_factory=list)
    language: str | None = None  # the event's language, sent in RoundInfo
    auction_entry: AuctionEntry = "off"
    play_entry: PlayEntry = "off"  # the keypad does not key the play: it must cost no key
    deal_entry: bool = False  # every board is hand-dealt: the first table keys its deal
    deals: dict[int, tuple[int, dict[Seat, Hand]]] = field(default_factory=dict)  # keyed by
    deal_states: dict[int, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for table in range(1, self.tables + 1):
            self.codes.setdefault(f"{table:04d}", table)
            self.round_of.setdefault(table, 1)

    def token(self, table: int) -> str:
        """The token a paired keypad of ``table`` holds."""
        return f"token-table-{table}"

    def table_of(self, token: str) -> int | None:
        """The table a token authorises, if any."""
        for table in range(1, self.tables + 1):
            if token == self.token(table):
                return table
        return None

    def boards(self, table: int, rnd: int) -> list[int]:
        """The boards of ``table`` in round ``rnd`` (a Mitchell-like rotation of sets)."""
        first = ((table + rnd - 2) % max(self.rounds, 1)) * self.boards_per_round + 1
        return list(range(first, first + self.boards_per_round))

    def round_info(self, table: int) -> RoundInfo:
        """The table's current round as the server describes it."""
        rnd = self.round_of[table]
        statuses = []
        for board in self.boards(table, rnd):
            view = self.results.get((table, board))
            statuses.append(
                BoardStatus(
                    board=board,
                    dealer=dealer(board).value,
                    vulnerability=vulnerability(board).value,
                    state=view.state if view else "missing",
                    result=view,
                    deal=self._deal_ask(table, board),
                )
            )
        ew = self.tables + (table + rnd - 2) % self.tables + 1
        return RoundInfo(
            event="Fake club night",
            section="A",
            table=table,
            round=rnd,
            rounds=self.rounds,
            ns=PairInfo(number=table, direction="NS", label=str(table)),
            ew=PairInfo(number=ew, direction="EW", label=str(ew)),
            boards=statuses,
            complete=board_rules.complete(s.state for s in statuses),
            round_open=True,
            next_round_released=True,
            confirm_pin_required=self.confirm_pin is not None,
            tricks_style=self.tricks_style,
            language=self.language,
        )

    def handle(self, table: int | None, command: KeypadCommand) -> tuple[int | None, KeypadReply]:
        """Apply one command from ``table`` (None: not paired); the table it binds and the reply."""
        if isinstance(command, PairTerminal):
            paired = self.codes.get(command.code)
            if paired is None:
                return None, Error(code="invalid_code", message="Unknown pairing code.")
            return paired, Paired(
                token=self.token(paired), event="Fake club night", section="A", table=paired
            )
        if isinstance(command, Hello):
            known = self.table_of(command.token)
            if known is None:
                return None, Error(code="invalid_token", message="Token not valid.")
            return known, self.round_info(known)
        if table is None:
            entry_id = getattr(command, "entry_id", None)
            return None, Error(code="not_paired", message="Pair first.", entry_id=entry_id)
        return table, self._command(table, command)

    def _deal_ask(self, table: int, board: int) -> Literal["enter", "check"] | None:
        if not self.deal_entry:
            return None
        keyed = self.deals.get(board)
        if keyed is None:
            return "enter"
        return "check" if keyed[0] != table and self.deal_states[board] == "keyed" else None

    def _deal(self, table: int, command: EnterDeal | CheckDeal) -> KeypadReply:
        """A deal keyed, or one hand checked against it (protocol/bridge/deal.py)."""
        keyed = self.deals.get(command.board)
        try:
            if isinstance(command, EnterDeal):
                hands = parse_deal(command.deal)
            else:
                hands = {Seat(command.seat): parse_hand(command.hand)}
        except BridgeError as exc:
            return Error(code=exc.code, message=exc.message, entry_id=command.entry_id)
        if keyed is None:
            if isinstance(command, CheckDeal):
                return Error(code="deal_not_keyed", message="No deal.", entry_id=command.entry_id)
            self.deals[command.board] = (table, hands)
            self.deal_states[command.board] = "keyed"
            return DealAck(board=command.board, state="keyed")
        differences = [
            d for seat, hand in hands.items() for d in confirm_hand(keyed[1], seat, hand)
        ]
        state = "conflict" if differences else "confirmed"
        if self.deal_states[command.board] != "conflict":
            self.deal_states[command.board] = state
        mine = self.results.get((table, command.board))
        played = mine is not None and mine.state == ResultState.CONFIRMED
        own = differences if isinstance(command, CheckDeal) else []
        shown = fair_play.deal_differences_shown(played, own)
        return DealAck.model_validate(
            {"board": command.board, "state": self.deal_states[command.board], "differences": shown}
        )

    def _command(self, table: int, command: KeypadCommand) -> KeypadReply:
        answer = ANSWERS.get(type(command))
        if answer is not None:
            return answer(self, table, command)
        entry = cast(EntryCommand, command)
        if entry.entry_id in self.answers:
            first = self.answers[entry.entry_id]
            if isinstance(first, ResultAck):
                current = self.results[(table, first.result.board)]
                return ResultAck(entry_id=entry.entry_id, duplicate=True, result=current)
            return first
        reply = ENTRIES[type(entry)](self, table, entry)
        self.answers[entry.entry_id] = reply
        if not isinstance(reply, Error):
            self.applied[entry.entry_id] += 1
        return reply

    def _settings(self, table: int, command: GetTableSettings) -> KeypadReply:
        return TableSettings(
            auction_entry=self.auction_entry,
            play_entry=self.play_entry,
            deal_entry=self.deal_entry,
        )

    def _next_round(self, table: int, command: NextRound) -> KeypadReply:
        info = self.round_info(table)
        if not info.complete:
            return Error(code="round_incomplete", message="Boards are missing.")
        self.round_of[table] = min(info.round + 1, self.rounds)
        return Ack(detail="next round")

    def _td_called(self, table: int, command: CallTD) -> KeypadReply:
        self.td_calls.append(table)
        return Ack(entry_id=command.entry_id, detail="TD called")

    def _apply(self, table: int, command: board_rules.BoardCommand) -> KeypadReply:
        rnd = self.round_of[table]
        if command.board not in self.boards(table, rnd):
            return Error(
                code="board_not_in_round", message="Not this round.", entry_id=command.entry_id
            )
        key = (table, command.board)
        keyed = None
        if isinstance(command, EnterResult | CorrectResult):
            values = command.values
            try:
                contract, declarer = values.contract, str(values.declarer or "") or None
                if values.auction:  # the server's Law 22B, as protocol/bridge/auction.py says
                    outcome = Auction(dealer(command.board), values.auction.split()).outcome()
                    contract = contract or str(outcome.contract)
                    seat = outcome.declarer.value if outcome.declarer is not None else None
                    declarer = declarer or seat
                    if (contract, declarer) != (str(outcome.contract), seat):
                        return Error(
                            code="auction_disagrees",
                            message="Auction differs.",
                            entry_id=command.entry_id,
                        )
                result = TableResult.make(contract, declarer, values.tricks)
                score = ns_score(command.board, result.contract, result.declarer, result.tricks)
            except BridgeError as exc:
                return Error(code=exc.code, message=exc.message, entry_id=command.entry_id)
            keyed = BoardResultView(
                board=command.board,
                round=rnd,
                table=table,
                state=ResultState.ENTERED,
                version=0,
                contract=str(result.contract),
                declarer=None if result.declarer is None else result.declarer.value,
                tricks=result.tricks,
                result=result.result or None,
                ns_score=score,
                auction=values.auction or None,
            )
        try:
            view = board_rules.apply_to_view(
                self.results.get(key), command, keyed=keyed, pin=self._pin(command)
            )
        except board_rules.RuleError as exc:
            text = WORDS.get(exc.code, f"Board {exc.board}: {exc.code}.")
            return Error(code=exc.code, message=text, entry_id=command.entry_id)
        self.results[key] = view
        return ResultAck(entry_id=command.entry_id, result=view)

    def _pin(self, command: board_rules.BoardCommand) -> board_rules.Pin:
        if self.confirm_pin is None or not isinstance(command, ConfirmResult):
            return board_rules.Pin.NOT_ASKED
        if not command.pin:
            return board_rules.Pin.MISSING
        right = command.pin == self.confirm_pin
        return board_rules.Pin.RIGHT if right else board_rules.Pin.WRONG

    @property
    def confirmed(self) -> dict[tuple[int, int], BoardResultView]:
        """Results East confirmed, by (table, board)."""
        return {k: v for k, v in self.results.items() if v.state == ResultState.CONFIRMED}


#: The table commands answered without the entry-id log, by type.
ANSWERS: dict[type[Message], Callable[[FakeTables, int, Any], KeypadReply]] = {
    GetRound: lambda tables, table, c: tables.round_info(table),
    GetTableSettings: FakeTables._settings,
    EnterDeal: FakeTables._deal,
    CheckDeal: FakeTables._deal,
    NextRound: FakeTables._next_round,
}
#: The table commands logged by entry id (a resend gets its first answer), by type.
ENTRIES: dict[type[Message], Callable[[FakeTables, int, Any], KeypadReply]] = {
    EnterResult: FakeTables._apply,
    CorrectResult: FakeTables._apply,
    ConfirmResult: FakeTables._apply,
    RejectResult: FakeTables._apply,
    CallTD: FakeTables._td_called,
}
EntryCommand = EnterResult | CorrectResult | ConfirmResult | RejectResult | CallTD


class FakeGateway:
    """FakeTables behind a link: one PointToPointLink or a BusMaster (many keypads)."""

    def __init__(self, tables: FakeTables, endpoint: PointToPointLink | BusMaster) -> None:
        self.tables = tables
        self.endpoint = endpoint
        self.bound: dict[int, int] = {}  # keypad address -> table (forgotten on restart)
        self.bad_messages = 0
        self.received: Counter[str] = Counter()  # entry id -> times it arrived

    def pump(self) -> float | None:
        """Answer every delivered command (a NullModem hook)."""
        endpoint = self.endpoint
        if isinstance(endpoint, BusMaster):
            events = endpoint.events()
        else:
            events = [BusEvent(endpoint.address or 0, e) for e in endpoint.events()]
        for address, event in events:
            if isinstance(event, PeerRestarted):
                self.bound.pop(address, None)  # a rebooted keypad introduces itself again
            if not isinstance(event, Delivered):
                continue
            try:
                command = decode(event.msg_type, event.payload)
            except CodecError:
                self.bad_messages += 1
                continue
            if not isinstance(command, KeypadCommand):
                self.bad_messages += 1  # a reply sent by a keypad: not for us
                continue
            entry_id = getattr(command, "entry_id", None)
            if entry_id is not None:
                self.received[entry_id] += 1
            table, reply = self.tables.handle(self.bound.get(address), command)
            if table is not None:
                self.bound[address] = table
            msg_type, payload = encode(reply)
            if isinstance(endpoint, BusMaster):
                endpoint.send(address, msg_type, payload)
            else:
                endpoint.send(msg_type, payload)
        return None
