"""The terminal's screens: pairing, seat check, board entry, East's confirmation, round summary."""
