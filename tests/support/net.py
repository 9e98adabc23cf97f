"""Loopback ports and sockets that the OS chooses (no fixed port: parallel runs never clash)."""

from __future__ import annotations

import socket


def loopback_socket(port: int = 0) -> socket.socket:
    """A TCP socket bound to 127.0.0.1 (on a port the OS chooses unless ``port`` is given),
    listening, ready to hand to a server: nothing else can take the port meanwhile."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    return sock


def free_port() -> int:
    """A loopback port that was free a moment ago, for a server that binds it itself (a
    subprocess, or a listener the app opens). A server in this process takes a socket from
    `loopback_socket` instead, which cannot be lost to another process in between."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port
