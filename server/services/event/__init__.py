"""Event set-up: events, sections, pairs, members, hand records, movements."""
