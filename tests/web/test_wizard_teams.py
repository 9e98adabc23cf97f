"""The wizard sets up a round-robin teams event: one section whose rounds are the rounds of the
circle-method schedule, the teams stored and named, each pair linked to its team; the matches
page with its IMPs, VPs and standings; a Swiss paired round by round from that page."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, select

from server.core.models import MovementAssignment, Pair, Result, Section, Team
from tests.support.web import web_login
from tests.web.test_wizard_forms import STEP1, create, events

TEAMS6 = {**STEP1, "name": "Club teams", "pairs": "12"}


def test_a_round_robin_and_a_swiss_are_offered_for_six_teams(
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
    assert "Swiss teams, 6 teams, 4 rounds" in page.text
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


def test_a_swiss_is_paired_from_the_matches_page(client: TestClient, engine: Engine) -> None:
    csrf = web_login(client)
    r = create(client, csrf, **{**TEAMS6, "pairs": "8", "choice": "teams-swiss", "bpr": "2"})
    assert r.status_code == 303, r.text
    with Session(engine) as s:
        section = s.exec(select(Section)).one()
        sid = section.id or 0
    page = client.get(f"/td/s/{sid}/teams")
    assert 'id="swiss-pair"' in page.text
    assert "Pair round 1" in page.text
    assert 'data-unpaired="2"' in page.text  # the placeholder pairing is not shown
    refused = client.post(f"/td/s/{sid}/teams/pair", data={"csrf": csrf}, follow_redirects=True)
    assert "Round 1 is paired by team number: start it." in refused.text
    started = client.post(
        f"/td/s/{sid}/rounds/start",
        data={"csrf": csrf, "round": "1", "confirmed": "yes"},
        follow_redirects=True,
    )
    assert "Round 1 started." in started.text
    with Session(engine) as s:
        cells = s.exec(select(MovementAssignment).where(MovementAssignment.round == 1)).all()
        for c in cells:
            for board in c.boards_listed():
                s.add(
                    Result(
                        section_id=sid,
                        table_number=c.table_number,
                        round=1,
                        board=board,
                        ns_pair_id=c.ns_pair_id,
                        ew_pair_id=c.ew_pair_id,
                        contract="4S",
                        declarer="N",
                        tricks=10 if c.table_number == 1 else 9,
                        state="confirmed",
                    )
                )
        s.commit()
    paired = client.post(f"/td/s/{sid}/teams/pair", data={"csrf": csrf}, follow_redirects=True)
    assert "The next round is paired from the standings." in paired.text
    assert "Pair round 2 again" in paired.text  # round 1 is in play: after a correction
    assert 'data-unpaired="3"' in paired.text  # round 3 waits for round 2's standings
    assert 'data-round="3"' not in paired.text
    with Session(engine) as s:
        numbers = {p.id: p.number for p in s.exec(select(Pair))}
        second = {
            frozenset((numbers[c.ns_pair_id], numbers[c.ew_pair_id]))
            for c in s.exec(select(MovementAssignment).where(MovementAssignment.round == 2))
            if c.table_number % 2 == 1 and c.ns_pair_id and c.ew_pair_id
        }
    # Team 1 won (home at table 1); 3 and 4 drew; 2 lost: 1 v 3 and 2 v 4 (no repeats).
    assert second == {frozenset((1, 3)), frozenset((2, 4))}
