"""Mid-session changes from the TD's console (issue 15, item 2): each previewed with the new
grid and its balance, applied with a second click, refused on the page when it would touch a
round already started, and audited."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from tests.support.api import Club, open_club
from tests.support.web import web_login
from tests.web.test_web_forms import post


def movement(club: Club) -> dict[str, Any]:
    """The stored movement, as the JSON API reads it back."""
    r = club.td("GET", f"/api/v1/sections/{club.section_id}/movement")
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def seat(club: Club, round_: int, table: int) -> tuple[str | None, str | None, list[int]]:
    for a in movement(club)["movement"]["assignments"]:
        if a["round"] == round_ and a["table"] == table:
            return a["ns"], a["ew"], a["boards"]
    raise AssertionError(f"no table {table} in round {round_}")


def rounds_of(club: Club, pair: str) -> list[int]:
    return sorted(
        a["round"] for a in movement(club)["movement"]["assignments"] if pair in (a["ns"], a["ew"])
    )


def preview(client: TestClient, club: Club, **fields: str) -> Any:
    return client.get(f"/td/s/{club.section_id}/changes/preview", params=fields)


def test_the_changes_page_is_reached_from_the_movement_page(client: TestClient, club: Club) -> None:
    web_login(client)
    moves = client.get(f"/td/s/{club.section_id}/movement").text
    assert f'href="/td/s/{club.section_id}/changes"' in moves
    page = client.get(f"/td/s/{club.section_id}/changes").text
    for form in ("late_pair", "late_table", "pair_left", "swap", "stop_after", "boards_per_round"):
        assert f'id="change-{form}"' in page, form
    assert "Round 1 has started and stays as it is: a change takes effect from round 2." in page


def test_a_pair_leaves_and_a_late_pair_takes_its_seat_previewed_then_audited(
    client: TestClient, club: Club
) -> None:
    csrf = web_login(client)
    base = f"/td/s/{club.section_id}"
    page = preview(client, club, kind="pair_left", pair="3EW", from_round="2")
    assert page.status_code == 200
    assert "Pair 3EW has left: from round 2 its opponents sit out." in page.text
    assert "chg-changed" in page.text
    assert rounds_of(club, "3EW") == [1, 2, 3, 4, 5]  # a preview stores nothing
    page = post(client, base + "/changes", csrf, kind="pair_left", pair="3EW", from_round="2")
    assert "Movement changed" in page.text
    assert rounds_of(club, "3EW") == [1]
    page = post(client, base + "/changes", csrf, kind="pair_left", pair="3EW", from_round="2")
    assert "nothing to do" in page.text  # the same form sent twice (a double click)

    page = preview(client, club, kind="late_pair", pair="11")
    assert page.status_code == 200
    assert "Pair 11 joins in the empty seat from round 2." in page.text
    assert 'id="balance-after"' in page.text
    assert rounds_of(club, "11") == []
    page = post(client, base + "/changes", csrf, kind="late_pair", pair="11", reason="Bo came")
    assert "Movement changed" in page.text
    assert rounds_of(club, "11") == [2, 3, 4, 5]
    assert "11" in page.text  # the movement page's grid shows the new pair

    log = client.get(base + "/audit").text
    assert log.count("Movement changed") == 2
    assert "Bo came" in log
    assert "pair left" in log


def test_a_late_pair_after_the_last_round_started_is_refused_on_the_page(
    client: TestClient, club: Club
) -> None:
    csrf = web_login(client)
    for round_ in range(2, 6):
        club.start_round(round_)
    before = movement(club)
    page = preview(client, club, kind="late_pair", pair="11")
    assert page.status_code == 422
    assert 'id="change-refused"' in page.text
    assert "No round is left to play: the late pair cannot join now." in page.text
    assert 'value="11"' in page.text  # the form keeps what the TD typed
    page = post(client, f"/td/s/{club.section_id}/changes", csrf, kind="late_pair", pair="11")
    assert "flash-error" in page.text
    assert "No round is left to play: the late pair cannot join now." in page.text
    assert movement(club) == before


def test_a_late_pair_with_no_empty_seat_is_told_to_take_a_new_table(
    client: TestClient, club: Club
) -> None:
    web_login(client)
    page = preview(client, club, kind="late_pair", pair="11")
    assert page.status_code == 422
    assert "No seat is empty for pair 11" in page.text
    assert rounds_of(club, "11") == []


def test_a_late_table_shares_boards_with_the_sit_out_pairs_table(
    client: TestClient, club: Club
) -> None:
    csrf = web_login(client)
    base = f"/td/s/{club.section_id}"
    post(client, base + "/changes", csrf, kind="pair_left", pair="3EW", from_round="2")
    page = preview(client, club, kind="late_table", pair="11", share_with="", opponent="")
    assert page.status_code == 200
    assert "Pair 11 joins at a new table 6 from round 2." in page.text
    assert 'data-table="6"' in page.text
    page = post(client, base + "/changes", csrf, kind="late_table", pair="11")
    assert "Movement changed" in page.text
    assert movement(club)["tables"] == 6
    ns, ew, boards = seat(club, 2, 6)
    assert "11" in (ns, ew)
    assert len(boards) == 3


def test_stop_after_and_boards_per_round_change_only_later_rounds(
    client: TestClient, club: Club
) -> None:
    csrf = web_login(client)
    base = f"/td/s/{club.section_id}"
    page = preview(client, club, kind="stop_after", rounds="4")
    assert "The session ends after round 4." in page.text
    post(client, base + "/changes", csrf, kind="stop_after", rounds="4")
    assert movement(club)["rounds"] == 4
    page = preview(client, club, kind="boards_per_round", boards="2", from_round="")
    assert "2 boards a round from round 2." in page.text
    post(client, base + "/changes", csrf, kind="boards_per_round", boards="2", from_round="")
    assert len(seat(club, 1, 1)[2]) == 3
    assert len(seat(club, 2, 1)[2]) == 2
    page = preview(client, club, kind="boards_per_round", boards="2", from_round="1")
    assert page.status_code == 409
    assert "which have started" in page.text


def test_a_swap_in_a_started_round_is_refused_and_changes_nothing(
    client: TestClient, club: Club
) -> None:
    csrf = web_login(client)
    before = movement(club)
    page = preview(client, club, kind="swap", pair="1NS", second="2NS", from_round="1")
    assert page.status_code == 409
    assert "That change would alter rounds 1-1, which have started" in page.text
    page = post(
        client,
        f"/td/s/{club.section_id}/changes",
        csrf,
        kind="swap",
        pair="1NS",
        second="2NS",
        from_round="1",
    )
    assert "flash-error" in page.text
    assert movement(club) == before


def test_two_pairs_who_sat_at_each_others_table_are_swapped_before_play(
    client: TestClient, engine: Engine
) -> None:
    club = open_club(client, engine)  # round 1 not started yet
    csrf = web_login(client)
    assert seat(club, 1, 1)[0] == "1NS"
    page = preview(client, club, kind="swap", pair="1NS", second="2NS", from_round="")
    assert page.status_code == 200
    assert "Pairs 1NS and 2NS swap places from round 1." in page.text
    page = post(
        client, f"/td/s/{club.section_id}/changes", csrf, kind="swap", pair="1NS", second="2NS"
    )
    assert "Movement changed" in page.text
    assert seat(club, 1, 1)[0] == "2NS"
    assert seat(club, 1, 2)[0] == "1NS"
    log = client.get(f"/td/s/{club.section_id}/audit").text
    assert "pairs swapped" in log


def test_bad_change_input_gets_a_clear_message_and_changes_nothing(
    client: TestClient, club: Club
) -> None:
    csrf = web_login(client)
    before = movement(club)
    page = preview(client, club, kind="late_pair", pair="<b>x</b>")
    assert page.status_code == 422
    assert "is not a pair: use 7, 3NS or 3EW" in page.text
    assert "<b>x</b>" not in page.text
    page = preview(client, club, kind="pair_left", pair="3EW", from_round="two")
    assert page.status_code == 422
    assert "is not a whole number" in page.text
    page = preview(client, club, kind="teleport")
    assert page.status_code == 422
    page = post(client, f"/td/s/{club.section_id}/changes", csrf, kind="swap", pair="1NS")
    assert "flash-error" in page.text
    assert movement(club) == before


#: A refused change and the start of its reason in each language (the engine's English
#: sentence never reaches the page).
REFUSED_IN_EVERY_LANGUAGE = {
    "en": "Round 2, table ",
    "da": "Runde 2, bord ",
    "nb": "Runde 2, bord ",
    "de": "Runde 2, Tisch ",
    "ru": "Раунд 2, стол ",
}


def test_a_refused_change_gives_its_reason_in_the_tds_language(
    client: TestClient, club: Club
) -> None:
    web_login(client)
    before = movement(club)
    for lang, start in REFUSED_IN_EVERY_LANGUAGE.items():
        page = preview(client, club, kind="swap", pair="1NS", second="2NS", lang=lang)
        assert page.status_code == 422, lang
        reason = page.text.split('id="change-refused"', 1)[1].split("</div>", 1)[0]
        assert start in reason, (lang, reason)
        assert "plays board" not in reason  # the engine's words
    assert movement(club) == before


def test_each_kind_of_refusal_has_its_own_words_on_the_page(
    client: TestClient, engine: Engine
) -> None:
    """The engine's refusals of a change, provoked through the page, each reworded
    (``error_words.MOVEMENT_REFUSALS``) and shown in Danish."""
    club = open_club(client, engine, tables=4, bpr=2)  # an even Mitchell: no empty seat
    web_login(client)
    cases = [
        ({"kind": "late_pair", "pair": "9"}, "Der er ingen tom plads til par 9"),
        ({"kind": "pair_left", "pair": "7NS", "from_round": "1"}, "Par 7NS er ikke i"),
        ({"kind": "late_pair", "pair": "1NS"}, "Par 1NS er allerede i turneringsplanen"),
        ({"kind": "stop_after", "rounds": "9"}, "Antallet af runder skal være mellem 1 og"),
        ({"kind": "swap", "pair": "2EW", "second": "2EW"}, "Vælg to forskellige par"),
        ({"kind": "late_table", "pair": "9", "share_with": "7"}, "Der er intet bord 7"),
    ]
    for fields, words in cases:
        page = preview(client, club, lang="da", **fields)
        assert page.status_code == 422, (fields, page.status_code)
        reason = page.text.split('id="change-refused"', 1)[1].split("</div>", 1)[0]
        assert words in reason, (fields, reason)


def test_a_change_refused_when_applied_is_told_in_the_tds_language(
    client: TestClient, club: Club
) -> None:
    """The apply step checks again; its refusal comes back as the next page's notice, in the
    TD's language (here Danish, the language switcher's cookie)."""
    csrf = web_login(client)
    before = movement(club)
    client.cookies.set("traveller_lang", "da")
    page = post(
        client, f"/td/s/{club.section_id}/changes", csrf, kind="swap", pair="1NS", second="2NS"
    )
    notice = page.text.split('class="flash flash-error"', 1)[1].split("</div>", 1)[0]
    assert "Runde 2, bord " in notice
    assert "spille spil" in notice
    assert movement(club) == before
