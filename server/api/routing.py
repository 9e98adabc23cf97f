"""Add routers' routes to an app as they were built, once a process.

An `APIRouter` builds each of its routes (the path with the router's prefix, its tags and
dependencies, the request parsing and the response model) when its module is imported.
FastAPI's `include_router` builds every route again for each app that includes it, on the app's
first request: about 0.4 s of CPU for Traveller's routes, which the first table or TD to ask
after a (re)start waits for, on a Raspberry Pi several times longer. `add_routes` hands the app
the routes the routers already hold instead. A route does not change once built, so apps of one
process share them safely."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI
from fastapi.routing import APIRoute, APIWebSocketRoute


def add_routes(app: FastAPI, *routers: APIRouter) -> None:
    """Append the routes of ``routers`` to ``app``, in order (the first match answers), as
    they were built at import: the first table or TD to ask after a (re)start does not wait
    for the routes to be built again (see the module's docstring).

    A router given here holds only its own routes: one that includes other routers, has a
    lifespan or startup handlers goes through ``app.include_router``, which merges those."""
    for router in routers:
        _check_plain(router)
        app.router.routes.extend(router.routes)


#: The lifespan a router has when it was given none of its own.
_NO_LIFESPAN = type(APIRouter().lifespan_context)


def _check_plain(router: APIRouter) -> None:
    where = router.prefix or "/"
    for route in router.routes:
        if not isinstance(route, (APIRoute, APIWebSocketRoute)):
            raise TypeError(
                f"{where}: {type(route).__name__} is not a route of its own; "
                "add the routers it includes instead"
            )
    own_lifespan = type(router.lifespan_context) is not _NO_LIFESPAN
    if own_lifespan or router.on_startup or router.on_shutdown:
        raise ValueError(f"{where}: a router with a lifespan goes through include_router")
