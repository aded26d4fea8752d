"""`scripts/system-deps.sh`'s control flow (issue 24 §6): the test command's system-package
step failed at once when another package manager held the dpkg lock (« E: Could not get lock
/var/lib/dpkg/lock-frontend »). Now it does not run apt at all when every package is there,
and otherwise waits for the lock, with a bound.

The script runs for real under bash, with stub executables first on PATH standing for
``dpkg-query`` (which packages are installed), ``id`` (root), ``apt-get`` (locked for its
first N calls, then free; every call logged) and the files the tests use (``chromium``,
``dovecot``, dovecot-imapd's ``imap``): a shell script's control flow, no root needed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "system-deps.sh"
LOCKED = ("E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 "
          "(apt-get)\nE: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend)"
          ", is another process using it?")
#: what ``apt-get update`` says when another apt holds the lists lock (not covered by
#: ``DPkg::Lock::Timeout`` in every apt release)
LISTS_LOCKED = ("E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 "
                "(apt-get)\nE: Unable to lock directory /var/lib/apt/lists/")

STUBS = {
    "dpkg-query": """#!/bin/bash
pkg="${@: -1}"
for m in $STUB_MISSING; do [ "$m" = "$pkg" ] && { printf 'not-installed'; exit 0; }; done
printf 'installed'
""",
    "id": """#!/bin/bash
[ "$1" = -u ] && { echo "$STUB_UID"; exit 0; }
exec /usr/bin/id "$@"
""",
    "apt-get": """#!/bin/bash
echo "$*" >> "$STUB_DIR/apt-get.log"
n=$(( $(cat "$STUB_DIR/apt-get.count" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$STUB_DIR/apt-get.count"
if [ "$n" -le "$STUB_LOCKED_CALLS" ]; then echo "$STUB_LOCK_MESSAGE" >&2; exit 100; fi
if [ -n "${STUB_FAIL:-}" ]; then echo "$STUB_FAIL" >&2; exit 100; fi
exit 0
""",
    "chromium": "#!/bin/bash\nexit 0\n",
    "dovecot": "#!/bin/bash\nexit 0\n",
    "imap": "#!/bin/bash\nexit 0\n",
}


def run(tmp_path: Path, *, missing: str = "", uid: int = 0, locked_calls: int = 0,
        lock_wait: int = 300, fail: str = "",
        lock_message: str = LOCKED) -> tuple[subprocess.CompletedProcess[str],
                                                        list[str]]:
    stubs = tmp_path / "stubs"
    stubs.mkdir(exist_ok=True)
    for name, text in STUBS.items():
        path = stubs / name
        path.write_text(text)
        path.chmod(0o755)
    env = {
        "PATH": f"{stubs}:/usr/bin:/bin",
        "STUB_DIR": str(stubs), "STUB_MISSING": missing, "STUB_UID": str(uid),
        "STUB_LOCKED_CALLS": str(locked_calls), "STUB_LOCK_MESSAGE": lock_message,
        "STUB_FAIL": fail,
        "SYSTEM_DEPS_LOCK_WAIT": str(lock_wait), "SYSTEM_DEPS_RETRY_SECONDS": "0.05",
        "HOME": str(tmp_path),
    }
    proc = subprocess.run(["/bin/bash", str(SCRIPT)], env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    log = stubs / "apt-get.log"
    calls = log.read_text().splitlines() if log.exists() else []
    return proc, calls


def test_nothing_missing_runs_no_package_manager_even_when_apt_is_locked(
        tmp_path: Path) -> None:
    proc, calls = run(tmp_path, locked_calls=1000, uid=1000)
    assert (proc.returncode, proc.stderr, calls) == (0, "", [])


@pytest.mark.parametrize("message", [LOCKED, LISTS_LOCKED], ids=["dpkg", "lists"])
def test_a_missing_package_waits_for_the_lock_then_installs(tmp_path: Path,
                                                            message: str) -> None:
    proc, calls = run(tmp_path, missing="dovecot-imapd", locked_calls=3, lock_message=message)
    assert proc.returncode == 0, proc.stderr
    option = "-o DPkg::Lock::Timeout=300"
    assert calls == [f"{option} update -qq"] * 4 + [
        f"{option} install -y -qq --no-install-recommends dovecot-imapd"]


def test_every_package_the_script_installs_is_checked(tmp_path: Path) -> None:
    proc, calls = run(tmp_path, missing="chromium dovecot-core dovecot-imapd")
    assert proc.returncode == 0, proc.stderr
    assert calls[-1].endswith("install -y -qq --no-install-recommends "
                              "chromium dovecot-core dovecot-imapd")


def test_a_lock_never_released_ends_after_the_bound(tmp_path: Path) -> None:
    # a bound of 3 s: bash's SECONDS counts whole seconds from the shell's start, so a bound
    # of 1 s can be over after the first attempt (at a tick, or on a busy machine) and the
    # retry this test checks would never come; 3 s leaves at least 2 s of retries
    proc, calls = run(tmp_path, missing="chromium", locked_calls=10**6, lock_wait=3)
    assert proc.returncode == 1
    assert "apt is still locked by another package manager after 3 s" in proc.stderr
    assert "Could not get lock /var/lib/dpkg/lock-frontend" in proc.stderr
    assert len(calls) >= 2 and all(c.endswith("update -qq") for c in calls)


def test_another_apt_error_is_not_retried(tmp_path: Path) -> None:
    proc, calls = run(tmp_path, missing="chromium",
                      fail="E: Unable to locate package chromium")
    assert proc.returncode == 1
    assert "Unable to locate package chromium" in proc.stderr
    assert calls == ["-o DPkg::Lock::Timeout=300 update -qq"]


def test_without_root_it_names_what_is_missing(tmp_path: Path) -> None:
    proc, calls = run(tmp_path, missing="dovecot-core", uid=1000)
    assert proc.returncode == 1
    assert proc.stderr == "missing system packages: dovecot-core (install them as root)\n"
    assert calls == []

