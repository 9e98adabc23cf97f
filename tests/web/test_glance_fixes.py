"""Fixes found on the way (issue 15, item 7): the score card's exact per-board %, an Ave+ on a
never-entered board audited as such, dates on the event list, "1 minute", one Save on the
Players page, and a score card's QR code that a phone in the room can open."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from datetime import datetime
from decimal import Decimal
from typing import TypeVar

import pytest
import segno
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, col, select
from starlette.requests import Request

from server import i18n
from server.core.config import Settings
from server.core.db import transact
from server.core.models import Audit, Pair, Section
from server.services.event import setup
from server.services.results import standings
from server.services.td import actions as td
from server.site.discovery import lan_addresses
from server.web.routes.public import lan_origin
from tests.support.api import Club, open_club
from tests.support.app_factory import app_client
from tests.support.env import TD_PASSWORD
from tests.support.web import web_login

T = TypeVar("T")


def run(club: Club, work: Callable[[Session, Section], T]) -> T:
    return transact(club.engine, lambda s: work(s, setup.get_section(s, club.section_id)))


# ------------------------------------------------------------------------------- the score card


@pytest.fixture
def two_rounds(engine: Engine) -> Iterator[Club]:
    """A 5-table Mitchell, 3 boards a round: in round 1 every table goes one down in 4S by
    South, in round 2 every table makes it. Each board so far has one of each."""
    with app_client(engine) as c:
        club = open_club(c, engine)
        club.start_round(1)
        tables = [club.pair(n) for n in range(1, 6)]
        for round_, tricks in ((1, "-1"), (2, "=")):
            if round_ == 2:
                club.start_round(2)
                for t in tables:
                    assert t.send({"type": "next_round"}).json()["round"] == 2
            for t in tables:
                for b in t.round()["boards"]:
                    ack = t.enter(b["board"], "4S", "S", tricks).json()
                    assert t.confirm(b["board"], ack["result"]["version"]).status_code == 200
        yield club


def test_the_score_cards_board_percent_is_exact_to_two_places(two_rounds: Club) -> None:
    ranking = run(two_rounds, lambda s, sec: standings.ranking(s, sec, public=False))
    key = next(x.pair.key for x in ranking.lines if x.pair.key == "1NS")
    card = run(two_rounds, lambda s, sec: standings.score_card(s, sec, key, public=False))
    [first] = [r for r in card.lines if r.round == 1][:1]
    # One down against a make, Neuberg-factored to 5 plays: 5/2 x (0 + 1) - 1 = 1.5 of a top
    # of 8, i.e. 18.75 % (it printed "19.00%").
    assert first.value == Decimal("1.5")
    assert first.percent == Decimal("18.75")
    assert i18n.percent(first.percent, "en").startswith("18.75")
    made = next(r for r in card.lines if r.round == 2)
    assert made.percent == Decimal("81.25")


# ------------------------------------------------------------------------------- the audit


def test_an_ave_plus_on_a_never_entered_board_is_audited_as_missing(
    client: TestClient, club: Club
) -> None:
    board = club.pair(2).round()["boards"][0]["board"]

    def ave_plus(s: Session, section: Section) -> object:
        result = td.board_result(s, section, 2, 1, board)
        return td.adjust(s, result=result, ns_percent=60, ew_percent=40, reason="slow play")

    run(club, ave_plus)
    row = transact(
        club.engine,
        lambda s: s.exec(select(Audit).where(Audit.action == "td_adjusted")).one(),
    )
    assert '"state": "missing"' in (row.old or "")
    web_login(client)
    page = client.get(f"/td/s/{club.section_id}/audit?table=2").text
    line = page.split('id="audit"', 1)[1].split("</tr>", 2)[1]
    assert "Rejected, to re-enter" not in line
    assert re.search(r'class="old">Missing</span>', line)
    assert re.search(r'class="new">Adjusted</span>', line)


# ------------------------------------------------------------------------------- the event list


def test_the_event_list_shows_the_date(client: TestClient, club: Club) -> None:
    web_login(client)
    page = client.get("/td").text
    created = run(club, lambda s, sec: setup.get_event(s, sec.event_id).created_at)
    assert i18n.date(created, "en") in page
    assert re.search(r'<time datetime="[^"]+">[^<]*\d{4}</time>', page)
    danish = client.get("/td?lang=da").text
    assert i18n.date(created, "da") in danish
    assert isinstance(created, datetime)


# ------------------------------------------------------------------------------- "1 minute"


@pytest.mark.parametrize(
    ("lang", "minutes", "shown"),
    [
        ("en", 1, "minute"),
        ("en", 20, "minutes"),
        ("ru", 1, "минута"),
        ("ru", 2, "минуты"),
        ("ru", 5, "минут"),
    ],
)
def test_the_round_time_reads_in_the_right_plural(
    client: TestClient, club: Club, lang: str, minutes: int, shown: str
) -> None:
    csrf = web_login(client)
    base = f"/td/s/{club.section_id}"
    r = client.post(
        f"{base}/round-time", data={"csrf": csrf, "minutes": str(minutes)}, follow_redirects=False
    )
    assert r.status_code == 303
    page = client.get(f"{r.headers['location']}?lang={lang}").text
    assert f'id="round-time-unit">{shown}</span>' in page
    assert f'value="{minutes}"' in page
    assert "1 minutes" not in page


# ------------------------------------------------------------------------------- the Players page


def pairs_of(club: Club) -> dict[int, Pair]:
    return run(club, lambda s, sec: {p.id or 0: p for p in setup.pairs_of(s, sec)})


def test_the_players_page_has_aligned_columns_and_one_save(client: TestClient, club: Club) -> None:
    csrf = web_login(client)
    url = f"/td/s/{club.section_id}/players"
    page = client.get(url).text
    table = page.split('players pair-names"', 1)[1].split("</table>", 1)[0]
    heads = re.findall(r"<th>", table.split("</thead>", 1)[0])
    rows = re.findall(r"<tr data-pair=.*?</tr>", table, re.S)
    assert len(rows) == len(pairs_of(club)) == 10
    for row in rows:  # one cell per column: name, 2 x (player, number), handicap
        assert row.count("<td>") + row.count('<th scope="row">') == len(heads) == 6
        assert "<form" not in row
        assert "<button" not in row
    assert page.count(">Save</button>") == 1
    first, second = sorted(pairs_of(club))[:2]
    data = {
        "csrf": csrf,
        **{f"{k}_{p}": "" for p in pairs_of(club) for k in ("player1", "member1", "member2")},
        **{f"player2_{p}": "" for p in pairs_of(club)},
        f"player1_{first}": "Anna Jensen",
        f"player2_{first}": "Bo Nielsen",
        f"player1_{second}": "Carl Berg",
    }
    r = client.post(f"/td/s/{club.section_id}/pairs", data=data, follow_redirects=False)
    assert r.status_code == 303
    assert "Pair names saved: 2." in client.get(r.headers["location"]).text
    now = pairs_of(club)
    assert (now[first].player1, now[first].player2) == ("Anna Jensen", "Bo Nielsen")
    assert now[second].player1 == "Carl Berg"
    written = transact(
        club.engine,
        lambda s: len(s.exec(select(Audit).where(col(Audit.action) == "pair_names")).all()),
    )
    assert written == 2  # the eight lines left as they were are not written


def test_one_bad_line_on_the_players_page_changes_nothing(client: TestClient, club: Club) -> None:
    csrf = web_login(client)
    first, second = sorted(pairs_of(club))[:2]
    data = {"csrf": csrf, f"player1_{first}": "Anna Jensen", f"player1_{second}": "x" * 101}
    r = client.post(f"/td/s/{club.section_id}/pairs", data=data, follow_redirects=False)
    assert r.status_code == 303
    page = client.get(r.headers["location"]).text
    assert "flash-error" in page
    assert "at most 100 characters" in page
    assert pairs_of(club)[first].player1 == ""


# ------------------------------------------------------------------------------- the QR code


def request_to(url: str) -> Request:
    scheme, rest = url.split("://", 1)
    host, port = rest.split(":", 1)
    return Request(
        {
            "type": "http",
            "scheme": scheme,
            "server": (host, int(port)),
            "path": "/",
            "query_string": b"",
            "headers": [(b"host", rest.encode())],
        }
    )


def test_the_qr_address_is_the_lan_address_not_loopback() -> None:
    here = request_to("http://127.0.0.1:8000")
    assert lan_origin(here, "192.168.7.20", 8000) == "http://192.168.7.20:8000"
    # Reached over the LAN, the request's own address is the one phones can use.
    assert lan_origin(request_to("http://10.1.2.3:8080"), "0.0.0.0", 8080) == "http://10.1.2.3:8080"
    found = lan_addresses()
    wildcard = lan_origin(request_to("http://localhost:8000"), "0.0.0.0", 8000)
    if found:
        assert wildcard == f"http://{found[0]}:8000"
    else:
        assert wildcard == "http://localhost:8000"  # no LAN at all: nothing better to give


def svg_of(url: str) -> bytes:
    buffer = io.BytesIO()
    segno.make(url, error="m").save(
        buffer, kind="svg", scale=6, border=2, dark="#14202e", light="#ffffff", xmldecl=False
    )
    return buffer.getvalue()


def test_the_score_cards_qr_code_encodes_the_lan_address(engine: Engine) -> None:
    settings = Settings(
        td_password=TD_PASSWORD, database_url="unused://", host="192.168.7.20", port=8000
    )
    with app_client(engine, settings, base_url="http://127.0.0.1:8000") as c:
        club = open_club(c, engine)
        path = f"/results/{club.section_id}/pairs/1NS"
        svg = c.get(f"{path}/qr.svg").content
        assert svg == svg_of(f"http://192.168.7.20:8000{path}")
        assert svg != svg_of(f"http://127.0.0.1:8000{path}")
        player = f"/results/{club.section_id}/players/1"
        assert c.get(f"{player}/qr.svg").content == svg_of(f"http://192.168.7.20:8000{player}")
