"""L1 and L4 of issue 14: a deduction is bounded by the rules (at most 5 standard deductions,
§ X90B3; one board's greatest score in total points, Law 77). 1e26, 1e999, inf and NaN are
refused with a 4xx and store nothing; a row stored before the bounds leaves every ranking view
and the penalties page answering, where the TD can still withdraw it."""

# ruff: noqa: F811  (the server fixtures, imported, are parameters here)
from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from server import scoring
from server.core.db import transact
from server.core.errors import InvalidError
from server.core.models import Pair, Sanction
from server.services.event import setup
from server.services.results import exports, standings
from server.services.td import sanctions
from tests.support.api import Club, client, club, engine  # noqa: F401 (fixtures)
from tests.support.web import web_login

HOSTILE_AMOUNTS = ["1e26", "1e999", "inf", "-inf", "nan", "NaN", "1/0", "²", "0", "-1", "4.1"]
"""In a 5-table Mitchell a top is 8 matchpoints: 5 standard deductions are 4."""


def _stored(club: Club) -> list[Sanction]:
    return transact(
        club.engine,
        lambda s: list(s.exec(select(Sanction).where(Sanction.section_id == club.section_id))),
    )


def _deduct(club: Club, amount: str) -> Any:
    return transact(
        club.engine,
        lambda s: sanctions.deduct(
            s, setup.get_section(s, club.section_id), pair_key="1NS", amount=amount, reason="x"
        ),
    )


@pytest.mark.parametrize("amount", HOSTILE_AMOUNTS)
def test_an_out_of_range_or_non_finite_deduction_is_refused(club: Club, amount: str) -> None:
    with pytest.raises(InvalidError) as refused:
        _deduct(club, amount)
    assert refused.value.status == 422
    assert refused.value.code in ("invalid_amount", "amount_too_large")
    assert _stored(club) == []


def test_the_largest_legal_deduction_is_taken(club: Club) -> None:
    _deduct(club, "4")  # 5 standard deductions of 0.8 (10 % of a top of 8)
    assert [row.amount for row in _stored(club)] == ["4"]


def test_total_points_are_bounded_by_one_boards_greatest_score() -> None:
    assert scoring.largest_deduction(None) == 2980  # 7NTXX made, vulnerable (Law 77)
    assert scoring.largest_deduction(Fraction(4, 5)) == 4
    assert scoring.largest_deduction(Fraction(2000)) == 2980


@pytest.mark.parametrize("amount", ["1e26", "1e999", "inf", "nan"])
def test_the_penalty_form_refuses_it_with_a_notice(
    client: TestClient, club: Club, amount: str
) -> None:
    csrf = web_login(client)
    r = client.post(
        f"/td/s/{club.section_id}/penalties/deduct",
        data={"csrf": csrf, "pair": "1NS", "amount": amount, "reason": "slow play"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    page = client.get(r.headers["location"])
    assert page.status_code == 200
    assert "flash-error" in page.text
    assert _stored(club) == []


@pytest.mark.parametrize(
    "stored",
    [
        pytest.param("100000000000000000000000000", id="1e26"),
        pytest.param("1" + "0" * 31, id="1e31"),  # the most the 32-character column holds
        pytest.param("nan", id="nan"),
        pytest.param("-5", id="negative"),
    ],
)
def test_a_legacy_out_of_range_row_leaves_every_view_answering(
    client: TestClient, club: Club, stored: str
) -> None:
    """A deduction stored before the bounds (the row as the old code wrote it) is left out of
    the standings; the ranking views, exports and the penalties page answer, and the TD can
    withdraw it from that page."""

    def plant(s: Session) -> int:
        pair = s.exec(
            select(Pair).where(Pair.section_id == club.section_id, Pair.number == 1)
        ).first()
        assert pair is not None
        row = Sanction(
            section_id=club.section_id,
            pair_id=pair.id or 0,
            kind="211",
            warning=False,
            amount=stored,
            reason="legacy",
        )
        s.add(row)
        s.flush()
        return row.id or 0

    sanction_id = transact(club.engine, plant)
    sid = club.section_id
    for path in (
        f"/api/v1/results/{sid}/ranking",
        f"/api/v1/sections/{sid}/ranking",
    ):
        r = club.td("GET", path)
        assert r.status_code == 200, (path, r.text)
        assert all(line["penalty"] == 0 for g in r.json()["groups"] for line in g["lines"])
    csrf = web_login(client)
    for path in (
        f"/results/{sid}",
        f"/td/s/{sid}/ranking",
        f"/td/s/{sid}/penalties",
        f"/td/s/{sid}/publish/export/ranking",
        f"/td/s/{sid}/publish/export/pbn",
    ):
        r = client.get(path)
        assert r.status_code == 200, (path, r.text[:300])
    assert "not applied" in client.get(f"/td/s/{sid}/penalties").text
    data = transact(club.engine, lambda s: standings.load(s, setup.get_section(s, sid)))
    assert data.penalties == {}
    assert exports.export(data, "usebio").content.startswith(b"<?xml")

    lines = transact(club.engine, lambda s: sanctions.sanctions(s, setup.get_section(s, sid)))
    assert [(line.id, line.applied) for line in lines] == [(sanction_id, False)]
    r = client.post(
        f"/td/s/{sid}/penalties/{sanction_id}/withdraw",
        data={"csrf": csrf, "reason": "stored by mistake"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    assert all(row.withdrawn_at is not None for row in _stored(club))


@pytest.mark.parametrize("value", ["inf", "-inf", "Infinity", "nan", "1e999", "1e999999"])
def test_an_adjusted_scores_percentage_or_weight_is_finite(club: Club, value: str) -> None:
    """The TD API's assigned and weighted scores (§ X78A): a weight or E/W percentage of
    "inf" raised OverflowError (a 500); "1e999999" built a million-digit number."""
    club.start_round(1)
    path = f"/api/v1/sections/{club.section_id}/results/score"
    part = {"contract": "4S", "declarer": "S", "tricks": 10}
    for body in (
        {"ns": [part], "ew_percent": value},
        {"ns": [{**part, "weight": value}, {**part, "weight": "40", "tricks": 9}]},
    ):
        r = club.td("POST", path, json={"table": 1, "round": 1, "board": 1, "reason": "x", **body})
        assert r.status_code == 422, r.text
        assert r.json()["code"] in ("invalid_weight", "invalid_request")
        assert len(r.json()["message"]) < 200
    results = club.td("GET", f"/api/v1/sections/{club.section_id}/results").json()
    assert all(r["state"] != "adjusted" for r in results)
