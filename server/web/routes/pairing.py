"""Pairing: each table's code, its terminals' status, withdrawing a terminal, a new device."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from server.i18n.notice_words import said
from server.services.event import setup
from server.services.glance import dashboard
from server.services.td import round_control
from server.web.auth import TDForm, TDPage
from server.web.respond import act, page
from server.web.state import RuntimeDep

router = APIRouter(prefix="/td/s/{section_id}", include_in_schema=False)


@router.get("/pairing", response_class=HTMLResponse)
async def pairing_page(
    request: Request, runtime: RuntimeDep, td_: TDPage, section_id: int
) -> Response:
    connected = runtime.bus.terminals(section_id)

    def work(s: Session) -> dict[str, Any]:
        section = setup.get_section(s, section_id)
        return {
            "head": dashboard.head(s, section),
            "rows": dashboard.pairing(s, section, connected=connected),
        }

    ctx = await runtime.read(work)
    return page(request, "td/pairing.html", td_, active="pairing", **ctx)


@router.post("/tables/{table}/new-device")
async def new_device(runtime: RuntimeDep, _td: TDForm, section_id: int, table: int) -> Response:
    """Withdraw the table's terminals and give it a fresh pairing code."""
    return await act(
        runtime,
        lambda s: round_control.move_to_new_device(s, setup.get_section(s, section_id), table),
        f"/td/s/{section_id}/pairing",
        lambda code: said(
            "notice",
            "Table {table}: old terminals withdrawn; pair the new device with {code}.",
            table=table,
            code=code,
        ),
    )


@router.post("/terminals/{token_id}/revoke")
async def revoke(runtime: RuntimeDep, _td: TDForm, section_id: int, token_id: int) -> Response:
    return await act(
        runtime,
        lambda s: round_control.revoke_terminal(s, setup.get_section(s, section_id), token_id),
        f"/td/s/{section_id}/pairing",
        said("notice", "Terminal withdrawn: it can no longer enter results."),
    )
