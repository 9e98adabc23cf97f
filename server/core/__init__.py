"""The foundations: the settings, the event database (its tables, engines, sessions and
migrations runner), the domain errors, and the checks of the server's secrets and of the
text people type. They import no other part of the server."""
