"""Security headers on every response: a strict CSP on the web pages, no framing anywhere."""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: No inline scripts or styles, nothing from another origin, never inside a frame.
PAGE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; form-action 'self'; frame-ancestors 'none'; "
    "base-uri 'none'"
)
#: The API and its interactive docs keep their own scripts but are never framed either.
API_CSP = "frame-ancestors 'none'"

COMMON = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
}

#: Paths served by ``server.web`` (HTML, static files); everything else is the API.
WEB_PREFIXES = ("/td", "/results", "/static", "/favicon")


def is_web_path(path: str) -> bool:
    return path == "/" or path.startswith(WEB_PREFIXES)


class SecurityHeaders:
    """Pure ASGI middleware (no body buffering, websockets pass through untouched)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        https = scope.get("scheme") == "https"

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in COMMON.items():
                    headers.setdefault(name, value)
                headers.setdefault(
                    "content-security-policy", PAGE_CSP if is_web_path(path) else API_CSP
                )
                if path.startswith("/td"):
                    headers.setdefault("cache-control", "no-store")
                if https:
                    headers.setdefault("strict-transport-security", "max-age=31536000")
            await send(message)

        await self.app(scope, receive, send_with_headers)
