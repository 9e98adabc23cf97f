"""An in-memory server that follows the § 262 rules, and the client that talks to it.

Small on purpose: tables, rounds and boards of a short Mitchell-like demo, pairing codes, entry
id deduplication, the round gate, TD calls, and switches to take the link down. Used by the
tests and by ``traveller terminal --demo``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from protocol import board_rules
from protocol.bridge import dealer, vulnerability
from protocol.messages import (
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
    EnterDeal,
    EnterResult,
    Error,
    GetRound,
    MarkNotPlayed,
    NextPosition,
    NextRound,
    Paired,
    PairInfo,
    PlayEntry,
    PlayerNumbers,
    RejectResult,
    ResultAck,
    ResultChanged,
    RoundChanged,
    RoundInfo,
    ServerMessage,
    SetPlayers,
    SettingsChanged,
    TableCommand,
    TableStatus,
)

from . import fake_extras, fake_table_entry
from .client import Link, PushHandler, SyncingClient
from .config import OUTBOX_NAME, ConfigStore, TerminalConfig
from .errors import ClientError, LinkDownError
from .outbox import Outbox
from .rules import RuleError, apply_command
from .scoring import with_contract

NAMES = [
    ("Anna Berg", "Carl Dahl"),
    ("Eva Fisk", "Gustav Holm"),
    ("Ida Jensen", "Karl Lund"),
    ("Mia Nord", "Ole Pedersen"),
]


@dataclass(frozen=True)
class Seating:
    """Who plays which boards at a table in one round."""

    ns: int
    ew: int
    boards: tuple[int, ...]


@dataclass
class FakeServer:
    """The server's § 262 rules in memory; ``online=False`` makes every link fail."""

    tables: int = 2
    rounds: int = 2
    boards_per_round: int = 2
    lead_required: bool = False
    tricks_style: Literal["absolute", "relative"] = "absolute"
    pin: str | None = None
    after_confirm: AfterConfirm = "nothing"
    show_ranking: bool = False
    player_numbers: PlayerNumbers = "off"
    td_code: str = "4321"
    language: str | None = None
    members: dict[str, str] = field(default_factory=dict)
    deals: dict[int, str] = field(default_factory=dict)
    dd: dict[int, dict[str, dict[str, int]]] = field(default_factory=dict)
    auction_entry: AuctionEntry = "off"
    play_entry: PlayEntry = "off"
    deal_entry: bool = False  # boards without a hand record are keyed at the tables
    keyed_deals: dict[int, fake_table_entry.KeyedDeal] = field(default_factory=dict)
    deal_acks: dict[str, DealAck] = field(default_factory=dict)  # entry id -> its answer
    names: dict[int, tuple[str, str]] = field(default_factory=dict)
    started_round: int | None = None  # None: the TD has started every round
    online: bool = True
    drop_after_store: int = 0
    results: dict[tuple[int, int, int], BoardResultView] = field(default_factory=dict)
    table_round: dict[int, int] = field(default_factory=dict)
    received: list[TableCommand] = field(default_factory=list)
    td_calls: list[tuple[int, str]] = field(default_factory=list)
    queued: dict[int, int] = field(default_factory=dict)  # table -> outbox size it reported
    revoked: set[str] = field(default_factory=set)
    lead_refusals: dict[tuple[int, int, int], set[str]] = field(default_factory=dict)
    _seen: dict[str, tuple[str, tuple[int, int, int] | None]] = field(default_factory=dict)
    _links: list[FakeLink] = field(default_factory=list)

    # ------------------------------------------------------------------ the movement

    def seating(self, table: int, round_no: int) -> Seating:
        """A Mitchell: N/S pairs stay, E/W pairs move up a table, boards move down."""
        ew = (table - 1 + round_no - 1) % self.tables + 1
        group = (table - 1 - (round_no - 1)) % self.tables
        first = group * self.boards_per_round + 1
        boards = tuple(range(first, first + self.boards_per_round))
        return Seating(ns=table, ew=self.tables + ew, boards=boards)

    def pairing_code(self, table: int) -> str:
        """The code the TD would show for a table."""
        return f"{table:02d}{table:02d}"

    def token(self, table: int) -> str:
        """The token a paired table receives."""
        return f"token-table-{table}"

    def names_of(self, number: int) -> tuple[str, str]:
        """The players of a pair (as keyed at a table, else the demo's names)."""
        return self.names.get(number) or NAMES[(number - 1) % len(NAMES)]

    def _pair_info(self, number: int, direction: Literal["NS", "EW"]) -> PairInfo:
        names = [n for n in self.names_of(number) if n]
        return PairInfo(number=number, direction=direction, names=names, label=str(number))

    @property
    def started(self) -> int:
        """The last round the TD has started."""
        return self.rounds if self.started_round is None else self.started_round

    def round_info(self, table: int) -> RoundInfo:
        """The table's current round as the server would send it."""
        round_no = self.table_round.setdefault(table, min(1, self.started))
        if round_no == 0:
            return RoundInfo(
                event="Club night",
                section="A",
                table=table,
                round=0,
                rounds=self.rounds,
                ns=None,
                ew=None,
                boards=[],
                complete=False,
                round_open=False,
                next_round_released=False,
                language=self.language,
            )
        seat = self.seating(table, round_no)
        boards = [self._status(table, round_no, b) for b in seat.boards]
        complete = board_rules.complete(b.state for b in boards)
        nxt = []
        if round_no < self.rounds and complete:  # as the server: only once the round is done
            for pair, direction in ((seat.ns, "NS"), (seat.ew, "EW")):
                for t in range(1, self.tables + 1):
                    later = self.seating(t, round_no + 1)
                    if pair in (later.ns, later.ew):
                        nxt.append(
                            NextPosition(
                                pair=str(pair),
                                table=t,
                                seat="NS" if direction == "NS" else "EW",
                                boards=list(later.boards),
                            )
                        )
        return RoundInfo(
            event="Club night",
            section="A",
            table=table,
            round=round_no,
            rounds=self.rounds,
            ns=self._pair_info(seat.ns, "NS"),
            ew=self._pair_info(seat.ew, "EW"),
            boards=boards,
            complete=complete,
            round_open=True,
            next_round_released=self.started > round_no,
            next=nxt,
            lead_required=self.lead_required,
            tricks_style=self.tricks_style,
            confirm_pin_required=self.pin is not None,
            language=self.language,
        )

    def _status(self, table: int, round_no: int, board: int) -> BoardStatus:
        result = self.results.get((table, round_no, board))
        return BoardStatus(
            board=board,
            dealer=dealer(board).value,
            vulnerability=vulnerability(board).value,
            state=result.state if result else "missing",
            result=result,
            deal=fake_table_entry.deal_ask(self, table, round_no, board),
        )

    # ------------------------------------------------------------------ the link switch

    def change_settings(self, **changes: object) -> None:
        """The TD changes the event's table settings: every open link hears of it."""
        for name, value in changes.items():
            setattr(self, name, value)
        settings = fake_extras.settings(self)
        for link in list(self._links):
            link.push(SettingsChanged(settings=settings))

    def set_online(self, online: bool) -> None:
        """Bring the network up or down; going down drops every open link."""
        self.online = online
        if not online:
            for link in list(self._links):
                link.drop()

    # ------------------------------------------------------------------ commands

    def handle(self, table: int, command: TableCommand) -> ServerMessage:
        """Answer one command from a table, as the real server would."""
        self.received.append(command)
        if isinstance(command, GetRound):
            return self.round_info(table)
        if isinstance(command, NextRound):
            return self._next_round(table)
        if isinstance(command, fake_extras.QUERIES):
            try:
                return fake_extras.query(self, table, command)
            except RuleError as error:
                return Error(code=error.code, message=error.message)
        if isinstance(command, TableStatus):
            self.queued[table] = command.queued
            return Ack(detail=f"{command.queued} queued noted")
        entry_id = command.entry_id
        fingerprint = command.model_dump_json()
        if entry_id in self._seen:
            seen_fingerprint, key = self._seen[entry_id]
            if seen_fingerprint != fingerprint:
                return Error(
                    code="entry_id_reused",
                    message="That entry id was used before.",
                    entry_id=entry_id,
                )
            if entry_id in self.deal_acks:  # a deal command again: the answer it had
                return self.deal_acks[entry_id]
            if key is None:
                return Ack(entry_id=entry_id, detail="duplicate")
            return ResultAck(entry_id=entry_id, duplicate=True, result=self.results[key])
        if isinstance(command, CallTD):
            self._seen[entry_id] = (fingerprint, None)
            self.td_calls.append((table, command.reason))
            return Ack(entry_id=entry_id, detail="The TD has been called.")
        try:
            if isinstance(command, SetPlayers):
                info = fake_extras.set_players(self, table, command)
                self._seen[entry_id] = (fingerprint, None)
                self._push(table, RoundChanged(round=info))
                return info
            if isinstance(command, MarkNotPlayed):
                result = fake_extras.mark_not_played(self, table, command)
                self._push(table, ResultChanged(result=result))
                reply: ServerMessage = ResultAck(entry_id=entry_id, result=result)
            elif isinstance(command, EnterDeal | CheckDeal):
                ack = fake_table_entry.deal_command(self, table, command)
                self._seen[entry_id] = (fingerprint, None)
                self.deal_acks[entry_id] = ack
                self._push(table, self.round_info(table))
                return ack
            else:
                reply = self._board_command(table, command)
        except RuleError as error:
            return Error(code=error.code, message=error.message, entry_id=entry_id)
        self._seen[entry_id] = (fingerprint, (table, self.table_round[table], command.board))
        return reply

    def board_status(self, table: int, board: int) -> BoardStatus:
        """A board of the table's current round, or RuleError board_not_in_round."""
        round_no = self.table_round.get(table, 0)
        info = self.round_info(table)
        status = next((b for b in info.boards if b.board == board), None)
        if status is None:
            raise RuleError(
                "board_not_in_round",
                f"Board {board} is not played at table {table} in round {round_no}.",
            )
        return status

    def _board_command(
        self, table: int, command: EnterResult | CorrectResult | ConfirmResult | RejectResult
    ) -> ServerMessage:
        round_no = self.table_round.get(table, 0)
        status = self.board_status(table, command.board)
        key = (table, round_no, command.board)
        warning = None
        played = None
        if isinstance(command, EnterResult | CorrectResult):
            played = fake_table_entry.check_values(self, status, command.values)
            values = with_contract(status.dealer, command.values)
            fake_extras.check_lead(self, table, command.entry_id, command.board, values)
        if isinstance(command, EnterResult) and key not in self.results:  # the first entry
            warning = fake_extras.first_entry_warning(
                self, command.board, with_contract(status.dealer, command.values)
            )
        result = apply_command(status, command, table=table, round_no=round_no, pin=self.pin)
        self.results[key] = result
        if isinstance(command, EnterResult | CorrectResult) and fake_table_entry.play_differs(
            status, command.values, played
        ):
            reason = f"board {command.board}: the tricks keyed and played differ"
            self.td_calls.append((table, reason))
        if result.state == "conflict" and status.state != "conflict":
            message = f"Board {command.board} has two different results. The TD has been called."
            self.td_calls.append((table, message))
            self._push(table, ConflictRaised(result=result, message=message))
        else:
            self._push(table, ResultChanged(result=result))
        return ResultAck(entry_id=command.entry_id, result=result, warning=warning)

    def _next_round(self, table: int) -> ServerMessage:
        info = self.round_info(table)
        missing = [b.board for b in info.boards if not board_rules.complete([b.state])]
        if missing:
            listed = ", ".join(str(b) for b in missing)
            return Error(code="round_incomplete", message=f"Boards not finished: {listed}.")
        if info.round >= self.rounds or self.started <= info.round:
            return Error(
                code="next_round_not_released",
                message="The TD has not started the next round yet.",
            )
        self.table_round[table] = info.round + 1
        return self.round_info(table)

    def _push(self, table: int, message: ServerMessage) -> None:
        for link in self._links:
            if link.table == table:
                link.push(message)


class FakeLink(Link):
    """A link to a FakeServer, failing like a network when the server is offline."""

    def __init__(self, server: FakeServer) -> None:
        self.server = server
        self.table: int | None = None
        self._on_push: PushHandler | None = None
        self._closed = asyncio.Event()
        self._closed.set()

    async def pair(self, code: str, device: str) -> Paired:
        """Pair by the code the fake TD shows."""
        await asyncio.sleep(0)
        if not self.server.online:
            raise LinkDownError
        for table in range(1, self.server.tables + 1):
            if code == self.server.pairing_code(table):
                return Paired(
                    token=self.server.token(table), event="Club night", section="A", table=table
                )
        raise ClientError("pairing_code_invalid", f"{code} is not a pairing code of this event.")

    async def open(self, token: str, on_push: PushHandler) -> RoundInfo:
        """Authenticate by token and register for pushes."""
        await asyncio.sleep(0)
        if not self.server.online:
            raise LinkDownError
        table = next(
            (t for t in range(1, self.server.tables + 1) if self.server.token(t) == token), None
        )
        if table is None:
            raise ClientError("token_invalid", "This terminal is not paired with a table.")
        if token in self.server.revoked:
            raise ClientError(
                "token_revoked", "The TD has unpaired this terminal. Key the new pairing code."
            )
        self.table, self._on_push = table, on_push
        self._closed.clear()
        self.server._links.append(self)
        return self.server.round_info(table)

    async def request(self, command: TableCommand) -> ServerMessage:
        """Hand the command to the server; LinkDownError while the network is down."""
        await asyncio.sleep(0)
        if self._closed.is_set() or self.table is None or not self.server.online:
            raise LinkDownError
        reply = self.server.handle(self.table, command)
        if self.server.drop_after_store > 0 and hasattr(command, "entry_id"):
            self.server.drop_after_store -= 1
            self.drop()
            raise LinkDownError
        return reply

    def push(self, message: ServerMessage) -> None:
        """Deliver a server push (after the current reply, as on a websocket)."""
        handler = self._on_push
        if handler is not None and not self._closed.is_set():
            asyncio.get_running_loop().call_soon(handler, message)

    def drop(self) -> None:
        """The connection breaks."""
        self._closed.set()
        if self in self.server._links:
            self.server._links.remove(self)

    async def wait_closed(self) -> None:
        """Return when the link has dropped."""
        await self._closed.wait()

    async def close(self) -> None:
        """Close the link."""
        self.drop()


class FakeClient(SyncingClient):
    """A SyncingClient on a FakeServer; with ``state_dir`` its outbox and config are files."""

    def __init__(
        self,
        server: FakeServer | None = None,
        *,
        state_dir: Path | None = None,
        table: int | None = None,
        backoff: tuple[float, float] = (0.01, 0.05),
    ) -> None:
        self.server = server or FakeServer()
        store = ConfigStore(state_dir) if state_dir is not None else None
        config = store.load() if store is not None else TerminalConfig(server="fake")
        if table is not None and not config.paired:
            config = TerminalConfig(server="fake", token=self.server.token(table), table=table)
            if store is not None:
                store.save(config)
        outbox = Outbox(state_dir / OUTBOX_NAME if state_dir is not None else ":memory:")
        super().__init__(FakeLink(self.server), outbox, store=store, config=config, backoff=backoff)
