"""The wizard sets up a round-robin teams event: one section whose rounds are the rounds of the
circle-method schedule, the teams stored and named, each pair linked to its team; Swiss is
listed with the reason it is not offered."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, select

from server.models import MovementAssignment, Pair, Result, Section, Team
from tests.web.conftest import web_login
from tests.web.test_wizard_forms import STEP1, create, events

TEAMS6 = {**STEP1, "name": "Club teams", "pairs": "12"}


def test_a_round_robin_is_offered_for_six_teams_and_swiss_says_why_not(
    client: TestClient,
) -> None:
    web_login(client)
    page = client.get("/td/setup/movements", params=TEAMS6)
    assert page.status_code == 200
    rr = page.text.split('data-key="teams-round-robin"', 1)[1].split("</label>", 1)[0]
    assert "Round-robin teams" in rr
    assert "Round robin, 6 teams" in rr
    for fact in ("6 tables", "5 rounds", "5 boards a round"):
        assert fact in rr
    assert "data-balance" not in rr
    assert "Swiss pairs each round from the match VPs" in page.text
    details = client.get("/td/setup/details", params={**TEAMS6, "choice": "teams-round-robin"})
    assert details.status_code == 200
    assert 'name="team_6"' in details.text
    assert 'name="team_7"' not in details.text
    assert 'name="n_A_6EW_2"' in details.text
    assert '<option value="imps" selected' in details.text


def test_the_round_robin_event_is_stored_with_its_teams(client: TestClient, engine: Engine) -> None:
    csrf = web_login(client)
    r = create(
        client,
        csrf,
        **{**TEAMS6, "choice": "teams-round-robin", "scoring": "imps"},
        team_1="Aces",
        team_4="O'Brien four",
        n_A_1NS_1="Anna",
        n_A_1EW_1="Bo",
    )
    assert r.status_code == 303, r.text
    with Session(engine) as s:
        section = s.exec(select(Section)).one()
        assert (section.movement_kind, section.tables, section.rounds) == ("teams", 6, 5)
        assert section.boards_per_round == 5
        teams = {t.number: t for t in s.exec(select(Team))}
        assert sorted(teams) == [1, 2, 3, 4, 5, 6]
        assert (teams[1].name, teams[4].name, teams[2].name) == ("Aces", "O'Brien four", "")
        pairs = list(s.exec(select(Pair)))
        assert len(pairs) == 12
        for pair in pairs:
            assert pair.team_id == teams[pair.number].id
        cells = list(s.exec(select(MovementAssignment)))
    # Every team meets every other once, open and closed rooms side by side.
    team_of = {p.id: p.number for p in pairs}
    met = {
        frozenset((team_of[c.ns_pair_id], team_of[c.ew_pair_id]))
        for c in cells
        if c.table_number % 2 == 1 and c.ns_pair_id and c.ew_pair_id
    }
    assert len(met) == 15


def test_a_round_robin_over_two_sections_or_with_markup_in_a_name_stores_nothing(
    client: TestClient, engine: Engine
) -> None:
    csrf = web_login(client)
    page = create(client, csrf, **{**TEAMS6, "sections": "2", "choice": "teams-round-robin"})
    assert page.status_code == 422
    assert "A teams event is set up as one section" in page.text
    page = create(client, csrf, **{**TEAMS6, "choice": "teams-round-robin"}, team_2="<b>x</b>")
    assert page.status_code == 422
    assert "Team 2: a name may not hold markup" in page.text
    assert events(engine) == []


def test_the_matches_page_shows_imps_vps_and_the_standings(
    client: TestClient, engine: Engine
) -> None:
    csrf = web_login(client)
    r = create(client, csrf, **{**TEAMS6, "choice": "teams-round-robin", "bpr": "2"}, team_1="Aces")
    assert r.status_code == 303, r.text
    done = client.get(r.headers["location"])
    with Session(engine) as s:
        section = s.exec(select(Section)).one()
        sid = section.id or 0
        assert f'href="/td/s/{sid}/teams"' in done.text
        cells = {
            c.table_number: c
            for c in s.exec(select(MovementAssignment).where(MovementAssignment.round == 1))
        }
        numbers = {p.id: p.number for p in s.exec(select(Pair))}
        for table, tricks in ((1, 10), (2, 9)):  # match 1: 4S made, then one down
            for board in cells[table].boards_listed():
                s.add(
                    Result(
                        section_id=sid,
                        table_number=table,
                        round=1,
                        board=board,
                        ns_pair_id=cells[table].ns_pair_id,
                        ew_pair_id=cells[table].ew_pair_id,
                        contract="4S",
                        declarer="N",
                        tricks=tricks,
                        state="confirmed",
                    )
                )
        home = numbers[cells[1].ns_pair_id]
        s.commit()
    page = client.get(f"/td/s/{sid}/teams")
    assert page.status_code == 200
    row = page.text.split(f'data-round="1" data-home="{home}"', 1)[1].split("</tr>", 1)[0]
    # Boards 1-2: +420 v -50 (10 IMPs), +620 v -100 (12 IMPs): 22-0 over two boards.
    assert "22–0" in row
    assert "20.00–0.00" in row
    standings = page.text.split('id="team-standings"', 1)[1].split("</table>", 1)[0]
    first = standings.split("<tr data-team=", 2)[1]
    assert first.startswith(f'"{home}"')
    assert "20.00" in first
    assert "Aces" in page.text


def test_the_matches_page_of_a_pairs_section_says_it_is_not_teams(client: TestClient) -> None:
    csrf = web_login(client)
    r = create(client, csrf)
    assert r.status_code == 303
    sid = r.headers["location"].split("sections=", 1)[1]
    page = client.get(f"/td/s/{sid}/teams")
    assert page.status_code == 422
    assert "This section is not a teams movement." in page.text
