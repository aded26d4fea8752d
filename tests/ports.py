"""Free TCP ports for the servers the tests start (SMTP listeners, relays, Dovecot, ``arbitre
serve``), safe on a machine where other test runs and programs open sockets at the same time.

The usual trick — bind port 0, read the port, close, hand it on — leaves a window between the
close and the server's own bind. The kernel gives port-0 binds and outgoing connections ports
of the *ephemeral range* (``/proc/sys/net/ipv4/ip_local_port_range``, 32768–60999 on Linux),
so on a busy machine another process can take that very port in the window: a full run under
load failed once with « address already in use » on an intake listener's port (issue 14).

Here ports come from below the ephemeral range, where the kernel never hands out a port by
itself, and each is reserved across processes with an ``flock`` held until this process
exits: two test runs at once never pick the same port, and a port a server of this run is
still closing is not handed out twice.
"""

from __future__ import annotations

import fcntl
import os
import random
import socket
import tempfile
from pathlib import Path

#: the range ports are taken from: below Linux's default ephemeral range (32768–60999)
LOW, HIGH = 20000, 32000
_LOCK_DIR = Path(tempfile.gettempdir()) / "arbitre-test-ports"
_held: dict[int, int] = {}  # port -> the descriptor whose lock reserves it, oldest first
_KEEP = 200  # reservations kept at once (a descriptor each)


def _ephemeral_range() -> tuple[int, int]:
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    """A port on 127.0.0.1 nobody listens on, reserved for this process until it exits."""
    _LOCK_DIR.mkdir(exist_ok=True)
    eph_low, eph_high = _ephemeral_range()
    rng = random.Random(os.getpid() ^ int.from_bytes(os.urandom(4), "big"))
    for _ in range(2000):
        port = rng.randrange(LOW, HIGH)
        if port in _held or eph_low <= port <= eph_high:
            continue
        fd = os.open(_LOCK_DIR / f"{port}.lock", os.O_CREAT | os.O_RDWR, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)  # another run holds it
            continue
        if not _bindable(port):
            os.close(fd)  # taken by a program outside the scheme
            continue
        _held[port] = fd
        if len(_held) > _KEEP:  # the oldest reservation's server stopped long ago
            os.close(_held.pop(next(iter(_held))))
        return port
    raise RuntimeError(f"no free port between {LOW} and {HIGH}")
