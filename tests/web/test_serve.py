"""`arbitre serve` as a user runs it: a real process on an empty instance folder migrates,
seeds the demo, prints the URL and an arbitre login that works over HTTP, and stops cleanly
on SIGTERM (giving the scheduler lease back)."""

from __future__ import annotations

import http.cookiejar
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
import sqlalchemy as sa

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_on_an_empty_instance(tmp_path: Path) -> None:
    port, smtp_port = _free_port(), _free_port()
    env = dict(os.environ, ARBITRE_INSTANCE_PATH=str(tmp_path / "instance"),
               ARBITRE_MAIL_SMTP_LISTEN=f"127.0.0.1:{smtp_port}")
    env.pop("ARBITRE_DATABASE_URL", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "arbitre_cli", "serve", "--port", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        lines: list[str] = []
        deadline = time.monotonic() + 60
        assert proc.stdout is not None
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            if "joueurs (connexion" in line:
                break
        out = "".join(lines)
        assert f"Arbitre en service : http://127.0.0.1:{port}/" in out, out
        assert "problèmes : demo-partiel, demo-rangee, demo-anticipation" in out
        m = re.search(r"identifiant : (\S+)\s+mot de passe : (\S+)", out)
        assert m, out
        username, password = m.groups()

        base = f"http://127.0.0.1:{port}"
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        page = opener.open(base + "/arbitre/connexion", timeout=10).read().decode()
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        data = urllib.parse.urlencode({"username": username, "password": password,
                                       "csrf_token": token}).encode()
        resp = opener.open(base + "/arbitre/connexion", data=data, timeout=10)
        assert resp.status == 200 and "/arbitre/connexion" not in resp.url

        engine = sa.create_engine(f"sqlite:///{tmp_path / 'instance' / 'arbitre.sqlite3'}")
        from alembic.script import ScriptDirectory

        from webapp.db import alembic_config

        head = ScriptDirectory.from_config(alembic_config(engine)).get_current_head()
        with engine.connect() as conn:
            statuses = dict(conn.execute(sa.text("SELECT code, status FROM problem")).all())
            assert statuses == {"demo-partiel": "final", "demo-rangee": "open",
                                "demo-anticipation": "open"}
            kinds = {k for (k,) in conn.execute(sa.text("SELECT kind FROM ranking")).all()}
            assert kinds == {"provisional", "final"}
            holder = conn.execute(sa.text("SELECT holder FROM lease")).scalar_one()
            assert holder.split(":")[1] == str(proc.pid)
            revision = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
            assert revision == head

        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT count(*) FROM lease")).scalar() == 0
        engine.dispose()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=30)
