"""`arbitre serve` as a user runs it: a real process on an empty instance folder migrates,
seeds the demo, prints the URL and an arbitre login that works over HTTP, and stops cleanly
on SIGTERM (giving the scheduler lease back). The URL is printed only once the port accepts
connections (werkzeug and gunicorn alike); a port already taken (web or SMTP) ends the
command with a French message naming it, not a traceback."""

from __future__ import annotations

import http.cookiejar
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
import sqlalchemy as sa

from tests.ports import free_port

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_serve_on_an_empty_instance(tmp_path: Path) -> None:
    port, smtp_port = free_port(), free_port()
    env = dict(os.environ, ARBITRE_INSTANCE_PATH=str(tmp_path / "instance"),
               ARBITRE_MAIL_SMTP_LISTEN=f"127.0.0.1:{smtp_port}")
    env.pop("ARBITRE_DATABASE_URL", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "arbitre_cli", "serve", "--port", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        lines: list[str] = []
        deadline = time.monotonic() + 120
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
        page = opener.open(base + "/arbitre/connexion", timeout=60).read().decode()
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        data = urllib.parse.urlencode({"username": username, "password": password,
                                       "csrf_token": token}).encode()
        try:
            resp = opener.open(base + "/arbitre/connexion", data=data, timeout=60)
        except urllib.error.HTTPError as exc:  # say what the server answered, for a diagnosis
            raise AssertionError(f"{exc.code}: {exc.read().decode(errors='replace')}\n"
                                 f"cookies: {[c.name for c in jar]}") from exc
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


def _serve(tmp_path: Path, *args: str, smtp_port: int | None = None,
           ) -> subprocess.Popen[str]:
    env = dict(os.environ, ARBITRE_INSTANCE_PATH=str(tmp_path / "instance"),
               ARBITRE_SECRET_KEY="test-secret")
    if smtp_port is not None:
        env["ARBITRE_MAIL_SMTP_LISTEN"] = f"127.0.0.1:{smtp_port}"
    env.pop("ARBITRE_DATABASE_URL", None)
    return subprocess.Popen(
        [sys.executable, "-m", "arbitre_cli", "serve", "--no-demo", *args],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def _banner(proc: subprocess.Popen[str]) -> str:
    """Read stdout up to the banner line (no time limit of our own: the line comes, or the
    process ends and readline returns "")."""
    assert proc.stdout is not None
    lines = []
    for line in iter(proc.stdout.readline, ""):
        lines.append(line)
        if "Arbitre en service" in line:
            break
    return "".join(lines)


def test_production_banner_comes_once_gunicorn_answers(tmp_path: Path) -> None:
    """gunicorn binds in a child process: the banner must still mean "it answers now"."""
    port = free_port()
    proc = _serve(tmp_path, "--production", "--workers", "1", "--no-mail", "--port", str(port))
    try:
        out = _banner(proc)
        assert f"Arbitre en service : http://127.0.0.1:{port}/" in out, out
        # first try, no retry: the line promises the port answers
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=60) as resp:
            assert resp.status == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=60)


def test_web_port_taken_is_a_french_message_not_a_traceback(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        for extra in ((), ("--production",)):
            proc = _serve(tmp_path, "--no-mail", "--port", str(port), *extra)
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 1, (out, err)
            assert err.strip() == (
                f"Le port {port} (127.0.0.1) est déjà utilisé par un autre programme : "
                "arrêtez-le ou choisissez un autre port (option --port)."
            ), err
            assert "Traceback" not in err and "Arbitre en service" not in out


def test_smtp_port_taken_is_a_french_message_not_a_traceback(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        smtp_port = taken.getsockname()[1]
        proc = _serve(tmp_path, "--port", str(free_port()), smtp_port=smtp_port)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, (out, err)
    assert "Traceback" not in err and "Arbitre en service" not in out
    assert (f"Le port SMTP {smtp_port} (127.0.0.1) est déjà utilisé par un autre programme : "
            "arrêtez-le ou choisissez un autre port (réglage ARBITRE_MAIL_SMTP_LISTEN)."
            ) in err.splitlines(), err


def test_default_instance_is_the_users_data_directory_and_the_banner_names_the_paths(
    tmp_path: Path,
) -> None:
    """Issue 13.7: without ARBITRE_INSTANCE_PATH the files go to $XDG_DATA_HOME/arbitre (not
    into the source tree), and the start-up message names the real instance folder, database
    file and local mailbox. The folder has an accented name: a URL-quoted letter (« %C3%A9 »)
    in the database URL once broke the migrations (alembic reads its URL through configparser)."""
    port, smtp_port = free_port(), free_port()
    xdg = tmp_path / "données"
    env = dict(os.environ, HOME=str(tmp_path / "home"), XDG_DATA_HOME=str(xdg),
               ARBITRE_MAIL_SMTP_LISTEN=f"127.0.0.1:{smtp_port}")
    for name in ("ARBITRE_INSTANCE_PATH", "ARBITRE_DATABASE_URL", "ARBITRE_SECRET_KEY",
                 "ARBITRE_SMTP_RELAY", "ARBITRE_IMAP_HOST"):
        env.pop(name, None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "arbitre_cli", "serve", "--no-demo", "--port", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        lines = _banner(proc).splitlines()
        home = xdg / "arbitre"
        assert f"Dossier d'instance : {home} (réglage ARBITRE_INSTANCE_PATH)" in lines, lines
        assert f"Base de données : {home / 'arbitre.sqlite3'} (SQLite)" in lines, lines
        assert (f"Courriel sortant : boîte locale {home / 'outbox.mbox'} "
                "(aucun relais SMTP : réglage ARBITRE_SMTP_RELAY)") in lines, lines
        assert f"Réception des feuilles par courriel (SMTP) sur le port {smtp_port}." in lines
        assert lines[-1] == f"Arbitre en service : http://127.0.0.1:{port}/"
        # the files are where the message says, private, and none in the source tree
        assert (home / "arbitre.sqlite3").is_file() and (home / "secret_key").is_file()
        assert home.stat().st_mode & 0o777 == 0o700
        assert not (tmp_path / "home" / ".local").exists()
        engine = sa.create_engine(f"sqlite:///{home / 'arbitre.sqlite3'}")
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT count(*) FROM problem")).scalar() == 0
        engine.dispose()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=60)
