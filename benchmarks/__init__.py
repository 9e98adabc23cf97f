"""Benchmarks and fault harness: `traveller bench load|chaos|scoring|keypad` (run from the repo)."""
