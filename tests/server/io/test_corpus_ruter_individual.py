"""A real individual event scored by Ruter, read as an individual and checked against what
Ruter published.

The file is the PBN that "Ruter i Norge" 4.14.2 wrote for "Høstsingel2022" (Nesodden BK,
2022-10-04): an individual of 20 players at 5 tables, 27 boards each played 5 times,
matchpoints (`[Scoring "MatchPoints;MP1"]`), written with `[Competition "Individuals"]`, a
`[ScoreTable]` keyed by `PlayerId_North` ... `PlayerId_West` and a `[TotalScoreTable]` keyed by
`PlayerId`. Source and licence: tests/data/published/README.md. Traveller reads it with its PBN
reader (server/io/pbn.py) and scores it under the profile the file suggests; nothing published
is used to score.

What the tests found: every one of the 135 lines' four matchpoints is Ruter's (its "MP1" is the
plus-minus scale: our 2-per-beat matchpoints less the 4 comparisons of a board), and every
player's total (on that scale, less 4 x 27 comparisons), percentage and place is Ruter's.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from server.io.formats import load
from server.io.model import EventFile
from server.io.pbn_syntax import split_games, table_rows
from server.io.report import ScoreReport
from server.io.scorefile import score_event
from server.scoring.profiles import RUTER, suggest_profile

RUTER_INDIVIDUAL = "published/ruter_nesodden_bk_2022-10-04_hostsingel_individual.pbn"
BOARDS, TABLES, COMPARISONS = 27, 5, 4


@pytest.fixture(scope="module")
def path() -> Path:
    return Path(__file__).resolve().parents[2] / "data" / RUTER_INDIVIDUAL


@pytest.fixture(scope="module")
def event(path: Path) -> EventFile:
    return load(path)


@pytest.fixture(scope="module")
def report(event: EventFile) -> ScoreReport:
    profile = suggest_profile(event.program)
    assert profile is RUTER
    return score_event(event, profile=profile)


def test_it_is_read_as_an_individual_of_twenty_players(event: EventFile) -> None:
    assert event.individual
    assert event.refused == []
    assert len(event.lines) == BOARDS * TABLES
    assert len(event.players) == 20
    assert all(line.players is not None and len(set(line.players)) == 4 for line in event.lines)
    names = {p.number: p.name for p in event.players}
    assert names[3] == "Rolf Sjødal"
    assert names[7] == "Nils Erik Lie"


def test_every_lines_matchpoints_are_ruters(path: Path, report: ScoreReport) -> None:
    ours = {
        (board.board, row.table, row.round): (row.ns_value, row.ew_value)
        for board in report.boards
        for row in board.rows
    }
    checked = 0
    for game in split_games(path.read_text(encoding="utf-8")):
        if "ScoreTable" not in game.tags:
            continue
        board = int(game.tags["Board"])
        for _, row in table_rows(game, "ScoreTable"):
            ns, ew = ours[(board, int(row["Table"]), int(row["Round"]))]
            assert ns is not None
            assert ew is not None
            assert (row["MP_North"], row["MP_South"]) == (str(ns - COMPARISONS),) * 2
            assert (row["MP_East"], row["MP_West"]) == (str(ew - COMPARISONS),) * 2
            checked += 1
    assert checked == BOARDS * TABLES


def test_every_players_total_percentage_and_place_are_ruters(
    path: Path, report: ScoreReport
) -> None:
    games = split_games(path.read_text(encoding="utf-8"))
    published = {
        int(row["PlayerId"]): (row["Rank"], Decimal(row["TotalScoreMP"]), row["TotalPercentage"])
        for _, row in table_rows(games[0], "TotalScoreTable")
    }
    assert len(published) == 20
    ours = {
        player.key.number: (
            player.place,
            Decimal(int(player.total - COMPARISONS * BOARDS)),
            f"{float(player.percentage):.2f}",
        )
        for player in report.pairs
    }
    assert ours == published
