"""Dependencies shared by the routers: the database, the bus, TD and table authentication."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request

from server.core.errors import UnauthorizedError
from server.live.runtime import Runtime
from server.services import tokens

__all__ = ["Runtime", "RuntimeDep", "TDDep", "TableTokenDep", "bearer", "get_runtime"]


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
    await runtime.read(lambda s: tokens.td_check(s, token))


TDDep = Depends(require_td)


def table_token(authorization: Annotated[str | None, Header()] = None) -> str:
    return bearer(authorization)


TableTokenDep = Annotated[str, Depends(table_token)]
