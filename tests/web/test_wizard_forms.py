"""The set-up wizard over HTTP: proposals, settings, names, files; refusals store nothing."""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from server.core.models import Board, Event, Member, Pair, Section
from tests.support.web import web_login

STEP1 = {"name": "Monday pairs", "sections": "1", "pairs": "20", "minutes": "210"}
STEP1 |= {"per_board": "7.5"}
SETTINGS = {"scoring": "mp", "after_confirm": "nothing", "player_numbers": "off", "language": ""}
HANDS = ("AKQJT98765432...", ".AKQJT98765432..", "..AKQJT98765432.", "...AKQJT98765432")
PBN = "".join(
    f'[Event "Monday pairs"]\n[Board "{b}"]\n[Deal "N:{" ".join(HANDS)}"]\n\n' for b in (1, 2)
)


def events(engine: Engine) -> list[Event]:
    with Session(engine) as s:
        return list(s.exec(select(Event)))


def create(
    client: TestClient, csrf: str, files: dict[str, Any] | None = None, **fields: str
) -> Any:
    data = {"csrf": csrf, **STEP1, **SETTINGS, "choice": "mitchell", **fields}
    return client.post("/td/setup", data=data, files=files or {}, follow_redirects=False)


def test_the_wizard_proposes_movements_with_balance_and_says_why_others_do_not_fit(
    client: TestClient,
) -> None:
    web_login(client)
    assert 'href="/td/setup"' in client.get("/td").text
    start = client.get("/td/setup")
    assert 'name="pairs"' in start.text
    assert 'value="210"' in start.text
    page = client.get("/td/setup/movements", params=STEP1)
    assert page.status_code == 200
    assert 'value="mitchell" checked' in page.text
    assert "9 rounds" in page.text
    assert "27 boards played of 30" in page.text
    assert "balance 42.1 % · 100.0 % in each direction" in page.text
    assert 'data-key="howell"><strong>Howell (complete)</strong>: 19 rounds need 38 boards' in (
        page.text
    )
    assert "Swiss teams, 10 teams, 4 rounds" in page.text


def test_a_bad_field_is_named_on_the_first_step(client: TestClient) -> None:
    web_login(client)
    page = client.get("/td/setup/movements", params={**STEP1, "pairs": "x"})
    assert page.status_code == 400
    assert "pairs: give a number from 2 to 80" in page.text
    page = client.get("/td/setup/movements", params={**STEP1, "name": "<i>Club</i>"})
    assert page.status_code == 400
    assert "Event: a name may not hold markup" in page.text


def test_a_20_pair_mitchell_with_defaults_member_and_visitor_names(
    client: TestClient, engine: Engine
) -> None:
    with Session(engine) as s:
        s.add(Member(number="101", name="Anna Jensen"))
        s.commit()
    csrf = web_login(client)
    details = client.get("/td/setup/details", params={**STEP1, "choice": "mitchell"})
    assert 'name="n_A_10EW_2"' in details.text
    assert '<option value="101">Anna Jensen' in details.text
    r = create(
        client,
        csrf,
        n_A_1NS_1="101",
        n_A_1NS_2="Bo Visitor",
        n_A_2EW_1="anna  jensen",
        lead_required="on",
        tricks_style="relative",
    )
    assert r.status_code == 303, r.text
    done = client.get(r.headers["location"])
    assert "Event created. Sections: 1." in done.text
    with Session(engine) as s:
        event = s.exec(select(Event)).one()
        section = s.exec(select(Section)).one()
        pair = s.exec(select(Pair).where(Pair.number == 1, Pair.direction == "NS")).one()
        by_name = s.exec(select(Pair).where(Pair.number == 2, Pair.direction == "EW")).one()
    assert event.name == "Monday pairs"
    assert event.lead_required
    assert event.scoring == "mp"
    assert event.tricks_style == "relative"
    assert (section.tables, section.rounds, section.boards_per_round) == (10, 9, 3)
    assert (pair.player1, pair.member1, pair.player2, pair.member2) == (
        "Anna Jensen",
        "101",
        "Bo Visitor",
        None,
    )
    assert (by_name.player1, by_name.member1) == ("Anna Jensen", "101")
    assert f"/td/s/{section.id}/movement/cards?by=table" in done.text


def test_two_sections_and_a_howell(client: TestClient, engine: Engine) -> None:
    csrf = web_login(client)
    r = create(client, csrf, sections="2", pairs="7", choice="howell", scoring="imps")
    assert r.status_code == 303, r.text
    with Session(engine) as s:
        sections = list(s.exec(select(Section).order_by(col(Section.letter))))
        event = s.exec(select(Event)).one()
    assert [x.letter for x in sections] == ["A", "B"]
    assert {(x.movement_kind, x.tables, x.rounds) for x in sections} == {("howell", 4, 7)}
    assert event.scoring == "imps"


def test_a_movement_that_does_not_fit_is_refused_and_nothing_is_stored(
    client: TestClient, engine: Engine
) -> None:
    csrf = web_login(client)
    r = create(client, csrf, pairs="7", choice="hesitation")
    assert r.status_code == 303
    page = client.get(r.headers["location"])
    assert "does not fit 7 pairs in 210 minutes" in page.text
    assert events(engine) == []


def test_names_with_markup_or_control_characters_are_refused_and_nothing_is_stored(
    client: TestClient, engine: Engine
) -> None:
    csrf = web_login(client)
    for bad in ("<b>Anna</b>", "Anna\x07Jensen"):
        page = create(client, csrf, n_A_3EW_1=bad, n_A_3EW_2="Bo")
        assert page.status_code == 422
        assert "Section A, pair 3EW: a name may not hold markup" in page.text
        assert 'value="Bo"' in page.text  # the form keeps what was typed
    assert events(engine) == []


def test_a_movement_file_is_imported_and_a_broken_one_names_its_line(
    client: TestClient, engine: Engine
) -> None:
    csrf = web_login(client)
    good = "section,table,round,ns,ew,boards\nA,1,1,1,2,1-3\nA,2,1,3,4,4-6\n"
    good += "A,1,2,1,3,7-9\nA,2,2,2,4,10-12\n"
    broken = good.replace("A,2,2,2,4,10-12", "A,2,2,2,4,10-twelve")
    page = create(client, csrf, {"movement_file": ("m.csv", broken)}, choice="import")
    assert page.status_code == 422
    assert "The movement file: line 5:" in page.text
    clash = good.replace("A,1,2,1,3,7-9", "A,1,2,1,3,4-6")
    page = create(client, csrf, {"movement_file": ("m.csv", clash)}, choice="import")
    assert "line 4: round 2, table 1, pair 3: plays board 4 again" in page.text
    assert events(engine) == []
    r = create(client, csrf, {"movement_file": ("m.csv", good)}, choice="import")
    assert r.status_code == 303, r.text
    with Session(engine) as s:
        section = s.exec(select(Section)).one()
    assert (section.tables, section.rounds, section.boards_per_round) == (2, 2, 3)


def test_hand_records_go_onto_the_boards_and_a_broken_file_is_refused(
    client: TestClient, engine: Engine
) -> None:
    csrf = web_login(client)
    broken = PBN.replace('[Board "1"]', '[Board "one"]').replace('[Board "2"]', '[Board "two"]')
    page = create(client, csrf, {"pbn_file": ("h.pbn", broken)})
    assert page.status_code == 422
    assert "The hand-record file: line 2:" in page.text
    assert "is not a board number" in page.text
    assert "nothing usable left" in page.text
    assert events(engine) == []
    r = create(client, csrf, {"pbn_file": ("h.pbn", PBN)})
    assert r.status_code == 303
    assert "deals: 2" in client.get(r.headers["location"]).text
    with Session(engine) as s:
        dealt = s.exec(select(Board).where(col(Board.deal).is_not(None))).all()
    assert sorted(b.number for b in dealt) == [1, 2]
    assert dealt[0].deal is not None
    assert dealt[0].deal.startswith("N:AKQJT98765432")


def test_one_broken_board_of_a_hand_record_file_is_named_and_the_rest_stored(
    client: TestClient, engine: Engine
) -> None:
    """Issue 16: one bad board no longer refuses the file; the notice names it."""
    csrf = web_login(client)
    broken = PBN.replace('[Board "2"]', '[Board "two"]')
    r = create(client, csrf, {"pbn_file": ("h.pbn", broken)})
    assert r.status_code == 303
    done = client.get(r.headers["location"]).text
    assert "deals: 1. Hand records: 1 read, 1 refused: line 6: &#39;two&#39; is not a board" in done
    with Session(engine) as s:
        dealt = s.exec(select(Board).where(col(Board.deal).is_not(None))).all()
    assert sorted(b.number for b in dealt) == [1]


def test_strict_mode_refuses_a_hand_record_file_with_a_refused_board_and_creates_nothing(
    client: TestClient, engine: Engine
) -> None:
    """Issue 16: the TD asked for strict mode (as `traveller score --strict`): one refused
    board refuses the file, the page shows the same summary, and nothing is stored."""
    csrf = web_login(client)
    broken = PBN.replace('[Board "2"]', '[Board "two"]')
    page = create(client, csrf, {"pbn_file": ("h.pbn", broken)}, strict_hand_records="on")
    assert page.status_code == 422
    assert (
        "The hand-record file: 1 read, 1 refused: line 6: &#39;two&#39; is not a board number"
        in page.text
    )
    assert "Strict mode: nothing was created." in page.text
    assert 'name="strict_hand_records" checked' in page.text  # kept for the next try
    assert events(engine) == []
    with Session(engine) as s:
        assert s.exec(select(Board)).all() == []
    # A whole file passes strict mode, and the notice gives the same summary.
    r = create(client, csrf, {"pbn_file": ("h.pbn", PBN)}, strict_hand_records="on")
    assert r.status_code == 303, r.text
    done = client.get(r.headers["location"]).text
    assert "deals: 2. Hand records: 2 read, 0 refused." in done
    assert len(events(engine)) == 1


def test_strict_mode_is_off_unless_asked_and_offered_on_the_files_step(
    client: TestClient, engine: Engine
) -> None:
    csrf = web_login(client)
    page = client.get("/td/setup/details", params={**STEP1, "choice": "mitchell"})
    assert page.status_code == 200
    assert 'name="strict_hand_records" >' in page.text  # not checked
    assert "Strict: if any board of the file is refused, create nothing" in page.text
    broken = PBN.replace('[Board "2"]', '[Board "two"]')
    r = create(client, csrf, {"pbn_file": ("h.pbn", broken)})
    assert r.status_code == 303
    assert len(events(engine)) == 1


def test_the_wizard_speaks_the_chosen_language(client: TestClient) -> None:
    web_login(client)
    page = client.get("/td/setup/movements", params={**STEP1, "lang": "da"})
    assert "Turneringsplaner, der passer" in page.text
    assert "19 runder kræver 38 spil eller flere; tiden giver plads til 28 spil" in page.text
    assert "to vindere (N/S og Ø/V)" in page.text


def test_a_team_match_is_offered_for_four_pairs_without_a_pairs_balance(
    client: TestClient, engine: Engine
) -> None:
    csrf = web_login(client)
    page = client.get("/td/setup/movements", params={**STEP1, "pairs": "4"})
    match = page.text.split('data-key="team-match"', 1)[1].split("</label>", 1)[0]
    assert "Team match (two rooms)" in match
    assert "data-balance" not in match
    assert 'data-key="individual"' in page.text
    r = create(client, csrf, pairs="4", choice="team-match")
    assert r.status_code == 303
    with Session(engine) as s:
        section = s.exec(select(Section)).one()
    assert (section.movement_kind, section.tables) == ("teams", 2)


def test_every_choice_of_the_details_step_has_words_not_its_option_name(
    client: TestClient,
) -> None:
    """English has no catalogue: an option shown through `_(name)` would show "mp-american"."""
    web_login(client)
    for lang, american in (("en", "Matchpoints, American scale"), ("da", "parpoint, amerikansk")):
        page = client.get(
            "/td/setup/details", params={**STEP1, "choice": "mitchell", "lang": lang}
        ).text
        options = re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', page)
        shown = dict(options)
        for name in ("mp-american", "total", "first_round", "every_round"):
            assert shown[name], (lang, name)
            assert shown[name] != name, (lang, name)
        assert shown["mp-american"] == american
        assert not any(value == label for value, label in options if "_" in value or "-" in value)
