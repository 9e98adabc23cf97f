"""Event set-up: events, sections, pairs and their names, members, hand records, movements.

``setup`` creates events and sections and names pairs; ``event_wizard`` stores a whole event in
one go; ``event_settings`` what the terminals show and the TD changing it; ``members`` the club's
member list; ``uploads`` the files the TD uploads; ``hand_records`` deals loaded into a section;
``movement_admin`` a section's movement and its changes mid-session; ``handicaps`` the pairs'
handicaps. Set-up imports none of the other groups (import-linter).
"""
