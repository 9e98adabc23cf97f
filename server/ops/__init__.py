"""The operator's commands: the ``traveller`` command line (``cli``: the root and its table of
commands), each command with its part: the demo club night (``demo_cli``, ``demo``), the server
machine's ``serve``, ``backup`` and ``restore`` (``deploy_cli``), the site checks that also run
on a terminal (``doctor_cli``), the printable table card (``cards_cli``) and a clone's ``test``
and ``bench`` (``dev_cli``)."""
