"""The table command's own CPU, without the websocket, the live pages or the client: N tables
enter and confirm every board of a round through the table desk and the group writer, in
batches of a given size, in this process; the CPU time (``time.process_time``) of the batches
divided by the commands.

On a shared machine the load bench's CPU per command moves with the load (a slower run renders
the coalesced live pages more often for the same commands); this figure does not, so an A/B of
a change to the command path is read here first and confirmed with the load bench.

Run from the repository root (the second form for another checkout, e.g. a ``git archive``)::

    PYTHONPATH=. .venv/bin/python -m benchmarks.command_cpu --tables 50 --batch 1,25
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import event

from protocol.messages import ConfirmResult, EnterResult, EntryValues, TableCommand
from server.app import create_app
from server.core.config import Settings
from server.core.db import GroupWriter, Job, make_engine
from server.live.table_desk import TableDesk, read_ahead
from server.services import tokens
from tests.support.api import TD_PASSWORD, new_id, open_club


def _job(desk: TableDesk, token: str, command: TableCommand, order: int) -> Job[Any]:
    """The job the desk submits for a token's command (its table remembered: table_memory)."""
    identify = lambda s: tokens.table_identity(s, token, lock=True)  # noqa: E731
    work = desk.work(command, identify, token=token, table_id=order)
    return Job(work, order, ahead=read_ahead(command, order))


def run(tables: int, batch: int, rounds: int) -> tuple[int, float]:
    """(commands, CPU seconds) for ``rounds`` rounds of ``tables`` tables, ``batch`` at once."""
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{Path(tmp) / 'bench.db'}")
        statements = {"on": False, "run": 0}

        @event.listens_for(engine, "before_cursor_execute")
        def _count(*_args: Any) -> None:
            if statements["on"]:
                statements["run"] += 1

        app = create_app(Settings(td_password=TD_PASSWORD, database_url="unused://"), engine=engine)
        with TestClient(app) as client:
            club = open_club(client, engine, tables=tables)
            seats = {n: club.pair(n) for n in range(1, tables + 1)}
            desk = TableDesk(engine)
            order = {n: desk.order_of(seat.token) for n, seat in seats.items()}  # table ids
            writer = GroupWriter(engine, max_batch=max(batch, 1), steps=desk)
            commands = 0
            cpu = 0.0
            for round_ in range(1, rounds + 1):
                club.start_round(round_)
                if round_ > 1:
                    for seat in seats.values():
                        moved = seat.send({"type": "next_round"})
                        assert moved.status_code == 200, moved.text
                boards = {n: [b["board"] for b in t.round()["boards"]] for n, t in seats.items()}
                for i in range(len(boards[1])):
                    for make in ("enter", "confirm"):
                        jobs = []
                        for n, seat in seats.items():
                            board = boards[n][i]
                            cmd: TableCommand
                            if make == "enter":
                                values = EntryValues(contract="4S", declarer="S", tricks=10)
                                cmd = EnterResult(entry_id=new_id(), board=board, values=values)
                            else:
                                cmd = ConfirmResult(entry_id=new_id(), board=board, version=1)
                            jobs.append(_job(desk, seat.token, cmd, order[n]))
                        start = time.process_time()
                        statements["on"] = True
                        for at in range(0, len(jobs), batch):
                            writer.run_batch(jobs[at : at + batch])
                        statements["on"] = False
                        cpu += time.process_time() - start
                        failed = [j.future.exception() for j in jobs if j.future.exception()]
                        assert not failed, failed[:3]
                        commands += len(jobs)
            stats = desk.memory.stats
            print(
                f"  memory: {stats.hits} hits, {stats.loads} loads, {stats.unguarded} unguarded,"
                f" {stats.read_ahead} batches read ahead ({stats.checked_ahead} checked,"
                f" {stats.stale_ahead} run again); {statements['run'] / commands:.2f} statements"
                " a command"
            )
        engine.dispose()
    return commands, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--batch", default="1,25")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for size in (int(b) for b in args.batch.split(",")):
        best = float("inf")
        for _ in range(args.repeat):
            commands, cpu = run(args.tables, size, args.rounds)
            best = min(best, cpu / commands)
        print(f"tables {args.tables} batch {size}: {commands} commands, best {best * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
