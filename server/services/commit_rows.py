"""The unit of work of a transaction of table commands: the rows a command only writes (its
entry id in the idempotency log, the audit row of its change to a result), kept until the
transaction commits and then written with one ``executemany`` a statement for every command of
the group commit.

The table desk opens the unit (:func:`begin`) before the first command of a transaction and
writes it (:func:`append`) just before the COMMIT, both called in order by the writer
(server.core.db ``CommitSteps``): no session hook writes anything. Only while a command runs as
a job (:func:`job`, the desk's wrapper) are rows kept back; anywhere else :func:`write`
executes at once, and so does a job in a transaction with no unit open (its rows are written
when it ends). A job's rows join the unit only if the job ends without an exception (a refused
command's rows are dropped with the rest of what it did), so "committed before acknowledged"
holds unchanged.

Nothing in a command reads these rows back except the idempotency look-up, which asks
:func:`pending_entry` first: a repeat of an entry id within one batch is seen as a repeat.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.sql.expression import Executable
from sqlmodel import Session

#: The key of a session's kept rows in ``session.info``.
KEY = "traveller.commit_rows"

Params = Mapping[str, Any]


@dataclass
class _Rows:
    """One session's rows kept for its COMMIT: the jobs' that ended well, and the running job's."""

    kept: dict[Executable, list[Params]] = field(default_factory=dict)
    entries: dict[tuple[int, str], Params] = field(default_factory=dict)
    job: list[tuple[Executable, Params]] | None = None
    job_entries: dict[tuple[int, str], Params] = field(default_factory=dict)


def begin(session: Session) -> None:
    """Open the transaction's unit of work: jobs' rows now wait for :func:`append`."""
    session.info[KEY] = _Rows()


@contextmanager
def job(session: Session) -> Iterator[None]:
    """Keep the rows :func:`write` is given while the block runs, for the transaction's commit;
    dropped if the block raises (the command is refused, and nothing it did is stored).
    With no unit open (:func:`begin`) they are written when the block ends."""
    rows: _Rows | None = session.info.get(KEY)
    opened = rows is None
    if rows is None:
        rows = session.info[KEY] = _Rows()
    rows.job, rows.job_entries = [], {}
    try:
        yield
    except BaseException:
        rows.job, rows.job_entries = None, {}
        if opened:
            del session.info[KEY]
        raise
    done, entries = rows.job, rows.job_entries
    rows.job, rows.job_entries = None, {}
    for statement, params in done:
        rows.kept.setdefault(statement, []).append(params)
    rows.entries.update(entries)
    if opened:
        append(session)
        del session.info[KEY]


def write(
    session: Session,
    statement: Executable,
    params: Params,
    *,
    entry: tuple[int, str] | None = None,
    at_once: bool = False,
) -> None:
    """Write one row: kept for the commit inside a :func:`job`, else (or ``at_once``) now.
    ``entry`` (the table's id and the entry id) marks an idempotency-log row for
    :func:`pending_entry`."""
    rows: _Rows | None = session.info.get(KEY)
    if at_once or rows is None or rows.job is None:
        session.connection().execute(statement, params)
        return
    rows.job.append((statement, params))
    if entry is not None:
        rows.job_entries[entry] = params


def pending_entry(session: Session, table_id: int, entry_id: str) -> Params | None:
    """The idempotency-log row of ``entry_id`` kept for this transaction's commit, if any."""
    rows: _Rows | None = session.info.get(KEY)
    if rows is None:
        return None
    key = (table_id, entry_id)
    return rows.job_entries.get(key) or rows.entries.get(key)


def append(session: Session) -> None:
    """Just before the COMMIT: one ``executemany`` per statement for the kept rows."""
    rows: _Rows | None = session.info.get(KEY)
    if rows is None or not rows.kept:
        return
    kept, rows.kept, rows.entries = rows.kept, {}, {}
    connection = session.connection()
    for statement, params in kept.items():
        connection.execute(statement, list(params))
