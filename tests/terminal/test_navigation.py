"""Navigation through the app only (issue 19): a screen names the place to go
(terminal/screens/navigation.py) and the app builds the screen that shows it."""

from __future__ import annotations

from typing import Any

import pytest

from terminal.app import screen_for
from terminal.screens.board_entry import BoardEntryScreen
from terminal.screens.navigation import (
    Place,
    ShowBoard,
    ShowPairing,
    ShowPlayers,
    ShowRanking,
    ShowReport,
    ShowSeatCheck,
    ShowSummary,
)
from terminal.screens.pairing import PairingScreen
from terminal.screens.players import PlayersScreen
from terminal.screens.ranking import RankingScreen
from terminal.screens.report import BoardReportScreen
from terminal.screens.seat_check import SeatCheckScreen
from terminal.screens.summary import SummaryScreen


@pytest.mark.parametrize(
    ("place", "kind", "shown"),
    [
        (
            ShowPairing("The TD has unpaired this terminal."),
            PairingScreen,
            {"reason": "The TD has unpaired this terminal."},
        ),
        (ShowSeatCheck("Names stored."), SeatCheckScreen, {"message": "Names stored."}),
        (ShowPlayers(), PlayersScreen, {}),
        (ShowBoard(3, ask_east=True), BoardEntryScreen, {"board": 3, "ask_east": True}),
        (ShowBoard(4), BoardEntryScreen, {"board": 4, "ask_east": False}),
        (ShowReport(2, after_confirm=True), BoardReportScreen, {"board": 2, "after_confirm": True}),
        (ShowReport(2, after_confirm=False), BoardReportScreen, {"after_confirm": False}),
        (ShowSummary(), SummaryScreen, {}),
        (ShowRanking(), RankingScreen, {}),
    ],
)
def test_the_app_shows_each_place_with_its_screen(
    place: Place, kind: type[Any], shown: dict[str, object]
) -> None:
    screen = screen_for(place)
    assert type(screen) is kind
    assert {name: getattr(screen, name) for name in shown} == shown
