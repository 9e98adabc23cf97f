"""Results, standings and exports: what the results come to, as pages, tables and files show it.

``standings`` the live ranking, the board travellers and the score cards (``individual_standings``
and ``individual_results`` for an individual, ``team_matches`` for teams); ``adjusted`` the TD's
adjusted scores as they are scored; ``replay`` and ``hand_view`` the auction, the play and the
hand record beside a traveller; ``exports`` a section's results as files. Results import set-up
(the movement, the pairs) and the shared modules, never the table, the TD's actions or the
glance (import-linter).
"""
