"""One registry of the table commands' handlers (server/services/table_commands.py): every
member of the protocol's ``TableCommand`` union has exactly one handler, so a new command
that is added to the protocol and not to the registry fails here, not at a table."""

from __future__ import annotations

from typing import get_args

from protocol.messages import TableCommand
from server.services.table_commands import ANSWERS, ENTRIES, EntryCommand

MEMBERS = set(get_args(get_args(TableCommand)[0]))


def test_every_table_command_has_one_handler() -> None:
    assert not set(ANSWERS) & set(ENTRIES)
    assert set(ANSWERS) | set(ENTRIES) == MEMBERS


def test_the_logged_commands_are_those_with_an_entry_id() -> None:
    assert set(get_args(EntryCommand)) == set(ENTRIES)
    assert all("entry_id" in t.model_fields for t in ENTRIES)
