"""Table pairing codes and tokens, and TD logins: random secrets, stored only as SHA-256."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from server.core.errors import NotFoundError, UnauthorizedError
from server.core.models import BridgeTable, Event, Section, TableToken, TDSession, utcnow

#: Ten digits: 10^10 codes, so with 50 tables waiting to pair a guess hits one in 2 * 10^8,
#: while ``server.limits.ratelimit`` lets about a thousand wrong codes a day reach the check from a
#: LAN of 400 addresses (centuries of guessing). Still a phone number to key on a keypad.
PAIRING_CODE_DIGITS = 10


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_pairing_code(session: Session) -> str:
    """A fresh ten-digit code (digits only, so a numeric keypad can type it), unique in the db."""
    return new_pairing_codes(session, 1)[0]


def new_pairing_codes(session: Session, count: int) -> list[str]:
    """``count`` fresh codes, distinct from each other and from every code in the db: a
    section's tables get theirs in one query, not one query and one flush a table."""
    if count == 0:
        return []
    codes: set[str] = set()
    for _ in range(100):
        drawn = {_random_code() for _ in range(count - len(codes))} - codes
        taken = session.exec(
            select(BridgeTable.pairing_code).where(col(BridgeTable.pairing_code).in_(drawn))
        ).all()
        codes |= drawn - set(taken)
        if len(codes) == count:
            return list(codes)
    raise RuntimeError("could not find free pairing codes")  # pragma: no cover - 10^10 codes


def _random_code() -> str:
    return f"{secrets.randbelow(10**PAIRING_CODE_DIGITS):0{PAIRING_CODE_DIGITS}d}"


def new_pin() -> str:
    """A pair's four-digit PIN: E/W key it to confirm when the event asks for it (§ 262B3)."""
    return f"{secrets.randbelow(10**4):04d}"


@dataclass(frozen=True)
class TableIdentity:
    """Who is calling from the table side: the token row, its table, section and event."""

    token: TableToken
    table: BridgeTable
    section: Section
    event: Event
    #: The table row is already locked FOR UPDATE in this transaction (see table_identity).
    locked: bool = False


def pair_terminal(session: Session, *, code: str, device: str) -> tuple[str, TableIdentity]:
    """Exchange a pairing code for a new table token. Returns (token, identity).

    A code works once: pairing replaces it with a fresh one, which the TD sees (and reads out
    for a second or replacement device). A rebooted terminal keeps its token and need not pair
    again; a leaked or photographed code is useless once its table has paired."""
    table = session.exec(
        select(BridgeTable)
        .where(BridgeTable.pairing_code == "".join(code.split()))
        .with_for_update()
    ).first()
    if table is None:
        raise NotFoundError(
            "pairing_code_unknown",
            "No table has the pairing code {code} (a code works once: ask the TD for the "
            "table's current code).",
            code=repr(code),
        )
    table.pairing_code = new_pairing_code(session)
    session.add(table)
    section = session.get(Section, table.section_id)
    assert section is not None
    event = session.get(Event, section.event_id)
    assert event is not None
    token = secrets.token_urlsafe(32)
    row = TableToken(
        table_id=table.id or 0,
        token_hash=digest(token),
        device=device,
        expires_at=utcnow() + timedelta(hours=event.token_ttl_hours),
    )
    session.add(row)
    session.flush()
    return token, TableIdentity(row, table, section, event)


def table_identity(session: Session, token: str, *, lock: bool = False) -> TableIdentity:
    """The table a token belongs to, or UnauthorizedError naming why (unknown, revoked, expired).

    One statement reads the token with its table, section and event, always from the database
    (so a revocation or a TD's change counts at once); ``lock`` also takes the table row's lock
    for a command (PostgreSQL ``FOR UPDATE OF bridge_table``; SQLite locks at BEGIN)."""
    stmt = _IDENTITY_LOCKED if lock else _IDENTITY
    found = session.exec(stmt, params={"token_hash": digest(token)}).first()
    if found is None:
        raise UnauthorizedError(
            "token_invalid", "This terminal is not paired: enter the pairing code."
        )
    row, table, section, event = found
    check_live(row)
    return TableIdentity(row, table, section, event, locked=lock)


# Built once (a table command's hottest statement): the token with its table, section and event.
_IDENTITY = (
    select(TableToken, BridgeTable, Section, Event)
    .join(BridgeTable, col(BridgeTable.id) == TableToken.table_id)
    .join(Section, col(Section.id) == BridgeTable.section_id)
    .join(Event, col(Event.id) == Section.event_id)
    .where(TableToken.token_hash == bindparam("token_hash"))
    .execution_options(populate_existing=True)
)
_IDENTITY_LOCKED = _IDENTITY.with_for_update(of=BridgeTable)


_LIVE = select(TableToken.revoked_at, TableToken.expires_at).where(
    TableToken.token_hash == bindparam("token_hash")
)


def check_token(session: Session, token: str) -> datetime:
    """UnauthorizedError unless ``token`` is a live table token (unknown, revoked, expired):
    :func:`table_identity`'s check alone, as one small statement (a socket asks it before a
    push when its live token may have changed, so a withdrawn terminal hears nothing more).
    Returns when the token expires."""
    found = session.execute(_LIVE, {"token_hash": digest(token)}).first()
    if found is None:
        raise UnauthorizedError(
            "token_invalid", "This terminal is not paired: enter the pairing code."
        )
    _check_times(found[0], found[1])
    expires_at: datetime = found[1]
    return expires_at


def check_live(row: TableToken) -> None:
    """UnauthorizedError if the token row was revoked or has expired."""
    _check_times(row.revoked_at, row.expires_at)


def _check_times(revoked_at: datetime | None, expires_at: datetime) -> None:
    if revoked_at is not None:
        raise UnauthorizedError("token_revoked", "The TD has withdrawn this terminal's pairing.")
    if expires_at <= utcnow():
        raise UnauthorizedError("token_expired", "This terminal's pairing has expired: pair again.")


def token_identity(session: Session, row: TableToken) -> TableIdentity:
    """The table of a stored token row (the keypad gateway keeps the row, not the token), or
    UnauthorizedError if it was revoked or has expired."""
    check_live(row)
    table = session.get(BridgeTable, row.table_id)
    assert table is not None
    section = session.get(Section, table.section_id)
    assert section is not None
    event = session.get(Event, section.event_id)
    assert event is not None
    return TableIdentity(row, table, section, event)


def revoke_table_tokens(session: Session, table: BridgeTable) -> int:
    """Withdraw every token of a table (moving it to a new device). Returns how many."""
    now = utcnow()
    rows = session.exec(
        select(TableToken).where(TableToken.table_id == table.id, TableToken.revoked_at == None)  # noqa: E711
    ).all()
    for row in rows:
        row.revoked_at = now
        session.add(row)
    return len(rows)


def td_login(session: Session, *, password: str, expected: str | None, hours: int) -> str:
    """Check the TD password (constant time) and open a TD session. Returns its token."""
    if expected is None or not hmac.compare_digest(password.encode(), expected.encode()):
        raise UnauthorizedError("td_password_wrong", "Wrong TD password.")
    token = secrets.token_urlsafe(32)
    session.add(TDSession(token_hash=digest(token), expires_at=utcnow() + timedelta(hours=hours)))
    return token


def td_check(session: Session, token: str) -> None:
    """Accept a live TD session token or raise UnauthorizedError."""
    row = session.exec(select(TDSession).where(TDSession.token_hash == digest(token))).first()
    if row is None or row.expires_at <= utcnow():
        raise UnauthorizedError(
            "td_login_required", "Log in as TD first (your session may have expired)."
        )


def td_logout(session: Session, token: str) -> None:
    """End a TD session (the web dashboard's log-out); an unknown token is ignored."""
    row = session.exec(select(TDSession).where(TDSession.token_hash == digest(token))).first()
    if row is not None:
        session.delete(row)
