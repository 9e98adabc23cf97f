"""A table's terminal guessing E/W's PIN or the TD's code: five wrong guesses, then it waits.
The guesses are counted on the terminal's token row (server/limits/guesses.py), so two server
processes on one database count the same ones, and so does a server started again: more
workers or a restart never give a table more tries."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from sqlmodel import Session, select

from benchmarks.procs import ServerProcess
from server.core.models import MovementAssignment, Pair, TableToken
from server.limits.guesses import PIN, TD_CODE, GuessLimit
from tests.support.api import new_id, open_club
from tests.support.app_factory import app_client, engine_at

# ---------------------------------------------------------------- two workers, one count


@contextmanager
def _worker(url: str, log: Path) -> Iterator[httpx.Client]:
    """A server process of its own on ``url`` (its own desk and memory), and a client of it."""
    server = ServerProcess(url, log_path=log)
    server.start()
    try:
        with httpx.Client(base_url=server.base_url, timeout=30) as http:
            yield http
    finally:
        server.stop()


@dataclass(frozen=True)
class Terminal:
    """Table 1's terminal, speaking to one server process."""

    http: httpx.Client
    token: str

    def send(self, command: dict[str, Any]) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.token}"}
        return self.http.post("/api/v1/table/commands", json=command, headers=headers)


Guess = Callable[[Terminal, int, int, bool], Any]


def _pin_guess(night: dict[str, Any]) -> Guess:
    def guess(table: Terminal, board: int, version: int, right: bool) -> Any:
        pin = night["ew_pin"] if right else night["wrong_pin"]
        command = {"type": "confirm_result", "entry_id": new_id(), "board": board}
        return table.send({**command, "version": version, "pin": pin})

    return guess


def _td_code_guess(night: dict[str, Any]) -> Guess:
    def guess(table: Terminal, board: int, version: int, right: bool) -> Any:
        code = night["td_code"] if right else night["wrong_td_code"]
        command = {"type": "mark_not_played", "entry_id": new_id(), "board": board}
        return table.send({**command, "td_code": code})

    return guess


#: secret -> (its limit, its guess, the wrong guess's code, the locked terminal's status and code)
SECRETS: dict[str, tuple[GuessLimit, Callable[[dict[str, Any]], Guess], str, int, str]] = {
    "E/W's PIN": (PIN, _pin_guess, "pin_wrong", 429, "pin_locked"),
    "the TD's code": (TD_CODE, _td_code_guess, "td_code_wrong", 403, "td_code_locked"),
}


def _night(url: str) -> dict[str, Any]:
    """A night asking for E/W's PIN, table 1 paired, North's entry on its first board (set
    up by an app in this process, gone before the server processes start)."""
    with engine_at(url) as engine, app_client(engine) as client:
        club = open_club(client, engine, tables=3, bpr=2, event={"confirm_pin_required": True})
        club.start_round(1)
        table = club.pair(1)
        board = table.round()["boards"][0]["board"]
        r = table.enter(board, "4S", "N", 10)
        assert r.status_code == 200, r.text
        with Session(engine) as s:
            row = s.exec(
                select(MovementAssignment).where(
                    MovementAssignment.section_id == club.section_id,
                    MovementAssignment.table_number == 1,
                    MovementAssignment.round == 1,
                )
            ).one()
            ew = s.get(Pair, row.ew_pair_id)
            assert ew is not None
        code = club.section["td_code"]
        return {
            "token": table.token,
            "board": board,
            "version": r.json()["result"]["version"],
            "ew_pin": ew.pin,
            "wrong_pin": "0000" if ew.pin != "0000" else "1111",
            "td_code": code,
            "wrong_td_code": "0000" if code != "0000" else "1111",
        }


def test_two_workers_and_a_restart_count_the_same_wrong_guesses(
    db_url: str, tmp_path: Path
) -> None:
    night = _night(db_url)
    board, version, token = night["board"], night["version"], night["token"]
    with _worker(db_url, tmp_path / "a.log") as a, _worker(db_url, tmp_path / "b.log") as b:
        terminals = [Terminal(a, token), Terminal(b, token)]
        for limit, make_guess, wrong, status, locked in SECRETS.values():
            guess = make_guess(night)
            # The wrong guesses go to one process and the other ...
            codes = [
                guess(terminals[n % 2], board, version, False).json()["code"]
                for n in range(limit.limit)
            ]
            assert codes == [wrong] * limit.limit
            # ... so each has had fewer than five: the count is the token's, not the process's.
            for terminal in terminals:
                r = guess(terminal, board, version, True)
                assert (r.status_code, r.json()["code"]) == (status, locked)
    with _worker(db_url, tmp_path / "again.log") as again:  # started again: counted still
        for _, make_guess, _, status, locked in SECRETS.values():
            r = make_guess(night)(Terminal(again, token), board, version, True)
            assert (r.status_code, r.json()["code"]) == (status, locked)
    with engine_at(db_url) as engine, Session(engine) as s:
        stored = json.loads(s.exec(select(TableToken)).one().guesses)
    assert {secret: len(times) for secret, times in stored.items()} == {
        limit.secret: limit.limit for limit, *_ in SECRETS.values()
    }
