"""The terminal's view of the server: the TableClient interface and its outbox implementation.

:class:`SyncingClient` keeps the durable outbox, reconnects with backoff, delivers queued
commands in order (each exactly once: the server deduplicates by entry id) and shows the round
as the server has it plus whatever is still queued. The transport is a :class:`Link`: a websocket
(:mod:`terminal.link`) or the in-memory fake server (:mod:`terminal.testing.server`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, replace

from protocol import board_rules
from protocol.messages import (
    Ack,
    BoardResultView,
    BoardStatus,
    CallTD,
    ConfirmResult,
    ConflictRaised,
    CorrectResult,
    EnterResult,
    EntryValues,
    Error,
    GetRound,
    GetTableSettings,
    NextRound,
    Paired,
    RejectResult,
    ResultAck,
    ResultChanged,
    RoundChanged,
    RoundInfo,
    ServerMessage,
    SettingsChanged,
    TableCommand,
    TableSettings,
    TableStatus,
)

from .config import ConfigStore, TerminalConfig
from .errors import ClientError, LinkDownError, offline_error
from .events import (
    ClientEvent,
    CommandRefused,
    ConflictReported,
    RoundUpdated,
    SettingsUpdated,
    StatusChanged,
    Unpaired,
)
from .i18n import _, ngettext
from .outbox import Outbox
from .queries import TableQueries
from .rules import BoardCommand, RuleRefusedError, apply_command, same_result

log = logging.getLogger(__name__)

QueuedCommand = EnterResult | CorrectResult | ConfirmResult | RejectResult | CallTD
Listener = Callable[[ClientEvent], None]
PushHandler = Callable[[ServerMessage], None]
TOKEN_ERRORS = frozenset({"token_invalid", "token_revoked", "token_expired"})


@dataclass(frozen=True)
class EntryNote:
    """The server's word on an entry when it arrived: refused (``text`` says why; North keys it
    again), or stored with an "are you sure?" warning."""

    refused: bool
    text: str


def new_entry_id() -> str:
    """A fresh client entry id (uuid4)."""
    return str(uuid.uuid4())


class Link(ABC):
    """One connection to the server: pairing, the authenticated session, requests and pushes."""

    @abstractmethod
    async def pair(self, code: str, device: str) -> Paired:
        """Exchange a pairing code for a token (ClientError if refused; LinkDownError)."""

    @abstractmethod
    async def open(self, token: str, on_push: PushHandler) -> RoundInfo:
        """Connect and authenticate; pushes go to ``on_push`` until the link closes."""

    @abstractmethod
    async def request(self, command: TableCommand) -> ServerMessage:
        """Send one command and return its answer (LinkDownError if the link fails)."""

    @abstractmethod
    async def wait_closed(self) -> None:
        """Return when the connection has dropped."""

    @abstractmethod
    async def close(self) -> None:
        """Close the connection (no error if it is already closed)."""


class TableClient(TableQueries, ABC):
    """What the terminal's screens need: the round, the link status, and commands to send."""

    @property
    @abstractmethod
    def config(self) -> TerminalConfig:
        """Server URL and table token as remembered."""

    @property
    @abstractmethod
    def settings(self) -> TableSettings:
        """What the event shows at the table (after confirmation, ranking, player numbers)."""

    @property
    @abstractmethod
    def round(self) -> RoundInfo | None:
        """The round as it should be shown: the server's state plus commands still queued."""

    @property
    @abstractmethod
    def online(self) -> bool:
        """Whether the link to the server is up."""

    @property
    @abstractmethod
    def waiting(self) -> int:
        """How many commands are queued, not yet answered by the server."""

    @abstractmethod
    def waiting_boards(self) -> frozenset[int]:
        """Boards with a queued command."""

    def entry_note(self, board: int) -> EntryNote | None:
        """What the server said of the board's last entry (a refusal or a warning), once."""
        return None

    @abstractmethod
    def start(self, listener: Listener) -> None:
        """Start connecting in the background; events go to ``listener``."""

    @abstractmethod
    async def close(self) -> None:
        """Stop the background work and close the link and the outbox."""

    @abstractmethod
    async def pair(self, code: str, device: str = "terminal") -> Paired:
        """Pair this terminal with a table using the TD's code, and remember the token."""

    @abstractmethod
    def remember_language(self, language: str) -> None:
        """Keep the players' language for this table (for the rest of the event's session)."""

    @property
    @abstractmethod
    def seated_round(self) -> int | None:
        """The round of this table whose seats the players confirmed (kept across restarts)."""

    @abstractmethod
    def remember_seated(self, round_no: int) -> None:
        """The players confirmed their seats for ``round_no`` (a restart does not ask again)."""

    @abstractmethod
    def submit(self, command: QueuedCommand) -> None:
        """Queue a command durably (committed before returning); it is sent when possible."""

    @abstractmethod
    async def refresh(self) -> RoundInfo:
        """Ask the server for the round now (ClientError when offline)."""

    @abstractmethod
    async def next_round(self) -> RoundInfo:
        """Move the table to the next round (ClientError with the server's reason if refused)."""

    def board(self, number: int) -> BoardStatus | None:
        """A board of the current round, as shown."""
        info = self.round
        if info is None:
            return None
        return next((b for b in info.boards if b.board == number), None)

    def enter(self, board: int, values: EntryValues, *, ruling_pending: bool = False) -> None:
        """North enters a board (§ 262B2)."""
        self.submit(
            EnterResult(
                entry_id=new_entry_id(), board=board, values=values, ruling_pending=ruling_pending
            )
        )

    def correct(
        self, board: int, version: int, values: EntryValues, *, ruling_pending: bool = False
    ) -> None:
        """North corrects a board of the round; East must confirm again."""
        self.submit(
            CorrectResult(
                entry_id=new_entry_id(),
                board=board,
                version=version,
                values=values,
                ruling_pending=ruling_pending,
            )
        )

    def confirm(self, shown: BoardResultView, pin: str | None = None) -> None:
        """East confirms the result shown (§ 262B3)."""
        self.submit(
            ConfirmResult(
                entry_id=new_entry_id(),
                board=shown.board,
                version=self._version_of(shown),
                pin=pin,
            )
        )

    def reject(self, shown: BoardResultView, reason: str = "") -> None:
        """East rejects the result shown; it goes back to North."""
        self.submit(
            RejectResult(
                entry_id=new_entry_id(),
                board=shown.board,
                version=self._version_of(shown),
                reason=reason,
            )
        )

    def call_td(self, reason: str) -> None:
        """Call the tournament director to the table."""
        self.submit(CallTD(entry_id=new_entry_id(), reason=reason[:200]))

    def _version_of(self, shown: BoardResultView) -> int:
        """The version East answers: the current one if it still says what was shown."""
        status = self.board(shown.board)
        if status is not None and status.result is not None and same_result(status.result, shown):
            return status.result.version
        return shown.version


class SyncingClient(TableClient):
    """A TableClient over any Link, with a durable outbox and reconnection with backoff."""

    def __init__(
        self,
        link: Link,
        outbox: Outbox,
        *,
        store: ConfigStore | None = None,
        config: TerminalConfig | None = None,
        backoff: tuple[float, float] = (0.5, 10.0),
    ) -> None:
        self._link = link
        self._outbox = outbox
        self._reported: int | None = None  # the outbox size the server last heard of
        self._status_supported = True
        self._store = store
        self._config = config or (store.load() if store else TerminalConfig())
        self._backoff_min, self._backoff_max = backoff
        self._server_round: RoundInfo | None = outbox.load_round()
        self._settings: TableSettings = outbox.load_settings() or TableSettings()
        self._next_asked: int | None = None  # the round whose "where next" was fetched
        self._view: RoundInfo | None = None
        self._waiting_boards: frozenset[int] = frozenset()
        self._notes: dict[int, EntryNote] = {}  # board -> what the server said of its entry
        self._waiting = 0
        self._online = False
        self._listener: Listener | None = None
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._changed = asyncio.Event()
        self._closing = False
        self._recompute()

    # ------------------------------------------------------------------ state shown

    @property
    def config(self) -> TerminalConfig:
        """Server URL and table token as remembered."""
        return self._config

    @property
    def round(self) -> RoundInfo | None:
        """The server's round with the queued commands applied."""
        return self._view

    @property
    def settings(self) -> TableSettings:
        """The event's table settings, as the server last sent them."""
        return self._settings

    @property
    def online(self) -> bool:
        """Whether the link is up."""
        return self._online

    @property
    def waiting(self) -> int:
        """Commands not yet answered by the server."""
        return self._waiting

    @property
    def outbox(self) -> Outbox:
        """The durable outbox (for the record and for tests)."""
        return self._outbox

    def waiting_boards(self) -> frozenset[int]:
        """Boards with a queued command."""
        return self._waiting_boards

    def entry_note(self, board: int) -> EntryNote | None:
        """What the server said of the board's last entry (a refusal or a warning), once."""
        return self._notes.pop(board, None)

    # A deadline argument: every caller waits with one.
    async def wait_for(self, condition: Callable[[], bool], timeout: float = 5.0) -> None:  # noqa: ASYNC109
        """Wait until ``condition()`` holds, checking it after every change (TimeoutError)."""
        async with asyncio.timeout(timeout):
            while not condition():
                await self._changed.wait()

    # ------------------------------------------------------------------ life cycle

    def start(self, listener: Listener) -> None:
        """Start the connection loop; events go to ``listener``."""
        self._listener = listener
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="traveller-link")
        self._emit(StatusChanged(self._online, self._waiting))
        if self._view is not None:
            self._emit(RoundUpdated(self._view))

    async def close(self) -> None:
        """Stop the loop, close the link and the outbox."""
        self._closing = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self._link.close()
        self._outbox.close()

    # ------------------------------------------------------------------ commands

    async def pair(self, code: str, device: str = "terminal") -> Paired:
        """Pair with a table and remember the token; the link then connects."""
        try:
            paired = await self._link.pair(code.strip(), device)
        except LinkDownError:
            raise offline_error() from None
        if paired.table != self._config.table:
            self._server_round = None
        self._set_config(
            replace(
                self._config,
                token=paired.token,
                table=paired.table,
                event=paired.event,
                section=paired.section,
            )
        )
        self._recompute()
        self._wake.set()
        return paired

    def remember_language(self, language: str) -> None:
        """Keep the players' language in the config file (for the rest of the event)."""
        self._set_config(self._config.with_language(language))

    @property
    def seated_round(self) -> int | None:
        """The round whose seats were confirmed, if it is this table's (from the outbox)."""
        seated = self._outbox.load_seated()
        info = self._server_round
        table = info.table if info else self._config.table
        return seated[1] if seated and seated[0] == table else None

    def remember_seated(self, round_no: int) -> None:
        """Keep the seat check's answer in the outbox file, beside the round it was for."""
        info = self._server_round
        table = info.table if info else self._config.table
        if table is not None:
            self._outbox.save_seated(table, round_no)

    def submit(self, command: QueuedCommand) -> None:
        """Commit the command to the outbox, show it at once and wake the sender."""
        info = self._server_round
        self._outbox.add(command, round_no=info.round if info else None)
        self._recompute()
        self._wake.set()

    async def refresh(self) -> RoundInfo:
        """Fetch the round from the server."""
        reply = await self._request(GetRound())
        if not isinstance(reply, RoundInfo):
            raise ClientError("unexpected_reply", _("The server gave an unexpected answer."))
        self._set_server_round(reply)
        return reply

    async def next_round(self) -> RoundInfo:
        """Deliver what is queued, then ask the server to move the table on."""
        if not self._online:
            raise offline_error()
        with contextlib.suppress(TimeoutError):
            await self.wait_for(lambda: self._waiting == 0 or not self._online, timeout=10)
        if self._waiting:
            text = ngettext(
                "{num} result is still waiting to be sent.",
                "{num} results are still waiting to be sent.",
                self._waiting,
            )
            raise ClientError("results_waiting", text.format(num=self._waiting))
        reply = await self._request(NextRound())
        if not isinstance(reply, RoundInfo):
            raise ClientError("unexpected_reply", _("The server gave an unexpected answer."))
        self._set_server_round(reply)
        return reply

    async def ask(self, command: TableCommand) -> ServerMessage:
        """One question now (ClientError when refused or offline); results it returns are shown."""
        reply = await self._request(command)
        if isinstance(reply, ResultAck):
            self._apply_result(reply.result)
        elif isinstance(reply, RoundInfo):
            self._set_server_round(reply)
        return reply

    async def _request(self, command: TableCommand) -> ServerMessage:
        if not self._online:
            raise offline_error()
        try:
            reply = await self._link.request(command)
        except LinkDownError:
            raise offline_error() from None
        if isinstance(reply, Error):
            raise ClientError(reply.code, reply.message)
        return reply

    # ------------------------------------------------------------------ the link loop

    async def _run(self) -> None:
        delay = self._backoff_min
        while not self._closing:
            token = self._config.token
            if not token:
                self._wake.clear()
                await self._wake.wait()
                continue
            try:
                info = await self._link.open(token, self._on_push)
            except LinkDownError:
                self._set_online(False)
                await self._sleep(delay * random.uniform(0.8, 1.2))
                delay = min(delay * 2, self._backoff_max)
                continue
            except ClientError as error:
                self._unpair(error.code, error.message)
                continue
            delay = self._backoff_min
            self._set_server_round(info)
            self._set_online(True)
            try:
                await self._serve()
            except LinkDownError:
                pass
            except ClientError as error:
                self._unpair(error.code, error.message)
            finally:
                await self._link.close()
                self._set_online(False)

    async def _sleep(self, seconds: float) -> None:
        """Wait for the backoff delay, or less if a new command wants out."""
        self._wake.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._wake.wait()

    async def _serve(self) -> None:
        closed = asyncio.ensure_future(self._link.wait_closed())
        self._reported = None  # tell a (re)connected server the outbox size at once
        try:
            await self._fetch_settings()
            while True:
                self._wake.clear()
                if self._reported is None:  # just (re)connected: what waited while offline
                    await self._report_queue()
                await self._flush()
                await self._report_queue()  # sent only when the count changed: not per entry
                await self._fetch_next()
                wake = asyncio.ensure_future(self._wake.wait())
                done, _ = await asyncio.wait({closed, wake}, return_when=asyncio.FIRST_COMPLETED)
                wake.cancel()
                if closed in done:
                    raise LinkDownError
        finally:
            closed.cancel()

    async def _report_queue(self) -> None:
        """Tell the server how many commands wait in the outbox when that changed, so the TD
        sees "offline with N queued" if the link drops again (an older server refuses the
        message: stop sending it)."""
        queued = self._outbox.count()
        if not self._status_supported or queued == self._reported:
            return
        reply = await self._link.request(TableStatus(queued=queued))
        if isinstance(reply, Error):
            self._status_supported = reply.code != "invalid_message"
            return
        self._reported = queued

    async def _fetch_settings(self) -> None:
        """Ask for the event's table settings (an older server refuses: keep the defaults)."""
        reply = await self._link.request(GetTableSettings())
        if isinstance(reply, TableSettings):
            self._set_settings(reply)

    async def _fetch_next(self) -> None:
        """Once the round is complete, fetch it again: the server adds where the pairs go next."""
        info = self._server_round
        if info is None or not info.complete or info.next or info.round >= info.rounds:
            return
        if self._next_asked == info.round:
            return
        self._next_asked = info.round
        reply = await self._link.request(GetRound())
        if isinstance(reply, RoundInfo):
            self._set_server_round(reply)

    async def _flush(self) -> None:
        for entry in self._outbox.pending():
            reply = await self._link.request(entry.command)
            await self._answered(entry.entry_id, entry.command, reply)

    async def _answered(self, entry_id: str, command: TableCommand, reply: ServerMessage) -> None:
        if isinstance(reply, Error) and reply.code in TOKEN_ERRORS:
            raise ClientError(reply.code, reply.message)
        self._outbox.mark_delivered(entry_id, reply.model_dump_json())
        self._note(command, reply)
        if isinstance(reply, ResultAck):
            before = self._server_board_state(reply.result.board)
            self._apply_result(reply.result)
            if reply.result.state == "conflict" and before != "conflict":
                number = reply.result.board
                text = _(
                    "Board {board} already has a different result: the TD has been called."
                ).format(board=number)
                self._emit(ConflictReported(number, text))
        elif isinstance(reply, Error):
            board = getattr(command, "board", None)
            self._emit(CommandRefused(reply.code, reply.message, board))
            if reply.code == "conflict" and isinstance(board, int):
                self._emit(ConflictReported(board, reply.message))
            resync = await self._link.request(GetRound())
            if isinstance(resync, RoundInfo):
                self._set_server_round(resync)
        elif not isinstance(reply, Ack | RoundInfo):
            log.warning("unexpected answer %s to %s", reply.type, command.type)
        self._recompute()

    def _note(self, command: TableCommand, reply: ServerMessage) -> None:
        """Keep the server's word on an entry (the lead and the tricks are checked only when
        the entry itself arrives, never by a question before it)."""
        if not isinstance(command, EnterResult | CorrectResult):
            return
        if isinstance(reply, Error):
            self._notes[command.board] = EntryNote(refused=True, text=reply.message)
        elif isinstance(reply, ResultAck) and reply.warning:
            self._notes[command.board] = EntryNote(refused=False, text=reply.warning)

    def _on_push(self, message: ServerMessage) -> None:
        if isinstance(message, ResultChanged):
            self._apply_result(message.result)
        elif isinstance(message, RoundChanged):
            self._set_server_round(message.round)
        elif isinstance(message, ConflictRaised):
            self._apply_result(message.result)
            self._emit(ConflictReported(message.result.board, message.message))
        elif isinstance(message, RoundInfo):
            self._set_server_round(message)
        elif isinstance(message, SettingsChanged):
            self._set_settings(message.settings)
        elif isinstance(message, Error):
            if message.code in TOKEN_ERRORS:
                self._unpair(message.code, message.message)
            else:
                self._emit(CommandRefused(message.code, message.message))
        self._recompute()

    # ------------------------------------------------------------------ state changes

    def _set_config(self, config: TerminalConfig) -> None:
        self._config = config
        if self._store is not None:
            self._store.save(config)

    def _unpair(self, code: str, message: str) -> None:
        log.info("table token refused: %s", code)
        self._set_config(self._config.unpaired())
        self._set_online(False)
        self._emit(Unpaired(message))

    def _set_online(self, online: bool) -> None:
        if online != self._online:
            self._online = online
            self._emit(StatusChanged(online, self._waiting))
            self._changed_now()

    def _set_settings(self, settings: TableSettings) -> None:
        if settings != self._settings:
            self._settings = settings
            self._outbox.save_settings(settings)
            self._emit(SettingsUpdated(settings))

    def _set_server_round(self, info: RoundInfo) -> None:
        self._server_round = info
        self._outbox.save_round(info)
        self._recompute()
        if info.complete and not info.next and self._next_asked != info.round:
            self._wake.set()  # the sender fetches where the pairs go next

    def _server_board_state(self, board: int) -> str | None:
        info = self._server_round
        status = next((b for b in info.boards if b.board == board), None) if info else None
        return status.state if status else None

    def _apply_result(self, view: BoardResultView) -> None:
        info = self._server_round
        if info is None:
            return
        folded = board_rules.fold(info, view)
        if folded is not info:
            self._set_server_round(folded)

    def _recompute(self) -> None:
        """Rebuild the round shown: the server's round with every queued command replayed."""
        pending = self._outbox.pending_with_rounds()
        waiting_boards: set[int] = set()
        info = self._server_round
        view: RoundInfo | None = None
        if info is not None:
            boards = {b.board: b for b in info.boards}
            for command, round_no in pending:
                if not isinstance(command, BoardCommand) or round_no != info.round:
                    continue
                board = command.board
                if board not in boards:
                    continue
                waiting_boards.add(board)
                try:
                    result = apply_command(
                        boards[board], command, table=info.table, round_no=info.round
                    )
                except RuleRefusedError:
                    continue
                boards[board] = boards[board].model_copy(
                    update={"state": result.state, "result": result}
                )
            shown = list(boards.values())
            complete = info.complete
            if waiting_boards:
                complete = board_rules.complete(b.state for b in shown)
            view = info.model_copy(update={"boards": shown, "complete": complete})
        changed_count = len(pending) != self._waiting
        self._waiting = len(pending)
        self._waiting_boards = frozenset(waiting_boards)
        if view != self._view:
            self._view = view
            if view is not None:
                self._emit(RoundUpdated(view))
        if changed_count:
            self._emit(StatusChanged(self._online, self._waiting))
        self._changed_now()

    def _changed_now(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def _emit(self, event: ClientEvent) -> None:
        if self._listener is not None:
            try:
                self._listener(event)
            except Exception:  # a broken screen must not stop the link
                log.exception("listener failed on %s", type(event).__name__)
        self._changed_now()
