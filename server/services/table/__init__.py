"""The table's commands and what a table reads."""
