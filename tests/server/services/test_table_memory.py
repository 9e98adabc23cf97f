"""The table desk's memory (server/services/table/table_memory.py, issue 18): a table command is
decided on what the desk remembers of its table only while the database's generation counters,
kept by triggers, say nothing changed; every outcome is the one the same commands get with the
memory switched off, whatever the TD, another worker or the table itself wrote in between."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import event, text, update
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from protocol.messages import table_command_adapter
from server.core.db import Job, make_engine, migrate
from server.core.models import Pair, Result, Section
from server.live.table_desk import TableDesk, read_ahead
from server.services import hands
from server.services.table import table_memory
from server.services.table.table_memory import ReadAhead, TableMemory
from tests.support.api import Table, open_club
from tests.support.app_factory import app_client
from tests.support.databases import pg_address, pg_database
from tests.support.table_memory import (
    BPR,
    LOADING,
    OPS,
    TABLE_KINDS,
    TABLES,
    TD_KINDS,
    Floor,
    Player,
    Step,
    command,
    desk_send,
    identify,
    rebuilt_differences,
    runtime,
    served,
    tables_read,
    triggers,
    watch_loads,
)
from tests.support.wait import wait_until


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def twin_urls(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[tuple[str, str]]:
    """Two databases at the newest schema: one for the memory on, one for it off."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'on.db'}", f"sqlite:///{tmp_path / 'off.db'}"
        return
    template: str = request.getfixturevalue("pg_template")
    with pg_database(template) as on, pg_database(template) as off:
        yield pg_address(on), pg_address(off)


# ---------------------------------------------------------------- (a) every read is guarded


def test_every_guarded_table_has_its_three_triggers(db_url: str) -> None:
    engine = make_engine(db_url)
    migrate(engine)
    found = triggers(engine)
    engine.dispose()
    for table in table_memory.GUARDED:
        assert found.get(table, set()) == set(OPS), (table, found.get(table))
    assert set(found) == set(table_memory.GUARDED)  # and no trigger the memory does not name


def _tables_read(engine: Engine) -> tuple[set[str], list[str]]:
    """Collect the tables of every statement run while the memory loads a state."""
    tables: set[str] = set()
    statements: list[str] = []

    @event.listens_for(engine, "before_execute")
    def _seen(conn: Any, clause: Any, *_args: Any) -> None:
        if not LOADING.get():
            return
        statements.append(str(clause))
        tables.update(tables_read(clause))

    return tables, statements


def test_the_memory_loads_only_from_guarded_tables(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every statement a state is loaded with reads only tables whose triggers move a
    generation: a new read of the memory from an unguarded table fails here."""
    watch_loads(monkeypatch)
    with served(db_url, remember=True) as client:
        tables, statements = _tables_read(runtime(client).engine)
        floor = Floor.open(client)
        player = Player(floor)
        floor.td("PATCH", "/api/v1/events/{e}", json={"confirm_pin_required": True})
        for step in [
            ("enter", 1, 0, 4),
            ("confirm", 1, 0, 1),
            ("enter", 2, 1, 3),
            ("reject", 2, 1, 0),
            ("enter", 3, 0, 6),
            ("td_adjust", 3, 0, 0),
            ("confirm", 3, 0, 1),
        ]:
            player.play(step)
        assert runtime(client).desk.memory.stats.hits > 0
    assert statements, "the memory loaded nothing"
    assert tables, statements
    assert tables <= set(table_memory.GUARDED), (tables - set(table_memory.GUARDED), statements)


# ---------------------------------------------------------------- (b) the same as without it

steps = st.lists(
    st.tuples(
        st.sampled_from(TABLE_KINDS * 3 + TD_KINDS),
        st.integers(1, TABLES),
        st.integers(0, 7),
        st.integers(0, 11),
    ),
    min_size=4,
    max_size=24,
)


def _play_both(on: Floor, off: Floor, script: list[Step]) -> int:
    """Play ``script`` on both floors: every outcome and every stored row alike. Then each
    state the memory calls fresh equals what a restarted worker would read. The number of
    fresh states compared."""
    a, b = Player(on), Player(off)
    for i, step in enumerate(script):
        got, want = a.play(step), b.play(step)
        assert got == want, (i, step, script[: i + 1])
    assert on.stored() == off.stored(), script
    fresh, diffs = rebuilt_differences(on.engine, runtime(on.club.client).desk.memory)
    assert diffs == [], (diffs, script)
    return fresh


def test_outcomes_equal_those_without_memory(
    twin_urls: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    urls = twin_urls
    # The double-dummy warning comes once the background solver is done: a matter of timing
    # that would differ between the two runs, so it is off here (the hand records stay on).
    monkeypatch.setattr(hands, "dd_tricks", lambda *_a, **_k: None)
    runs = {"n": 0, "fresh": 0}

    @settings(
        max_examples=15 if urls[0].startswith("sqlite") else 8,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        derandomize=False,
    )
    @given(script=steps)
    def check(script: list[Step]) -> None:
        runs["n"] += 1
        runs["fresh"] += _play_both(Floor.open(on_client), Floor.open(off_client), script)

    with ExitStack() as stack:
        on_client = stack.enter_context(served(urls[0], remember=True))
        off_client = stack.enter_context(served(urls[1], remember=False))
        check()
        memory = runtime(on_client).desk.memory.stats
        writers = [runtime(c).writer for c in (on_client, off_client)]
        # Every refusal came before its command wrote: no batch had to run one by one.
        assert [w.stats.fallbacks for w in writers if w is not None] == [0, 0]
        assert runtime(off_client).desk.memory.stats.hits == 0
    assert runs["n"] > 0
    assert runs["fresh"] > 0  # states were held fresh, and each equalled the database
    assert memory.hits > 0, memory  # the memory was used
    assert memory.loads > 0, memory  # and reloaded


def test_a_missing_trigger_is_caught(twin_urls: tuple[str, str]) -> None:
    """The comparison above is sharp: without the trigger on a result's UPDATE, a TD's adjusted
    score stays unseen by the memory and a stale confirmation is accepted. (Without the INSERT
    trigger too, the table's own entry would not move the counter as the state counted, and
    the memory would reload: its own writes check the triggers as well.)"""
    script: list[Step] = [("enter", 1, 0, 4), ("td_adjust", 1, 0, 0), ("confirm", 1, 0, 0)]
    with (
        served(twin_urls[0], remember=True) as on_client,
        served(twin_urls[1], remember=False) as off_client,
    ):
        engine = runtime(on_client).engine
        with engine.begin() as conn:
            if engine.dialect.name == "postgresql":
                conn.execute(text('DROP TRIGGER traveller_gen_result ON "result"'))
                conn.execute(
                    text(
                        'CREATE TRIGGER traveller_gen_result AFTER INSERT OR DELETE ON "result"'
                        " FOR EACH ROW EXECUTE FUNCTION traveller_gen_result()"
                    )
                )
            else:
                conn.execute(text("DROP TRIGGER traveller_gen_result_update"))
        with pytest.raises(AssertionError):
            _play_both(Floor.open(on_client), Floor.open(off_client), script)


# ---------------------------------------------------------------- (c) two workers, one table


def _two_workers(url: str, *, remember: bool) -> list[Any]:
    """Two workers' desks (an engine each, as two processes have) take turns at table 1,
    each remembering the table from its own last command."""
    with served(url, remember=remember) as client:
        floor = Floor.open(client)
        token = floor.tokens[1]
        _, boards = floor.table_round(1)
        board = boards[0]
        engines = [make_engine(url), make_engine(url)]
        desks = [TableDesk(e, memory=TableMemory(enabled=remember)) for e in engines]
        a, b = desks
        values = {"contract": "4S", "declarer": "N", "tricks": 10}
        other = {"contract": "3NT", "declarer": "S", "tricks": 9}

        def cmd(kind: str, n: int, **extra: Any) -> dict[str, Any]:
            return {"type": kind, "entry_id": f"worker-{n:04d}", "board": board, **extra}

        script = [
            (a, cmd("enter_result", 1, values=values)),
            (a, {"type": "get_round"}),  # a's memory, unchanged since its entry
            (b, cmd("reject_result", 2, version=1)),
            (a, cmd("confirm_result", 3, version=1)),  # entered in a's memory: must be refused
            (b, cmd("enter_result", 4, values=other)),
            (a, cmd("confirm_result", 5, version=3)),
            (b, cmd("correct_result", 6, version=4, values=values)),
            (a, cmd("confirm_result", 7, version=4)),  # stale in a's memory
            (b, cmd("confirm_result", 8, version=5)),
            (a, cmd("correct_result", 9, version=5, values=other)),  # stale in a's memory
            (b, cmd("confirm_result", 10, version=6)),
            (a, cmd("enter_result", 1, values=values)),  # a's resend: a duplicate
            (b, cmd("enter_result", 1, values=other)),  # the id reused: refused
        ]
        out = [desk_send(desk, token, c) for desk, c in script]
        # The TD steps in between: a's memory must see the adjusted score.
        floor.td(
            "POST",
            "/api/v1/sections/{s}/results/adjust",
            json={
                "table": 1,
                "round": 1,
                "board": board,
                "ns_percent": 60,
                "ew_percent": 40,
                "reason": "fouled",
            },
        )
        out.append(desk_send(a, token, cmd("confirm_result", 11, version=6)))
        out.append(floor.stored())
        stats = [d.memory.stats for d in desks]
        for e in engines:
            e.dispose()
    if remember:
        assert all(s.hits > 0 for s in stats), stats  # each worker did use its memory
        assert all(s.loads > 1 for s in stats), stats  # and saw the other's changes
    return out


@pytest.mark.postgres
def test_two_workers_never_accept_a_stale_command(pg_template: str) -> None:
    with pg_database(pg_template) as on, pg_database(pg_template) as off:
        got = _two_workers(pg_address(on), remember=True)
        want = _two_workers(pg_address(off), remember=False)
    assert got == want
    codes = [r[1] if isinstance(r, tuple) else r["type"] for r in got[:-1]]
    assert codes[3] == "not_entered", got[3]  # a rejected board is not confirmed
    assert codes[7] == "stale_version", got[7]
    assert codes[9] == "stale_version", got[9]
    assert got[11]["duplicate"] is True, got[11]
    assert codes[12] == "entry_id_reused", got[12]
    assert codes[13] == "td_decided", got[13]  # the TD's adjusted score, seen by a


# ---------------------------------------------------------------- (d) the TD's round control


def test_the_tds_round_control_keeps_the_tables_remembered(db_url: str) -> None:
    """Starting, closing and reopening a round change the section's row, which every state
    holds: each state fresh before takes the new row once it has committed (no table is read
    again), and the tables' next commands are decided on it: a table moves on once the round
    has started, and enters nothing in a closed round until it is reopened."""
    with served(db_url, remember=True) as client:
        floor = Floor.open(client)
        player = Player(floor)
        memory = runtime(client).desk.memory
        for n in range(1, TABLES + 1):  # every table remembered
            player.play(("status", n, 0, 0))
        for i in range(BPR):  # table 1 plays its round
            assert player.play(("enter", 1, i, 4))[1][0] == 200
            assert player.play(("confirm", 1, i, 0))[1][0] == 200
        assert player.play(("next_round", 1, 0, 0))[1][1]["code"] == "next_round_not_released"
        player.play(("status", 1, 0, 0))  # a refusal kept no state: the table is read again
        loads, carried = memory.stats.loads, memory.stats.carried

        assert floor.td("POST", "/api/v1/sections/{s}/rounds/2/start")[0] == 200
        assert memory.stats.carried - carried == TABLES  # none was written by the round start
        moved = player.play(("next_round", 1, 0, 0))[1]
        assert (moved[0], moved[1]["round"]) == (200, 2), moved  # decided on the new row
        assert floor.td("POST", "/api/v1/sections/{s}/rounds/2/close")[0] == 200
        assert memory.stats.loads == loads  # not one table read again
        closed = player.play(("enter", 1, 0, 4))[1]
        assert closed[1]["code"] == "round_closed", closed  # decided on the new row
        player.play(("status", 1, 0, 0))  # the refusal kept no state: read again
        assert floor.td("POST", "/api/v1/sections/{s}/rounds/2/reopen")[0] == 200
        assert player.play(("enter", 1, 0, 4))[1][0] == 200
        for n in range(2, TABLES + 1):
            assert player.play(("status", n, 0, 0))[1][0] == 200
        assert memory.stats.loads == loads + 1  # that one only
        assert memory.stats.carried - carried == 3 * TABLES
        fresh, diffs = rebuilt_differences(floor.engine, memory)
        assert (fresh, diffs) == (TABLES, [])  # each state as a restarted worker reads it


def test_a_remembered_table_moves_on_reading_nothing_of_its_next_round(db_url: str) -> None:
    """A state holds every round of its table (the movement's rows, the results, the boards'
    facts and deals, the pairs): a table moving on after the TD's round start reads none of
    them again, only its counters."""
    with served(db_url, remember=True) as client:
        floor = Floor.open(client)
        player = Player(floor)
        for i in range(BPR):  # table 1 plays its round
            assert player.play(("enter", 1, i, 4))[1][0] == 200
            assert player.play(("confirm", 1, i, 0))[1][0] == 200
        assert floor.send(1, {"type": "get_round"})[0] == 200  # its round view, remembered
        assert floor.td("POST", "/api/v1/sections/{s}/rounds/2/start")[0] == 200
        reads: list[str] = []

        def heard(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
            words = statement.split()
            if words and words[0].upper() == "SELECT":
                reads.append(" ".join(words))

        event.listen(floor.engine, "before_cursor_execute", heard)
        try:
            moved = floor.send(1, {"type": "next_round"})
        finally:
            event.remove(floor.engine, "before_cursor_execute", heard)
        assert (moved[0], moved[1]["round"]) == (200, 2), moved
        assert len(moved[1]["boards"]) == BPR
        read_rows = [
            r for r in reads for name in ("movement_assignment", "result", "pair", "board")
            if f"FROM {name} " in f"{r} " or f"JOIN {name} " in f"{r} "
        ]  # fmt: skip
        assert read_rows == [], read_rows
        assert any("table_generation" in r for r in reads), reads  # the counters, read


def test_a_table_the_round_control_wrote_is_read_again(db_url: str) -> None:
    """A table the TD's round start moved (from round 0 to 1) changed under its state: that
    state does not take the section's row; its next command reads the table again."""
    with served(db_url, remember=True) as client:
        club = open_club(client, runtime(client).engine, tables=TABLES, bpr=BPR)
        token = club.pair(1).token
        memory = runtime(client).desk.memory
        status = {"type": "table_status", "queued": 0}
        headers = {"Authorization": f"Bearer {token}"}
        assert client.post("/api/v1/table/commands", json=status, headers=headers).is_success
        loads, carried = memory.stats.loads, memory.stats.carried
        club.start_round(1)  # moves every table from round 0 to round 1
        assert memory.stats.carried == carried
        assert client.post("/api/v1/table/commands", json=status, headers=headers).is_success
        assert memory.stats.loads == loads + 1


@pytest.mark.parametrize("change", ["a pair", "the round time"])
def test_a_change_beyond_the_round_is_read_again(db_url: str, change: str) -> None:
    """What the desk's round control carries over is the section's round and nothing else: a
    work that changed another of the section's rows (its counter moved once all the same), or
    another column of the section, leaves every state to be read again, and the tables then
    see the change."""
    with served(db_url, remember=True) as client:
        floor = Floor.open(client)
        player = Player(floor)
        desk = runtime(client).desk
        for n in range(1, TABLES + 1):
            player.play(("status", n, 0, 0))
        section_id = floor.club.section_id

        def work(s: Session) -> None:
            if change == "a pair":
                pair = s.exec(select(Pair).where(Pair.section_id == section_id)).first()
                assert pair is not None
                pair.player1 = "Renamed Player"
                s.add(pair)
            else:
                section = s.get(Section, section_id)
                assert section is not None
                section.round_minutes = 17
                s.add(section)

        carried, loads = desk.memory.stats.carried, desk.memory.stats.loads
        desk.transact(desk.round_control(work, section_id))
        assert desk.memory.stats.carried == carried
        for n in range(1, TABLES + 1):
            player.play(("status", n, 0, 0))
        assert desk.memory.stats.loads == loads + TABLES
        fresh, diffs = rebuilt_differences(floor.engine, desk.memory)
        assert (fresh, diffs) == (TABLES, [])


@pytest.mark.postgres
def test_another_workers_round_control_keeps_this_workers_tables_remembered(pg_url: str) -> None:
    """Two workers (two apps on one PostgreSQL database): the tables play on B, the TD starts,
    closes and reopens the round on A. B hears each change on the fan-out and carries it over
    to the tables it remembers: not one is read again, and their next commands are decided on
    the section's new row."""
    engine_a, engine_b = make_engine(pg_url), make_engine(pg_url)
    try:
        with app_client(engine_a) as a, app_client(engine_b) as b:
            club = open_club(a, engine_a, tables=TABLES, bpr=BPR)
            club.start_round(1)
            tables = [Table(b, club.pair(n).token, n) for n in range(1, TABLES + 1)]
            memory, fanout = runtime(b).desk.memory, b.app.state.fanout  # type: ignore[attr-defined]
            assert fanout is not None
            assert fanout.listening.is_set()
            # round 1's start on A is a round control too: B hears it first, when it will
            wait_until(lambda: fanout.stats.changes_heard >= 1, 30, "round 1's start heard")
            base = fanout.stats.changes_heard
            status = {"type": "table_status", "queued": 0}
            for t in tables:  # every table remembered on B
                assert t.send(status).status_code == 200
            first = tables[0]
            for board in first.round()["boards"]:
                entered = first.enter(board["board"], "4S", "S", 10)
                assert first.confirm(board["board"], entered.json()["result"]["version"]).is_success
            loads, carried = memory.stats.loads, memory.stats.carried
            section = f"/api/v1/sections/{club.section_id}/rounds/2"
            for step, heard in (("start", 1), ("close", 2), ("reopen", 3)):
                assert club.td("POST", f"{section}/{step}").status_code == 200, step
                wanted = base + heard
                wait_until(lambda n=wanted: fanout.stats.changes_heard >= n, 30, f"{step} heard")
                if step == "start":
                    moved = first.send({"type": "next_round"})
                    assert (moved.status_code, moved.json()["round"]) == (200, 2), moved.text
                if step == "close":
                    board = first.round()["boards"][0]["board"]
                    closed = first.enter(board, "4S", "S", 10)
                    assert closed.json()["code"] == "round_closed", closed.text
                    first.send(status)  # the refusal kept no state: read again, once
            for t in tables:
                assert t.send(status).status_code == 200
            assert memory.stats.loads == loads + 1  # the refused table only
            assert memory.stats.carried - carried == 3 * TABLES  # every table, every time
            fresh, diffs = rebuilt_differences(engine_b, memory)
            assert (fresh, diffs) == (TABLES, [])  # each state as a restarted worker reads it
    finally:
        engine_a.dispose()
        engine_b.dispose()


# ---------------------------------------------------------------- (d) a batch read ahead


def _batch_jobs(floor: Floor, client: Any, sends: list[tuple[int, dict[str, Any]]]) -> list[Job]:
    """The jobs the desk queues for ``sends`` (table, command), their reads said ahead."""
    desk = runtime(client).desk
    jobs = []
    for n, cmd in sends:
        token = floor.tokens[n]
        table_id = desk.order_of(token)
        message = table_command_adapter.validate_python(cmd)
        work = desk.work(message, identify(token), token=token, table_id=table_id)
        jobs.append(Job(work, table_id, ahead=read_ahead(message, table_id)))
    return jobs


def test_a_batch_reads_its_tables_counters_at_once(db_url: str) -> None:
    """A batch of remembered tables' commands locks the tables and reads their counters and
    entry ids at once, not a command at a time: one statement on SQLite; on PostgreSQL the
    lock, then the read in a statement of its own (which sees what a writer it waited for
    committed). A resent entry id is found in it. Having written only its tables' own rows,
    the batch reads no section's counter again."""
    with served(db_url, remember=True) as client:
        floor = Floor.open(client)
        player = Player(floor)
        for n in range(1, TABLES + 1):  # every table remembered, each with an entry
            assert player.play(("enter", n, 0, 4))[1][0] == 200
        rt = runtime(client)
        memory, writer = rt.desk.memory, rt.writer
        assert writer is not None
        hits, read_ahead_before = memory.stats.hits, memory.stats.read_ahead
        boards = {n: floor.table_round(n)[1][0] for n in range(1, TABLES + 1)}
        resent = player.sent[0][1]  # table 1's entry, sent again
        sends = [(1, resent)] + [
            (n, command("confirm", boards[n], player.eid(), 0, None)) for n in range(2, TABLES + 1)
        ]
        jobs = _batch_jobs(floor, client, sends)
        reads: list[str] = []

        def heard(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
            if statement.lstrip().upper().startswith("SELECT") and "_generation" in statement:
                reads.append(statement)

        event.listen(floor.engine, "before_cursor_execute", heard)
        try:
            writer.run_batch(jobs)
        finally:
            event.remove(floor.engine, "before_cursor_execute", heard)
        replies = [job.future.result().reply for job in jobs]
        assert replies[0].duplicate is True  # the resend, found in the one read
        assert [r.result.state for r in replies[1:]] == ["confirmed"] * (TABLES - 1)
        # One read of the counters (after the lock's statement on PostgreSQL); no check of
        # the sections before the COMMIT, since the batch wrote its tables' own rows only.
        if floor.engine.dialect.name == "postgresql":
            lock, *reads = reads
            assert "FOR UPDATE" in lock, lock
        assert len(reads) == 1, reads
        assert "table_generation" in reads[0], reads
        assert "FOR UPDATE" not in reads[0], reads
        assert memory.stats.checked_ahead == 0
        assert memory.stats.read_ahead == read_ahead_before + 1
        assert memory.stats.hits == hits + TABLES  # every table decided on its memory
        assert memory.stats.stale_ahead == 0
        assert writer.stats.fallbacks == 0


def test_a_section_written_during_a_batch_runs_it_again(db_url: str) -> None:
    """A batch's read ahead is checked before its COMMIT: when something in the batch wrote a
    section's rows (here E/W's PIN) before a remembered table of that section was decided on
    the counters read ahead, the batch runs again one by one, and the table is decided on the
    new PIN, as it would be alone."""
    with served(db_url, remember=True) as client:
        floor = Floor.open(client)
        player = Player(floor)
        assert (
            floor.td("PATCH", "/api/v1/events/{e}", json={"confirm_pin_required": True})[0] == 200
        )
        for n in range(1, TABLES + 1):
            assert player.play(("enter", n, 0, 4))[1][0] == 200
        first_board, board = floor.table_round(2)[1]
        ew_pin = floor.ew_pin(2, 1)  # table 2 confirms its first board: its E/W pair remembered
        confirmed = floor.send(2, command("confirm", first_board, player.eid(), 0, ew_pin))
        assert confirmed[0] == 200, confirmed
        assert player.play(("enter", 2, 1, 4))[1][0] == 200
        rt = runtime(client)
        memory, writer = rt.desk.memory, rt.writer
        assert writer is not None
        with Session(floor.engine) as s:
            ew = s.get(
                Pair,
                s.exec(
                    select(Result.ew_pair_id).where(
                        Result.section_id == floor.club.section_id,
                        Result.table_number == 2,
                        Result.board == board,
                    )
                ).one(),
            )
            assert ew is not None
            old_pin, ew_id = ew.pin, ew.id
        new_pin = "4321" if old_pin != "4321" else "1234"

        def new_ew_pin(session: Session) -> str:  # a section's row written inside the batch
            session.execute(update(Pair).where(Pair.id == ew_id).values(pin=new_pin))
            return "written"

        confirm = command("confirm", board, player.eid(), 0, new_pin)
        [table_2] = _batch_jobs(floor, client, [(2, confirm)])
        table_1 = rt.desk.order_of(floor.tokens[1])
        assert table_1 < table_2.order  # table 1's job runs first (lock order)
        first = Job(new_ew_pin, table_1, ahead=ReadAhead(table_1, None))
        stale, fallbacks = memory.stats.stale_ahead, writer.stats.fallbacks
        checked = memory.stats.checked_ahead
        writer.run_batch([first, table_2])
        assert first.future.result() == "written"
        reply = table_2.future.result().reply
        assert reply.result.state == "confirmed", reply  # the new PIN, as alone
        assert memory.stats.stale_ahead == stale + 1
        assert memory.stats.checked_ahead == checked + 1
        assert writer.stats.fallbacks == fallbacks + 1
