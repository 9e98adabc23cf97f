"""Helpers of the table-memory tests (tests/server/services/test_table_memory.py): the triggers a
database has, a served club whose desk remembers its tables or not, the memory's loads marked
while they run, and one random step of table commands and TD writes played on it, with its
outcome made comparable."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text
from sqlalchemy.sql import visitors
from sqlmodel import Session, col, select

from protocol.messages import table_command_adapter
from server.core.db import Job, transact
from server.core.models import (
    Audit,
    Board,
    BridgeTable,
    Event,
    MovementAssignment,
    Pair,
    ReceivedEntry,
    Result,
    Section,
    SectionGeneration,
    TableGeneration,
    TableToken,
)
from server.live.runtime import Runtime
from server.live.table_desk import read_ahead
from server.services import tokens, views
from server.services.event import setup
from server.services.table import deal_entry, table_memory
from server.services.table.table_memory import TableMemory
from server.services.td import round_control
from tests.support.api import Club, open_club
from tests.support.app_factory import app_client, engine_at

OPS = ("INSERT", "UPDATE", "DELETE")
TABLES = 3
BPR = 2


def tables_read(clause: Any) -> set[str]:
    """The names of the tables a statement reads (its FROM clauses, joins included)."""
    names: set[str] = set()
    for frm in getattr(clause, "get_final_froms", lambda: [])():
        for node in visitors.iterate(frm):
            name = getattr(node, "name", None)
            if node.__visit_name__ == "table" and name:
                names.add(str(name))
    return names


def triggers(engine: Engine) -> dict[str, set[str]]:
    """The operations (INSERT/UPDATE/DELETE) each table has a traveller_gen trigger for."""
    found: dict[str, set[str]] = {}
    with engine.connect() as conn:
        if engine.dialect.name == "postgresql":
            rows = conn.execute(
                text(
                    "SELECT event_object_table, event_manipulation FROM information_schema.triggers"
                    " WHERE trigger_name LIKE 'traveller_gen_%' AND action_timing = 'AFTER'"
                    " AND action_orientation = 'ROW'"
                )
            ).all()
            for table, op in rows:
                found.setdefault(table, set()).add(op)
            return found
        rows = conn.execute(
            text("SELECT tbl_name, sql FROM sqlite_master WHERE type = 'trigger'")
        ).all()
        for table, sql in rows:
            head = sql.split(" BEGIN", 1)[0].upper()
            for op in OPS:
                if f"AFTER {op} ON" in head and "FOR EACH ROW" in head:
                    found.setdefault(table, set()).add(op)
    return found


#: True while the desk's memory loads a state (once :func:`watch_loads` has wrapped its loads).
LOADING: ContextVar[bool] = ContextVar("tests_table_memory_loading", default=False)


def watch_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wrap ``table_memory.loading``, which every load of a state runs inside, so that
    :data:`LOADING` is true while one runs."""
    shipped = table_memory.loading

    @contextmanager
    def marked() -> Iterator[None]:
        mark = LOADING.set(True)
        try:
            with shipped():
                yield
        finally:
            LOADING.reset(mark)

    monkeypatch.setattr(table_memory, "loading", marked)


@contextmanager
def served(url: str, *, remember: bool) -> Iterator[TestClient]:
    """The shipped app on ``url``; its desk remembers tables only if ``remember``."""
    with engine_at(url) as engine, app_client(engine) as client:
        runtime(client).desk.memory.enabled = remember
        yield client


def runtime(client: TestClient) -> Runtime:
    found: Runtime = client.app.state.runtime  # type: ignore[attr-defined]
    return found


@dataclass
class Floor:
    """A club playing on one app: its paired tables' tokens (re-paired after a revocation)."""

    club: Club
    tokens: dict[int, str] = field(default_factory=dict)

    @classmethod
    def open(cls, client: TestClient) -> Floor:
        club = open_club(client, runtime(client).engine, tables=TABLES, bpr=BPR)
        club.start_round(1)
        floor = cls(club)
        for n in range(1, TABLES + 1):
            floor.tokens[n] = club.pair(n).token
        return floor

    @property
    def engine(self) -> Engine:
        return self.club.engine

    def table_round(self, n: int) -> tuple[int, list[int]]:
        r = self.club.client.get(
            "/api/v1/table/round", headers={"Authorization": f"Bearer {self.tokens[n]}"}
        )
        if r.status_code != 200:
            return 0, []
        data = r.json()
        return int(data["round"]), [int(b["board"]) for b in data["boards"]]

    def ew_pin(self, n: int, round_: int) -> str:
        with Session(self.engine) as s:
            row = s.exec(
                select(MovementAssignment).where(
                    MovementAssignment.section_id == self.club.section_id,
                    MovementAssignment.table_number == n,
                    MovementAssignment.round == round_,
                )
            ).first()
            pair = s.get(Pair, row.ew_pair_id) if row is not None and row.ew_pair_id else None
            return pair.pin if pair is not None else "0000"

    def send(self, n: int, command: dict[str, Any]) -> Any:
        r = self.club.client.post(
            "/api/v1/table/commands",
            json=command,
            headers={"Authorization": f"Bearer {self.tokens[n]}"},
        )
        return r.status_code, scrub(r.json())

    def td(self, method: str, path: str, **kwargs: Any) -> Any:
        r = self.club.td(
            method, path.format(s=self.club.section_id, e=self.club.event_id), **kwargs
        )
        return r.status_code, scrub(r.json()) if r.content else None

    def service(self, work: Any) -> Any:
        """A TD service run as the TD's pages run it (one transaction of the runtime's)."""
        rt = runtime(self.club.client)
        section_id = self.club.section_id
        try:
            transact(self.engine, lambda s: work(s, setup.get_section(s, section_id)), lock=rt.lock)
        except Exception as exc:
            return type(exc).__name__, getattr(exc, "code", None)
        return "ok"

    def new_device(self, n: int) -> Any:
        rt = runtime(self.club.client)
        section_id = self.club.section_id
        code = transact(
            self.engine,
            lambda s: round_control.move_to_new_device(s, setup.get_section(s, section_id), n),
            lock=rt.lock,
        )
        old = self.tokens[n]
        r = self.club.client.post("/api/v1/table/pair", json={"code": code, "device": "new"})
        assert r.status_code == 200, r.text
        self.tokens[n] = r.json()["token"]
        return old

    def revoke_one(self, n: int) -> Any:
        with Session(self.engine) as s:
            token = s.exec(
                select(TableToken)
                .where(TableToken.revoked_at == None)  # noqa: E711
                .order_by(TableToken.id.desc())  # type: ignore[union-attr]
            ).all()
            ids = [t.id for t in token if self._table_of(s, t) == n]
        if not ids:
            return "none"
        return self.service(lambda s, sec: round_control.revoke_terminal(s, sec, ids[0] or 0))

    def _table_of(self, s: Session, token: TableToken) -> int | None:
        table = s.get(BridgeTable, token.table_id)
        if table is None or table.section_id != self.club.section_id:
            return None
        return table.number

    def stored(self) -> dict[str, Any]:
        """The section's results, idempotency log and audit, without ids and times."""
        sid = self.club.section_id
        with Session(self.engine) as s:
            results = sorted(
                (
                    r.table_number,
                    r.round,
                    r.board,
                    str(r.state),
                    r.version,
                    r.contract,
                    r.declarer,
                    r.tricks,
                    r.lead,
                    r.ns_score,
                    r.entry_id,
                    r.entered_by,
                    r.confirmed_by,
                    r.conflict_entry_id,
                    r.ruling_pending,
                    r.adjusted,
                )
                for r in s.exec(select(Result).where(Result.section_id == sid))
            )
            tables = {t: self._ids(s, t) for t in range(1, TABLES + 1)}
            entries = sorted(
                (
                    tables_of.get(e.table_id, 0),
                    e.entry_id,
                    e.kind,
                    _untimed(e.request),
                    e.result_id is None,
                )
                for tables_of in [{v: k for k, v in tables.items()}]
                for e in s.exec(select(ReceivedEntry))
                if e.table_id in tables_of
            )
            audits = sorted(
                (a.actor, a.action, a.reason, _untimed(a.old), _untimed(a.new))
                for a in s.exec(select(Audit).where(Audit.section_id == sid))
            )
        return {"results": results, "entries": entries, "audit": audits}

    def _ids(self, s: Session, number: int) -> int:
        row = s.exec(
            select(BridgeTable).where(
                BridgeTable.section_id == self.club.section_id, BridgeTable.number == number
            )
        ).one()
        return row.id or 0


def _untimed(data: str | None) -> str | None:
    return json.dumps(scrub(json.loads(data)), sort_keys=True) if data else None


def scrub(value: Any) -> Any:
    """A reply without what differs between two runs of the same commands: times, ids, codes."""
    if isinstance(value, dict):
        return {
            k: scrub(v)
            for k, v in value.items()
            if not (
                k.endswith("_at")
                or k in {"id", "result_id", "at", "token", "pin", "pairing_codes", "td_code"}
            )
        }
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


CONTRACTS = ("4S", "3NT", "2H", "PASS")
#: Hand records the TD may load (N holds the ace of spades in both).
DEALS = (
    "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432",
    "N:AKQT.AKQ.AKQ.AKQ J987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432",
)


def identify(token: str) -> Callable[[Session], tokens.TableIdentity]:
    return lambda s: tokens.table_identity(s, token, lock=True)


def command(kind: str, board: int, eid: str, arg: int, pin: str | None) -> dict[str, Any]:
    """A table command of ``kind`` as a terminal sends it."""
    contract = CONTRACTS[arg % len(CONTRACTS)]
    values: dict[str, Any] = {
        "contract": contract,
        "declarer": None if contract == "PASS" else "NESW"[arg % 4],
        "tricks": 0 if contract == "PASS" else 6 + arg % 8,
    }
    if arg % 3 == 0 and contract != "PASS":
        values["lead"] = "SA"
    if kind == "enter":
        return {"type": "enter_result", "entry_id": eid, "board": board, "values": values}
    if kind == "confirm":
        return {
            "type": "confirm_result",
            "entry_id": eid,
            "board": board,
            "version": 1 + arg % 3,
            "pin": pin,
        }
    if kind == "reject":
        return {"type": "reject_result", "entry_id": eid, "board": board, "version": 1 + arg % 3}
    if kind == "correct":
        return {
            "type": "correct_result",
            "entry_id": eid,
            "board": board,
            "version": 1 + arg % 3,
            "values": values,
        }
    if kind == "call_td":
        return {"type": "call_td", "entry_id": eid, "reason": f"help {arg}"}
    if kind == "status":
        return {"type": "table_status", "queued": arg}
    if kind == "get_round":
        return {"type": "get_round"}
    return {"type": "next_round"}


TABLE_KINDS = (
    "enter",
    "confirm",
    "reject",
    "correct",
    "call_td",
    "next_round",
    "status",
    "get_round",
    "resend",
    "reuse",
)
TD_KINDS = (
    "start_round",
    "close_round",
    "reopen_round",
    "td_set",
    "td_adjust",
    "td_not_played",
    "settings",
    "new_device",
    "revoke",
    "swap",
    "pair_names",
    "release_table",
    "batch",
)

#: One step: (kind, table, choice a, choice b).
Step = tuple[str, int, int, int]


@dataclass
class Player:
    """Plays steps on one floor and records what every step answered."""

    floor: Floor
    sent: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    counter: int = 0

    def eid(self) -> str:
        self.counter += 1
        return f"entry-{self.counter:06d}"

    def table_command(self, kind: str, n: int, a: int, b: int) -> dict[str, Any]:
        round_, boards = self.floor.table_round(n)
        board = boards[a % len(boards)] if boards else 1 + a % (TABLES * BPR)
        if kind in ("resend", "reuse") and self.sent:
            _, cmd = self.sent[a % len(self.sent)]
            if kind == "reuse" and "entry_id" in cmd:
                cmd = {**command("call_td", board, cmd["entry_id"], b, None)}
            return cmd
        pin = None
        if b % 3 == 1:
            pin = self.floor.ew_pin(n, round_)
        elif b % 3 == 2:
            pin = "9999" if self.floor.ew_pin(n, round_) != "9999" else "9998"
        return command(
            kind if kind not in ("resend", "reuse") else "enter", board, self.eid(), b, pin
        )

    def play(self, step: Step) -> Any:
        kind, n, a, b = step
        f = self.floor
        if kind in TABLE_KINDS:
            cmd = self.table_command(kind, n, a, b)
            self.sent.append((n, cmd))
            return kind, f.send(n, cmd)
        round_, boards = f.table_round(n)
        ref = {
            "table": n,
            "round": max(round_, 1),
            "board": boards[a % len(boards)] if boards else 1,
        }
        if kind == "start_round":
            return kind, f.td("POST", "/api/v1/sections/{s}/rounds/" + str(1 + a % 3) + "/start")
        if kind == "close_round":
            return kind, f.td("POST", "/api/v1/sections/{s}/rounds/" + str(1 + a % 3) + "/close")
        if kind == "reopen_round":
            return kind, f.service(lambda s, sec: round_control.reopen_round(s, sec, 1 + a % 3))
        if kind == "td_set":
            values = command("enter", 1, "x" * 8, b, None)["values"]
            body = {**ref, "values": values, "reason": "td fix"}
            return kind, f.td("POST", "/api/v1/sections/{s}/results/set", json=body)
        if kind == "td_adjust":
            body = {**ref, "ns_percent": 60, "ew_percent": 40, "reason": "fouled"}
            return kind, f.td("POST", "/api/v1/sections/{s}/results/adjust", json=body)
        if kind == "td_not_played":
            body = {**ref, "reason": "late"}
            return kind, f.td("POST", "/api/v1/sections/{s}/results/not-played", json=body)
        if kind == "settings":
            name = ("confirm_pin_required", "lead_required")[a % 2]
            return kind, f.td("PATCH", "/api/v1/events/{e}", json={name: bool(b % 2)})
        if kind == "new_device":
            f.new_device(n)
            return kind, "paired again"
        if kind == "revoke":
            return kind, f.revoke_one(n)
        if kind == "swap":
            body = {"pair": f"{1 + a % TABLES}NS", "second": f"{1 + b % TABLES}EW"}
            return kind, f.td("POST", "/api/v1/sections/{s}/movement/swap", json=body)
        if kind == "pair_names":
            body = {"player1": f"Player {b}", "player2": "Partner"}
            return kind, f.td(
                "PUT", "/api/v1/sections/{s}/pairs/" + f"{1 + a % TABLES}EW", json=body
            )
        if kind == "set_deal":
            deal = DEALS[b % len(DEALS)]
            number = ref["board"]

            def set_deal(s: Session, sec: Any) -> None:
                board = s.exec(
                    select(Board).where(Board.section_id == sec.id, Board.number == number)
                ).one()
                deal_entry.set_board_deal(s, board, deal, actor="td")

            return kind, f.service(set_deal)
        if kind == "release_table":
            return kind, f.service(
                lambda s, sec: round_control.release_table(s, sec, n, "td moved it")
            )
        return kind, self.batch(a, b)

    def batch(self, a: int, b: int) -> list[Any]:
        """Two or three table commands in one group commit (one transaction), their tables'
        counters read ahead in one statement as the desk queues them."""
        rt = runtime(self.floor.club.client)
        jobs = []
        for i in range(2 + b % 2):
            n = 1 + (a + i * (b % 2)) % TABLES  # b even: all one table; odd: several tables
            kind = ("enter", "confirm", "enter", "correct", "reject")[(a + i) % 5]
            cmd = self.table_command(kind, n, a + i, b + i)
            self.sent.append((n, cmd))
            token = self.floor.tokens[n]
            table_id = rt.desk.order_of(token)
            message = table_command_adapter.validate_python(cmd)
            work = rt.desk.work(message, identify(token), token=token, table_id=table_id)
            jobs.append(Job(work, table_id, ahead=read_ahead(message, table_id)))
        rt.writer.run_batch(jobs)
        out = []
        for job in jobs:
            error = job.future.exception()
            if error is not None:
                out.append((type(error).__name__, getattr(error, "code", None), str(error)))
            else:
                out.append(scrub(job.future.result().reply.model_dump(mode="json")))
        return out


def desk_send(desk: Any, token: str, cmd: dict[str, Any]) -> Any:
    """A command through ``desk`` (a worker's table desk) as its transports send it: the reply,
    or the refusal's code."""
    message = table_command_adapter.validate_python(cmd)
    table_id = desk.order_of(token)
    work = desk.work(message, identify(token), token=token, table_id=table_id)
    try:
        outcome = desk.run_sync(work, table_id)
        reply = desk.finish(outcome)
    except Exception as exc:
        return type(exc).__name__, getattr(exc, "code", None)
    return scrub(reply.model_dump(mode="json"))


def _dump(row: Any) -> Any:
    """A row as plain data (None stays None)."""
    return None if row is None else row.model_dump()


def rebuilt_differences(engine: Engine, memory: TableMemory) -> tuple[int, list[str]]:
    """Each state the memory holds whose counters still call it fresh, against the same rows
    read afresh from the database (what a restarted worker would load): (how many states were
    fresh, the differences found). A stale state is not compared: its next command reloads it."""
    diffs: list[str] = []
    fresh = 0
    with Session(engine) as s:
        for table_id, state in memory.held().items():
            ident = state.identity
            section_id = ident.section.id or 0
            table_gen = s.get(TableGeneration, table_id)
            section_gen = s.get(SectionGeneration, section_id)
            if table_gen is None or section_gen is None:
                continue
            if (table_gen.gen, section_gen.gen) != (
                state.table_gen + state.bumps,
                state.section_gen,
            ):
                continue
            fresh += 1
            where = f"table {ident.table.number}"
            pairs: list[tuple[str, Any, Any]] = [
                ("table", ident.table, s.get(BridgeTable, table_id)),
                ("section", ident.section, s.get(Section, section_id)),
                ("event", ident.event, s.get(Event, ident.event.id)),
            ]
            pairs += [
                (f"token {k[:8]}", t, s.get(TableToken, t.id)) for k, t in state.by_token.items()
            ]
            pairs += [
                (f"round {r} row", row, views.assignment(s, ident.section, ident.table.number, r))
                for r, row in state.rows.items()
            ]
            for (round_, board), result in state.results.items():
                stored = s.exec(
                    select(Result).where(
                        Result.section_id == section_id,
                        Result.table_number == ident.table.number,
                        Result.round == round_,
                        Result.board == board,
                    )
                ).first()
                pairs.append((f"round {round_} board {board}", result, stored))
            pairs += [(f"pair {i}", p, s.get(Pair, i)) for i, p in state.pairs.items()]
            for what, held, read in pairs:
                if _dump(held) != _dump(read):
                    diffs.append(f"{where}: {what}: held {_dump(held)} read {_dump(read)}")
            boards = sorted(state.deals)
            deals = dict(
                s.exec(
                    select(Board.number, Board.deal).where(
                        Board.section_id == section_id, col(Board.number).in_(boards)
                    )
                ).all()
            )
            for board in boards:
                if state.deals[board] != deals.get(board):
                    diffs.append(f"{where}: deal of board {board} differs")
            facts = views.board_facts(s, section_id, sorted(state.facts))
            if facts != state.facts:
                diffs.append(f"{where}: board facts held {state.facts} read {facts}")
    return fresh, diffs
