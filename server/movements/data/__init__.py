"""Data files for movements: bundled movement definitions and precomputed designs."""
