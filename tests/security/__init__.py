"""The standing attack suite (issue 14): fairness, floods, guessing and hostile input.

Every test is bounded in time and count and talks to loopback only.
"""
