"""Movements for the TD: preview any kind, read a section's movement and guide cards, and
change it mid-session (late pair, late table, pair left, fewer rounds, boards per round,
two pairs swapped) through the service the TD console uses."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlmodel import Session

from protocol.text import MAX_NAME, SingleLine
from server.api.deps import RuntimeDep, require_td
from server.api.openapi import ERRORS, TEXT_ROUTE_ERRORS, operation_id
from server.api.results import PlayerLinePublic
from server.api.schemas import IMPORTED, SPEC_KINDS, MovementSpec
from server.core.errors import InvalidError, TravellerError, verbatim
from server.i18n import error_words
from server.movements import Movement, MovementError, PairRef, validate
from server.movements.balance import comparison_balance
from server.movements.bridgemate import (
    from_round_data,
    numbered_by_direction,
    read_round_data_csv,
    to_round_data,
    write_round_data_csv,
)
from server.movements.catalog import build
from server.movements.exchange import read_csv, read_json, write_csv, write_json
from server.movements.guide import pair_card, render_grid, render_pair_card, render_table_card
from server.movements.guide import table_card as guide_table_card
from server.movements.individual import validate_individual
from server.movements.individual_pairs import as_partnerships
from server.movements.model import IndividualMovement
from server.services.event import movement_admin, setup
from server.services.results import individual_standings

router = APIRouter(
    prefix="/api/v1",
    tags=["movements"],
    dependencies=[Depends(require_td)],
    responses=ERRORS,
    generate_unique_id_function=operation_id,
)


def build_movement(spec: MovementSpec) -> Movement:
    """The movement a spec describes, validated; InvalidError naming the problem."""
    try:
        if spec.kind == IMPORTED:
            movement = _imported(spec)
        else:
            built = build(
                spec.kind,
                tables=spec.tables,
                pairs=spec.pairs,
                rounds=spec.rounds,
                boards_per_round=spec.boards_per_round,
                even=spec.even,
                arrow_switch_rounds=spec.arrow_switch_rounds,
                name=spec.name,
            )
            if isinstance(built, IndividualMovement):
                validate_individual(built)
                built = as_partnerships(built)
            movement = built
        validate(movement)
    except (MovementError, ValueError, KeyError) as exc:
        raise InvalidError("invalid_movement", verbatim(str(exc))) from exc
    return movement


def _imported(spec: MovementSpec) -> Movement:
    if not spec.data or not spec.format:
        raise ValueError("an imported movement needs format and data")
    if spec.format == "json":
        sections = read_json(spec.data)
    elif spec.format == "csv":
        sections = read_csv(spec.data)
    else:
        rows = read_round_data_csv(spec.data)
        sections = from_round_data(
            rows,
            mitchell=numbered_by_direction(rows),
            arrow_switch_rounds=spec.arrow_switch_rounds_list,
        )
    if len(sections) != 1:
        raise ValueError(f"the data holds {len(sections)} sections; import one at a time")
    return next(iter(sections.values()))


class BalancePublic(BaseModel):
    balance: float = Field(description="Comparison balance for one winner, %.")
    field_balance: float | None = Field(
        description="Within each home direction, % (two-winner movements only)."
    )


class MovementPreview(BaseModel):
    name: str
    kind: str
    tables: int
    rounds: int
    boards_per_round: int
    boards: list[int]
    pairs: list[str]
    balance: BalancePublic
    grid: str
    movement: dict[str, object]


def preview(m: Movement) -> MovementPreview:
    report = comparison_balance(m)
    return MovementPreview(
        name=m.name,
        kind=m.kind,
        tables=m.tables,
        rounds=m.rounds,
        boards_per_round=m.boards_per_round,
        boards=m.boards(),
        pairs=[str(p) for p in m.pairs()],
        balance=BalancePublic(
            balance=round(report.balance, 1),
            field_balance=None if report.field_balance is None else round(report.field_balance, 1),
        ),
        grid=render_grid(m),
        movement=m.to_dict(),
    )


@router.get("/movements/kinds")
async def kinds() -> list[str]:
    """The movement kinds a section can be created with."""
    return list(SPEC_KINDS)


@router.post("/movements/preview", response_model=MovementPreview)
async def preview_movement(spec: MovementSpec) -> MovementPreview:
    """Build and validate a movement without storing it: grid, pairs and balance figures."""
    return preview(build_movement(spec))


@router.get("/sections/{section_id}/movement", response_model=MovementPreview)
async def section_movement(runtime: RuntimeDep, section_id: int) -> MovementPreview:
    """The section's movement as it stands now (after any changes)."""
    m = await runtime.read(
        lambda s: movement_admin.load_movement(s, setup.get_section(s, section_id))
    )
    return preview(m)


@router.get(
    "/sections/{section_id}/movement/export",
    response_class=PlainTextResponse,
    responses=TEXT_ROUTE_ERRORS,
)
async def export_movement(
    runtime: RuntimeDep,
    section_id: int,
    format: Annotated[Literal["json", "csv", "round-data"], Query()] = "csv",
) -> str:
    """The movement as plain data: CSV/JSON rows, or Bridgemate RoundData CSV."""

    def work(s: Session) -> tuple[str, Movement]:
        section = setup.get_section(s, section_id)
        return section.letter, movement_admin.load_movement(s, section)

    letter, m = await runtime.read(work)
    if format == "json":
        return write_json({letter: m})
    if format == "csv":
        return write_csv({letter: m})
    switched = {a.round for a in m.assignments if a.ns is not None and a.ns.direction == "EW"}
    return write_round_data_csv(to_round_data(m, letter, arrow_switch_rounds=switched))


@router.get("/sections/{section_id}/guide/table/{table}")
async def table_guide(runtime: RuntimeDep, section_id: int, table: int) -> dict[str, object]:
    """A table's guide card: round, N/S, E/W, boards and where everyone goes next."""
    m = await runtime.read(
        lambda s: movement_admin.load_movement(s, setup.get_section(s, section_id))
    )
    if not 1 <= table <= m.tables:
        raise InvalidError("unknown_table", "The movement has no table {table}.", table=table)
    rows = [
        {
            "round": r.round,
            "ns": str(r.ns) if r.ns else None,
            "ew": str(r.ew) if r.ew else None,
            "boards": list(r.boards),
            "ns_next": r.ns_next,
            "ew_next": r.ew_next,
            "boards_next": r.boards_next,
        }
        for r in guide_table_card(m, table)
    ]
    return {"table": table, "rows": rows, "text": render_table_card(m, table)}


@router.get("/sections/{section_id}/guide/pair/{pair}")
async def pair_guide(runtime: RuntimeDep, section_id: int, pair: str) -> dict[str, object]:
    """A pair's guide card: each round's table, seat, opponents, boards and next table."""
    ref = _pair(pair)
    m = await runtime.read(
        lambda s: movement_admin.load_movement(s, setup.get_section(s, section_id))
    )
    if ref not in m.pairs():
        raise InvalidError("unknown_pair", "Pair {ref} does not play in this movement.", ref=ref)
    rows = [
        {
            "round": r.round,
            "table": r.table,
            "seat": r.seat,
            "opponents": str(r.opponents) if r.opponents else None,
            "boards": list(r.boards),
            "next": r.next,
        }
        for r in pair_card(m, ref)
    ]
    return {"pair": str(ref), "rows": rows, "text": render_pair_card(m, ref)}


def _pair(text: str) -> PairRef:
    try:
        return PairRef.parse(text)
    except ValueError as exc:
        raise InvalidError(
            "invalid_pair", "{text} is not a pair: use 7, 3NS or 3EW.", text=repr(text)
        ) from exc


class LatePair(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pair: str = Field(examples=["14", "8EW"], description="The new pair, in the phantom's seat.")
    reason: SingleLine = Field(default="late pair", max_length=500)


class PairLeft(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pair: str = Field(examples=["3NS"])
    from_round: int = Field(ge=1, description="The first round the pair no longer plays.")
    reason: SingleLine = Field(default="pair left", max_length=500)


class StopAfter(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rounds: int = Field(ge=1)
    reason: SingleLine = Field(default="session shortened", max_length=500)


class BoardsPerRound(BaseModel):
    model_config = ConfigDict(extra="forbid")
    boards_per_round: int = Field(ge=1, le=12)
    from_round: int = Field(ge=1)
    reason: SingleLine = Field(default="boards per round changed", max_length=500)


async def _change(
    runtime: RuntimeDep,
    section_id: int,
    change: movement_admin.Edit,
    what: str,
    *,
    pairs_only: bool = False,
) -> MovementPreview:
    """Make a change through the service the TD's changes page uses (refused if it would
    alter a started round; audited), its refusal in the TD's words (``movement_refusal``)."""

    def work(s: Session) -> Movement:
        section = setup.get_section(s, section_id)
        if pairs_only:
            movement_admin.require_pairs(section)
        return movement_admin.change_movement(s, section, change, what=what)

    try:
        return preview(await runtime.run(work))
    except TravellerError as exc:
        raise error_words.movement_refusal(exc) from exc


@router.post("/sections/{section_id}/movement/late-pair", response_model=MovementPreview)
async def late_pair(runtime: RuntimeDep, section_id: int, body: LatePair) -> MovementPreview:
    """Seat a late pair in the phantom's place from the next round not yet started."""
    edit = movement_admin.late_pair(_pair(body.pair))
    return await _change(runtime, section_id, edit, body.reason, pairs_only=True)


class LateTable(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pair: str = Field(examples=["8NS", "14"], description="The late pair, at a new table.")
    share_with: int | None = Field(
        default=None,
        ge=1,
        description="The table whose boards the new table shares; default: each round the "
        "table of the pair that would sit out.",
    )
    opponent: str | None = Field(
        default=None,
        examples=["8EW"],
        description="Its opponents every round (a second late pair); default: each round "
        "the pair that would sit out.",
    )
    reason: SingleLine = Field(default="late pair at a new table", max_length=500)


@router.post("/sections/{section_id}/movement/late-table", response_model=MovementPreview)
async def late_table(runtime: RuntimeDep, section_id: int, body: LateTable) -> MovementPreview:
    """Seat a late pair at a new table that shares boards with an existing table, from the
    next round not yet started (refused if that would change a started round)."""
    opponent = None if body.opponent is None else _pair(body.opponent)
    edit = movement_admin.late_table(_pair(body.pair), body.share_with, opponent)
    return await _change(runtime, section_id, edit, body.reason, pairs_only=True)


@router.post("/sections/{section_id}/movement/pair-left", response_model=MovementPreview)
async def pair_left(runtime: RuntimeDep, section_id: int, body: PairLeft) -> MovementPreview:
    """A pair has left: from ``from_round`` its opponents sit out (scored as § 216 says)."""
    edit = movement_admin.pair_left(_pair(body.pair), body.from_round)
    return await _change(runtime, section_id, edit, body.reason, pairs_only=True)


@router.post("/sections/{section_id}/movement/stop-after", response_model=MovementPreview)
async def stop_after(runtime: RuntimeDep, section_id: int, body: StopAfter) -> MovementPreview:
    """Finish the session after fewer rounds."""
    edit = movement_admin.stop_after(body.rounds)
    return await _change(runtime, section_id, edit, body.reason)


@router.post("/sections/{section_id}/movement/boards-per-round", response_model=MovementPreview)
async def boards_per_round(
    runtime: RuntimeDep, section_id: int, body: BoardsPerRound
) -> MovementPreview:
    """Play a different number of boards per round from ``from_round`` on."""
    edit = movement_admin.boards_per_round(body.boards_per_round, body.from_round)
    return await _change(runtime, section_id, edit, body.reason)


class SwapPairs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pair: str = Field(examples=["1NS"], description="One of the two pairs.")
    second: str = Field(examples=["2NS"], description="The other pair.")
    from_round: int | None = Field(
        default=None,
        ge=1,
        description="The first round they sit in each other's seats; default: the first "
        "round not yet started.",
    )
    reason: SingleLine = Field(default="pairs swapped", max_length=500)


@router.post("/sections/{section_id}/movement/swap", response_model=MovementPreview)
async def swap_pairs(runtime: RuntimeDep, section_id: int, body: SwapPairs) -> MovementPreview:
    """Two pairs take each other's seats, opponents and boards (e.g. two pairs who sat down
    at each other's table); refused for a round already started or a board played twice."""
    edit = movement_admin.swap_pairs(_pair(body.pair), _pair(body.second), body.from_round)
    return await _change(runtime, section_id, edit, body.reason, pairs_only=True)


class PlayerRankingPublic(BaseModel):
    section_id: int
    method: str
    unit: str
    lines: list[PlayerLinePublic]


class PlayerNameIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: SingleLine = Field(max_length=MAX_NAME, examples=["Anna Jensen"])
    member: SingleLine | None = Field(default=None, max_length=32)


@router.get("/sections/{section_id}/individual/ranking", response_model=PlayerRankingPublic)
async def player_ranking(runtime: RuntimeDep, section_id: int) -> PlayerRankingPublic:
    """An individual's ranking per player: each player scores what their partnership scored
    on each board (every settled result, as the TD sees it)."""
    ranking = await runtime.read(
        lambda s: individual_standings.player_ranking(s, setup.get_section(s, section_id))
    )
    return PlayerRankingPublic(
        section_id=ranking.section_id,
        method=ranking.method,
        unit=ranking.unit,
        lines=[PlayerLinePublic.of(line) for line in ranking.lines],
    )


@router.put("/sections/{section_id}/individual/players/{number}")
async def name_player(
    runtime: RuntimeDep, section_id: int, number: int, body: PlayerNameIn
) -> dict[str, object]:
    """Name a player of an individual (audited); their partnerships show the name."""

    def work(s: Session) -> dict[str, object]:
        section = setup.get_section(s, section_id)
        player = individual_standings.set_player_name(s, section, number, body.name, body.member)
        return {"number": player.number, "name": player.name, "member": player.member}

    return await runtime.run(work)
