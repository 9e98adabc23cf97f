"""The terminal's questions to the server beyond § 262 entry: each answer typed, each refusal a
ClientError in plain words. Online only: they are never queued in the outbox."""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from typing import Literal, TypeVar

from protocol.messages import (
    BoardReport,
    BoardResultView,
    CheckDeal,
    CheckEntry,
    DealAck,
    EnterDeal,
    EntryChecked,
    EntryValues,
    GetBoardReport,
    GetRanking,
    LookupMember,
    MarkNotPlayed,
    MemberFound,
    PlayerEntry,
    RankingReport,
    ResultAck,
    RoundInfo,
    ServerMessage,
    SetPlayers,
    TableCommand,
)

from .errors import ClientError
from .i18n import N_, _

Answer = TypeVar("Answer")
UNEXPECTED = N_("The server gave an unexpected answer.")


def expect(reply: ServerMessage, kind: type[Answer]) -> Answer:
    """The reply if it is of the expected kind, else a ClientError."""
    if not isinstance(reply, kind):
        raise ClientError("unexpected_reply", _(UNEXPECTED))
    return reply


class TableQueries(ABC):
    """Typed questions built on :meth:`ask` (one request, one answer, no outbox)."""

    @abstractmethod
    async def ask(self, command: TableCommand) -> ServerMessage:
        """Send one command now and return the answer (ClientError if refused or offline)."""

    async def lookup_member(self, number: str) -> MemberFound:
        """The member's name for a membership number."""
        return expect(await self.ask(LookupMember(number=number)), MemberFound)

    async def set_players(
        self, seat: Literal["NS", "EW"], players: list[PlayerEntry]
    ) -> RoundInfo | None:
        """Store the players of the pair at ``seat``; the round with the new names."""
        command = SetPlayers(entry_id=str(uuid.uuid4()), seat=seat, players=players)
        reply = await self.ask(command)
        return reply if isinstance(reply, RoundInfo) else None

    async def check_entry(self, board: int, values: EntryValues) -> EntryChecked:
        """Whether an entry about to be sent is well formed. The server says nothing here about
        the cards: the lead and the tricks are checked on the entry itself (docs/rules.md § 11)."""
        return expect(await self.ask(CheckEntry(board=board, values=values)), EntryChecked)

    async def board_report(self, board: int) -> BoardReport:
        """The score, traveller or deal of a board this table has played and confirmed."""
        return expect(await self.ask(GetBoardReport(board=board)), BoardReport)

    async def ranking(self) -> RankingReport:
        """The ranking at the end of the session (if the event shows it)."""
        return expect(await self.ask(GetRanking()), RankingReport)

    async def mark_not_played(self, board: int, td_code: str) -> BoardResultView:
        """The TD marks a board not played with the section's TD code."""
        command = MarkNotPlayed(entry_id=str(uuid.uuid4()), board=board, td_code=td_code)
        return expect(await self.ask(command), ResultAck).result

    async def enter_deal(self, board: int, deal: str) -> DealAck:
        """The four hands of a hand-dealt board, keyed at this table (a PBN [Deal]). The deal is
        kept here too: the play screen checks the cards against it (the server never sends a
        deal to a table before it has played the board)."""
        command = EnterDeal(entry_id=str(uuid.uuid4()), board=board, deal=deal)
        ack = expect(await self.ask(command), DealAck)
        self.keyed_deals[board] = deal
        return ack

    async def check_deal(self, board: int, seat: Literal["N", "E", "S", "W"], hand: str) -> DealAck:
        """One hand of a board whose deal another table keyed, to check it."""
        command = CheckDeal(entry_id=str(uuid.uuid4()), board=board, seat=seat, hand=hand)
        return expect(await self.ask(command), DealAck)

    @property
    def keyed_deals(self) -> dict[int, str]:
        """The deals this table keyed itself (board -> PBN [Deal]), this session."""
        deals: dict[int, str] = self.__dict__.setdefault("_keyed_deals", {})
        return deals
