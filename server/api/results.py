"""Results as JSON: a section's ranking, a board's traveller and a pair's score card.

Two views of the same services (server.services.results.standings): the TD's (bearer token; every
result entered so far) and the public one (as the /results pages show it: only boards every
table has finished, until the section is published).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from typing import Any, TypeVar

from fastapi import APIRouter, Depends
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field
from sqlmodel import Session

from protocol.messages import Error
from server.api.deps import RuntimeDep, require_td
from server.api.openapi import ERRORS, operation_id
from server.scoring.methods import DEFAULT
from server.services.event import setup
from server.services.results import individual_results, standings
from server.services.results.individual_standings import PlayerLine, PlayerRanking

T = TypeVar("T")
_NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": Error, "description": "No such section, board or pair."}
}

public = APIRouter(
    prefix="/api/v1/results",
    tags=["results"],
    responses={**ERRORS, **_NOT_FOUND},
    generate_unique_id_function=operation_id,
)
guarded = APIRouter(
    prefix="/api/v1",
    tags=["results"],
    dependencies=[Depends(require_td)],
    responses={**ERRORS, **_NOT_FOUND},
    generate_unique_id_function=operation_id,
)


def _number(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


class PairNamePublic(BaseModel):
    """A pair as results show it."""

    number: int
    direction: str | None = Field(description='"NS"/"EW" in a Mitchell, else null')
    label: str = Field(examples=["3 NS"])
    key: str = Field(description="for the score card's address", examples=["3NS"])
    names: str

    @classmethod
    def of(cls, pair: standings.PairName | None) -> PairNamePublic | None:
        if pair is None:
            return None
        return cls(
            number=pair.number,
            direction=pair.direction,
            label=pair.label,
            key=pair.key,
            names=pair.names,
        )


class RankingLinePublic(BaseModel):
    place: str = Field(examples=["3="])
    pair: PairNamePublic
    total: float = Field(description="matchpoints, IMPs or points after penalties")
    percentage: float | None = Field(description="two decimals (matchpoint methods)")
    boards: int
    penalty: float


class RankingGroupPublic(BaseModel):
    title: str = Field(examples=["North–South"])
    lines: list[RankingLinePublic]


class PlayerLinePublic(BaseModel):
    """A player's line in an individual's ranking."""

    place: str = Field(examples=["3="])
    number: int
    name: str
    total: float = Field(description="matchpoints, IMPs or points of the player's boards")
    percentage: float | None = Field(description="two decimals (matchpoint methods)")
    boards: int

    @classmethod
    def of(cls, line: PlayerLine) -> PlayerLinePublic:
        return cls(
            place=line.place,
            number=line.number,
            name=line.name,
            total=float(line.total),
            percentage=_number(line.percent),
            boards=line.boards,
        )


class RankingPublic(BaseModel):
    """A section's ranking: one group per direction in a Mitchell, one in a Howell; an
    individual ranks its players instead (`kind` "individual", `players`, no groups)."""

    section_id: int
    event: str
    section: str
    method: str = Field(examples=[DEFAULT.value])
    unit: str = Field(examples=["MP"])
    groups: list[RankingGroupPublic]
    boards_shown: list[int]
    boards_total: int
    publication: str
    published_at: datetime | None
    corrections_until: datetime | None
    kind: str = Field("pairs", description='"pairs" or "individual"')
    players: list[PlayerLinePublic] = Field(
        default_factory=list, description="an individual's players, ranked"
    )

    @classmethod
    def of(cls, ranking: standings.Ranking, players: PlayerRanking | None = None) -> RankingPublic:
        return cls(
            section_id=ranking.section_id,
            event=ranking.event,
            section=ranking.letter,
            method=ranking.method,
            unit=ranking.unit,
            groups=[
                RankingGroupPublic(
                    title=group.title,
                    lines=[
                        RankingLinePublic(
                            place=line.place,
                            pair=PairNamePublic.of(line.pair),
                            total=float(line.total),
                            percentage=_number(line.percent),
                            boards=line.boards,
                            penalty=float(line.penalty),
                        )
                        for line in group.lines
                    ],
                )
                for group in ranking.groups
                if players is None  # an individual shows players, not partnerships
            ],
            kind="pairs" if players is None else "individual",
            players=[]
            if players is None
            else [PlayerLinePublic.of(line) for line in players.lines],
            boards_shown=ranking.boards_shown,
            boards_total=ranking.boards_total,
            publication=ranking.publication,
            published_at=ranking.published_at,
            corrections_until=ranking.corrections_until,
        )


class TravellerLinePublic(BaseModel):
    table: int | None
    round: int | None
    ns: PairNamePublic | None
    ew: PairNamePublic | None
    contract: str | None = Field(examples=["4♠X"])
    declarer: str | None
    lead: str | None
    result: str | None = Field(examples=["=", "+1", "-2"])
    ns_score: str = Field(description='N/S score or the adjusted score\'s label ("A60")')
    ew_score: str
    ns_value: float | None = Field(description="matchpoints or IMPs")
    ew_value: float | None
    ns_percent: float | None
    ew_percent: float | None
    note: str | None = Field(description="the kind of a TD's adjusted score")


class TravellerPublic(BaseModel):
    """A board's traveller; `visible` is false while the public may not see it yet."""

    board: int
    visible: bool
    unit: str
    lines: list[TravellerLinePublic]

    @classmethod
    def of(cls, traveller: standings.Traveller) -> TravellerPublic:
        return cls(
            board=traveller.board,
            visible=traveller.visible,
            unit=traveller.unit,
            lines=[
                TravellerLinePublic(
                    table=line.table,
                    round=line.round,
                    ns=PairNamePublic.of(line.ns),
                    ew=PairNamePublic.of(line.ew),
                    contract=line.contract,
                    declarer=line.declarer,
                    lead=line.lead,
                    result=line.result,
                    ns_score=line.ns_score,
                    ew_score=line.ew_score,
                    ns_value=_number(line.ns_value),
                    ew_value=_number(line.ew_value),
                    ns_percent=_number(line.ns_percent),
                    ew_percent=_number(line.ew_percent),
                    note=line.note,
                )
                for line in traveller.lines
            ],
        )


class CardLinePublic(BaseModel):
    board: int
    round: int | None
    table: int | None
    direction: str | None
    opponents: PairNamePublic | None
    contract: str | None
    declarer: str | None
    result: str | None
    score: str = Field(description="the pair's own score, or the adjusted score's label")
    value: float | None
    percent: float | None
    note: str | None


class ScoreCardPublic(BaseModel):
    """A pair's personal score card: its ranking line and every scored board."""

    pair: PairNamePublic
    line: RankingLinePublic | None
    unit: str
    boards_total: int
    lines: list[CardLinePublic]

    @classmethod
    def of(cls, card: standings.ScoreCard) -> ScoreCardPublic:
        line = card.line
        return cls(
            pair=PairNamePublic.of(card.pair),
            line=None
            if line is None
            else RankingLinePublic(
                place=line.place,
                pair=PairNamePublic.of(line.pair),
                total=float(line.total),
                percentage=_number(line.percent),
                boards=line.boards,
                penalty=float(line.penalty),
            ),
            unit=card.unit,
            boards_total=card.boards_total,
            lines=[
                CardLinePublic(
                    board=row.board,
                    round=row.round,
                    table=row.table,
                    direction=row.direction,
                    opponents=PairNamePublic.of(row.opponents),
                    contract=row.contract,
                    declarer=row.declarer,
                    result=row.result,
                    score=row.score,
                    value=_number(row.value),
                    percent=_number(row.percent),
                    note=row.note,
                )
                for row in card.lines
            ],
        )


# --- handlers: load in a read snapshot, score outside it, shape the answer ------------------


async def _score(
    view: Callable[..., T], runtime: RuntimeDep, section_id: int, *args: object, public: bool
) -> T:
    """Load the section in a read snapshot, then score it in a worker thread."""

    def work(s: Session) -> standings.SectionData:
        return standings.load(s, setup.get_section(s, section_id))

    data = await runtime.read(work)
    return await run_in_threadpool(view, data, *args, public=public)


@public.get("/{section_id}/ranking", response_model=RankingPublic)
async def public_ranking(runtime: RuntimeDep, section_id: int) -> RankingPublic:
    """The ranking as the public results page shows it (released boards only); an individual
    section's ranks its players."""

    def work(s: Session) -> tuple[standings.SectionData, individual_results.IndividualData | None]:
        section = setup.get_section(s, section_id)
        found = individual_results.load(s, section)
        return (found.data if found is not None else standings.load(s, section)), found

    data, found = await runtime.read(work)
    ranking = await run_in_threadpool(standings.rank, data, public=True)
    if found is None:
        return RankingPublic.of(ranking)
    players = await run_in_threadpool(individual_results.ranking, found, public=True)
    return RankingPublic.of(ranking, players)


class PlayerRefPublic(BaseModel):
    number: int
    name: str


class PlayerCardLinePublic(BaseModel):
    board: int
    round: int | None
    table: int | None
    seat: str | None = Field(examples=["N"])
    partner: PlayerRefPublic | None
    opponents: list[PlayerRefPublic]
    contract: str | None
    declarer: str | None
    result: str | None
    score: str = Field(description="the partnership's own score, or the adjusted score's label")
    value: float | None
    percent: float | None
    note: str | None


class PlayerCardPublic(BaseModel):
    """An individual player's score card: their ranking line and every scored board."""

    player: PlayerRefPublic
    line: PlayerLinePublic | None
    unit: str
    boards_total: int
    lines: list[PlayerCardLinePublic]

    @classmethod
    def of(cls, card: individual_results.PlayerCard) -> PlayerCardPublic:
        def ref(p: individual_results.PlayerName) -> PlayerRefPublic:
            return PlayerRefPublic(number=p.number, name=p.name)

        line = card.line
        return cls(
            player=ref(card.player),
            line=None if line is None else PlayerLinePublic.of(line),
            unit=card.unit,
            boards_total=card.boards_total,
            lines=[
                PlayerCardLinePublic(
                    board=row.board,
                    round=row.round,
                    table=row.table,
                    seat=row.seat,
                    partner=None if row.partner is None else ref(row.partner),
                    opponents=[ref(p) for p in row.opponents or ()],
                    contract=row.contract,
                    declarer=row.declarer,
                    result=row.result,
                    score=row.score,
                    value=_number(row.value),
                    percent=_number(row.percent),
                    note=row.note,
                )
                for row in card.lines
            ],
        )


@public.get("/{section_id}/players/{number}", response_model=PlayerCardPublic)
async def public_player_card(runtime: RuntimeDep, section_id: int, number: int) -> PlayerCardPublic:
    """An individual player's score card, released boards only."""

    def work(s: Session) -> individual_results.IndividualData:
        return individual_results.load_individual(s, setup.get_section(s, section_id))

    found = await runtime.read(work)
    card = await run_in_threadpool(individual_results.player_card, found, number, public=True)
    return PlayerCardPublic.of(card)


@public.get("/{section_id}/boards/{board}", response_model=TravellerPublic)
async def public_traveller(runtime: RuntimeDep, section_id: int, board: int) -> TravellerPublic:
    """A board's traveller, once every table has played it (or the section is published)."""
    traveller = await _score(standings.travel, runtime, section_id, board, public=True)
    return TravellerPublic.of(traveller)


@public.get("/{section_id}/pairs/{key}", response_model=ScoreCardPublic)
async def public_score_card(runtime: RuntimeDep, section_id: int, key: str) -> ScoreCardPublic:
    """A pair's score card (`key` as "3NS", "3EW" or "7"), released boards only."""
    return ScoreCardPublic.of(await _score(standings.card, runtime, section_id, key, public=True))


@guarded.get("/sections/{section_id}/ranking", response_model=RankingPublic)
async def td_ranking(runtime: RuntimeDep, section_id: int) -> RankingPublic:
    """The live ranking over every result entered so far (TD)."""
    return RankingPublic.of(await _score(standings.rank, runtime, section_id, public=False))


@guarded.get("/sections/{section_id}/boards/{board}/traveller", response_model=TravellerPublic)
async def td_traveller(runtime: RuntimeDep, section_id: int, board: int) -> TravellerPublic:
    """A board's traveller with every result entered so far (TD)."""
    traveller = await _score(standings.travel, runtime, section_id, board, public=False)
    return TravellerPublic.of(traveller)


@guarded.get("/sections/{section_id}/pairs/{key}/card", response_model=ScoreCardPublic)
async def td_score_card(runtime: RuntimeDep, section_id: int, key: str) -> ScoreCardPublic:
    """A pair's score card with every result entered so far (TD)."""
    return ScoreCardPublic.of(await _score(standings.card, runtime, section_id, key, public=False))
