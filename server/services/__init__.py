"""The use cases, one transaction each, grouped by bridge concept.

``table/`` the table's commands and what a table reads; ``td/`` the TD's actions; ``glance/``
what the TD watches (dashboard, room view, movement pages); ``event/`` event set-up;
``results/`` results, standings and exports. The modules left here are shared by the groups and
import none of them: the audit trail (``audit``) and the unit of work it writes into
(``commit_rows``), the correction deadlines a change opens (``deadlines``), a keyed result checked
and scored (``entries``), hand records and the double dummy (``hands``), the keyed deals the
round info reads (``keyed_deals``), what a command hands back (``outcomes``), tokens and logins
(``tokens``) and the protocol's views of stored rows (``views``).
"""
