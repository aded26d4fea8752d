"""Hardening of sign-in and sessions: guessing is throttled per client and account (the
arbitre is never locked out for everyone), arbitres have a second way in, sessions are
revocable and short-lived, unknown names cost a hash like known ones, security headers on
every page, ``--production`` loads the Secure cookie, private files."""

from __future__ import annotations

import html
import os
import re
import stat
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from webapp import auth
from webapp.auth import create_arbitre
from webapp.models import Arbitre, ArbitreLoginToken, OutboxMessage, Player

pytestmark = pytest.mark.db

GUESSER = {"REMOTE_ADDR": "203.0.113.66"}
ARBITRE_PC = {"REMOTE_ADDR": "198.51.100.7"}


def text(resp: Any) -> str:
    return html.unescape(resp.get_data(as_text=True))


@pytest.fixture
def juge(ctx: Flask, db_session: Session) -> Arbitre:
    a = create_arbitre(session=db_session, username="juge", password="correct horse",
                       email="juge@arbitre.test")
    db_session.commit()
    return a


def login(client: FlaskClient, password: str, env: dict[str, str], username: str = "juge") -> Any:
    return client.post("/arbitre/connexion", data={"username": username, "password": password},
                       environ_base=env)


# --- 5. lockout ------------------------------------------------------------------------------


def test_a_guesser_cannot_lock_the_arbitre_out(
    app: Flask, juge: Arbitre, frozen_clock: Any
) -> None:
    guesser, arbitre_pc = app.test_client(), app.test_client()
    for _ in range(5):
        assert "Identifiant ou mot de passe incorrect." in text(login(guesser, "devine", GUESSER))
    # the guesser's sixth try is refused, even with the right password...
    refused = login(guesser, "correct horse", GUESSER)
    assert refused.status_code == 200 and "Trop de tentatives" in text(refused)
    # ...but the arbitre, from his own address, gets in with his password, every time
    for _ in range(3):
        for _ in range(5):
            login(guesser, "devine", GUESSER)
        ok = login(arbitre_pc, "correct horse", ARBITRE_PC)
        assert ok.status_code == 302 and ok.headers["Location"] == "/console/"
        arbitre_pc.post("/deconnexion")


def test_one_client_guessing_many_names_is_throttled(
    app: Flask, juge: Arbitre, frozen_clock: Any
) -> None:
    """LOGIN_CLIENT_RATE_LIMIT: 30 failures from one address within 15 minutes, whatever the
    names: 6 names × 5 = 30, then even a right password from there waits."""
    guesser = app.test_client()
    for i in range(6):
        for _ in range(5):
            login(guesser, "devine", GUESSER, username=f"nom{i}")
    assert "Trop de tentatives" in text(login(guesser, "correct horse", GUESSER))
    frozen_clock.shift(15 * 60 + 1)
    assert login(guesser, "correct horse", GUESSER).status_code == 302


def test_arbitre_sign_in_link_by_mail(
    app: Flask, client: FlaskClient, juge: Arbitre, db_session: Session, frozen_clock: Any
) -> None:
    page = client.get("/arbitre/connexion")
    assert "recevoir un lien de connexion par courriel" in text(page)
    r = client.post("/arbitre/connexion/lien", data={"username": "juge"})
    assert "un lien de connexion vient de lui être envoyé" in text(r)
    # an unknown name gets the same answer and no mail
    r2 = client.post("/arbitre/connexion/lien", data={"username": "personne"})
    assert "un lien de connexion vient de lui être envoyé" in text(r2)
    mail = db_session.exec(select(OutboxMessage)).one()
    assert mail.to_addr == "juge@arbitre.test"
    m = re.search(r"http://arbitre\.test(/arbitre/connexion/lien/[A-Za-z0-9_-]+)", mail.body_text)
    assert m, mail.body_text
    link = m.group(1)
    assert client.get(link).status_code == 200  # a mail scanner's GET does not use it
    assert client.get("/console/").status_code == 302
    r = client.post(link)
    assert r.status_code == 302 and r.headers["Location"] == "/console/"
    assert client.get("/console/").status_code == 200
    client.post("/deconnexion")
    assert client.post(link).status_code == 410  # used once
    # expired after 15 minutes
    r = client.post("/arbitre/connexion/lien", data={"username": "juge"})
    db_session.expire_all()
    second = db_session.exec(select(OutboxMessage).order_by(OutboxMessage.id.desc())).first()  # type: ignore[union-attr]
    assert second is not None
    link2 = re.search(r"http://arbitre\.test(/arbitre/connexion/lien/[A-Za-z0-9_-]+)",
                      second.body_text).group(1)  # type: ignore[union-attr]
    frozen_clock.shift(15 * 60 + 1)
    assert client.post(link2).status_code == 410


def test_arbitre_login_link_command(app: Flask, juge: Arbitre, db_session: Session) -> None:
    import contextlib
    import io

    from webapp.commands import login_link as _login_link

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert _login_link(app, "juge") == 0
    printed = out.getvalue()
    m = re.search(r"http://arbitre\.test(/arbitre/connexion/lien/[A-Za-z0-9_-]+)", printed)
    assert m, printed
    assert db_session.exec(select(OutboxMessage)).all() == []  # printed, not mailed
    client = app.test_client()
    assert client.post(m.group(1)).status_code == 302
    assert client.get("/console/").status_code == 200
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert _login_link(app, "inconnu") == 1
    assert "Aucun compte d'arbitre actif « inconnu »" in err.getvalue()
    assert len(db_session.exec(select(ArbitreLoginToken)).all()) == 1


# --- 6. sessions -----------------------------------------------------------------------------


def test_a_copied_cookie_dies_with_sign_out(app: Flask, juge: Arbitre) -> None:
    browser = app.test_client()
    assert login(browser, "correct horse", ARBITRE_PC).status_code == 302
    cookie = browser.get_cookie("session")
    assert cookie is not None
    thief = app.test_client()
    thief.set_cookie("session", cookie.value)
    assert thief.get("/console/").status_code == 200
    browser.post("/deconnexion")
    assert thief.get("/console/").status_code == 302  # to the sign-in page


def test_a_password_change_revokes_other_sessions(
    app: Flask, db_session: Session, frozen_clock: Any
) -> None:
    from webapp.services.players import create_player

    p = create_player(session=db_session, name="Ana", email="ana@example.ro")
    p.password_hash = auth.hash_password("ancien mot")
    db_session.add(p)
    db_session.commit()
    browser, thief = app.test_client(), app.test_client()
    r = browser.post("/connexion", data={"email": "ana@example.ro", "password": "ancien mot"})
    assert r.status_code == 302
    thief.set_cookie("session", browser.get_cookie("session").value)  # type: ignore[union-attr]
    assert thief.get("/joueur/").status_code == 200
    r = browser.post("/connexion/mot-de-passe",
                     data={"password": "nouveau mot", "password2": "nouveau mot"})
    assert r.status_code == 302
    assert browser.get("/joueur/").status_code == 200  # this browser stays signed in
    assert thief.get("/joueur/").status_code == 302
    db_session.expire_all()
    assert db_session.get(Player, p.id).session_epoch == 1  # type: ignore[union-attr]


def test_sessions_expire(app: Flask, juge: Arbitre, db_session: Session,
                         frozen_clock: Any) -> None:
    """Arbitres: ARBITRE_SESSION_HOURS = 12; players: PLAYER_SESSION_DAYS = 14 (the cookie
    itself lasts 14 days instead of Flask's 31)."""
    from datetime import timedelta

    assert app.config["PERMANENT_SESSION_LIFETIME"] == timedelta(days=14)
    browser = app.test_client()
    login(browser, "correct horse", ARBITRE_PC)
    frozen_clock.shift(12 * 3600 - 1)
    assert browser.get("/console/").status_code == 200
    frozen_clock.shift(2)
    assert browser.get("/console/").status_code == 302

    from webapp.services.players import create_player

    p = create_player(session=db_session, name="Ana", email="ana@example.ro")
    p.password_hash = auth.hash_password("mot de passe")
    db_session.add(p)
    db_session.commit()
    player = app.test_client()
    player.post("/connexion", data={"email": "ana@example.ro", "password": "mot de passe"})
    frozen_clock.shift(14 * 86400 - 1)
    assert player.get("/joueur/").status_code == 200
    frozen_clock.shift(2)
    assert player.get("/joueur/").status_code == 302


# --- 7. timing -------------------------------------------------------------------------------


def test_unknown_names_are_hashed_too(
    app: Flask, client: FlaskClient, juge: Arbitre, db_session: Session,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from webapp.services.players import create_player

    create_player(session=db_session, name="Ana", email="ana@example.ro")  # no password
    db_session.commit()
    calls: list[str] = []
    real = auth.check_password_hash

    def spy(pwhash: str, password: str) -> bool:
        calls.append(pwhash)
        return real(pwhash, password)

    monkeypatch.setattr(auth, "check_password_hash", spy)
    stored = db_session.exec(select(Arbitre)).one().password_hash
    cases = [
        ("/arbitre/connexion", {"username": "juge", "password": "faux"}),
        ("/arbitre/connexion", {"username": "inconnu", "password": "faux"}),
        ("/connexion", {"email": "ana@example.ro", "password": "faux"}),  # no password set
        ("/connexion", {"email": "nul@example.ro", "password": "faux"}),
    ]
    for url, data in cases:
        before = len(calls)
        client.post(url, data=data)
        assert len(calls) == before + 1, (url, data)
    assert calls[0] == stored
    # the three others use the dummy hash, made by the same method as real ones
    assert calls[1] == calls[2] == calls[3] != stored
    assert calls[1].split("$")[0] == stored.split("$")[0]


# --- 8. headers, production, files -----------------------------------------------------------


def test_security_headers_on_every_page(client: FlaskClient, juge: Arbitre) -> None:
    for url in ("/", "/connexion", "/arbitre/connexion", "/page-inexistante",
                "/static/css/arbitre.css"):
        r = client.get(url)
        csp = r.headers.get("Content-Security-Policy", "")
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp, url
        assert "object-src 'none'" in csp, url
        assert r.headers.get("X-Content-Type-Options") == "nosniff", url
        assert r.headers.get("X-Frame-Options") == "DENY", url
        assert r.headers.get("Referrer-Policy") == "same-origin", url
        r.close()  # the static file's handle
    # no inline script is left for the policy to block
    assert "javascript:" not in client.get("/page-inexistante").get_data(as_text=True)


def test_production_sets_the_secure_cookie(app_config: dict[str, Any], juge: Arbitre,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from webapp import create_app
    from webapp.db import get_engine

    monkeypatch.setenv("ARBITRE_PRODUCTION", "1")
    prod = create_app(app_config)
    assert prod.config["SESSION_COOKIE_SECURE"] is True
    r = prod.test_client().post("/arbitre/connexion",
                                data={"username": "juge", "password": "correct horse"})
    assert r.status_code == 302
    cookie = r.headers["Set-Cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert r.headers["Strict-Transport-Security"] == "max-age=31536000"
    get_engine(prod).dispose()
    monkeypatch.delenv("ARBITRE_PRODUCTION")
    plain = create_app(app_config)
    assert plain.config["SESSION_COOKIE_SECURE"] is False
    get_engine(plain).dispose()


def test_serve_production_flag_reaches_the_app(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    """``arbitre serve --production`` exports ARBITRE_PRODUCTION before building the app (the
    gunicorn workers inherit it)."""
    import webapp
    from webapp import cli

    seen: dict[str, Any] = {}

    def fake_serve(app: Flask, args: Any) -> int:
        seen["secure"] = app.config["SESSION_COOKIE_SECURE"]
        seen["env"] = os.environ.get("ARBITRE_PRODUCTION")
        return 0

    # setenv (not delenv, which records nothing when the variable is absent) so that the
    # "1" that cli.main exports is undone after the test: a leaked ARBITRE_PRODUCTION made the
    # servers later tests start set Secure cookies, which a client on plain http never sends
    monkeypatch.setenv("ARBITRE_PRODUCTION", "")
    monkeypatch.setenv("ARBITRE_INSTANCE_PATH", str(tmp_path / "inst"))
    monkeypatch.setattr(cli, "serve", fake_serve)
    real_create = webapp.create_app
    monkeypatch.setattr(webapp, "create_app",
                        lambda cfg=None: real_create({"SCHEDULER_ENABLED": False,
                                                      "INSTANCE_PATH": str(tmp_path / "inst")}))
    assert cli.main(["serve", "--production"]) == 0
    assert seen == {"secure": True, "env": "1"}


def test_instance_folder_and_sqlite_file_are_private(tmp_path: Path) -> None:
    from webapp import create_app

    old = os.umask(0o022)
    try:
        instance = tmp_path / "instance"
        app = create_app({"TESTING": True, "INSTANCE_PATH": str(instance),
                          "SCHEDULER_ENABLED": False, "MAIL_INTAKE_ENABLED": False})
    finally:
        os.umask(old)
    assert stat.S_IMODE(instance.stat().st_mode) == 0o700
    db_file = instance / "arbitre.sqlite3"
    assert app.config["DATABASE_URL"] == f"sqlite:///{db_file}"
    assert stat.S_IMODE(db_file.stat().st_mode) == 0o600
    from webapp.db import get_engine, upgrade

    upgrade(app)  # SQLite writes into the file created 0600, which stays so
    assert stat.S_IMODE(db_file.stat().st_mode) == 0o600
    get_engine(app).dispose()


def test_behind_a_proxy_clients_are_told_apart_by_x_forwarded_for(
    app: Flask, juge: Arbitre, frozen_clock: Any
) -> None:
    """PROXY_FIX_X_FOR = 1: every request reaches the app from the proxy (127.0.0.1); the
    throttle keys on the client address the proxy forwards."""
    from werkzeug.middleware.proxy_fix import ProxyFix

    app.wsgi_app = ProxyFix(app.wsgi_app, x_for=1, x_proto=1)  # as create_app does
    proxy = {"REMOTE_ADDR": "127.0.0.1"}
    guesser, arbitre_pc = app.test_client(), app.test_client()
    for _ in range(6):
        r = guesser.post("/arbitre/connexion", data={"username": "juge", "password": "devine"},
                         environ_base=proxy, headers={"X-Forwarded-For": "203.0.113.66"})
    assert "Trop de tentatives" in text(r)
    ok = arbitre_pc.post("/arbitre/connexion",
                         data={"username": "juge", "password": "correct horse"},
                         environ_base=proxy, headers={"X-Forwarded-For": "198.51.100.7"})
    assert ok.status_code == 302


def test_proxy_fix_setting_wraps_the_app(app_config: dict[str, Any]) -> None:
    from werkzeug.middleware.proxy_fix import ProxyFix

    from webapp import create_app
    from webapp.db import get_engine

    proxied = create_app(app_config | {"PROXY_FIX_X_FOR": 1})
    assert isinstance(proxied.wsgi_app, ProxyFix)
    get_engine(proxied).dispose()


def test_arbitre_address_is_validated(ctx: Flask, db_session: Session) -> None:
    with pytest.raises(ValueError, match="exactement un « @ »"):
        create_arbitre(session=db_session, username="autre", password="correct horse",
                       email="pas-une-adresse")


def test_local_mailbox_is_private(app: Flask, db_session: Session) -> None:
    """Without a relay, mail goes to instance/outbox.mbox (and its Message-ID index): both
    created 0600 whatever the umask, in an instance folder that is 0700."""
    from mailer.outbox import index_path, mbox_path, send_pending
    from webapp.models import OutboxKind
    from webapp.services import notify

    app.config["SMTP_RELAY"] = ""
    with app.app_context():
        notify.enqueue(session=db_session, kind=OutboxKind.LOGIN, to_addr="ana@example.ro",
                       template="login", context={"link": "http://arbitre.test/l/x"})
        db_session.commit()
        old = os.umask(0o022)
        try:
            assert send_pending(app) == 1
        finally:
            os.umask(old)
    assert stat.S_IMODE(Path(app.instance_path).stat().st_mode) == 0o700
    assert stat.S_IMODE(mbox_path(app).stat().st_mode) == 0o600
    assert stat.S_IMODE(index_path(app).stat().st_mode) == 0o600
