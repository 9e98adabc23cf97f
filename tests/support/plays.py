"""A real RealBridge event's play (tests/data/README.md) as the table keys it."""

from __future__ import annotations

from protocol.bridge import Contract
from protocol.bridge.deal import parse_deal
from protocol.bridge.play import format_play, parse_pbn_play
from tests.protocol.bridge.test_bridge_play import RECORDS

# Board 12, table 11 of the RealBridge event: 4H by North, East leads, seven tricks played,
# then a claim; North made 9 tricks.
BOARD_12 = next(r for r in RECORDS if r["Board"] == "12" and r.get("Table") == "11")


def stored_play(record: dict[str, str]) -> str:
    """A PBN record's play as the table-side text (format_play), with its result as a claim
    when the record stops before trick 13 (as a table keys it)."""
    contract = Contract.parse(record["Contract"])
    assert contract.strain is not None
    play = parse_pbn_play(
        record["Play"], record["PlayText"], contract.strain, record["Declarer"],
        parse_deal(record["Deal"]),
    )  # fmt: skip
    if not play.ended:
        play.claim(int(record["Result"]))
    return format_play(play)
