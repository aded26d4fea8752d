"""A throwaway Dovecot IMAP server for the tests (Debian ``dovecot-imapd``).

Config, passwd-file, maildirs, state and logs live in one temporary directory; the server
listens on a free loopback port and runs in the foreground (``dovecot -F -c``), as root if
that is who runs the tests. ``scripts/system-deps.sh`` installs the package.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from tests.ports import free_port

CONF = """\
protocols = imap
listen = 127.0.0.1
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
info_log_path = {root}/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = 0
mail_uid = {uid}
mail_gid = {gid}
default_login_user = {login_user}
default_internal_user = {internal_user}
default_internal_group = {internal_group}
mail_location = maildir:{root}/mail/%u
namespace inbox {{
  inbox = yes
  separator = /
}}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={root}/home/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  chroot =
}}
service imap-login {{
  chroot =
}}
"""


@dataclass
class Dovecot:
    root: Path
    port: int
    user: str
    password: str
    process: subprocess.Popen[bytes]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)


def _user_or(name: str, fallback: str) -> str:
    try:
        pwd.getpwnam(name)
        return name
    except KeyError:
        return fallback


def start(root: Path, user: str = "arbitre", password: str = "secret") -> Dovecot:
    binary = shutil.which("dovecot") or "/usr/sbin/dovecot"
    if not Path(binary).exists():
        raise FileNotFoundError("dovecot is not installed (run scripts/system-deps.sh)")
    root.mkdir(parents=True, exist_ok=True)
    # Dovecot's auth and mail processes run as unprivileged users: they must reach the dir.
    root.chmod(0o755)
    for d in ("run", "state", "mail", "home"):
        (root / d).mkdir(exist_ok=True)
    me = pwd.getpwuid(os.getuid()).pw_name
    uid, gid = os.getuid(), os.getgid()
    if uid == 0:
        # Dovecot never runs a mail process as root: use an unprivileged system account.
        for name in ("mail", "nobody"):
            try:
                entry = pwd.getpwnam(name)
            except KeyError:
                continue
            uid, gid = entry.pw_uid, entry.pw_gid
            break
        for d in ("mail", "home"):
            os.chown(root / d, uid, gid)
    port = free_port()
    (root / "passwd").write_text(f"{user}:{{PLAIN}}{password}::::::\n")
    (root / "dovecot.conf").write_text(CONF.format(
        root=root, port=port, uid=uid, gid=gid,
        login_user=_user_or("dovenull", me), internal_user=_user_or("dovecot", me),
        internal_group=_user_or("dovecot", me),
    ))
    with open(root / "stdout.log", "wb") as out:
        proc = subprocess.Popen([binary, "-F", "-c", str(root / "dovecot.conf")],
                                stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60  # generous: a busy machine starts it slowly
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            out = (root / "stdout.log").read_text()
            log = (root / "dovecot.log").read_text() if (root / "dovecot.log").exists() else ""
            raise RuntimeError(f"dovecot exited: {out}\n{log}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                if s.recv(100).startswith(b"* OK"):
                    return Dovecot(root, port, user, password, proc)
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("dovecot did not start listening within 60 s")
