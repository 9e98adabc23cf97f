"""Server settings from the environment (TRAVELLER_*), with no import-time singletons."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from server.core import credentials


class Settings(BaseSettings):
    """Everything the server needs to start; read from TRAVELLER_* variables or passed in."""

    model_config = SettingsConfigDict(env_prefix="TRAVELLER_", env_file=None, extra="ignore")

    database_url: str = Field(
        default="sqlite:///traveller.db",
        description="sqlite:///path.db (default) or postgresql+psycopg://user@host/db",
    )
    db_pool_size: int = Field(
        default=5,
        ge=1,
        description="PostgreSQL: connections each worker keeps open (TRAVELLER_DB_POOL_SIZE). "
        "Workers x (pool size + max overflow + 2) must stay below PostgreSQL's max_connections "
        "(100 by default); `traveller serve --workers N` derives both when they are not set.",
    )
    db_max_overflow: int = Field(
        default=5,
        ge=0,
        description="PostgreSQL: extra connections a worker may open at a peak "
        "(TRAVELLER_DB_MAX_OVERFLOW).",
    )
    group_commit_max: int = Field(
        default=64,
        ge=1,
        description="Table commands committed together at most (one transaction, one fsync); "
        "1 turns group commit off.",
    )
    td_password: str | None = Field(
        default=None, description="Required outside demo mode; there is no default password."
    )
    host: str = "127.0.0.1"
    port: int = 8000
    demo: bool = False
    td_session_hours: int = 12
    hello_timeout: float = Field(
        default=10.0, description="Seconds a new table websocket has to send its hello."
    )
    max_message_bytes: int = Field(
        default=16_384, description="Largest table websocket message; bigger ones close it."
    )
    max_sockets_per_address: int = Field(
        default=128, description="Open table websockets allowed from one address (0: no cap)."
    )
    token_check_seconds: float = Field(
        default=60.0,
        gt=0,
        description="The longest an open table websocket goes without reading its token from "
        "the database. A revocation by the server (the TD's 'new device', withdrawing a "
        "terminal) closes the old device's socket at once on every worker; this bounds a "
        "change made behind the server's back.",
    )
    dc_club_id: str | None = Field(
        default=None,
        description="Bridgemate Data Connector: the club id scoring programs must send "
        "(TRAVELLER_DC_CLUB_ID); the connector refuses every request while it is unset.",
    )
    dc_license: str | None = Field(
        default=None, description="Data Connector: the licence key scoring programs must send."
    )
    dc_port: int = Field(
        default=5079, description="Data Connector's own port (0: only the /dc path of the server)."
    )
    gateway_ports: str | None = Field(
        default=None,
        description="Serial keypads: the ports the server's gateway opens, separated by spaces "
        "or ';': /dev/ttyUSB0, /dev/ttyUSB1#1-8 (an RS-485 bus polling keypads 1 to 8), "
        "tcp-listen://0.0.0.0:7001. Unset: no gateway (or run `traveller gateway`).",
    )
    # Limits against floods (server/limits/http_limits.py, server/web/live.py; SECURITY.md).
    max_body_bytes: int = Field(
        default=8 * 2**20,
        ge=0,
        description="Largest request body in bytes (413 above it; 0: no limit). The largest "
        "legitimate one is the TD's player list upload (2 MB of text, sent as multipart).",
    )
    header_timeout: float = Field(
        default=10.0,
        gt=0,
        description="Seconds a connection has to send a request's headers, when it opens and "
        "after each response; slower ones are closed.",
    )
    body_timeout: float = Field(
        default=30.0,
        gt=0,
        description="Seconds a request body may pause between two of its parts (408 after).",
    )
    keep_alive_timeout: float = Field(
        default=5.0, gt=0, description="Seconds an idle keep-alive connection is kept open."
    )
    idle_connections_per_address: int = Field(
        default=32,
        ge=0,
        description="Connections one address may hold open waiting for a request (0: no cap; "
        "a trusted reverse proxy, uvicorn's FORWARDED_ALLOW_IPS, is not capped).",
    )
    max_header_bytes: int = Field(
        default=32_768, ge=1024, description="Largest request head (request line and headers)."
    )
    max_live_sockets_per_address: int = Field(
        default=32,
        ge=0,
        description="Open live-page websockets (public results, TD dashboard) allowed from "
        "one address (0: no cap).",
    )


class ConfigError(RuntimeError):
    """The settings cannot run a server (e.g. no TD password in production mode)."""


def check(settings: Settings) -> None:
    """Refuse to start a production server without a TD password, or with a weak TD password
    or Data Connector licence (server.core.credentials: they are guessed from the club's LAN)."""
    if not settings.demo and not settings.td_password:
        raise ConfigError(
            "TRAVELLER_TD_PASSWORD is not set: a production server needs a TD password "
            "(the demo prints one of its own)."
        )
    if settings.td_password is not None:
        problem = credentials.td_password_problem(settings.td_password)
        if problem:
            raise ConfigError(
                f"TRAVELLER_TD_PASSWORD: {problem}; choose a longer one "
                "(e.g. python3 -c 'import secrets; print(secrets.token_urlsafe(9))')"
            )
    problem = credentials.dc_credentials_problem(settings.dc_club_id, settings.dc_license)
    if problem:
        raise ConfigError(f"Data Connector: {problem}")
