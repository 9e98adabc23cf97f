"""The gateway's database side: an adapter over the table desk (server/live/table_desk.py), the one
way in that the websocket and HTTP use too: pairing, the hello, the PIN lockout, the rules and
group commit, with the table's lock taken in table order. One keypad command is one job, committed
before the reply goes back. The keypad's binding is read and written in that same transaction,
so a restarted gateway carries on where the last one stopped."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session, select

from protocol.keypad_codec import KeypadCommand
from protocol.messages import Error, Hello, NextRound, PairTerminal
from server.core.db import read
from server.core.errors import (
    ConflictError,
    NotFoundError,
    TravellerError,
    UnauthorizedError,
    UnavailableError,
)
from server.core.models import BridgeTable, KeypadBinding, TableToken, utcnow
from server.limits.ratelimit import GuessLimiter, RateLimitedError
from server.live.table_desk import TableDesk
from server.services import tokens
from server.services.outcomes import Outcome

from .jobs import Binding, Handled, Station

#: Unknown pairing codes, as the HTTP pairing endpoint limits them per address: each keypad
#: (port and bus address) backs off on its own, and all keypads together back off once 100
#: wrong codes were keyed, so many keypad addresses on a ``tcp-listen://`` port cannot share
#: out a brute force. A keypad that paired is never held by the others' flood.
PAIRING_FAILURES = GuessLimiter()
#: The server's token errors, as the keypad firmware knows them (protocol/README.md section 6).
KEYPAD_CODES = {"token_invalid": "invalid_token", "token_expired": "token_expired"}


class NotPairedError(UnauthorizedError):
    """A command from a keypad the gateway has no token for: it says Hello and resends."""

    def __init__(self) -> None:
        super().__init__("not_paired", "Say hello first.")


def handle(
    desk: TableDesk | Engine, station: Station, command: KeypadCommand, *, retry: bool = False
) -> Handled:
    """Run one keypad command in one committed transaction; what to reply, and the binding.

    ``desk``: the server's table desk (or an engine: a desk of its own, without group commit).
    ``retry``: a NextRound the gateway repeats for a keypad that is waiting for the TD. Raises
    UnavailableError when the database stored nothing (the caller tries again later).
    """
    if not isinstance(desk, TableDesk):
        desk = TableDesk(desk)
    engine = desk.engine
    call = _Call(desk, station, retry)
    entry_id: str | None = getattr(command, "entry_id", None)
    try:
        if isinstance(command, PairTerminal | Hello):  # no table lock: as HTTP's pairing
            return desk.transact(lambda s: call.run(s, command))
        order = read(engine, lambda s: _order(s, station))
        return desk.run_sync(lambda s: call.run(s, command), order)
    except UnavailableError:
        raise
    except UnauthorizedError as exc:
        if exc.code != "not_paired":
            desk.transact(lambda s: forget(s, station))
        code = exc.code if exc.code == "not_paired" else KEYPAD_CODES.get(exc.code, "unauthorized")
        return Handled(Error(code=code, message=exc.message, entry_id=entry_id), None)
    except TravellerError as exc:
        if isinstance(command, PairTerminal) and isinstance(exc, NotFoundError):
            PAIRING_FAILURES.failed(str(station))
        return Handled(Error(code=exc.code, message=exc.message, entry_id=entry_id))


def forget(session: Session, station: Station) -> None:
    """Drop a keypad's binding (its token was refused)."""
    row = _row(session, station)
    if row is not None:
        session.delete(row)


def load_bindings(engine: Engine) -> dict[Station, Binding]:
    """Every stored binding, for a gateway that is starting."""

    def work(session: Session) -> dict[Station, Binding]:
        rows = session.exec(
            select(KeypadBinding, BridgeTable)
            .join(TableToken, TableToken.id == KeypadBinding.token_id)  # type: ignore[arg-type]
            .join(BridgeTable, BridgeTable.id == TableToken.table_id)  # type: ignore[arg-type]
        ).all()
        return {
            Station(row.port, row.address): Binding(
                table.section_id, table.number, row.next_round_from
            )
            for row, table in rows
        }

    return read(engine, work)


def _order(session: Session, station: Station) -> int:
    """The table id of the keypad's table: the order its command takes the table's lock in."""
    table_id = session.exec(
        select(TableToken.table_id)
        .join(KeypadBinding, TableToken.id == KeypadBinding.token_id)  # type: ignore[arg-type]
        .where(KeypadBinding.port == station.port, KeypadBinding.address == station.address)
    ).first()
    return table_id or 0


def _row(session: Session, station: Station) -> KeypadBinding | None:
    return session.exec(
        select(KeypadBinding).where(
            KeypadBinding.port == station.port, KeypadBinding.address == station.address
        )
    ).first()


class _Call:
    """One command's work inside its transaction (``transact`` may run it again on a race)."""

    def __init__(self, desk: TableDesk, station: Station, retry: bool) -> None:
        self.desk = desk
        self.station = station
        self.retry = retry

    def run(self, session: Session, command: KeypadCommand) -> Handled:
        if isinstance(command, PairTerminal):
            return self.pair(session, command)
        if isinstance(command, Hello):
            return self.hello(session, command)
        row = _row(session, self.station)
        if row is None:
            raise NotPairedError
        token = session.get(TableToken, row.token_id)
        assert token is not None
        ident = tokens.token_identity(session, token)
        if isinstance(command, NextRound):
            return self.next_round(session, row, ident)
        outcome = self.desk.work(command, lambda _: ident)(session)
        return _handled(outcome, row, ident.table)

    def pair(self, session: Session, command: PairTerminal) -> Handled:
        wait = PAIRING_FAILURES.retry_after(str(self.station))
        if wait:
            raise RateLimitedError(
                "rate_limited", "Too many wrong codes: wait {wait} s.", wait=wait
            )
        reply, ident = self.desk.pair(session, command.code, command.device)
        PAIRING_FAILURES.succeeded(str(self.station))
        row = self.bind(session, ident.token)
        return Handled(reply, _binding(row, ident.table))

    def hello(self, session: Session, command: Hello) -> Handled:
        ident = tokens.table_identity(session, command.token)
        ident.token.last_seen = utcnow()
        session.add(ident.token)
        row = self.bind(session, ident.token)
        return Handled(self.desk.round_of(session, ident), _binding(row, ident.table))

    def bind(self, session: Session, token: TableToken) -> KeypadBinding:
        row = _row(session, self.station)
        if row is None:
            row = KeypadBinding(
                port=self.station.port, address=self.station.address, token_id=token.id or 0
            )
        elif row.token_id != token.id:
            row.token_id, row.next_round_from = token.id or 0, None
        else:
            return row
        session.add(row)
        session.flush()
        return row

    def next_round(
        self, session: Session, row: KeypadBinding, ident: tokens.TableIdentity
    ) -> Handled:
        """NextRound as the keypad expects it (protocol/README.md section 6): when the TD has not
        started the next round yet, the keypad waits; the gateway asks again on its behalf when
        the round is released (``retry``), so the keypad moves on by itself."""
        here = ident.table.round
        if self.retry and row.next_round_from != here:
            row.next_round_from = None  # moved on meanwhile (the TD, another device)
            session.add(row)
            return Handled(None, _binding(row, ident.table))
        try:
            with session.begin_nested():
                outcome = self.desk.work(NextRound(), lambda _: ident)(session)
        except ConflictError as exc:
            if exc.code == "next_round_not_released":
                row.next_round_from = here
            elif exc.code == "last_round" or self.retry:
                row.next_round_from = None
            else:
                raise
            session.add(row)
            # The round as it stands: the keypad, still on it, waits "for the TD" (the same as
            # Ack followed by its GetRound, one exchange less on the line).
            info = None if self.retry else self.desk.round_of(session, ident)
            return Handled(info, _binding(row, ident.table))
        row.next_round_from = None
        session.add(row)
        return _handled(outcome, row, ident.table)


def _binding(row: KeypadBinding, table: BridgeTable) -> Binding:
    return Binding(table.section_id, table.number, row.next_round_from)


def _handled(outcome: Outcome, row: KeypadBinding, table: BridgeTable) -> Handled:
    pushes = [(p.section_id, p.table, p.message) for p in outcome.pushes]
    return Handled(outcome.reply, _binding(row, table), pushes)
