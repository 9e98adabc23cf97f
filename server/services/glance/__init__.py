"""What the TD watches: the dashboard, the room view and the movement pages, read from the rows.

Read models only: ``dashboard`` (the table grid, missing entries, open calls, terminals, the
audit trail of a result), ``room`` (the second screen across the card room) and
``movement_views`` (the movement grid, its balance, guide cards). They change nothing and never
import the TD's actions or the table's commands (import-linter).
"""
