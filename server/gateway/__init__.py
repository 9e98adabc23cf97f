"""The keypad gateway: serial keypads in, the same table services as the websocket terminals.

Layers, each in its own module:

* ``ports``: port specs, ``URL`` (one keypad) or ``URL#1-8`` (an RS-485 bus of keypads 1..8).
* ``line``: one port's link, sans I/O (protocol.link's PointToPointLink, or BusMaster on a bus).
* ``core``: sans I/O; link events in, ``KeypadJob`` objects out; replies and pushes encoded
  (protocol.keypad_codec) and routed to the keypad of the right table, with news the keypad
  already has held back (a 9600-baud bus has no bytes to spare).
* ``service``: one job against the database, in one transaction committed before its reply is
  queued: PairTerminal -> tokens.pair_terminal, Hello -> tokens.table_identity, the rest ->
  table_commands.outcome_for. The keypad's binding, ``(port, address) -> table token``, lives in
  the ``keypad_binding`` table and is read and written in that same transaction, so a restarted
  gateway carries on where the last stopped: the keypads notice only a new link session.
* ``inline``: the core driven synchronously (simulations in virtual time, the benchmark).
* ``serial_io`` and ``runner``: real ports (pyserial ``serial_for_url``, plus
  ``tcp-listen://``), one reader thread each that reopens a vanished port with backoff; the core
  on the event loop; service calls in worker threads.
* ``watch``: for a gateway in its own process, others' changes found in the database.
* ``cli``: ``traveller gateway --port URL [--port URL ...] [--bus ADDRS]``.

Where it runs. Inside the server (TRAVELLER_GATEWAY_PORTS, started by the app's lifespan) it
shares the server's engine and push bus: a TD's change reaches a keypad at once, and a keypad's
entry reaches the TD's pages and the other terminals the same way. As its own process
(``traveller gateway``) it shares only the database: it looks at the watched tables every
second for changes made by others, and on PostgreSQL it also joins the server's NOTIFY fan-out
(server/live/notify.py), which makes both directions immediate. Both run the same core and service.

What a keypad relies on (protocol/README.md section 6) and how the gateway keeps it: commands
are answered only after their transaction committed; a resent entry id is answered from the
idempotency log (``duplicate=True``); a command from a keypad with no binding gets
``not_paired``; token errors are mapped to the codes the firmware knows. ``NextRound`` before the
TD has started the next round is answered with the round as it stands (the keypad waits "for
the TD"); the wait is stored in the binding, and the gateway asks again on the keypad's behalf
when the round is released (on the push, and every few seconds in case one was missed).

Presence. A keypad between boards sends nothing for minutes, so its "last seen" on the TD's
pages is the link's: the gateway's end of a point-to-point link sends a keepalive SYNC after
20 s of quiet (protocol.link ``LinkConfig.keepalive``; a bus is polled anyway), and while a
bound keypad's link is up the core tells the server every 30 s that it is there
(``core.PRESENCE_EVERY``: a GetRound as news). An idle keypad stays online; a pulled cable
shows offline within 2 minutes (link down within about 27 s, then the dashboard's 90 s).
"""
