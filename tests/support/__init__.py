"""Helpers shared by the test directories, one copy each: import them from here, never from
another directory's conftest.py (a conftest holds fixtures; tests/test_harness.py checks it).

- `env`: the TD password, CI, PostgreSQL's admin address, the repository root, the xdist worker;
- `net`: loopback ports and sockets the OS chooses;
- `live`: the app served by uvicorn in a thread;
- `databases`: PostgreSQL databases made and dropped for a test;
- `app_factory`: engines and served apps (the `apps` fixture), the one way a test builds them;
- `api`: a club on the TD API and tables on the table API (in-process TestClient);
- `movements`, `teams`, `deals`, `plays`: a movement's club played round by round, a teams round
  robin, deals keyed at the table or set on a board, a real play as a table keys it;
- `web`: the live server's rooms and terminals, the TD's login form, screenshots;
- `processes`: servers in subprocesses (their own process groups);
- `faults`: a club on a real server process, outbox terminals, the exactly-once check;
- `dataconnector`, `terminal`, `keypad`, `io`: their directories' helpers.
"""
