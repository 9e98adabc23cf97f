"""The table tokens of the open table sockets, held live in memory (one set a server process).

A push to a terminal's socket goes out only while the socket's token is live. The socket's hello
read the token from the database; from then on its life is kept here and a push asks this
memory, not the database. The memory learns of every change to a token:

* from this process at once: the committed ORM changes of a token's revocation, expiry or
  deletion (a session hook that only reads what was committed: :meth:`LiveTokens.attach`);
* from the other workers (PostgreSQL) through the database's own notification: a trigger sends
  the token's hash at COMMIT (migration 0016), and each worker's listener
  (server/live/notify.py) hands it to :meth:`LiveTokens.changed`;
* from anything else (a tool writing to a SQLite file behind the server's back) after at most
  ``recheck`` seconds: a token not read for that long is read again before its next push.

A change does not decide by itself: it marks the token to be read again and wakes its sockets,
which then ask the database once. So a rolled-back change, or a change that keeps the token
live (a new expiry), costs one read and refuses nothing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, event, inspect
from sqlmodel import Session

from server.core.models import TableToken, utcnow

Wake = Callable[[], None]

#: Where a session keeps the hashes of the tokens its flushes changed until its COMMIT.
KEY = "traveller.live_tokens"


@dataclass
class TokenLife:
    """What the memory knows of one token: when it expires, whether it must be read again."""

    expires_at: datetime
    #: ``time.monotonic()`` of the last read from the database.
    read_at: float
    #: A change was heard of since that read.
    stale: bool = False
    wakers: set[Wake] = field(default_factory=set)


@dataclass
class TokenStats:
    """How pushes were checked (for the tests and the benchmark)."""

    memory: int = 0
    database: int = 0
    changes: int = 0


class LiveTokens:
    """The live tokens of one process's sockets (on the Runtime)."""

    def __init__(self, engine: Engine, *, recheck: float) -> None:
        self.engine = engine
        self.recheck = recheck
        self.stats = TokenStats()
        self._lives: dict[str, TokenLife] = {}
        self._lock = threading.Lock()
        self._attached = False
        #: Goes up with every change heard of (a hello notes it before reading its token).
        self.version = 0

    # ------------------------------------------------------------------ the sockets

    def admit(self, token_hash: str, expires_at: datetime) -> None:
        """The token was just read live from the database (a push's check)."""
        with self._lock:
            life = self._lives.get(token_hash)
            if life is not None:
                life.expires_at, life.read_at, life.stale = expires_at, time.monotonic(), False

    def watch(
        self,
        token_hash: str,
        wake: Wake,
        expires_at: datetime | None = None,
        since: int | None = None,
    ) -> Callable[[], None]:
        """Call ``wake`` (from any thread) when the token changes; returns the unwatch.
        ``expires_at``: the token was read live (the socket's hello) when :attr:`version` was
        ``since``. Without them, or with a change heard of since, ``wake`` is called at once
        and the token is read before the first push."""
        with self._lock:
            life = self._lives.get(token_hash)
            if life is None:
                fresh = expires_at is not None and since == self.version
                life = TokenLife(expires_at or utcnow(), time.monotonic(), stale=not fresh)
                self._lives[token_hash] = life
            life.wakers.add(wake)
            stale = life.stale
        if stale:
            wake()

        def unwatch() -> None:
            with self._lock:
                known = self._lives.get(token_hash)
                if known is None:
                    return
                known.wakers.discard(wake)
                if not known.wakers:
                    del self._lives[token_hash]

        return unwatch

    def must_read(self, token_hash: str) -> bool:
        """Whether a push must ask the database first: the token changed, expires, was not
        read for ``recheck`` seconds, or is not known here."""
        life = self._lives.get(token_hash)
        if (
            life is None
            or life.stale
            or time.monotonic() - life.read_at >= self.recheck
            or life.expires_at <= utcnow()
        ):
            self.stats.database += 1
            return True
        self.stats.memory += 1
        return False

    # ------------------------------------------------------------------ changes

    def changed(self, token_hash: str) -> None:
        """A token changed (revoked, expiry moved, deleted): read it again, wake its sockets.
        Called from any thread."""
        with self._lock:
            self.version += 1
            life = self._lives.get(token_hash)
            if life is None:
                return
            self.stats.changes += 1
            life.stale = True
            wakers = list(life.wakers)
        for wake in wakers:
            wake()

    def changed_all(self) -> None:
        """Every token may have changed (the listener was away): read each again."""
        with self._lock:
            hashes = list(self._lives)
        for token_hash in hashes:
            self.changed(token_hash)

    def attach(self) -> None:
        """Hear this process's committed changes to tokens (sessions on this engine)."""
        if not self._attached:
            _HOOKS.add(self)
            self._attached = True

    def detach(self) -> None:
        if self._attached:
            _HOOKS.remove(self)
            self._attached = False


class _Hooks:
    """The session hooks, listening once a process for every attached LiveTokens."""

    def __init__(self) -> None:
        self._tokens: list[LiveTokens] = []
        self._listening = False

    def add(self, tokens: LiveTokens) -> None:
        if not self._listening:
            event.listen(Session, "after_flush", _flushed)
            event.listen(Session, "after_commit", _committed)
            event.listen(Session, "after_rollback", _rolled_back)
            self._listening = True
        self._tokens = [*self._tokens, tokens]

    def remove(self, tokens: LiveTokens) -> None:
        self._tokens = [t for t in self._tokens if t is not tokens]

    def of(self, bind: Any) -> list[LiveTokens]:
        """The live tokens of a session's engine (or of an engine with other execution
        options over the same connections)."""
        pool = getattr(bind, "pool", None)
        return [t for t in self._tokens if t.engine is bind or t.engine.pool is pool]


_HOOKS = _Hooks()
_WATCHED = ("revoked_at", "expires_at", "token_hash")


def _flushed(session: Session, _context: Any) -> None:
    """Note the tokens this flush changed (their hashes, for after the COMMIT)."""
    if not _HOOKS.of(session.bind):
        return
    hashes: set[str] | None = None
    for row in session.deleted:
        if isinstance(row, TableToken):
            hashes = hashes if hashes is not None else session.info.setdefault(KEY, set())
            hashes.add(row.token_hash)
    for row in session.dirty:
        if isinstance(row, TableToken):
            state = inspect(row)
            if any(state.attrs[name].history.has_changes() for name in _WATCHED):
                hashes = hashes if hashes is not None else session.info.setdefault(KEY, set())
                hashes.add(row.token_hash)
                old = state.attrs.token_hash.history.deleted
                hashes.update(h for h in old if isinstance(h, str))


def _committed(session: Session) -> None:
    if session.in_nested_transaction():
        return
    hashes: set[str] | None = session.info.pop(KEY, None)
    if not hashes:
        return
    for tokens in _HOOKS.of(session.bind):
        for token_hash in hashes:
            tokens.changed(token_hash)


def _rolled_back(session: Session) -> None:
    if not session.in_nested_transaction():
        session.info.pop(KEY, None)
