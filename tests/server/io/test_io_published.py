"""Published results from a real event, read through the PBN importer and scored from play.

The RealBridge "2021 Online Qual: Open R2" file (MIT, see tests/data/README.md) publishes each
table's Score and the match IMPs (ScoreIMP) of each board. Every Score must equal the Law 77
score of the contract, declarer and tricks the importer read, and every ScoreIMP must equal
the IMPs between the two rooms of the match.
"""

from __future__ import annotations

from pathlib import Path

from protocol.bridge import imps
from server.io.pbn import read_pbn
from server.io.pbn_syntax import split_games

REALBRIDGE = "endplay-realbridge/example2_realbridge_2021_online_qual_open_R2.pbn"


def test_realbridge_scores_and_match_imps(data_dir: Path) -> None:
    text = (data_dir / REALBRIDGE).read_text(encoding="utf-8")
    event = read_pbn(text)
    games = [g for g in split_games(text) if g.tags.get("Contract", "") not in ("", "?")]
    assert len(games) == len(event.lines) == 299
    rooms: dict[tuple[int, frozenset[str]], list[tuple[int, int]]] = {}
    for game, line in zip(games, event.lines, strict=True):
        ns = line.ns_points()
        assert ns is not None
        if line.published_ns_score is not None:
            assert ns == line.published_ns_score, (line.board, line.table)
        if "HomeTeam" not in game.tags or "ScoreIMP" not in game.tags:
            continue
        teams = frozenset((game.tags["HomeTeam"], game.tags["VisitTeam"]))
        imp_text = game.tags["ScoreIMP"].split()
        rooms.setdefault((line.board, teams), []).append((ns, int(imp_text[1])))
    checked = 0
    for key, pair in rooms.items():
        if len(pair) != 2:
            continue
        (a, a_imps), (b, b_imps) = pair
        assert imps(a - b) == a_imps, key
        assert imps(b - a) == b_imps, key
        checked += 1
    assert checked >= 140
