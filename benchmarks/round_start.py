"""The CPU of the TD's round start (``td.actions.start_round``: every table moved to the round
and its round view read for its push) for a Mitchell of N tables, in this process; rounds 1 to
3, each started once the one before was.

Run from the repository root (or another checkout's, for a before/after)::

    PYTHONPATH=. .venv/bin/python -m benchmarks.round_start --tables 200
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient
from sqlmodel import Session

from server.app import create_app
from server.core.config import Settings
from server.core.db import make_engine, transact
from server.services.event import setup
from server.services.outcomes import Push
from server.services.td import actions as td
from tests.support.api import TD_PASSWORD, open_club


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{Path(tmp) / 'bench.db'}")
        app = create_app(Settings(td_password=TD_PASSWORD, database_url="unused://"), engine=engine)
        with TestClient(app) as client:
            club = open_club(client, engine, tables=args.tables, bpr=3)
            for round_ in (1, 2, 3):

                def work(s: Session, round_: int = round_) -> list[Push]:
                    return td.start_round(s, setup.get_section(s, club.section_id), round_)

                start = time.process_time()
                pushes = transact(engine, work)
                took = 1000 * (time.process_time() - start)
                what = f"{took:.1f} ms CPU, {len(pushes)} pushes"
                print(f"{args.tables} tables, round {round_}: {what}")


if __name__ == "__main__":
    main()
