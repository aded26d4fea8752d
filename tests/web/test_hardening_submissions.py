"""Hardening of the submission service and appeals, through the web: registration (refused
by default with a French explanation, unless the arbitre opens the competition to all;
rankings count only registered players), the per-player limit, NUL characters (removed, the
sheet kept — rerun on PostgreSQL), the bounded appeals. The same rules by e-mail are in
tests/mail/test_hardening_access.py."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.web.season import FIRST, text
from tests.web.test_pages import login_player
from webapp.auth import create_arbitre
from webapp.models import (
    Appeal,
    AuditLog,
    Channel,
    Competition,
    Player,
    Problem,
    Ranking,
    Stage,
    Submission,
    Verification,
)
from webapp.services import lifecycle, players
from webapp.services.submissions import submit_sheet

pytestmark = pytest.mark.db

SHEET = "1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 166\n"
REFUSED = ("Vous n'êtes pas inscrit à la compétition « Championnat par correspondance 2026 » : "
           "vos feuilles pour le problème « {title} » ne peuvent pas être acceptées. Demandez "
           "votre inscription à l'arbitre.")


def as_arbitre(client: FlaskClient, db_session: Session) -> None:
    from webapp.models import Arbitre

    a = db_session.exec(select(Arbitre).where(Arbitre.username == "juge")).first()
    if a is None:
        a = create_arbitre(session=db_session, username="juge", password="motdepasse1")
        db_session.commit()
    with client.session_transaction() as sess:
        sess.clear()
        sess["arbitre_id"] = a.id


@pytest.fixture
def outsider(db_session: Session, competition: Competition) -> Player:
    """A player known to the server but not registered in ``cn2026``."""
    p = players.create_player(session=db_session, name="Oscar Dehors", email="oscar@example.fr")
    db_session.commit()
    return p


def test_an_unregistered_player_is_refused_until_the_arbitre_opens_the_competition(
    client: FlaskClient, db_session: Session, outsider: Player,
    make_problem: Callable[..., Problem], frozen_clock: Any,
) -> None:
    prob = make_problem(code="P1")
    login_player(client, outsider)
    resp = client.post("/joueur/problemes/P1/envoyer", data={"feuille": SHEET})
    assert resp.status_code == 400  # the form again, with the reason
    page = text(resp)
    assert REFUSED.format(title=prob.title) in page
    assert "FICHERA 82 82" in page  # the text is kept in the form: nothing is lost
    assert db_session.exec(select(Submission)).all() == []

    as_arbitre(client, db_session)
    console = text(client.get("/console/competitions/cn2026"))
    assert "Réservée aux inscrits" in console
    r = client.post("/console/competitions/cn2026",
                    data={"action": "registration", "open_registration": "1"},
                    follow_redirects=True)
    assert "Compétition ouverte à tous les joueurs" in text(r)
    db_session.expire_all()
    assert db_session.exec(select(Competition)).one().open_registration is True
    (entry,) = db_session.exec(
        select(AuditLog).where(AuditLog.action == "competition.registration")).all()
    assert (entry.actor, entry.target, entry.details) == (
        "juge", "cn2026", {"open_registration": True})

    login_player(client, outsider)
    resp = client.post("/joueur/problemes/P1/envoyer", data={"feuille": SHEET})
    assert resp.status_code == 302
    (sub,) = db_session.exec(select(Submission)).all()
    assert sub.player_id == outsider.id


def test_rankings_count_only_registered_players_unless_open(
    app: Flask, db_session: Session, outsider: Player, make_player: Callable[..., Player],
    make_problem: Callable[..., Problem], frozen_start: Any, frozen_clock: Any,
) -> None:
    """Oscar sent his sheet while the competition was open to all; it is closed again
    before the ranking: only Ana is ranked, and Oscar is told why. Opened again, the
    ranking counts him."""
    from webapp.services import rankings

    ana = make_player("Ana Popescu", "ana@example.ro")
    comp = db_session.exec(select(Competition)).one()
    comp.open_registration = True
    db_session.add(comp)
    db_session.commit()
    prob = make_problem(code="P1", deadline=timedelta(days=1))
    with app.app_context():
        for who, sheet in ((ana, FIRST), (outsider, SHEET)):
            submit_sheet(session=db_session, player=who, problem=prob, text=sheet,
                         channel=Channel.WEB, received_at=frozen_start)
        db_session.commit()
        comp.open_registration = False
        db_session.add(comp)
        db_session.commit()
        after = prob.deadline_at + timedelta(minutes=1)
        frozen_clock.move_to(after)
        assert lifecycle.run_due(now=after) == ["close:P1", "verify:P1", "provisional:P1"]
        db_session.expire_all()
        assert len(db_session.exec(select(Verification)).all()) == 2  # both verified
        (ranking,) = db_session.exec(select(Ranking)).all()
        assert [(r["rank"], r["name"], r["score"]) for r in ranking.rows] == [
            (1, "Ana Popescu", 82)]
        from webapp.models import OutboxMessage

        to_oscar = db_session.exec(select(OutboxMessage).where(
            OutboxMessage.kind == "results", OutboxMessage.to_addr == "oscar@example.fr")).one()
        assert ("Vous n'êtes pas inscrit à cette compétition : votre feuille n'est pas "
                "classée.") in to_oscar.body_text

        comp.open_registration = True
        db_session.add(comp)
        db_session.commit()
        rows = rankings.compute_rows(session=db_session, problem=prob)
        # Oscar: FICHERA 82 + WUS 84 = 166; Ana: FICHERA 82
        assert [(r["rank"], r["name"], r["score"]) for r in rows] == [
            (1, "Oscar Dehors", 166), (2, "Ana Popescu", 82)]


def test_per_player_submission_limit(
    client: FlaskClient, db_session: Session, make_player: Callable[..., Player],
    make_problem: Callable[..., Problem], frozen_clock: Any,
) -> None:
    """SUBMISSIONS_PER_WINDOW = 10 sheets per SUBMISSION_WINDOW_SECONDS = 60 s (defaults),
    counted over all problems: 10 accepted, the 11th refused in French and not stored, and
    61 s later accepted again."""
    ana = make_player("Ana Popescu", "ana@example.ro")
    make_problem(code="P1")
    make_problem(code="P2", seed=2)
    login_player(client, ana)
    for i in range(10):
        code = "P1" if i % 2 else "P2"
        assert client.post(f"/joueur/problemes/{code}/envoyer",
                           data={"feuille": SHEET}).status_code == 302
    resp = client.post("/joueur/problemes/P1/envoyer", data={"feuille": SHEET})
    assert resp.status_code == 400
    assert ("Trop de feuilles envoyées en peu de temps : au plus 10 par minute. Votre feuille "
            "n'a pas été enregistrée ; renvoyez-la dans un moment.") in text(resp)
    assert len(db_session.exec(select(Submission)).all()) == 10
    frozen_clock.shift(61)
    assert client.post("/joueur/problemes/P1/envoyer",
                       data={"feuille": SHEET}).status_code == 302
    assert len(db_session.exec(select(Submission)).all()) == 11


def test_nul_characters_are_removed_and_the_sheet_kept(
    app: Flask, client: FlaskClient, db_session: Session, make_player: Callable[..., Player],
    make_problem: Callable[..., Problem], frozen_clock: Any,
) -> None:
    ana = make_player("Ana Popescu", "ana@example.ro")
    make_problem(code="P1")
    login_player(client, ana)
    resp = client.post("/joueur/problemes/P1/envoyer",
                       data={"feuille": "1 ACEFHIR h8 FICH\x00ERA 82 82\n\x00"})
    assert resp.status_code == 302
    (sub,) = db_session.exec(select(Submission)).all()
    assert sub.raw_text == "1 ACEFHIR h8 FICHERA 82 82\n"
    assert [m["word"] for m in sub.feuille["moves"]] == ["FICHERA"]

    # an uploaded file: NUL past the first 4 KiB (a text file, not refused as binary)
    import io

    padding = "".join(f"# ligne de commentaire {i:04d}\n" for i in range(200))  # 28 × 200
    assert len(padding) == 5600
    data = (padding + "1 ACEFHIR h8 FICHERA 82 82\x00\n").encode()
    resp = client.post("/joueur/problemes/P1/envoyer",
                       # confirmer: it replaces a version read whole (the sheets' rule)
                       data={"fichier": (io.BytesIO(data), "feuille.txt"), "confirmer": "1"},
                       content_type="multipart/form-data")
    assert resp.status_code == 302
    db_session.expire_all()
    latest = max(db_session.exec(select(Submission)).all(), key=lambda s: s.version)
    assert latest.version == 2 and "\x00" not in latest.raw_text

    # a player CSV with NUL characters
    as_arbitre(client, db_session)
    resp = client.post("/console/joueurs", data={
        "csv": "nom;club;email\nBo\x00gdan Pop;CS\x00;bogdan@example.net\n"})
    assert resp.status_code == 302
    bogdan = db_session.exec(select(Player).where(Player.email == "bogdan@example.net")).one()
    assert (bogdan.name, bogdan.club) == ("Bogdan Pop", "CS")

    # console fields and query strings
    resp = client.post("/console/competitions/cn2026",
                       data={"action": "stage", "stage_name": "Tour\x00 1"})
    assert resp.status_code == 302
    assert [s.name for s in db_session.exec(select(Stage)).all()] == ["Tour 1"]
    assert client.get("/console/journal?action=stage\x00&cible=%00").status_code == 200

    # sign-in names
    anon = app.test_client()
    r = anon.post("/arbitre/connexion", data={"username": "ju\x00ge", "password": "motdepasse1"})
    assert r.status_code == 302  # the NUL is dropped: "juge"
    r = anon.post("/connexion", data={"email": "ana@exa\x00mple.ro", "password": "x"})
    assert r.status_code == 200
    assert "Adresse ou mot de passe incorrect." in text(r)


# --- appeals ---------------------------------------------------------------------------------


@pytest.fixture
def provisional(
    app: Flask, db_session: Session, make_player: Callable[..., Player],
    make_problem: Callable[..., Problem], frozen_start: Any, frozen_clock: Any,
) -> dict[str, Any]:
    bob = make_player("Bob Martin", "bob@example.fr")
    prob = make_problem(code="P1", deadline=timedelta(days=1))
    submit_sheet(session=db_session, player=bob, problem=prob, text=FIRST,
                 channel=Channel.WEB, received_at=frozen_start)
    db_session.commit()
    after = prob.deadline_at + timedelta(minutes=1)
    frozen_clock.move_to(after)
    with app.app_context():
        assert lifecycle.run_due(now=after) == ["close:P1", "verify:P1", "provisional:P1"]
    db_session.expire_all()
    return {"bob": bob, "ver": db_session.exec(select(Verification)).one()}


def test_appeals_are_bounded(
    client: FlaskClient, db_session: Session, provisional: dict[str, Any]
) -> None:
    """APPEALS_PER_SHEET = 2: one at a time, two in all on one problem."""
    v, bob = provisional["ver"], provisional["bob"]
    url = f"/joueur/rapports/{v.id}/appel"
    login_player(client, bob)
    assert client.post(url, data={"texte": "Premier appel."}).status_code == 302
    resp = client.post(url, data={"texte": "Encore un."})
    assert resp.status_code == 400
    assert ("Votre appel précédent attend encore la réponse de l'arbitre : attendez-la avant "
            "d'en déposer un autre.") in text(resp)
    first = db_session.exec(select(Appeal)).one()

    as_arbitre(client, db_session)
    client.post(f"/console/appels/{first.id}", data={"decision": "reject", "answer": "Non."})
    login_player(client, bob)
    assert client.post(url, data={"texte": "Deuxième appel."}).status_code == 302
    second = max(db_session.exec(select(Appeal)).all(), key=lambda a: a.id)
    as_arbitre(client, db_session)
    client.post(f"/console/appels/{second.id}", data={"decision": "reject", "answer": "Non."})
    login_player(client, bob)
    resp = client.post(url, data={"texte": "Troisième appel."})
    assert resp.status_code == 400
    assert ("Vous avez déjà fait appel 2 fois pour ce problème : 2 appels au plus par "
            "problème.") in text(resp)
    assert len(db_session.exec(select(Appeal)).all()) == 2
    resp = client.post(url, data={"texte": "x" * 5001})
    assert "5001 caractères : 5000 au plus" in text(resp)
