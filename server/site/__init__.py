"""Looking after a club's site: backups (``backup``), mDNS advertising (``discovery``) and
the checks of ``traveller doctor`` (``doctor``)."""
