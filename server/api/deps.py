"""Dependencies shared by the routers: the database, the bus, TD and table authentication."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Annotated, TypeVar

from fastapi import Depends, Header, Request
from fastapi.concurrency import run_in_threadpool
from sqlalchemy import Engine
from sqlmodel import Session

from server.bus import Bus
from server.config import Settings
from server.db import GroupWriter, read, transact
from server.errors import UnauthorizedError
from server.services import tokens
from server.services.table_commands import Push

T = TypeVar("T")


#: The interpreter's thread switch interval while a server runs (Python's default: 5 ms). The
#: writer thread gives up the GIL around every SQLite call; with the default, a thread rendering
#: a page could keep it for 5 ms each time, so a command of a dozen statements waited tens of
#: milliseconds for the GIL. 0.5 ms hands it back at once.
SWITCH_INTERVAL = 0.0005


class Runtime:
    """What a running server holds: settings, the engine and the push bus (on app.state)."""

    def __init__(self, settings: Settings, engine: Engine) -> None:
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
        self.settings = settings
        self.engine = engine
        self.bus = Bus()
        self.writer = GroupWriter(engine, max_batch=settings.group_commit_max)

    async def run(self, work: Callable[[Session], T]) -> T:
        """Run a use case in a worker thread, in one transaction, committed on return."""
        return await run_in_threadpool(transact, self.engine, work)

    async def command(self, work: Callable[[Session], T], order: int = 0) -> T:
        """Run a table command through the group writer: with the commands waiting alongside
        it, in one transaction (its own savepoint) and one commit. Returns once committed."""
        if self.settings.group_commit_max <= 1:
            return await self.run(work)
        return await asyncio.wrap_future(self.writer.submit(work, order))

    async def read(self, work: Callable[[Session], T]) -> T:
        """Run a read-only query in a worker thread, on a snapshot that never blocks writers."""
        return await run_in_threadpool(read, self.engine, work)

    def publish(self, pushes: list[Push]) -> None:
        self.bus.publish((p.section_id, p.table, p.message) for p in pushes)


def get_runtime(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


def bearer(authorization: str | None) -> str:
    if not authorization or not authorization.lower().startswith("bearer "):
        raise UnauthorizedError("token_missing", "Send 'Authorization: Bearer <token>'.")
    return authorization[7:].strip()


async def require_td(
    runtime: RuntimeDep, authorization: Annotated[str | None, Header()] = None
) -> None:
    token = bearer(authorization)
    await runtime.run(lambda s: tokens.td_check(s, token))


TDDep = Depends(require_td)


def table_token(authorization: Annotated[str | None, Header()] = None) -> str:
    return bearer(authorization)


TableTokenDep = Annotated[str, Depends(table_token)]
