"""`traveller terminal --demo`: a fake club night with every extra switched on (deals, score
after confirmation, ranking, player numbers 1001-1008, TD code 4321; the auction and the play
keyed when North wishes, and board 4 dealt by hand: its deal is keyed at the table)."""

from __future__ import annotations

from .testing.event import NAMES
from .testing.server import FakeServer

DEALS = {
    1: "N:KJ93.QT32.Q982.9 QT87.98.KT7.AKQ6 6542.AJ5.5.J8432 A.K764.AJ643.T75",
    2: "N:J83.K8.Q52.KQJT4 Q764.AQ2.KT76.32 T.J53.A9843.A976 AK952.T9764.J.85",
    3: "N:J.Q65.J9.AKT8642 KQ7.32.AKQ8.Q973 T852.AT974.T643. A9643.KJ8.752.J5",
    4: "N:4.9842.974.K9765 Q76.A76.T632.Q82 AJT953.KJ5.K85.3 K82.QT3.AQJ.AJT4",
}
#: Double-dummy tricks of the deals above (declarer -> strain -> tricks), computed with endplay.
DOUBLE_DUMMY = {
    1: {"N": (4, 3, 4, 6, 4), "E": (9, 10, 9, 7, 9), "S": (4, 3, 4, 6, 4), "W": (9, 10, 9, 7, 9)},
    2: {"N": (9, 8, 4, 4, 6), "E": (4, 4, 9, 9, 7), "S": (9, 8, 4, 4, 6), "W": (4, 4, 9, 9, 7)},
    3: {"N": (7, 4, 6, 3, 4), "E": (6, 9, 6, 10, 9), "S": (7, 4, 6, 3, 4), "W": (6, 9, 6, 10, 9)},
    4: {"N": (4, 3, 4, 6, 3), "E": (8, 8, 7, 7, 9), "S": (5, 4, 5, 6, 4), "W": (8, 8, 7, 7, 9)},
}
STRAINS = ("C", "D", "H", "S", "NT")
#: Boards the demo treats as dealt by hand (no hand record: the first table keys the deal).
HAND_DEALT = frozenset({4})


def demo_server() -> FakeServer:
    """The demo's in-memory server."""
    members = {f"{1001 + i}": name for i, name in enumerate(n for pair in NAMES for n in pair)}
    dd = {
        board: {seat: dict(zip(STRAINS, tricks, strict=True)) for seat, tricks in table.items()}
        for board, table in DOUBLE_DUMMY.items()
        if board not in HAND_DEALT
    }
    return FakeServer(
        after_confirm="score",
        show_ranking=True,
        player_numbers="first_round",
        members=members,
        deals={board: deal for board, deal in DEALS.items() if board not in HAND_DEALT},
        dd=dd,
        auction_entry="optional",
        play_entry="optional",
        deal_entry=True,
    )
