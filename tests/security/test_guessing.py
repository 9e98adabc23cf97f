"""Guessing the server's secrets from the club's LAN (issue 14: M1, M4, M6, L6): the pairing
codes, the TD password and the Data Connector's licence key, from one address or from many; and
the strength the server demands of its own secrets before it starts."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
import uvicorn
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session
from starlette.requests import Request
from typer.testing import CliRunner

from server.app import create_app
from server.core.config import ConfigError, Settings, check
from server.dataconnector.router import own_app
from server.limits import ratelimit
from server.ops.deploy_cli import serve
from server.services import tokens
from tests.support.api import Club, open_club
from tests.support.app_factory import AppFactory
from tests.support.env import TD_PASSWORD

CLUB_ID = "club-4711"
LICENCE = "licence-for-tests"


@pytest.fixture
def engine(apps: AppFactory, tmp_path: Path) -> Engine:
    return apps.engine(f"sqlite:///{tmp_path / 'guess.db'}")


@pytest.fixture
def client(apps: AppFactory, engine: Engine) -> TestClient:
    settings = Settings(td_password=TD_PASSWORD, dc_club_id=CLUB_ID, dc_license=LICENCE, dc_port=0)
    return apps.client(engine, settings)


@pytest.fixture
def club(client: TestClient, engine: Engine) -> Club:
    made = open_club(client, engine, tables=3, bpr=2)
    made.start_round(1)
    return made


def at(client: TestClient, host: str) -> TestClient:
    """The same server, seen from another address of the LAN."""
    return TestClient(client.app, client=(host, 40000))


def wrong_codes(club: Club) -> Iterator[str]:
    """Codes of the right shape that no table has."""
    real = set(club.section["pairing_codes"].values())
    return (f"{n:010d}" for n in range(10**10 - 1, 0, -1) if f"{n:010d}" not in real)


# ---------------------------------------------------------------------------- M1: pairing


def test_a_pairing_code_has_ten_digits(club: Club) -> None:
    codes = list(club.section["pairing_codes"].values())
    assert all(len(code) == 10 and code.isdigit() for code in codes)
    with Session(club.engine) as s:
        assert len(tokens.new_pairing_code(s)) == 10


def test_new_pairing_codes_are_drawn_again_when_taken_or_drawn_twice(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A section's tables get their codes in one batch: a code another table holds, or one
    drawn twice in the batch, is drawn again."""
    taken = club.section["pairing_codes"]["1"]
    draws = iter([taken, "0000000001", "0000000001", "0000000002", "0000000003"])
    monkeypatch.setattr(tokens, "_random_code", lambda: next(draws))
    with Session(club.engine) as s:
        codes = tokens.new_pairing_codes(s, 3)
    assert sorted(codes) == ["0000000001", "0000000002", "0000000003"]
    with Session(club.engine) as s:
        assert tokens.new_pairing_codes(s, 0) == []


def test_pairing_guesses_from_many_addresses_meet_an_overall_back_off(club: Club) -> None:
    """400 addresses x 20 guesses paired a table; now 100 wrong codes from everyone hold every
    address that has guessed wrong twice, even when it then keys a right code."""
    real = club.section["pairing_codes"]["1"]
    guesses = wrong_codes(club)
    for n in range(60):  # 120 wrong codes: 2 from each of 60 addresses
        guesser = at(club.client, f"10.1.0.{n + 1}")
        for _ in range(2):
            r = guesser.post("/api/v1/table/pair", json={"code": next(guesses)})
            assert (r.status_code, r.json()["code"]) == (404, "pairing_code_unknown")
    r = at(club.client, "10.1.0.1").post("/api/v1/table/pair", json={"code": real})
    assert (r.status_code, r.json()["code"]) == (429, "rate_limited")
    assert "try again in" in r.json()["message"]
    # The TD's new device, which has keyed nothing wrong (or one typo), still pairs.
    device = at(club.client, "10.2.0.1")
    r = device.post("/api/v1/table/pair", json={"code": next(guesses)})
    assert r.status_code == 404
    r = device.post("/api/v1/table/pair", json={"code": real})
    assert (r.status_code, r.json()["table"]) == (200, 1)


def test_one_address_backs_off_exponentially() -> None:
    limiter = ratelimit.GuessLimiter(per_client=5, overall=1000)
    for _ in range(5):
        assert limiter.retry_after("a", now=0) == 0
        limiter.failed("a", now=0)
    waits = []
    now = 0.0
    for _ in range(7):
        wait = limiter.retry_after("a", now=now)
        waits.append(wait)
        now += wait
        assert limiter.retry_after("a", now=now) == 0
        limiter.failed("a", now=now)
    assert waits == [30, 60, 120, 240, 480, 900, 900]
    assert limiter.retry_after("a", now=now + 86_400) == 0  # a quiet day forgets it
    for _ in range(2000):  # a long flood keeps the longest wait (and never overflows)
        limiter.failed("b", now=now)
    assert limiter.retry_after("b", now=now) == 900


def test_a_day_of_guessing_from_400_addresses_reaches_the_check_about_1000_times() -> None:
    """Every address of the flood guesses whenever it is let: the codes it gets to try in a
    day, against 10^10 codes of which 50 belong to tables waiting to pair, leave the expected
    time to pair one at centuries."""
    limiter = ratelimit.GuessLimiter()
    addresses = [f"10.9.{n // 250}.{n % 250}" for n in range(400)]
    checked, now, day, step = 0, 0.0, 86_400.0, 60.0
    while now < day:
        for host in addresses:
            if limiter.retry_after(host, now=now) == 0:
                limiter.failed(host, now=now)
                checked += 1
        now += step
    assert checked < 2 * len(addresses) + 200  # two each, then one a quarter of an hour
    expected_guesses = 10**tokens.PAIRING_CODE_DIGITS / (50 + 1)
    years = expected_guesses / checked / 365
    assert years > 100, (checked, years)


def test_an_ipv6_network_counts_as_one_guesser() -> None:
    def conn(host: str) -> Request:
        return Request({"type": "http", "client": (host, 1), "headers": []})

    assert ratelimit.guesser(conn("2001:db8::1")) == ratelimit.guesser(conn("2001:db8::ff:2"))
    assert ratelimit.guesser(conn("2001:db8:0:1::1")) != ratelimit.guesser(conn("2001:db8::1"))
    assert ratelimit.guesser(conn("::ffff:10.0.0.7")) == "10.0.0.7"
    assert ratelimit.guesser(conn("10.0.0.7")) == "10.0.0.7"


def test_the_overall_hold_is_off_while_a_flood_overflows_the_memory() -> None:
    limiter = ratelimit.GuessLimiter(per_client=5, overall=10, capacity=20)
    for n in range(19):
        limiter.failed(f"a{n}", now=0)
    assert limiter.retry_after("fresh", now=0) == 0
    limiter.failed("a19", now=0)
    assert limiter.retry_after("fresh", now=0) > 0  # more addresses than it remembers


# ------------------------------------------------------------------------------- M4: login


def web_login(client: TestClient, password: str) -> int:
    form = client.get("/td/login")
    nonce = form.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    data = {"password": password, "csrf": nonce}
    return client.post("/td/login", data=data, follow_redirects=False).status_code


def test_seven_addresses_cannot_lock_the_td_out_of_the_web_login(client: TestClient) -> None:
    flood = [at(client, f"10.3.0.{n + 1}") for n in range(7)]
    for guesser in flood:
        assert [web_login(guesser, "guess-" + secrets.token_hex(4)) for _ in range(5)] == [401] * 5
    assert web_login(flood[0], TD_PASSWORD) == 429  # the guessers wait
    assert web_login(at(client, "10.3.1.1"), TD_PASSWORD) == 303  # the TD does not
    r = at(client, "10.3.1.2").post("/api/v1/td/login", json={"password": TD_PASSWORD})
    assert r.status_code == 200


def test_the_web_login_and_the_api_count_the_same_wrong_passwords(client: TestClient) -> None:
    guesser = at(client, "10.5.0.1")
    assert [web_login(guesser, "guess-" + secrets.token_hex(4)) for _ in range(5)] == [401] * 5
    r = guesser.post("/api/v1/td/login", json={"password": TD_PASSWORD})
    assert (r.status_code, r.json()["code"]) == (429, "rate_limited")


def test_a_guess_from_many_addresses_is_held_but_the_td_is_not(client: TestClient) -> None:
    td_laptop = at(client, "10.4.9.9")
    assert td_laptop.post("/api/v1/td/login", json={"password": TD_PASSWORD}).status_code == 200
    for n in range(60):  # 120 wrong passwords, 2 from each of 60 addresses
        guesser = at(client, f"10.4.0.{n + 1}")
        for _ in range(2):
            r = guesser.post("/api/v1/td/login", json={"password": "guess-" + secrets.token_hex(4)})
            assert (r.status_code, r.json()["code"]) == (401, "td_password_wrong")
    r = at(client, "10.4.0.1").post("/api/v1/td/login", json={"password": TD_PASSWORD})
    assert (r.status_code, r.json()["code"]) == (429, "rate_limited")
    assert td_laptop.post("/api/v1/td/login", json={"password": TD_PASSWORD}).status_code == 200
    assert web_login(at(client, "10.4.8.8"), TD_PASSWORD) == 303


# ---------------------------------------------------------------------- M6: Data Connector


def dc_ping(client: TestClient, club_id: str, licence: str) -> dict[str, Any]:
    body = {"Command": 4, "ClubId": club_id, "LicenceKey": licence, "SerializedData": '"1"'}
    r = client.post("/dc/dc-scoringprogram", json=body)
    assert r.status_code == 200
    answer: dict[str, Any] = r.json()
    return answer


def test_wrong_data_connector_credentials_back_off(client: TestClient) -> None:
    guesser = at(client, "10.6.0.1")
    for n in range(10):
        answer = dc_ping(guesser, CLUB_ID, f"licence-guess-{n}")
        assert answer["DataType"] == 4
        assert "Unknown club id or licence key" in json.loads(answer["SerializedData"])
    answer = dc_ping(guesser, CLUB_ID, LICENCE)  # even the right key waits now
    assert answer["DataType"] == 4
    assert "try again in" in json.loads(answer["SerializedData"])
    assert dc_ping(at(client, "10.6.0.2"), CLUB_ID, LICENCE)["DataType"] == 1


def test_the_data_connectors_own_port_counts_with_the_main_server(client: TestClient) -> None:
    main = ratelimit.guards(client.app)
    own = own_app(client.app.state.runtime, main)  # type: ignore[attr-defined]
    assert ratelimit.guards(own).data_connector is main.data_connector


@pytest.mark.parametrize(
    ("club_id", "licence"),
    [(CLUB_ID, "x"), (CLUB_ID, "a" * 16), (CLUB_ID, "1234567890123"), (CLUB_ID, None)],
)
def test_a_weak_data_connector_licence_stops_the_server(club_id: str, licence: str | None) -> None:
    settings = Settings(td_password=TD_PASSWORD, dc_club_id=club_id, dc_license=licence)
    with pytest.raises(ConfigError, match="Data Connector"):
        create_app(settings)


# --------------------------------------------------------------------- L6: the TD password


@pytest.mark.parametrize(
    "password",
    [
        "      ",
        " " * 12,
        "\t\t\t\t\t\t\t\t",
        "abc12",
        "password",
        "Password2026!",
        "change-me-please",
        "12345678",
        "98765432109",
        "aaaaaaaa",
        "abababab",
        "qwertyuiop",
        "abcdefgh",
        "  secret-td-password",
        "traveller1",
    ],
)
def test_a_blank_or_weak_td_password_stops_the_server(password: str) -> None:
    with pytest.raises(ConfigError, match="TRAVELLER_TD_PASSWORD"):
        create_app(Settings(td_password=password))


def test_serve_refuses_a_td_password_of_six_spaces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: served.append(a))
    app = typer.Typer()
    app.command()(serve)
    url = f"sqlite:///{tmp_path / 'x.db'}"
    out = CliRunner().invoke(app, ["--database-url", url], env={"TRAVELLER_TD_PASSWORD": " " * 6})
    assert (out.exit_code, served) == (2, [])
    assert "TRAVELLER_TD_PASSWORD: the TD password is blank" in out.output


def test_good_passwords_and_the_demos_own_still_start() -> None:
    for password in (TD_PASSWORD, "web-td-password", "secret-td", "Ruff-Finesse-7"):
        check(Settings(td_password=password))
    for _ in range(200):  # what `traveller demo` generates
        check(Settings(demo=True, td_password=secrets.token_urlsafe(9)))
