"""The TD's actions."""
