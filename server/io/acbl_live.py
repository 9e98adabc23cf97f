"""ACBL Live for Clubs: the results record my.acbl.org publishes for a club game (ACBLscore).

A club game's page at my.acbl.org embeds its whole results record as JSON (``var data = {...}``
in the page); the record is what ACBLscore uploaded, as ACBL publishes it. Its layout, as the
real records in tests/data/published/ show it (there is no published specification):

- the event: ``name``, ``start_date`` (MM/DD/YYYY), ``program_name`` ("ACBLScore/ScoreParser")
  and ``uploads[0].program_version`` ("833/1.03"), ``board_scoring_method`` ("MATCH_POINTS"),
  ``winner_type`` (1 one winner, 2 one per direction);
- ``sessions[].sections[]``: ``name`` (the section letter), ``pair_summaries[]`` (``pair_number``,
  ``direction`` "NS"/"EW" in a Mitchell or null in a Howell, ``score``, ``percentage``,
  ``strat_place[].rank`` such as "1/2" for a shared first, ``players[].name``) and
  ``boards[].board_results[]`` (``round_number``, ``table_number``, ``ns_pair``, ``ew_pair``,
  ``contract`` spelt "3 NT" / "4 S x", ``declarer``, ``tricks_taken`` (a count; ``result``
  gives the same relative to the contract, "+4", and is not read), ``ns_score`` and both
  sides' matchpoints on ACBL's scale of 1 a board beaten);
- ``sessions[].hand_records[]``: ``board``, ``dealer``, ``vulnerability`` and each hand's suits
  (``north_spades`` "K 10 8 3 2", "-----" for a void, ...); vulnerability "None", "N-S", "E-W"
  or "All".

Every traveller line is read or refused with its place (``sections[A] / board 5 / line 3``) and
the reason. The published figures are kept beside the lines, never used to score.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from protocol.bridge import BridgeError
from server.scoring import Method

from . import handrecords
from .errors import EventFileError
from .limits import check_size
from .lines import Cells, fill_play
from .model import BoardRecord, EventFile, Line, PairEntry, PairKey, Refusal
from .spelling import SpellingError

_EMBEDDED = re.compile(rb"var\s+data\s*=\s*")
_SEATS = ("north", "east", "south", "west")
_SUITS = ("spades", "hearts", "diamonds", "clubs")
_VULNERABLE = {"none": "None", "n-s": "NS", "e-w": "EW", "ns": "NS", "ew": "EW", "all": "All"}


def looks_like(data: bytes) -> bool:
    """Whether the bytes are an ACBL Live results record (the JSON, or the page embedding it)."""
    head = data[:4096]
    return (b'"board_scoring_method"' in head or b'"club_session"' in data[:200_000]) and (
        head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{") or bool(_EMBEDDED.search(data))
    )


def _record(data: bytes) -> dict[str, Any]:
    text = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not text.startswith(b"{"):
        found = _EMBEDDED.search(data)
        if found is None:
            raise EventFileError("not an ACBL Live results record (no `var data = {...}`)")
        text = data[found.end() :]
    try:
        record, _ = json.JSONDecoder().raw_decode(text.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EventFileError(f"the ACBL Live record is not valid JSON: {exc}") from None
    if not isinstance(record, dict) or not isinstance(record.get("sessions"), list):
        raise EventFileError("the ACBL Live record has no sessions")
    return record


def _decimal(value: object) -> Decimal | None:
    try:
        return Decimal(str(value)) if value not in (None, "") else None
    except InvalidOperation:
        return None


def read_acbl_live(data: bytes) -> EventFile:
    """An ACBL Live for Clubs results record (or the page that embeds it) as an event."""
    check_size(len(data))
    record = _record(data)
    version = ""
    uploads = record.get("uploads") or []
    if uploads and isinstance(uploads[0], dict):
        version = str(uploads[0].get("program_version") or "")
    program = " ".join(part for part in (str(record.get("program_name") or ""), version) if part)
    method = str(record.get("board_scoring_method") or "")
    event = EventFile(
        name=str(record.get("name") or ""),
        date=str(record.get("start_date") or ""),
        method=Method.MATCHPOINTS if method == "MATCH_POINTS" else None,
        scoring=method,
        winners={1: 1, 2: 2}.get(record.get("winner_type")),  # type: ignore[arg-type]
        source="acbl-live",
        program=program,
    )
    if event.method is None:
        raise EventFileError(f"board scoring {method!r}: only MATCH_POINTS games are read yet")
    for s_index, session in enumerate(record["sessions"]):
        _hand_records(session.get("hand_records") or [], event)
        for section in session.get("sections") or []:
            _section(section, f"sessions[{s_index}] / section {section.get('name')}", event)
    if not event.lines:
        raise EventFileError("the ACBL Live record has no traveller line that can be read")
    return event


def _section(section: dict[str, Any], where: str, event: EventFile) -> None:
    letter = str(section.get("name") or "")
    summaries = section.get("pair_summaries") or []
    mitchell = any(p.get("direction") for p in summaries)

    def key(number: object, side: str) -> PairKey:
        return PairKey(letter or None, int(str(number)), side if mitchell else None)

    for index, pair in enumerate(summaries):
        try:
            entry = PairEntry(
                key(pair["pair_number"], str(pair.get("direction") or "")),
                names=tuple(str(p.get("name") or "") for p in pair.get("players") or []),
                published_total=_decimal(pair.get("score")),
                published_percentage=_decimal(pair.get("percentage")),
                published_place=_place(pair),
            )
        except (KeyError, ValueError):
            event.refused.append(
                Refusal("a pair without a pair number", element=f"{where} / pair {index + 1}")
            )
            continue
        event.pairs.append(entry)
    for board in section.get("boards") or []:
        number = board.get("board_number")
        for index, row in enumerate(board.get("board_results") or [], start=1):
            place = f"{where} / board {number} / line {index}"
            try:
                event.lines.append(_line(row, int(number), letter, key))
            except (SpellingError, BridgeError, KeyError, TypeError, ValueError) as exc:
                event.refused.append(Refusal(_reason(exc), element=place, board=number))


def _line(row: dict[str, Any], board: int, letter: str, key: Any) -> Line:
    ns_points, ew_points = (
        _decimal(row.get("ns_match_points")),
        _decimal(row.get("ew_match_points")),
    )
    line = Line(
        board=board,
        ns=key(row["ns_pair"], "NS"),
        ew=key(row["ew_pair"], "EW"),
        section=letter or None,
        round=row.get("round_number"),
        table=row.get("table_number"),
        published_values=(ns_points, ew_points)
        if ns_points is not None and ew_points is not None
        else None,
    )
    cells = Cells(
        str(row["contract"]),
        *(_cell(row, name) for name in ("declarer", "tricks_taken", "ns_score")),
    )
    # ``tricks_taken`` is the count (the record's ``result``, "+4", is relative to the contract
    # and not read): "+1" there is refused, not taken as one trick.
    fill_play(line, cells, relative=False)
    return line


def _cell(row: dict[str, Any], name: str) -> str:
    value = row.get(name)
    return "" if value is None else str(value)


def _reason(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"no {exc.args[0]!r} on the line"
    return str(exc)


def _place(pair: dict[str, Any]) -> str | None:
    """The section place ACBL publishes in the first strat ("1/2", a shared first, as "1=")."""
    for place in pair.get("strat_place") or []:
        rank = str(place.get("rank") or "")
        if rank and place.get("strat_number") == 1 and place.get("type") == "Section":
            return f"{rank.split('/')[0]}=" if "/" in rank else rank
    return None


def _hand_records(records: list[dict[str, Any]], event: EventFile) -> None:
    for hand in records:
        try:
            number = int(hand["board"])
        except (KeyError, TypeError, ValueError):
            event.refused.append(
                Refusal("a hand record without a board number", element="hand_records")
            )
            continue
        if number in event.boards:
            continue  # the first set of hand records is the one played
        deal: str | None = "N:" + " ".join(
            ".".join(_holding(hand.get(f"{seat}_{suit}")) for suit in _SUITS) for seat in _SEATS
        )
        try:
            deal = handrecords.normalise_deal(deal or "")
        except ValueError as exc:
            event.refused.append(Refusal(f"the deal: {exc}", element="hand_records", board=number))
            deal = None
        vulnerable = _VULNERABLE.get(str(hand.get("vulnerability") or "").casefold())
        event.boards[number] = BoardRecord(
            number, str(hand.get("dealer") or "")[:1] or None, vulnerable, deal
        )


def _holding(text: object) -> str:
    """ "K 10 8 3 2" -> "KT832"; a void, which ACBL writes "-----", -> ""."""
    cards = str(text or "").replace(" ", "").replace("10", "T")
    return "" if set(cards) <= {"-"} else cards
