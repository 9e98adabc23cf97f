"""One registry of the table commands' handlers (server/services/table/table_commands.py): every
member of the protocol's ``TableCommand`` union has exactly one handler, so a new command
that is added to the protocol and not to the registry fails here, not at a table. The fakes
that stand in for the server keep registries of the same form, held to the same union: the
terminal's fake server (terminal/testing/server.py) answers every table command, and the
keypad simulator's fake gateway (firmware_sim/fake_gateway.py) every one the keypad codec
carries."""

from __future__ import annotations

from typing import get_args

from firmware_sim import fake_gateway
from protocol.keypad_codec import KeypadCommand
from protocol.messages import Hello, PairTerminal, TableCommand
from server.services.table.table_commands import ANSWERS, ENTRIES, QUERIES, EntryCommand
from terminal.testing import extras
from terminal.testing import server as terminal_fake

MEMBERS = set(get_args(get_args(TableCommand)[0]))


def test_every_table_command_has_one_handler() -> None:
    assert not set(ANSWERS) & set(ENTRIES)
    assert set(ANSWERS) | set(ENTRIES) == MEMBERS


def test_the_logged_commands_are_those_with_an_entry_id() -> None:
    assert set(get_args(EntryCommand)) == set(ENTRIES)
    assert all("entry_id" in t.model_fields for t in ENTRIES)


def test_the_terminal_fake_has_one_handler_for_every_table_command() -> None:
    answers, entries = set(terminal_fake.ANSWERS), set(terminal_fake.ENTRIES)
    assert not answers & entries
    assert answers | entries == MEMBERS
    assert set(get_args(terminal_fake.EntryCommand)) == entries
    assert all("entry_id" in t.model_fields for t in entries)
    assert set(extras.ANSWERS) == set(QUERIES)  # the questions that change nothing


def test_the_keypad_fake_has_one_handler_for_every_table_command_the_keypad_sends() -> None:
    sent = set(get_args(KeypadCommand)) - {PairTerminal, Hello}  # the rest: pairing
    assert sent <= MEMBERS
    answers, entries = set(fake_gateway.ANSWERS), set(fake_gateway.ENTRIES)
    assert not answers & entries
    assert answers | entries == sent
    assert set(get_args(fake_gateway.EntryCommand)) == entries
    assert all("entry_id" in t.model_fields for t in entries)
