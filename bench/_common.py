"""What the bench scripts share: :func:`free_port`, a port on 127.0.0.1 for the servers a
benchmark starts (SMTP relay and listener, gunicorn). A benchmark runs alone, so the plain
bind-0 trick is enough here; the tests, which run beside other test runs, take their ports
from ``tests/ports.py`` (reserved across processes)."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port nobody listens on right now (bound to port 0, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
