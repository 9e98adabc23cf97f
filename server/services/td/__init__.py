"""The TD's actions: rounds started and closed, results settled and edited, penalties, publishing.

``actions`` holds the actions on results and rounds and every table's state at a glance
(``TableState``); ``round_control`` what to ask before a round starts or closes, round time and
devices; ``sanctions`` warnings and penalties; ``publication`` publishing the results and the
correction deadline. Each takes a session, checks, changes, audits, and returns the pushes to
send. Nothing here imports the table's commands (import-linter).
"""
