"""The database statements a table command costs the server, its pushes included: every table
has its terminal's websocket open; each enters and confirms every board of a round over HTTP,
and the push of each result is read off the socket before the next command. The statements the
engine ran meanwhile are counted by the table they name first.

Deterministic where the load bench's timings are not (a shared machine), so an A/B of a change
that saves reads is read here. Run from the repository root (the second form for another
checkout, e.g. a ``git archive``)::

    PYTHONPATH=. .venv/bin/python -m benchmarks.statements --tables 10
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import event

from server.app import create_app
from server.core.config import Settings
from server.core.db import make_engine
from tests.support.api import TD_PASSWORD, open_club

_NAMED = re.compile(r"\b(?:FROM|INTO|UPDATE)\s+\"?(\w+)", re.IGNORECASE)


def _kind(statement: str) -> str:
    verb = statement.split(None, 1)[0].upper() if statement.strip() else "?"
    found = _NAMED.search(statement)
    return f"{verb} {found.group(1)}" if found else verb


def run(tables: int) -> tuple[int, Counter[str]]:
    """(commands, statements by kind) for one round of ``tables`` tables."""
    seen: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{Path(tmp) / 'bench.db'}")
        settings = Settings(td_password=TD_PASSWORD, database_url="unused://")
        with TestClient(create_app(settings, engine=engine)) as client:
            club = open_club(client, engine, tables=tables)
            club.start_round(1)
            seats = [club.pair(n) for n in range(1, tables + 1)]
            boards = [[b["board"] for b in seat.round()["boards"]] for seat in seats]
            sockets = []
            for seat in seats:
                ws = client.websocket_connect("/api/v1/table/ws").__enter__()
                ws.send_text(json.dumps({"type": "hello", "token": seat.token}))
                assert json.loads(ws.receive_text())["type"] == "round_info"
                sockets.append(ws)

            def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
                seen[_kind(statement)] += 1

            event.listen(engine, "before_cursor_execute", count)
            commands = 0
            for seat, ws, numbers in zip(seats, sockets, boards, strict=True):
                for board in numbers:
                    r = seat.enter(board, "4S", "S", 10)
                    assert r.status_code == 200, r.text
                    version = r.json()["result"]["version"]
                    assert json.loads(ws.receive_text())["type"] == "result_changed"
                    r = seat.confirm(board, version)
                    assert r.status_code == 200, r.text
                    assert json.loads(ws.receive_text())["type"] == "result_changed"
                    commands += 2
            event.remove(engine, "before_cursor_execute", count)
            for ws in sockets:
                ws.__exit__(None, None, None)
        engine.dispose()
    return commands, seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10)
    args = parser.parse_args()
    commands, seen = run(args.tables)
    total = sum(seen.values())
    print(f"{commands} commands, {total} statements: {total / commands:.2f} a command")
    for kind, n in seen.most_common():
        print(f"  {n / commands:6.2f}  {kind}")


if __name__ == "__main__":
    main()
