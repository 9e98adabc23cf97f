"""The operator's commands: the ``traveller`` command line (``cli``), the site commands
(serve, backup, restore, doctor: ``deploy_cli``), the printable table card (``cards_cli``)
and the demo club night (``demo``)."""
