"""Use cases: pairing, event set-up, § 262 result entry, rounds, TD actions, audit."""
