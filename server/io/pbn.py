"""PBN 2.1 import and export: hand records, [ScoreTable] travellers and [TotalScoreTable].

The reader's contract: every row of a table tag, and every game's result, is read or
put in ``EventFile.refused`` with its line, board and reason; one bad token no longer refuses
the event. Spellings beyond the standard (Bridgewebs' "PO" and "A A A", a void "-") are those of
``spelling.KNOWN``. The program that wrote the file is taken from [Application], [Generator]
or a "% Generator:" / "%Creator:" comment line.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from protocol.bridge import dealer
from protocol.text import neutral
from server.scoring import Method

from . import dates, spelling
from .assemble import UNSEATED, Assembler, RawPair, RawRef, finish, unseated
from .errors import EventFileError
from .handrecords import law2_vulnerable, normalise_deal
from .lines import Cells, fill_play
from .model import (
    BoardRecord,
    EventFile,
    IndividualPlayer,
    Line,
    PairKey,
    Refusal,
    provisional_note,
)
from .pbn_play import (
    SectionError,
    auction_section,
    play_section,
    read_auction,
    read_explanations,
    read_play,
)
from .pbn_syntax import UNKNOWN, Game, Split, cell, quote, split_games, table_rows
from .report import ScoreReport, decimal, line_key
from .teamfile import team_event_from_games

_PROGRAM_TAGS = ("Application", "Generator")


def read_pbn(text: str) -> EventFile:
    """Read a PBN file: boards with deals, travellers from [ScoreTable] or one result a game."""
    found = Split()
    games = split_games(text, found)
    event = EventFile(source="pbn", program=found.program)
    event.refused.extend(found.refused)
    assembler = Assembler(event)
    named_pairs: dict[tuple[str, str], int] = {}
    scorings: dict[Method | None, tuple[str, Game]] = {}
    tabled: set[int] = set()
    """Boards read from a [ScoreTable]: a later game of the board with an [Auction] or [Play]
    is one table's (``write_pbn``), matched to its line by section, table and round."""
    for game in games:
        tags = game.tags
        for name in _PROGRAM_TAGS:
            if not event.program and tags.get(name, "").strip() not in UNKNOWN:
                event.program = tags[name].strip()
        if not event.name and tags.get("Event", "") not in UNKNOWN:
            event.name = tags["Event"]
        if not event.date and tags.get("Date", "") not in UNKNOWN:
            event.date = tags["Date"]
        if tags.get("Scoring", "") not in UNKNOWN:
            scorings.setdefault(spelling.method(tags["Scoring"]), (tags["Scoring"], game))
        if not event.scoring and tags.get("Scoring", "") not in UNKNOWN:
            event.scoring = tags["Scoring"]
            event.method = spelling.method(event.scoring)
        if "TotalScoreTable" in tags:
            _read_totals(game, assembler)
        if tags.get("Provisional", "").strip().lower() in ("yes", "true", "1"):
            event.provisional = True
        tables = tags.get("TablesPerBoard", "").strip()
        if tables.isascii() and tables.isdigit() and 0 < int(tables) < 1000:
            event.tables_per_board = int(tables)
        try:
            board = _board_number(game)
        except EventFileError as exc:
            rows = len(game.rows.get("ScoreTable", []))
            what = f" and its {rows} ScoreTable rows" if rows else ""
            event.refused.append(Refusal(f"{exc.message}: the game{what} not read", exc.line))
            continue
        if board is None:
            continue
        _read_board(game, board, event)
        if "ScoreTable" in tags:
            _read_score_table(game, board, assembler)
            tabled.add(board)
        elif board in tabled and ("Auction" in tags or "Play" in tags):
            _read_table_game(game, board, assembler)
        elif tags.get("Contract", "") not in UNKNOWN:
            try:
                _read_single(game, board, assembler, named_pairs)
            except EventFileError as exc:
                event.refused.append(Refusal(exc.message, line=exc.line, board=board))
    if len(scorings) > 1:
        said = "; ".join(
            f"line {game.lines.get('Scoring')} {text!r}" for text, game in scorings.values()
        )
        event.notes.append(
            f"the games' [Scoring] tags disagree ({said}): the first is taken ({event.scoring!r})"
        )
    if event.provisional:
        event.notes.append("the file is provisional: exported before every result was in")
    if event.tables_per_board is not None:
        event.notes.append(
            f"each board scored over {event.tables_per_board} tables, as the file says "
            "([TablesPerBoard])"
        )
    built = assembler.build()
    built.teams = team_event_from_games(games, built.refused)
    if built.teams is not None:
        return built
    return finish(built)


def _board_number(game: Game) -> int | None:
    text = game.tags.get("Board")
    if text is None or text.strip() in UNKNOWN:
        return None
    try:
        number = int(text.strip())
    except ValueError:
        raise EventFileError(f"{text!r} is not a board number", line=game.lines["Board"]) from None
    if not 1 <= number <= 9999:
        raise EventFileError(f"{number} is not a board number", line=game.lines["Board"])
    return number


def _read_board(game: Game, board: int, event: EventFile) -> None:
    tags = game.tags
    record = event.boards.get(board) or BoardRecord(board)
    deal = tags.get("Deal", "").strip()
    if deal not in UNKNOWN and record.deal is None:
        try:
            normalised = normalise_deal(spelling.void_suits(deal))
            record.deal = normalised if _any_card(normalised) else None
        except ValueError as exc:
            event.refused.append(_refusal(f"the deal: {exc}", game, "Deal", board))
    if tags.get("Dealer", "").strip() not in UNKNOWN and record.dealer is None:
        try:
            record.dealer = spelling.declarer(tags["Dealer"])
        except spelling.SpellingError as exc:
            event.refused.append(_refusal(f"the dealer: {exc}", game, "Dealer", board))
    if tags.get("Vulnerable", "").strip() not in ("", "?", "#") and record.vulnerable is None:
        try:
            record.vulnerable = _vulnerable(tags["Vulnerable"], game.lines["Vulnerable"], board)
        except EventFileError as exc:
            event.refused.append(_refusal(exc.message, game, "Vulnerable", board))
    if "OptimumResultTable" in tags and record.optimum is None:
        try:
            record.optimum = _optimum(game, board)
        except EventFileError as exc:
            event.refused.append(Refusal(exc.message, line=exc.line, board=board))
    event.boards[board] = record


def _any_card(deal: str) -> bool:
    """Whether a deal holds a card: "N:- - - -" (every hand not known) is no hand record."""
    return any(hand != "-" for hand in deal[2:].split())


def _refusal(reason: str, game: Game, tag: str, board: int) -> Refusal:
    return Refusal(reason, line=game.lines.get(tag), board=board)


def _vulnerable(text: str, line: int, board: int) -> str:
    key = text.strip().upper()
    if key in ("NONE", "LOVE", "-", "0"):
        return "None"
    if key in ("ALL", "BOTH"):
        return "All"
    if key in ("NS", "N-S", "N/S"):
        return "NS"
    if key in ("EW", "E-W", "E/W"):
        return "EW"
    raise EventFileError(f"{text!r} is not a vulnerability", line=line, board=board)


def _optimum(game: Game, board: int) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    for number, row in table_rows(game, "OptimumResultTable"):
        try:
            seat = spelling.declarer(row.get("Declarer", ""))
            strain = spelling.contract(f"1{row.get('Denomination', '')}")[1:]
            tricks = int(row.get("Result", ""))
        except (spelling.SpellingError, ValueError):
            raise EventFileError("bad OptimumResultTable row", line=number, board=board) from None
        table.setdefault(seat, {})[strain] = tricks
    return table


def _decimal(text: str, line: int) -> Decimal | None:
    if text.strip() in UNKNOWN:
        return None
    try:
        value = Decimal(text.strip().replace(",", "."))
    except InvalidOperation:
        raise EventFileError(f"{text!r} is not a number", line=line) from None
    if not value.is_finite():
        raise EventFileError(f"{text!r} is not a number", line=line)
    return value


def _read_totals(game: Game, assembler: Assembler) -> None:
    refused = assembler.event.refused
    for number, row in table_rows(game, "TotalScoreTable", refused):
        try:
            _read_total(number, row, assembler)
        except EventFileError as exc:
            refused.append(Refusal(f"TotalScoreTable: {exc.message}", line=number))


def _read_total(number: int, row: dict[str, str], assembler: Assembler) -> None:
    pair_text = cell(row, "PairId", "Pair", "PairNr")
    if not pair_text and cell(row, "PlayerId"):
        _read_player_total(number, row, assembler.event)
        return
    if not pair_text and cell(row, "TeamId"):
        return  # a team's row: read with the team matches (``teamfile``)
    if not pair_text:
        raise EventFileError("the row has no PairId", line=number)
    try:
        section, pair, side = spelling.pair_number(pair_text)
        section = cell(row, "Section") or section
        direction = cell(row, "Direction")
        seat = spelling.direction(direction) if direction else side
    except spelling.SpellingError as exc:
        raise EventFileError(str(exc), line=number) from None
    names_text = cell(row, "Names", "Name")
    names = tuple(n.strip() for n in names_text.split(" - ")) if names_text else ()
    ids = tuple(v for v in (cell(row, "MemberID1"), cell(row, "MemberID2")) if v)
    rank, tie = cell(row, "Rank"), cell(row, "RankTie")
    place = f"{rank}-{tie}" if rank and tie else (rank or None)
    assembler.pairs.append(
        RawPair(
            section,
            pair,
            seat,
            names,
            ids,
            _decimal(cell(row, "TotalScoreMP", "TotalScoreIMP", "TotalScore"), number),
            _decimal(cell(row, "TotalPercentage", "Percentage"), number),
            place,
            explicit=side is not None,
        )
    )


def _read_player_total(number: int, row: dict[str, str], event: EventFile) -> None:
    """A player's row in an individual's [TotalScoreTable] (keyed by PlayerId)."""
    try:
        player = spelling.player_number(cell(row, "PlayerId"))
    except spelling.SpellingError as exc:
        raise EventFileError(str(exc), line=number) from None
    rank, tie = cell(row, "Rank"), cell(row, "RankTie")
    event.players.append(
        IndividualPlayer(
            cell(row, "Section") or None,
            player,
            neutral(cell(row, "Name", "Names", "PlayerName")),
            _decimal(cell(row, "TotalScoreMP", "TotalScoreIMP", "TotalScore"), number),
            _decimal(cell(row, "TotalPercentage", "Percentage"), number),
            f"{rank}-{tie}" if rank and tie else (rank or None),
        )
    )


def _ref(text: str, seat: str, section: str | None, line: int, board: int) -> RawRef | None:
    if text.strip() in UNKNOWN:
        return None
    try:
        own_section, number, side = spelling.pair_number(text)
    except spelling.SpellingError as exc:
        raise EventFileError(str(exc), line=line, board=board) from None
    return RawRef(section or own_section, number, seat, side)


def _int(text: str, line: int, board: int) -> int | None:
    if text.strip() in UNKNOWN:
        return None
    try:
        return int(text.strip())
    except ValueError:
        raise EventFileError(f"{text!r} is not a number", line=line, board=board) from None


def _read_score_table(game: Game, board: int, assembler: Assembler) -> None:
    """Each [ScoreTable] row read, or refused with its line; an adjusted score written
    "A A A" (Bridgewebs) takes its per cent from the line once the board's top is known."""
    event = assembler.event
    pending: list[tuple[int, Line, dict[str, str], RawRef | None, RawRef | None]] = []
    tops: set[Decimal] = set()
    for number, row in table_rows(game, "ScoreTable", event.refused, board):
        try:
            line, ns, ew = _score_row(number, row, board)
        except EventFileError as exc:
            event.refused.append(Refusal(exc.message, line=number, board=board))
            continue
        if spelling.adjusted_columns(*(row.get(c, "") for c in ("Contract", "Declarer", "Result"))):
            pending.append((number, line, row, ns, ew))
            continue
        if unseated(line, ns, ew):
            event.refused.append(Refusal(UNSEATED, line=number, board=board))
            continue
        if line.contract is not None and line.published_values is not None:
            tops.add(sum(line.published_values, Decimal(0)))
        assembler.add_line(line, ns, ew)
    for number, line, row, ns, ew in pending:
        try:
            line.artificial = _adjusted_share(row, tops)
        except spelling.SpellingError as exc:
            event.refused.append(Refusal(str(exc), line=number, board=board))
            continue
        ns_pct, ew_pct = (f"{float(p):g}" for p in line.artificial)
        event.notes.append(
            f"line {number}, board {board}: the adjusted score A A A read as "
            f"{ns_pct} % / {ew_pct} % from the line's published figures"
        )
        assembler.add_line(line, ns, ew)


def _score_row(
    number: int, row: dict[str, str], board: int
) -> tuple[Line, RawRef | None, RawRef | None]:
    section = cell(row, "Section") or None
    ns = _ref(cell(row, "PairId_NS", "PairNS"), "NS", section, number, board)
    ew = _ref(cell(row, "PairId_EW", "PairEW"), "EW", section, number, board)
    line = Line(board, None, None, section=section, players=_players(row, number, board))
    if line.players is not None:
        ns = ew = None
    line.table = _int(cell(row, "Table"), number, board)
    line.round = _int(cell(row, "Round"), number, board)
    line.lead = cell(row, "Lead") or None
    line.published_values = _published_values(row)
    contract = cell(row, "Contract")
    if spelling.adjusted_columns(contract, cell(row, "Declarer"), cell(row, "Result")):
        return line, ns, ew
    cells = Cells(
        contract,
        cell(row, "Declarer"),
        cell(row, "Result"),
        cell(row, "Score_NS"),
        cell(row, "Score_EW"),
    )
    try:
        fill_play(line, cells)
    except spelling.SpellingError as exc:
        raise EventFileError(str(exc), line=number, board=board) from None
    return line, ns, ew


_PLAYER_COLUMNS = ("PlayerId_North", "PlayerId_East", "PlayerId_South", "PlayerId_West")
"""The four players of a [ScoreTable] row of an individual event (Ruter, Magic Contest)."""


def _players(row: dict[str, str], number: int, board: int) -> tuple[int, int, int, int] | None:
    """The row's North, East, South and West players, None on a pairs row."""
    try:
        return spelling.seated_players([(c, cell(row, c)) for c in _PLAYER_COLUMNS], "row")
    except spelling.SpellingError as exc:
        raise EventFileError(str(exc), line=number, board=board) from None


def _adjusted_share(row: dict[str, str], tops: set[Decimal]) -> tuple[Fraction, Fraction]:
    """(N/S %, E/W %) of an "A A A" line: its Percentage_NS/_EW, else its matchpoints over
    the board's top (the sum of N/S and E/W matchpoints on each played line)."""
    try:
        ns, ew = Decimal(cell(row, "Percentage_NS")), Decimal(cell(row, "Percentage_EW"))
        if ns.is_finite() and ew.is_finite() and 0 <= ns <= 100 and 0 <= ew <= 100:
            return Fraction(ns), Fraction(ew)
    except InvalidOperation:
        pass
    values = _published_values(row)
    if values is not None and len(tops) == 1:
        top = tops.pop()
        tops.add(top)
        if top > 0:
            return Fraction(values[0] * 100 / top), Fraction(values[1] * 100 / top)
    raise spelling.SpellingError(
        "an adjusted score (A A A) without the per cent or matchpoints to read it from"
    )


def _published_values(row: dict[str, str]) -> tuple[Decimal, Decimal] | None:
    """The line's matchpoints (MP_NS/MP_EW) or IMPs (IMP_NS/IMP_EW) as the file gives them."""
    for ns_name, ew_name in (("MP_NS", "MP_EW"), ("IMP_NS", "IMP_EW")):
        try:
            ns, ew = Decimal(cell(row, ns_name)), Decimal(cell(row, ew_name))
        except InvalidOperation:
            continue
        if ns.is_finite() and ew.is_finite():
            return ns, ew
    return None


def _game_cells(tags: dict[str, str]) -> Cells:
    """A game's result tags: [Contract], [Declarer] and [Result] ([Score] is the published
    score, "NS 420", read beside them)."""
    return Cells(*(tags.get(t, "") for t in ("Contract", "Declarer", "Result")))


def _read_single(
    game: Game, board: int, assembler: Assembler, named: dict[tuple[str, str], int]
) -> None:
    """A game that is one table's result: pairs from the player names."""
    tags = game.tags
    line = Line(board, None, None)
    try:
        fill_play(line, _game_cells(tags))
    except spelling.SpellingError as exc:
        raise EventFileError(str(exc), line=game.lines.get("Contract"), board=board) from None
    table = tags.get("Table", "").strip()
    line.table = int(table) if table.isdigit() else None
    score = tags.get("Score", "").split()
    if len(score) == 2 and score[0] in ("NS", "EW") and score[1].lstrip("+-").isdigit():
        points = int(score[1])
        line.published_ns_score = points if score[0] == "NS" else -points
    refs = []
    for seat, (a, b) in (("NS", ("North", "South")), ("EW", ("East", "West"))):
        names = (tags.get(a, "").strip(), tags.get(b, "").strip())
        number = _number_from_names(names) or named.setdefault(names, len(named) + 1)
        refs.append(RawRef(None, number, seat))
    _read_sections(game, line, assembler.event)
    assembler.add_line(line, refs[0], refs[1])


def _read_sections(game: Game, line: Line, event: EventFile) -> None:
    """The game's [Auction] and [Play] onto its line; a broken one is refused with its line and
    the result is kept without it."""
    deal = event.boards[line.board].deal if line.board in event.boards else None
    try:
        line.auction = read_auction(game, line.contract, line.declarer)
        line.alerts = read_explanations(game) if line.auction else {}
    except SectionError as exc:
        event.refused.append(Refusal(exc.reason, line=exc.line, board=line.board))
    try:
        line.play = read_play(game, line.contract, line.declarer, line.tricks, deal)
    except SectionError as exc:
        event.refused.append(Refusal(exc.reason, line=exc.line, board=line.board))


def _words(played: tuple[str | None, str | None, int | None]) -> str:
    return " ".join(str(x) for x in played if x is not None) or "no contract"


def _read_table_game(game: Game, board: int, assembler: Assembler) -> None:
    """A game after the board's [ScoreTable] that gives one table's [Auction] or [Play] (as
    ``write_pbn`` writes them): onto the [ScoreTable] line of the same section, table and
    round (the table alone when the game gives no [Round]), whose contract it must repeat."""
    tags = game.tags
    event = assembler.event
    where = game.lines.get("Auction", game.lines.get("Play"))
    section = tags.get("Section", "").strip() or None
    table, round_ = (tags.get(t, "").strip() for t in ("Table", "Round"))
    place = f"table {table or '?'}, round {round_ or '?'}" + (
        f", section {section}" if section else ""
    )
    matches = [
        line
        for line, _, _ in assembler.refs
        if line.board == board
        and line.section == section
        and str(line.table or "") == table
        and (not round_ or str(line.round or "") == round_)  # [Round] when the game gives it
    ]
    if len(matches) != 1:
        found = "no" if not matches else f"{len(matches)}"
        reason = f"the [Auction]/[Play] of {place} matches {found} [ScoreTable] line: not read"
        event.refused.append(Refusal(reason, line=where, board=board))
        return
    (line,) = matches
    probe = Line(board, None, None)
    try:
        fill_play(probe, _game_cells(tags))
    except spelling.SpellingError as exc:
        event.refused.append(Refusal(str(exc), line=game.lines.get("Contract"), board=board))
        return
    said = (probe.contract, probe.declarer, probe.tricks)
    table_said = (line.contract, line.declarer, line.tricks)
    if said != table_said:
        reason = (
            f"the game of {place} says {_words(said)}, its [ScoreTable] line "
            f"{_words(table_said)}: the [Auction]/[Play] not read"
        )
        event.refused.append(Refusal(reason, line=where, board=board))
        return
    _read_sections(game, line, event)


def _number_from_names(names: tuple[str, str]) -> int | None:
    """Pair numbers some producers put in the names ("Para-16" for both players)."""
    if names[0] and names[0] == names[1]:
        match = re.search(r"(\d+)\s*$", names[0])
        if match:
            return int(match.group(1))
    return None


# --- export -------------------------------------------------------------------------------


def write_pbn(event: EventFile, report: ScoreReport | None = None) -> str:
    """PBN 2.1 export: one game per board, the ranking in the first game's [TotalScoreTable]."""
    method = report.method if report else event.method
    scoring = method.spec.pbn if method else event.scoring
    out = ["% PBN 2.1", "% EXPORT", "%Creator: Traveller"]
    if event.provisional:
        out.append(f"% {provisional_note(event.tables_per_board or 0)}")
    out.append("")
    numbers = sorted({line.board for line in event.lines} | set(event.boards))
    scored = _scored_rows(report)
    first = True
    for board in numbers:
        record = event.boards.get(board) or BoardRecord(board)
        out.append(f"[Event {quote(event.name)}]")
        out.append('[Site ""]')
        out.append(f"[Date {quote(dates.pbn(event.date))}]")
        out.append(f'[Board "{board}"]')
        out.extend(f'[{seat} ""]' for seat in ("West", "North", "East", "South"))
        out.append(f"[Dealer {quote(record.dealer or dealer(board).value)}]")
        out.append(f"[Vulnerable {quote(record.vulnerable or law2_vulnerable(board))}]")
        out.append(f"[Deal {quote(record.deal or unknown_deal(record, board))}]")
        out.append(f"[Scoring {quote(scoring)}]")
        out.extend(['[Declarer "?"]', '[Contract "?"]', '[Result "?"]'])
        if first:
            if event.provisional:
                out.append('[Provisional "Yes"]')
            if event.tables_per_board is not None:
                out.append(f'[TablesPerBoard "{event.tables_per_board}"]')
            out.extend(_total_table(event, report))
            first = False
        out.extend(_score_table(event, board, scored, method))
        if record.optimum:
            out.append('[OptimumResultTable "Declarer;Denomination\\2R;Result\\2R"]')
            for seat in "NESW":
                for strain in ("S", "H", "D", "C", "NT"):
                    tricks = record.optimum.get(seat, {}).get(strain)
                    if tricks is not None:
                        out.append(f"{seat} {strain:>2} {tricks:>2}")
        out.append("")
        for line in event.lines:
            if line.board == board and (line.auction or line.play):
                out.extend(_table_game(event, line, record, scoring))
    return "\n".join(out)


def unknown_deal(record: BoardRecord, board: int) -> str:
    """The [Deal] of a board without a hand record: each hand "-", not known (PBN 2.1
    §3.4.11), from the dealer; "?" would leave the whole tag unknown, and readers that hold
    the tag mandatory (endplay) refuse the file."""
    return f"{record.dealer or dealer(board).value}:- - - -"


def table_spec(columns: list[str]) -> str:
    """A table tag's value, its column specs with one backslash ("Rank\\3R"), as Ruter,
    Magic Contest and Bridgewebs write them; the names are fixed words, so nothing needs
    the quoting of ``quote`` (which would double the backslash)."""
    return '"' + ";".join(columns) + '"'


def _seat_names(event: EventFile, line: Line) -> tuple[tuple[str, str], tuple[str, str]]:
    """((North, South), (East, West)): the pairs' players, or an individual's four."""
    if line.players is None:
        return _names(event, line.ns), _names(event, line.ew)
    names = {(p.section, p.number): p.name for p in event.players}
    north, east, south, west = (names.get((line.section, n), "") for n in line.players)
    return (north, south), (east, west)


def _names(event: EventFile, key: PairKey | None) -> tuple[str, str]:
    entry = event.pair(key) if key is not None else None
    names = (*(entry.names if entry else ()), "", "")
    return names[0], names[1]


def _table_game(event: EventFile, line: Line, record: BoardRecord, scoring: str) -> list[str]:
    """One table's auction and play (PBN 2.1 §3.5, §3.6) as a game of its own after the
    board's [ScoreTable] game: the reader puts them back on the [ScoreTable] line of the same
    [Section], [Table] and [Round]."""
    seat_dealer = record.dealer or dealer(line.board).value
    out = [f"[Event {quote(event.name)}]", '[Site ""]', f"[Date {quote(dates.pbn(event.date))}]"]
    out.append(f'[Board "{line.board}"]')
    ns_names, ew_names = _seat_names(event, line)
    out.append(f"[West {quote(ew_names[1])}]")
    out.append(f"[North {quote(ns_names[0])}]")
    out.append(f"[East {quote(ew_names[0])}]")
    out.append(f"[South {quote(ns_names[1])}]")
    out.append(f"[Dealer {quote(seat_dealer)}]")
    out.append(f"[Vulnerable {quote(record.vulnerable or law2_vulnerable(line.board))}]")
    out.append(f"[Deal {quote(record.deal or unknown_deal(record, line.board))}]")
    out.append(f"[Scoring {quote(scoring)}]")
    if line.section:
        out.append(f"[Section {quote(line.section)}]")
    out.append(f"[Table {quote(_opt(line.table))}]")
    out.append(f"[Round {quote(_opt(line.round))}]")
    passed = line.contract == "PASS"
    out.append(f"[Declarer {quote('' if passed else line.declarer or '?')}]")
    out.append(f"[Contract {quote('Pass' if passed else line.contract or '?')}]")
    out.append(f"[Result {quote('' if passed or line.tricks is None else str(line.tricks))}]")
    if line.auction:
        out.extend(auction_section(seat_dealer, line.auction, line.alerts))
    if line.play and line.contract and line.declarer and not passed:
        out.extend(play_section(line.contract, line.declarer, line.play, record.deal))
    out.append("")
    return out


Scored = dict[tuple[int, str, str], tuple[str, str, str, str]]
"""``line_key`` -> (MP/IMP N/S, E/W, % N/S, % E/W) as printed."""


def _scored_rows(report: ScoreReport | None) -> Scored:
    """Each scored line's figures, by ``line_key``."""
    rows: Scored = {}
    if report is None:
        return rows
    for board in report.boards:
        for row in board.rows:
            rows[report.row_key(board.board, row)] = (
                _num(row.ns_value),
                _num(row.ew_value),
                _num(row.ns_percent, 0),
                _num(row.ew_percent, 0),
            )
    return rows


def _num(value: Fraction | None, places: int = 2) -> str:
    number = decimal(value, places)
    if number is None:
        return "-"
    return f"{number:.{places}f}"


def _pair_text(key: PairKey | None) -> str:
    return "-" if key is None else str(key.number)


def _player_total_table(event: EventFile, report: ScoreReport | None) -> list[str]:
    """An individual's ranking keyed by PlayerId, as Ruter and Magic Contest write it."""
    imps = report is not None and not report.method.is_matchpoints
    spec = ["Rank\\3R", "PlayerId\\3R"]
    spec += ["TotalScoreIMP\\7R" if imps else "TotalScoreMP\\7R", "TotalPercentage\\6R"]
    spec += ["Name\\30L"]
    out = [f"[TotalScoreTable {table_spec(spec)}]"]
    names = {(p.section, p.number): p.name for p in event.players}
    if report is not None:
        for line in report.pairs:
            cells = [line.place, str(line.key.number), _num(line.total), _num(line.percentage)]
            name = names.get((line.key.section, line.key.number), "")
            out.append(" ".join([*cells, quote(name)]))
    else:
        for player in event.players:
            out.append(" ".join(["-", str(player.number), "-", "-", quote(player.name)]))
    return out


def _total_table(event: EventFile, report: ScoreReport | None) -> list[str]:
    if event.individual:
        return _player_total_table(event, report)
    sections = any(p.key.section for p in event.pairs)
    spec = ["Rank\\3R", "PairId\\3R", "Direction\\2R"]
    if sections:
        spec.insert(1, "Section\\2L")
    imps = report is not None and not report.method.is_matchpoints
    spec += ["TotalScoreIMP\\7R" if imps else "TotalScoreMP\\7R", "TotalPercentage\\6R"]
    penalties = report is not None and any(p.penalty for p in report.pairs)
    if penalties:
        spec += ["Penalty\\6R"]  # deducted from the total (§ 211)
    handicaps = report is not None and any(p.handicap is not None for p in report.pairs)
    if handicaps:  # a handicap pairs event: the handicap and the published percentage
        spec += ["Handicap\\6R", "HandicapPercentage\\6R"]
    spec += ["Names\\40L"]
    out = [f"[TotalScoreTable {table_spec(spec)}]"]
    results = {p.key: p for p in report.pairs} if report else {}
    order = [p.key for p in report.pairs] if report else [p.key for p in event.pairs]
    entries = {p.key: p for p in event.pairs}
    for key in order:
        entry = entries.get(key)
        result = results.get(key)
        cells = [result.place if result else "-"]
        if sections:
            cells.append(key.section or "-")
        cells += [str(key.number), key.direction or (result.direction if result else None) or "-"]
        cells.append(_num(result.total) if result else "-")
        cells.append(_num(result.percentage) if result else "-")
        if penalties:
            cells.append(_num(result.penalty) if result and result.penalty else "-")
        if handicaps:
            cells.append(_num(result.handicap) if result else "-")
            cells.append(_num(result.handicapped) if result else "-")
        cells.append(quote(" - ".join(entry.names) if entry else ""))
        out.append(" ".join(cells))
    return out


def _score_table(
    event: EventFile,
    board: int,
    scored: Scored,
    method: Method | None,
) -> list[str]:
    lines = [line for line in event.lines if line.board == board]
    if not lines:
        return []
    sections = any(line.section for line in lines)
    imps = method is not None and not method.is_matchpoints
    seats = _PLAYER_COLUMNS if event.individual else ("PairId_NS", "PairId_EW")
    spec = ["Table\\2R", "Round\\2R", *(f"{seat}\\3R" for seat in seats), "Contract\\5L"]
    spec += ["Declarer\\1R", "Result\\2R", "Lead\\3L", "Score_NS\\6R", "Score_EW\\6R"]
    spec += ["IMP_NS\\6R", "IMP_EW\\6R"] if imps else ["MP_NS\\6R", "MP_EW\\6R"]
    if not imps:
        spec += ["Percentage_NS\\3R", "Percentage_EW\\3R"]
    if sections:
        spec.insert(0, "Section\\2L")
    out = [f"[ScoreTable {table_spec(spec)}]"]
    for line in lines:
        values = scored.get(line_key(line), ("-", "-", "-", "-"))
        cells = [_opt(line.table), _opt(line.round)]
        if event.individual:
            cells += [str(n) for n in line.players or ("-",) * 4]
        else:
            cells += [_pair_text(line.ns), _pair_text(line.ew)]
        cells += _play_cells(line)
        cells += [values[0], values[1]]
        if not imps:
            cells += [values[2], values[3]]
        if sections:
            cells.insert(0, line.section or "-")
        out.append(" ".join(cells))
    return out


def _opt(value: int | None) -> str:
    return "-" if value is None else str(value)


def _play_cells(line: Line) -> list[str]:
    """Contract, Declarer, Result, Lead, Score_NS, Score_EW."""
    lead = line.lead or "-"
    if line.artificial is not None:
        ns, ew = line.artificial
        return ["-", "-", "-", lead, quote(f"A{_pct(ns)}"), quote(f"A{_pct(ew)}")]
    labels = line.adjusted_labels()
    if labels is not None:
        return ["-", "-", "-", lead, quote(labels[0]), quote(labels[1])]
    if line.contract is None and line.score is not None:
        score_ns = quote(str(line.score)) if line.score >= 0 else "-"
        score_ew = quote(str(-line.score)) if line.score < 0 else "-"
        return ["-", "-", "-", lead, score_ns, score_ew]
    if line.contract is None:
        return ["-", "-", "-", lead, "-", "-"]
    if line.contract == "PASS":
        return ["Pass", "-", "-", lead, "-", "-"]
    score = line.ns_points()
    score_ns = quote(str(score)) if score is not None and score > 0 else "-"
    score_ew = quote(str(-score)) if score is not None and score < 0 else "-"
    if score == 0:
        score_ns = quote("0")
    return [line.contract, line.declarer or "-", str(line.tricks), lead, score_ns, score_ew]


def _pct(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):g}"
