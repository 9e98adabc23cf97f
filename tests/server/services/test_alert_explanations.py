"""Alert explanations keyed with the auction (protocol/alerts.py): checked (an alerted call of
the auction, once, one short line without hostile characters), stored with the result, shown
in the table's view, on the TD's board page and in the PBN export's [Note] (read back by
endplay), kept by a TD's correction of the same auction, and audited (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlalchemy import Engine
from sqlmodel import Session, select

from protocol import alerts
from protocol.messages import AlertExplanation, EntryValues
from server.core.errors import InvalidError
from server.core.models import Audit, Result
from server.services.entries import check_values
from tests.support.api import Club, new_id, open_club
from tests.support.web import web_login
from tests.web.test_web_forms import post

CALLS = "1C 1NT! P 2C! P 2H P 4H P P P"  # board 1, North deals: East declares 4H


def entry(auction: str | None, *notes: tuple[int, str]) -> EntryValues:
    return EntryValues(
        contract="4H",
        declarer="E",
        tricks=10,
        auction=auction,
        alerts=[AlertExplanation(call=n, text=t) for n, t in notes] or None,
    )


# ---------------------------------------------------------------- the rule


def test_explanations_are_stored_in_call_order_and_stripped() -> None:
    checked = check_values(
        1, entry(CALLS, (4, " Stayman "), (2, "15-17 hcp")), False, auction_entry="required"
    )
    assert checked.alerts == '{"2":"15-17 hcp","4":"Stayman"}'
    assert alerts.read_stored(checked.alerts) == {2: "15-17 hcp", 4: "Stayman"}
    # an explanation left blank leaves the call with its alert alone
    blank = check_values(1, entry(CALLS, (2, "   ")), False, auction_entry="required")
    assert blank.alerts is None


@pytest.mark.parametrize(
    ("auction", "notes", "code"),
    [
        (None, ((2, "15-17"),), "alert_without_auction"),
        (CALLS, ((1, "natural"),), "alert_not_alerted"),  # 1C is not alerted
        (CALLS, ((12, "past the end"),), "alert_not_alerted"),
        (CALLS, ((2, "15-17"), (2, "strong")), "alert_explained_twice"),
    ],
)
def test_an_explanation_that_belongs_to_no_alerted_call_is_refused(
    auction: str | None, notes: tuple[tuple[int, str], ...], code: str
) -> None:
    with pytest.raises(InvalidError) as caught:
        check_values(1, entry(auction, *notes), False, auction_entry="optional")
    assert caught.value.code == code


@pytest.mark.parametrize(
    "text", ["a\u202eb", "line\nbreak", "tab\there", "zero\u200bwidth", "x" * 61, ""]
)
def test_hostile_or_long_explanations_are_refused_by_the_message(text: str) -> None:
    with pytest.raises(ValidationError):
        AlertExplanation(call=2, text=text)


def test_the_stored_form_reads_back_and_ignores_what_is_not_it() -> None:
    text = alerts.stored_text({4: 'say "two"', 2: "Ærø ½"})
    assert text is not None
    assert len(text) <= alerts.STORED_TEXT
    assert alerts.read_stored(text) == {2: "Ærø ½", 4: 'say "two"'}
    assert alerts.read_stored("[1, 2]") == {} == alerts.read_stored("not json")
    longest = dict.fromkeys(range(280, 280 + alerts.MAX_EXPLAINED), '"' * alerts.ALERT_TEXT)
    assert len(alerts.stored_text(longest) or "") <= alerts.STORED_TEXT


# ---------------------------------------------------------------- through the table API


@pytest.fixture
def auction_club(client: TestClient, engine: Engine) -> Club:
    return open_club(client, engine, tables=3, bpr=2, event={"auction_entry": "required"})


def send(table: Any, values: dict[str, Any], **extra: Any) -> Any:
    kind = "correct_result" if "version" in extra else "enter_result"
    return table.send({"type": kind, "entry_id": new_id(), "board": 1, "values": values, **extra})


def stored(engine: Engine) -> Result:
    with Session(engine) as s:
        row = s.exec(select(Result).where(Result.board == 1, Result.table_number == 1)).first()
    assert row is not None
    return row


PLAIN = {"contract": "4H", "declarer": "E", "tricks": 10, "auction": CALLS}


def test_hostile_text_is_refused_at_the_table_and_nothing_is_stored(auction_club: Club) -> None:
    table = auction_club.pair(1)
    auction_club.start_round(1)
    assert table.round()["boards"][0]["board"] == 1
    for text in ("a\u202eb", "two\nlines", "x" * 61):
        r = send(table, {**PLAIN, "alerts": [{"call": 2, "text": text}]})
        assert r.status_code == 422, r.text
    r = send(table, {**PLAIN, "alerts": [{"call": 3, "text": "pass"}]})
    assert r.status_code == 422
    assert r.json()["code"] == "alert_not_alerted"
    with Session(auction_club.engine) as s:
        assert s.exec(select(Result).where(Result.board == 1)).first() is None


def test_an_explanation_is_stored_shown_exported_and_audited(
    client: TestClient, auction_club: Club
) -> None:
    table = auction_club.pair(1)
    auction_club.start_round(1)
    notes = [{"call": 2, "text": "15-17 <b>hcp</b>"}, {"call": 4, "text": "Stayman"}]
    r = send(table, {**PLAIN, "alerts": notes})
    assert r.status_code == 200, r.text
    view = r.json()["result"]
    assert view["alerts"] == notes
    r = table.confirm(1, view["version"])
    assert r.status_code == 200, r.text
    assert r.json()["result"]["alerts"] == notes
    row = stored(auction_club.engine)
    assert alerts.read_stored(row.alerts) == {2: "15-17 <b>hcp</b>", 4: "Stayman"}

    # North corrects one explanation: the change is audited, old and new
    r = send(
        table,
        {**PLAIN, "alerts": [{"call": 2, "text": "12-14"}, {"call": 4, "text": "Stayman"}]},
        version=2,
    )
    assert r.status_code == 200, r.text
    with Session(auction_club.engine) as s:
        trail = s.exec(
            select(Audit).where(Audit.result_id == row.id).order_by(Audit.id)  # type: ignore[arg-type]
        ).all()
    assert [a.action for a in trail][-3:] == ["entered", "confirmed", "corrected"]
    old, new = json.loads(trail[-1].old or "{}"), json.loads(trail[-1].new or "{}")
    assert alerts.read_stored(old["alerts"])[2] == "15-17 <b>hcp</b>"
    assert alerts.read_stored(new["alerts"])[2] == "12-14"
    assert table.confirm(1, 3).status_code == 200

    # the TD's correction of the tricks through the form keeps the auction and its explanations
    csrf = web_login(client)
    board_page = f"/td/s/{auction_club.section_id}/tables/1/rounds/1/boards/1"
    r = client.post(
        f"{board_page}/set",
        data={
            "csrf": csrf,
            "contract": "4H",
            "declarer": "E",
            "tricks": "11",
            "auction": CALLS,
            "reason": "tricks miscounted",
        },
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    row = stored(auction_club.engine)
    assert (row.tricks, row.auction) == (11, CALLS)
    assert alerts.read_stored(row.alerts) == {2: "12-14", 4: "Stayman"}

    # the TD's board page shows them with the auction, escaped
    page = client.get(board_page).text
    notes_html = page.split('class="alert-notes', 1)[1].split("</ol>", 1)[0]
    assert "12-14" in notes_html
    assert "Stayman" in notes_html
    assert "15-17" not in notes_html  # the old one is gone from the auction...
    assert "2: 15-17 &lt;b&gt;hcp&lt;/b&gt; · 4: Stayman" in page  # ...and kept in the trail

    # the PBN export writes them as the calls' notes, and endplay reads them back
    r = client.get(f"/td/s/{auction_club.section_id}/publish/export/pbn")
    assert r.status_code == 200
    text = r.text
    assert '[Note "1:12-14"]' in text
    assert '[Note "2:Stayman"]' in text
    endplay = pytest.importorskip("endplay.parsers.pbn")
    played = [b for b in endplay.loads(text) if b.auction]
    assert len(played) == 1
    announced = [(str(c), c.announcement) for c in played[0].auction if c.alertable]
    assert [a for _, a in announced] == ["12-14", "Stayman"]


def test_an_alert_without_explanation_stays_alert_in_the_export(
    client: TestClient, auction_club: Club
) -> None:
    table = auction_club.pair(1)
    auction_club.start_round(1)
    r = send(table, {**PLAIN, "alerts": [{"call": 4, "text": "Stayman"}]})
    assert table.confirm(1, r.json()["result"]["version"]).status_code == 200
    # fair play: the public traveller shows no auction, so no explanation, before every table
    # has played the board
    public = f"/results/{auction_club.section_id}/boards/1"
    assert "Still being played" in client.get(public).text
    assert "Stayman" not in client.get(public).text
    csrf = web_login(client)
    text = client.get(f"/td/s/{auction_club.section_id}/publish/export/pbn").text
    assert '[Note "1:Alert"]' in text
    assert '[Note "2:Stayman"]' in text
    # published, the traveller shows the table's auction, its explanation with it
    r = post(
        client,
        f"/td/s/{auction_club.section_id}/publish",
        csrf,
        status="provisional",
        amount="72",
        confirmed="yes",
    )
    assert "Published as provisional" in r.text
    page = client.get(public).text
    notes_html = page.split('class="alert-notes', 1)[1].split("</ol>", 1)[0]
    assert "Stayman" in notes_html
