"""Movements from thebridsk/bridgescorer (MIT licence); see README.md."""
