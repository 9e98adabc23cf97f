"""The table's commands and what a table reads: § 262 entry at the table, one transaction each.

``table_commands`` takes every command a terminal or a keypad sends (through
server/live/table_desk.py) and meets the rules of protocol/board_rules.py with the rows;
``table_context`` is one authenticated table inside its open transaction and ``table_memory``
what the desk remembers of it between commands. The entries beyond the result are here too: a
deal keyed or checked (``deal_entry``), the play (``play_entry``), the terminal's extras
(``table_extras``: settings, board reports, the ranking, players, the TD's code), and the
fair-play rule on stored data (``fair_play``) that every table-side read of a board asks first.

A table reads the results (the ranking, a traveller) and may call a TD's action with the TD's
code; it never writes a results file (import-linter).
"""
