"""Server settings from the environment (TRAVELLER_*), with no import-time singletons."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Everything the server needs to start; read from TRAVELLER_* variables or passed in."""

    model_config = SettingsConfigDict(env_prefix="TRAVELLER_", env_file=None, extra="ignore")

    database_url: str = Field(
        default="sqlite:///traveller.db",
        description="sqlite:///path.db (default) or postgresql+psycopg://user@host/db",
    )
    td_password: str | None = Field(
        default=None, description="Required outside demo mode; there is no default password."
    )
    host: str = "127.0.0.1"
    port: int = 8000
    demo: bool = False
    td_session_hours: int = 12


class ConfigError(RuntimeError):
    """The settings cannot run a server (e.g. no TD password in production mode)."""


def check(settings: Settings) -> None:
    """Refuse to start a production server without a TD password."""
    if not settings.demo and not settings.td_password:
        raise ConfigError(
            "TRAVELLER_TD_PASSWORD is not set: a production server needs a TD password "
            "(the demo prints one of its own)."
        )
    if settings.td_password is not None and len(settings.td_password) < 6:
        raise ConfigError("the TD password must have at least 6 characters")
