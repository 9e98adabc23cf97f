"""Results, standings and exports."""
