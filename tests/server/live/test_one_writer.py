"""Every write of a server process goes through its table desk: the table commands, and the
TD's actions, a pairing and a login too, are committed on the desk's one writer thread in the
order they came (TableDesk.write), so a TD change and a table's command never race for the
write lock from two threads."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from sqlalchemy import event

from protocol.messages import EntryValues, ResultChanged
from server.core.db import GroupWriter
from server.services.td import actions as td
from tests.support.api import TD_PASSWORD, Club
from tests.support.wait import wait_until

WRITER = "traveller-group-writer"


def test_every_commit_of_a_club_night_is_made_on_the_desks_writer(club: Club) -> None:
    threads: Counter[str] = Counter()

    def note(_conn: Any) -> None:
        threads[threading.current_thread().name] += 1

    event.listen(club.engine, "commit", note)
    try:
        r = club.client.post("/api/v1/td/login", json={"password": TD_PASSWORD})
        assert r.status_code == 200, r.text
        one, two = club.pair(1), club.pair(2)
        club.start_round(1)
        acked = one.enter(1, "4S", "S", 10).json()
        assert acked["type"] == "result_ack", acked
        confirmed = one.confirm(1, acked["result"]["version"]).json()
        assert confirmed["type"] == "result_ack", confirmed
        r = club.td(
            "POST",
            f"/api/v1/sections/{club.section_id}/results/set",
            json={
                "table": 2,
                "round": 1,
                "board": 4,
                "values": {"contract": "3NT", "declarer": "N", "tricks": 9},
                "reason": "keyed from the traveller slip",
            },
        )
        assert r.status_code == 200, r.text
        assert two.round()["type"] == "round_info"
        r = club.td("POST", f"/api/v1/sections/{club.section_id}/rounds/1/close")
        assert r.status_code == 200, r.text
    finally:
        event.remove(club.engine, "commit", note)
    assert set(threads) == {WRITER}, threads
    # the login, two pairings, the round's start, the entry, its confirmation, the TD's
    # result and the round's close: each committed once at least
    assert threads[WRITER] >= 8, threads


def test_a_write_through_the_desk_keeps_its_place_among_the_table_commands(club: Club) -> None:
    """North's entry, the TD's ruling on that board (what the route's write is), then East's
    confirmation of North's entry, queued in that order while the writer is busy: the writer
    runs them in that order, so the ruling sees the entry and the confirmation sees the
    ruling (it no longer confirms what North entered)."""
    runtime = club.client.app.state.runtime  # type: ignore[attr-defined]
    writer: GroupWriter = runtime.writer
    table = club.pair(1)
    club.start_round(1)
    first = table.enter(2, "1NT", "N", 7).json()["result"]["version"]  # a first entry's version
    running, gate = threading.Event(), threading.Event()

    def hold(_s: Any) -> bool:
        running.set()
        return gate.wait(30)

    values = EntryValues(contract="3NT", declarer="N", tricks=9)
    ruling = td.settle(
        club.section_id,
        1,
        1,
        1,
        lambda s, r: td.set_result(s, result=r, values=values, reason="the TD's ruling"),
    )
    held = writer.submit(hold, 0)
    assert running.wait(30)
    replies: dict[str, Any] = {}
    steps = [
        ("entered", lambda: table.enter(1, "4S", "S", 10).json()),
        ("ruled", lambda: runtime.desk.transact(ruling)),
        ("confirmed", lambda: table.confirm(1, first).json()),
    ]
    threads = []
    for queued, (name, step) in enumerate(steps, start=1):
        thread = threading.Thread(target=lambda n=name, f=step: replies.update({n: f()}))
        thread.start()
        threads.append(thread)
        _wait_queued(writer, queued)
    gate.set()
    assert held.result(30) is True
    for thread in threads:
        thread.join(30)
    entered, ruled, confirmed = replies["entered"], replies["ruled"], replies["confirmed"]
    assert entered["type"] == "result_ack", entered
    assert entered["result"]["version"] == first, entered
    (changed,) = [p.message.result for p in ruled if isinstance(p.message, ResultChanged)]
    assert (changed.contract, changed.version) == ("3NT", first + 1), changed
    # East's confirmation of North's 4S came after the ruling: what it is answered with is
    # the TD's result, unchanged (run before the ruling, it would have confirmed the 4S)
    assert confirmed["type"] == "result_ack", confirmed
    assert (confirmed["result"]["contract"], confirmed["result"]["version"]) == ("3NT", first + 1)
    (board,) = (b for b in table.round()["boards"] if b["board"] == 1)
    assert (board["result"]["contract"], board["result"]["version"]) == ("3NT", first + 1)


def _wait_queued(writer: GroupWriter, jobs: int) -> None:
    """Until ``jobs`` jobs wait in the writer's queue (behind the one holding it)."""
    wait_until(lambda: writer._queue.qsize() >= jobs, 30, f"{jobs} jobs queued for the writer")


def test_a_look_commits_nothing_and_never_queues_for_the_writer(club: Club) -> None:
    """The TD's session check on every request, a section looked at, a public ranking's live
    feed opened: reads on a snapshot, so none of them waits behind a burst of commands."""
    club.start_round(1)
    commits: list[str] = []

    def note(_conn: Any) -> None:
        commits.append(threading.current_thread().name)

    event.listen(club.engine, "commit", note)
    try:
        r = club.td("GET", f"/api/v1/sections/{club.section_id}")
        assert r.status_code == 200, r.text
        r = club.td("GET", f"/api/v1/sections/{club.section_id}/tables")
        assert r.status_code == 200, r.text
        with club.client.websocket_connect(f"/results/{club.section_id}/live") as ws:
            assert "fragments" in ws.receive_json()
        r = club.client.get(f"/api/v1/sections/{club.section_id}")
        assert r.status_code == 401, r.text  # no session: refused, and nothing written
    finally:
        event.remove(club.engine, "commit", note)
    assert commits == []
