"""An in-memory server that follows the § 262 rules, and the client that talks to it.

Small on purpose: over the event (event.py: tables, rounds and boards of a short Mitchell-like
demo), pairing codes, entry id deduplication, the round gate, TD calls, and switches to take the
link down; the extras (extras.py) and the auction, play and deal checks (table_entry.py) answer
their commands. Used by the tests and by ``traveller terminal --demo``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from protocol import board_rules
from protocol.messages import (
    Ack,
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
    Message,
    NextRound,
    Paired,
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
from terminal.client import Link, PushHandler, SyncingClient
from terminal.config import OUTBOX_NAME, ConfigStore, TerminalConfig
from terminal.errors import ClientError, LinkDownError
from terminal.outbox import Outbox
from terminal.rules import RuleRefusedError, apply_command
from terminal.scoring import with_contract

from . import extras, table_entry
from .event import FakeEvent


@dataclass
class FakeServer(FakeEvent):
    """The server's § 262 rules in memory over the event (event.py); ``online=False`` makes
    every link fail."""

    online: bool = True
    drop_after_store: int = 0
    deal_acks: dict[str, DealAck] = field(default_factory=dict)  # entry id -> its answer
    received: list[TableCommand] = field(default_factory=list)
    queued: dict[int, int] = field(default_factory=dict)  # table -> outbox size it reported
    revoked: set[str] = field(default_factory=set)
    _seen: dict[str, tuple[str, tuple[int, int, int] | None]] = field(default_factory=dict)
    _links: list[FakeLink] = field(default_factory=list)

    # ------------------------------------------------------------------ the link switch

    def change_settings(self, **changes: object) -> None:
        """The TD changes the event's table settings: every open link hears of it."""
        for name, value in changes.items():
            setattr(self, name, value)
        settings = extras.settings(self)
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
        answer = ANSWERS.get(type(command))
        if answer is not None:
            return answer(self, table, command)
        entry = cast(EntryCommand, command)
        entry_id = entry.entry_id
        fingerprint = entry.model_dump_json()
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
        try:
            reply, key = ENTRIES[type(entry)](self, table, entry)
        except RuleRefusedError as error:
            return Error(code=error.code, message=error.message, entry_id=entry_id)
        self._seen[entry_id] = (fingerprint, key)
        return reply

    def _query(self, table: int, command: extras.FakeQuery) -> ServerMessage:
        try:
            return extras.query(self, table, command)
        except RuleRefusedError as error:
            return Error(code=error.code, message=error.message)

    def _table_status(self, table: int, command: TableStatus) -> ServerMessage:
        self.queued[table] = command.queued
        return Ack(detail=f"{command.queued} queued noted")

    def _td_called(self, table: int, command: CallTD) -> Entered:
        self.td_calls.append((table, command.reason))
        return Ack(entry_id=command.entry_id, detail="The TD has been called."), None

    def _set_players(self, table: int, command: SetPlayers) -> Entered:
        info = extras.set_players(self, table, command)
        self._push(table, RoundChanged(round=info))
        return info, None

    def _mark_not_played(self, table: int, command: MarkNotPlayed) -> Entered:
        result = extras.mark_not_played(self, table, command)
        self._push(table, ResultChanged(result=result))
        reply = ResultAck(entry_id=command.entry_id, result=result)
        return reply, (table, self.table_round[table], command.board)

    def _deal(self, table: int, command: EnterDeal | CheckDeal) -> Entered:
        ack = table_entry.deal_command(self, table, command)
        self.deal_acks[command.entry_id] = ack
        self._push(table, self.round_info(table))
        return ack, None

    def _result(
        self, table: int, command: EnterResult | CorrectResult | ConfirmResult | RejectResult
    ) -> Entered:
        reply = self._board_command(table, command)
        return reply, (table, self.table_round[table], command.board)

    def _board_command(
        self, table: int, command: EnterResult | CorrectResult | ConfirmResult | RejectResult
    ) -> ServerMessage:
        round_no = self.table_round.get(table, 0)
        status = self.board_status(table, command.board)
        key = (table, round_no, command.board)
        warning = None
        played = None
        if isinstance(command, EnterResult | CorrectResult):
            played = table_entry.check_values(self, status, command.values)
            values = with_contract(status.dealer, command.values)
            extras.check_lead(self, table, command.entry_id, command.board, values)
        if isinstance(command, EnterResult) and key not in self.results:  # the first entry
            warning = extras.first_entry_warning(
                self, command.board, with_contract(status.dealer, command.values)
            )
        result = apply_command(status, command, table=table, round_no=round_no, pin=self.pin)
        self.results[key] = result
        if isinstance(command, EnterResult | CorrectResult) and table_entry.play_differs(
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


#: A command's reply, and the result it acted on (table, round, board) if any.
Entered = tuple[ServerMessage, tuple[int, int, int] | None]
EntryCommand = (
    EnterResult
    | CorrectResult
    | ConfirmResult
    | RejectResult
    | CallTD
    | SetPlayers
    | MarkNotPlayed
    | EnterDeal
    | CheckDeal
)

#: The commands answered without the entry-id log, by type.
ANSWERS: dict[type[Message], Callable[[FakeServer, int, Any], ServerMessage]] = {
    GetRound: lambda server, table, c: server.round_info(table),
    NextRound: lambda server, table, c: server._next_round(table),
    **dict.fromkeys(extras.ANSWERS, FakeServer._query),
    TableStatus: FakeServer._table_status,
}
#: The commands logged by entry id (a resend is a duplicate), by type.
ENTRIES: dict[type[Message], Callable[[FakeServer, int, Any], Entered]] = {
    EnterResult: FakeServer._result,
    CorrectResult: FakeServer._result,
    ConfirmResult: FakeServer._result,
    RejectResult: FakeServer._result,
    CallTD: FakeServer._td_called,
    SetPlayers: FakeServer._set_players,
    MarkNotPlayed: FakeServer._mark_not_played,
    EnterDeal: FakeServer._deal,
    CheckDeal: FakeServer._deal,
}


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
