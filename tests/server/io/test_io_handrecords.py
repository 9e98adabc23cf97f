"""Hand records: PBN deals, and double-dummy analysis through the optional endplay package."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.io.formats import load
from server.io.handrecords import (
    SolverUnavailableError,
    analyse,
    dd_table,
    hands,
    is_complete,
    normalise_deal,
    solver_available,
)

DEAL = "N:9753.QT93.9752.8 842.A865.AK.KT53 AQT6.K.T863.A962 KJ.J742.QJ4.QJ74"


def test_hands_by_seat_from_any_first_seat() -> None:
    rotated = "E:842.A865.AK.KT53 AQT6.K.T863.A962 KJ.J742.QJ4.QJ74 9753.QT93.9752.8"
    assert hands(rotated) == hands(DEAL)
    assert hands(DEAL)["S"] == ("AQT6", "K", "T863", "A962")
    assert normalise_deal(rotated) == DEAL
    assert normalise_deal(DEAL.lower().replace("n:", "N:")) == DEAL


def test_partial_deals() -> None:
    partial = "N:AKQ.JT9.876.5432 - - -"
    assert not is_complete(partial)
    assert normalise_deal(partial) == partial


def test_ranks_are_ordered_and_ten_and_a_void_read_as_the_protocol_reads_them() -> None:
    assert hands("N:QKA.9TJ.678.2345 - - -")["N"] == ("AKQ", "JT9", "876", "5432")
    assert normalise_deal("N:AKQ.J109.-.2345678 - - -") == "N:AKQ.JT9..8765432 - - -"


@pytest.mark.parametrize(
    ("deal", "needle"),
    [
        ("AKQ", "not a PBN deal"),
        ("N:AKQ.JT9.876.5432", "four hands"),
        ("N:AKQ.JT9.876 - - -", "four suits"),
        # the protocol's sentences (protocol.bridge.deal, as the terminal shows them)
        ("N:AKX.JT9.876.5432 - - -", "North: 'X' is not a rank in spades"),
        ("N:AKQ.JT9.876.543 - - -", "North has 12 cards; a hand has 13"),
        ("N:AKQ.JT9.876.5432 AKQ.JT9.876.5432 - -", "is in two hands: North and East"),
        ("N:AKQ.JT9.876.5432 AKQ.JT9.876.5432 AKQ.JT9.876.5432 -", "in two hands"),
        ("N:AKQ.JT9.876.543 JT9.876.5432.AKQ 5432.AKQ.JT9.876 876.5432.AKQ.JT9", "12 cards"),
    ],
)
def test_bad_deals(deal: str, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        hands(deal)


@pytest.mark.skipif(not solver_available(), reason="endplay (optional extra) not installed")
def test_double_dummy_matches_the_files_optimum_table(data_dir: Path) -> None:
    event = load(data_dir / "io" / "howell_2_tables.pbn")
    board = event.boards[1]
    assert board.deal is not None
    assert dd_table(board.deal) == board.optimum
    analysis = analyse(board.deal, "N", "None")
    assert analysis.par_score == -120
    assert analysis.par_contracts == ("2NTE=", "2NTW=")
    assert ("3C", "E") in analysis.makeable()


@pytest.mark.skipif(solver_available(), reason="only meaningful without endplay")
def test_solver_missing_is_reported() -> None:
    with pytest.raises(SolverUnavailableError, match="endplay"):
        dd_table(DEAL)
