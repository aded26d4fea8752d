"""Which process holds an outbox row being sent, and whether that process is gone.

A row the sender claims (``sending``) records its holder: the host name, the pid and the
process's **start stamp** ``<boot id>/<pid namespace>/<start time>`` — the kernel's boot id
(``/proc/sys/kernel/random/boot_id``), the inode of the process's pid namespace
(``/proc/self/ns/pid``) and the start time in clock ticks since boot (field 22 of
``/proc/<pid>/stat``). A pid names one process only together with its start: once that
process is gone the kernel may give the pid to another, which then runs with another start
time and is not taken for the holder.

:func:`is_gone` is sure or says no: a holder is gone when it ran on this host as far as the
stamp can tell (same host name, same boot, same pid namespace) and its pid runs no longer,
or runs a process started at another time (or a zombie). A holder on another host, in
another container, before a reboot of a host of the same name, or on a system without
``/proc`` cannot be judged: its row keeps the lease (``OUTBOX_LEASE_SECONDS``).
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


@dataclass(frozen=True)
class Holder:
    host: str
    pid: int
    start: str | None  # None where the start cannot be read (no /proc): never judged


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None


def _host_part() -> str | None:
    """``<boot id>/<pid namespace>`` of this process, or None without ``/proc``."""
    boot = _read(PROC / "sys" / "kernel" / "random" / "boot_id")
    try:
        namespace = os.readlink(PROC / "self" / "ns" / "pid")  # "pid:[4026531836]"
    except OSError:
        return None
    digits = "".join(ch for ch in namespace if ch.isdigit())
    if not boot or not digits:
        return None
    return f"{boot}/{digits}"


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, start time in ticks since boot) of ``pid`` from ``/proc/<pid>/stat``, or None
    when there is no such file. The command name (field 2) may hold spaces and parentheses:
    the fields are counted from the last ``)``."""
    text = _read(PROC / str(pid) / "stat")
    if text is None or ")" not in text:
        return None
    fields = text.rpartition(")")[2].split()
    # fields[0] is field 3 (state); field 22 (starttime) is fields[19]
    if len(fields) < 20 or not fields[19].isdigit():
        return None
    return fields[0], int(fields[19])


def stamp_of(pid: int) -> str | None:
    """The start stamp of the process ``pid`` now, or None when it cannot be read."""
    host_part = _host_part()
    stat = _stat(pid)
    if host_part is None or stat is None:
        return None
    return f"{host_part}/{stat[1]}"


def this_process() -> Holder:
    """This process, as recorded on the rows it claims."""
    pid = os.getpid()
    return Holder(socket.gethostname(), pid, stamp_of(pid))


def is_gone(host: str | None, pid: int | None, start: str | None, *, me: Holder) -> bool:
    """True when the recorded holder surely runs no longer (see the module's docstring);
    False when it runs or cannot be judged from here."""
    if host is None or pid is None or not start or me.start is None or host != me.host:
        return False
    recorded_host_part, _, recorded_ticks = start.rpartition("/")
    if recorded_host_part != me.start.rpartition("/")[0] or not recorded_ticks.isdigit():
        return False  # another boot of a host of this name, or another container
    stat = _stat(pid)
    if stat is not None:
        state, ticks = stat
        # a zombie has finished (it waits for its parent to read its exit status)
        return state in ("Z", "X") or ticks != int(recorded_ticks)
    try:
        os.kill(pid, 0)  # no signal sent: does the pid exist?
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # it exists, run by another user whose /proc entry is hidden (hidepid)
    return False
