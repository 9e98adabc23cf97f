"""An in-memory server for the tests and for ``traveller terminal --demo``, following the real
server's rules: ``event`` holds what the fake event knows (settings, movement, results, deals
keyed at tables) and tells a table its round; ``extras`` answers the questions beyond § 262
entry and ``table_entry`` checks the auction, the play and the deals keyed, both over the event;
``server`` composes them into ``FakeServer`` with its ``FakeLink`` and ``FakeClient``."""
