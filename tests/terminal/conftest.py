"""Terminal tests: their helpers (an app on the fake server) are in tests/support/terminal.py."""
