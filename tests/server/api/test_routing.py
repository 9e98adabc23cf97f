"""`add_routes`: every app of a process shares the routes its routers built, in their order, and
a router it cannot hand over as it is (one that includes others, or has a lifespan) is refused."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from fastapi import APIRouter, Depends, FastAPI, HTTPException
from fastapi.testclient import TestClient

from server.api.routing import add_routes
from server.app import API_ROUTERS, create_app
from server.core.config import Settings
from server.web import ROUTERS
from tests.support.env import TD_PASSWORD


def _refuse() -> None:
    raise HTTPException(403, "guarded")


def test_the_routes_keep_their_prefix_dependencies_and_order() -> None:
    first = APIRouter(prefix="/a", dependencies=[Depends(_refuse)])
    second = APIRouter(prefix="/a", tags=["b"])

    @first.get("/x")
    def x() -> str:
        return "first"

    @second.get("/x")
    def also_x() -> str:  # pragma: no cover - the first router's route matches first
        return "second"

    @second.get("/y")
    def y() -> str:
        return "second"

    app = FastAPI()
    add_routes(app, first, second)
    with TestClient(app) as client:
        assert client.get("/a/x").status_code == 403  # the router's dependency still runs
        assert client.get("/a/y").json() == "second"
    assert app.openapi()["paths"]["/a/y"]["get"]["tags"] == ["b"]


def test_a_router_that_includes_others_or_has_a_lifespan_is_refused() -> None:
    outer, inner = APIRouter(), APIRouter()

    @inner.get("/z")
    def z() -> None:  # pragma: no cover - never served
        return None

    outer.include_router(inner)
    with pytest.raises(TypeError, match="add the routers it includes instead"):
        add_routes(FastAPI(), outer)

    @asynccontextmanager
    async def lifespan(_app: object) -> AsyncIterator[None]:  # pragma: no cover - never run
        yield

    with pytest.raises(ValueError, match="lifespan"):
        add_routes(FastAPI(), APIRouter(lifespan=lifespan))


def test_two_servers_of_one_process_share_the_routes_and_one_api_description() -> None:
    settings = Settings(td_password=TD_PASSWORD, database_url="sqlite://")
    one, two = create_app(settings), create_app(settings)
    shared = [route for router in (*API_ROUTERS, *ROUTERS) for route in router.routes]
    for app in (one, two):
        ids = {id(route) for route in app.router.routes}
        assert all(id(route) in ids for route in shared)
    assert one.openapi() == two.openapi()
