"""Sign-in: arbitre passwords (hashed), player magic links and passwords, role decorators,
CSRF on every form."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from sqlmodel import Session, select
from werkzeug.security import check_password_hash

from webapp.auth import arbitre_required, create_arbitre, hash_password, player_required
from webapp.models import Arbitre, AuditLog, LoginToken, OutboxMessage, Player

pytestmark = pytest.mark.db


@pytest.fixture
def arbitre(ctx, db_session: Session) -> Arbitre:
    a = create_arbitre(session=db_session, username="juge", password="correct horse")
    db_session.commit()
    return a


@pytest.fixture
def protected(app: Flask) -> Flask:
    @app.route("/_test/arbitre")
    @arbitre_required
    def _arbitre_only() -> str:
        return "console"

    @app.route("/_test/joueur")
    @player_required
    def _player_only() -> str:
        return "espace joueur"

    return app


def test_arbitre_password_is_hashed_and_login_works(client, arbitre, db_session, protected):
    stored = db_session.exec(select(Arbitre)).one()
    assert stored.password_hash != "correct horse"
    assert check_password_hash(stored.password_hash, "correct horse")

    r = client.get("/_test/arbitre")
    assert r.status_code == 302 and "/arbitre/connexion" in r.headers["Location"]

    r = client.post("/arbitre/connexion", data={"username": "juge", "password": "faux"})
    assert r.status_code == 200
    assert "Identifiant ou mot de passe incorrect." in html.unescape(r.get_data(as_text=True))
    assert client.get("/_test/arbitre").status_code == 302

    r = client.post("/arbitre/connexion",
                    data={"username": "juge", "password": "correct horse",
                          "next": "/_test/arbitre"})
    assert r.status_code == 302 and r.headers["Location"] == "/_test/arbitre"
    assert client.get("/_test/arbitre").get_data(as_text=True) == "console"
    # an arbitre is not a player
    assert client.get("/_test/joueur").status_code == 302
    db_session.expire_all()
    actions = [a.action for a in db_session.exec(select(AuditLog)).all()]
    assert "arbitre.login" in actions

    client.post("/deconnexion")
    assert client.get("/_test/arbitre").status_code == 302


def test_login_never_redirects_off_site(client, arbitre):
    r = client.post("/arbitre/connexion",
                    data={"username": "juge", "password": "correct horse",
                          "next": "//evil.example/phish"})
    assert r.status_code == 302 and not r.headers["Location"].startswith("//evil")


def test_short_arbitre_password_is_refused(ctx, db_session):
    with pytest.raises(ValueError, match="au moins 8 caractères"):
        create_arbitre(session=db_session, username="x", password="court")


def _player(db_session: Session, **kw: Any) -> Player:
    from webapp.services.players import create_player

    p = create_player(session=db_session, name="Ana Popescu", email="ana@example.ro")
    for k, v in kw.items():
        setattr(p, k, v)
    db_session.add(p)
    db_session.commit()
    return p


def test_magic_link_signs_a_player_in_once(client, ctx, db_session, protected, frozen_clock):
    _player(db_session)
    r = client.post("/connexion", data={"email": "Ana@Example.ro "})
    assert r.status_code == 200
    assert "un lien de connexion vient de lui être envoyé" in html.unescape(
        r.get_data(as_text=True)
    )
    mail = db_session.exec(select(OutboxMessage).where(OutboxMessage.kind == "login")).one()
    assert mail.to_addr == "ana@example.ro"
    m = re.search(r"http://arbitre\.test(/connexion/lien/[A-Za-z0-9_-]+)", mail.body_text)
    assert m, mail.body_text
    link = m.group(1)
    token = link.rsplit("/", 1)[1]
    # only the digest is stored
    assert db_session.exec(select(LoginToken)).one().token_sha256 != token

    # a mail scanner following the link (GET) does not use it up
    r = client.get(link)
    assert r.status_code == 200 and "Me connecter" in r.get_data(as_text=True)
    assert client.get("/_test/joueur").status_code == 302
    r = client.post(link)
    assert r.status_code == 302
    assert client.get("/_test/joueur").get_data(as_text=True) == "espace joueur"
    # a second use is refused
    client.post("/deconnexion")
    r = client.post(link)
    assert r.status_code == 410
    assert "n'est plus valable" in html.unescape(r.get_data(as_text=True))


def test_magic_link_expires_after_30_minutes(client, ctx, db_session, frozen_clock):
    _player(db_session)
    client.post("/connexion", data={"email": "ana@example.ro"})
    body = db_session.exec(select(OutboxMessage)).one().body_text
    link = re.search(r"(/connexion/lien/[A-Za-z0-9_-]+)", body).group(1)  # type: ignore[union-attr]
    frozen_clock.shift(timedelta(minutes=30, seconds=1))
    assert client.post(link).status_code == 410


def test_unknown_address_gets_the_same_answer_and_no_mail(client, ctx, db_session):
    r = client.post("/connexion", data={"email": "personne@example.org"})
    assert r.status_code == 200
    assert "un lien de connexion vient de lui être envoyé" in html.unescape(
        r.get_data(as_text=True)
    )
    assert db_session.exec(select(OutboxMessage)).all() == []


def test_player_password_login(client, ctx, db_session, protected):
    _player(db_session, password_hash=hash_password("mon mot de passe"))
    r = client.post("/connexion", data={"email": "ana@example.ro", "password": "autre chose"})
    assert "Adresse ou mot de passe incorrect." in html.unescape(r.get_data(as_text=True))
    r = client.post("/connexion", data={"email": "ana@example.ro",
                                        "password": "mon mot de passe"})
    assert r.status_code == 302
    assert client.get("/_test/joueur").status_code == 200


def test_forms_are_protected_against_csrf(app_config, tmp_path):
    from sqlmodel import SQLModel

    from webapp import create_app
    from webapp.db import get_engine

    app = create_app(app_config | {"WTF_CSRF_ENABLED": True})
    engine = get_engine(app)
    SQLModel.metadata.drop_all(engine)
    SQLModel.metadata.create_all(engine)
    with app.app_context(), Session(engine) as s:
        create_arbitre(session=s, username="juge", password="correct horse")
        s.commit()
    client = app.test_client()
    r = client.post("/arbitre/connexion", data={"username": "juge", "password": "correct horse"})
    assert r.status_code == 400
    page = client.get("/arbitre/connexion").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    r = client.post("/arbitre/connexion", data={"username": "juge", "password": "correct horse",
                                                "csrf_token": token})
    assert r.status_code == 302
    engine.dispose()


def test_password_guessing_is_suspended_after_five_failures(client, arbitre, frozen_clock):
    for _ in range(5):
        r = client.post("/arbitre/connexion", data={"username": "juge", "password": "devine"})
        assert "Identifiant ou mot de passe incorrect." in html.unescape(r.get_data(as_text=True))
    # even the right password is refused for a quarter of an hour
    r = client.post("/arbitre/connexion", data={"username": "juge", "password": "correct horse"})
    assert r.status_code == 200
    assert "Trop de tentatives de connexion" in html.unescape(r.get_data(as_text=True))
    frozen_clock.shift(timedelta(minutes=15, seconds=1))
    r = client.post("/arbitre/connexion", data={"username": "juge", "password": "correct horse"})
    assert r.status_code == 302


def test_sign_in_mails_are_limited_to_five_an_hour(client, ctx, db_session, frozen_clock):
    _player(db_session)
    for _ in range(7):
        client.post("/connexion", data={"email": "ana@example.ro"})
    assert len(db_session.exec(select(OutboxMessage)).all()) == 5
    frozen_clock.shift(timedelta(hours=1, seconds=1))
    client.post("/connexion", data={"email": "ana@example.ro"})
    assert len(db_session.exec(select(OutboxMessage)).all()) == 6
