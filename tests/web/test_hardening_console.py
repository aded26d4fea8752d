"""Bad input in the console and in URLs gets a French answer, never an English 500: ids no
row can have are a French 404, every problem field is checked (code as a safe slug, unique;
dates within 2000–2100; ``inf``/``NaN`` refused; appeal days bounded), an unexpected error
is a French 500 page."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from webapp.auth import create_arbitre
from webapp.models import Competition, Problem

pytestmark = pytest.mark.db

HUGE = "99999999999999999999999"


def text(resp: Any) -> str:
    return html.unescape(resp.get_data(as_text=True))


@pytest.fixture
def console(client: FlaskClient, db_session: Session, competition: Competition,
            frozen_clock: Any) -> FlaskClient:
    """Signed in under the frozen clock (a cookie signed later would be from the future)."""
    a = create_arbitre(session=db_session, username="juge", password="motdepasse1")
    db_session.commit()
    with client.session_transaction() as sess:
        sess["arbitre_id"] = a.id
    return client


def test_ids_no_row_can_have_are_a_french_404(
    console: FlaskClient, make_problem: Callable[..., Problem], frozen_clock: Any
) -> None:
    make_problem(code="P1")
    for url in (f"/console/problemes/{HUGE}", f"/rapports/{HUGE}", "/rapports/2147483648",
                f"/joueur/feuilles/{HUGE}", f"/console/courrier/recu/{HUGE}"):
        r = console.get(url)
        assert r.status_code == 404, url
        assert "Page introuvable" in text(r), url
    r = console.post(f"/console/problemes/{HUGE}/etape", data={"step": "close"})
    assert r.status_code == 404
    # the largest id a row can have is still looked up (and absent)
    assert console.get("/console/problemes/2147483647").status_code == 404
    # huge page numbers and form ids
    assert console.get(f"/console/joueurs?page={HUGE}").status_code == 200
    assert console.get(f"/console/journal?page={HUGE}").status_code == 200
    r = console.post("/console/joueurs", data={"csv": "nom;club;email\n", "competition_id": HUGE})
    assert r.status_code in (302, 400) and "Internal" not in text(r)


def test_a_console_row_missing_by_id_is_the_french_404(
    console: FlaskClient, make_problem: Callable[..., Problem], frozen_clock: Any
) -> None:
    """Every console view that loads a row named by its id asks webapp.services.rows; a
    missing one is its NotFound, answered with the 404 page (webapp.views.public)."""
    prob = make_problem(code="P1")
    none = 2147483647  # the largest id a row can have: looked up, and absent
    for method, url, data in (
        ("get", f"/console/problemes/{none}/finaliser", {}),
        ("get", f"/console/problemes/{none}/clore", {}),
        ("get", f"/console/problemes/{none}/reverifier", {}),
        ("post", f"/console/problemes/{none}/reference", {"action": "solve"}),
        ("post", f"/console/problemes/{none}/decisions", {"kind": "accept_word", "word": "X"}),
        ("post", f"/console/problemes/{prob.id}/decisions",
         {"kind": "accept_word", "word": "X", "submission_id": str(none)}),
        ("post", f"/console/problemes/{prob.id}/hors-delai/{none}", {"reason": "panne"}),
        ("post", f"/console/appels/{none}", {"decision": "reject", "answer": "Non."}),
        ("get", f"/console/joueurs/{none}", {}),
        ("post", f"/console/joueurs/{none}", {"name": "X"}),
        ("get", f"/console/courrier/recu/{none}/brut", {}),
    ):
        r = getattr(console, method)(url, data=data)
        assert r.status_code == 404, url
        assert "Page introuvable" in text(r), url


def problem_form(competition: Competition, **over: str) -> dict[str, Any]:
    form = {"competition_id": str(competition.id), "source": "seed", "seed": "1",
            "game": "integral", "timezone": "Europe/Bucharest",
            "publish_at": "2026-05-11T10:00", "deadline_at": "2026-05-16T10:00",
            "code": "P1", "appeal_days": "7"}
    form.update(over)
    return form


@pytest.mark.parametrize(("over", "message"), [
    ({"code": "P 1"}, "Code public « P 1 » refusé : de 1 à 32 lettres sans accent, chiffres, "
                      "- et _, commençant par une lettre ou un chiffre."),
    ({"code": "../x"}, "Code public « ../x » refusé"),
    ({"code": "é1"}, "Code public « é1 » refusé"),
    ({"code": "A" * 33}, "Code public « " + "A" * 33 + " » refusé"),
    ({"appeal_days": "-3"}, "Délai d'appel (jours) : -3 est hors des limites (de 1 à 30)."),
    ({"appeal_days": "99999999999999999999"}, "Délai d'appel (jours) : 99999999999999999999 "
                                              "est hors des limites (de 1 à 30)."),
    ({"appeal_days": "sept"}, "Délai d'appel (jours) : « sept » n'est pas un nombre entier."),
    ({"publish_at": "0001-01-01T00:00"}, "Date hors des limites : « 0001-01-01T00:00 » "
                                         "(l'année doit être comprise entre 2000 et 2100)."),
    ({"deadline_at": "9999-12-31T23:59"}, "Date hors des limites : « 9999-12-31T23:59 »"),
    ({"deadline_at": "2026-05-10T10:00"}, "La clôture doit suivre la publication."),
    ({"seed": "1e400"}, "Graine du tirage : « 1e400 » n'est pas un nombre entier."),
    ({"seed": "-1"}, "Graine du tirage : -1 est hors des limites"),
    ({"n_groups": "nan"}, "Nombre de groupes : « nan » n'est pas un nombre entier."),
    ({"n_groups": "99"}, "Nombre de groupes : 99 est hors des limites (de 2 à 15)."),
    ({"game": "inconnu"}, "Type de jeu inconnu."),
    ({"lang": "xx"}, "Langue inconnue : français (fr) ou roumain (ro)."),
    ({"title": "T" * 201}, "Titre : 201 caractères, 200 au plus."),
    ({"competition_id": HUGE}, "Choisissez la compétition."),
    ({"game": "anticipation", "round_interval_hours": "inf"},
     "Intervalle entre deux annonces illisible : « inf »"),
    ({"game": "anticipation", "round_interval_hours": "NaN"},
     "Intervalle entre deux annonces illisible : « NaN »"),
    ({"game": "anticipation", "round_interval_hours": "-2"},
     "Intervalle entre deux annonces hors des limites : -2 h (de 0 à 744 heures)."),
])
def test_problem_fields_are_checked_in_french(
    console: FlaskClient, competition: Competition, db_session: Session, frozen_clock: Any,
    over: dict[str, str], message: str,
) -> None:
    r = console.post("/console/problemes/nouveau", data=problem_form(competition, **over))
    assert r.status_code == 400
    assert message in text(r)
    assert db_session.exec(select(Problem)).all() == []


def test_a_duplicate_problem_code_is_refused_in_french(
    console: FlaskClient, competition: Competition, db_session: Session, frozen_clock: Any
) -> None:
    assert console.post("/console/problemes/nouveau",
                        data=problem_form(competition)).status_code == 302
    r = console.post("/console/problemes/nouveau", data=problem_form(competition, seed="2"))
    assert r.status_code == 400
    assert ("Le code public « P1 » est déjà celui d'un autre problème : choisissez-en un "
            "autre.") in text(r)
    assert len(db_session.exec(select(Problem)).all()) == 1


def test_competition_fields_are_checked_in_french(console: FlaskClient,
                                                  db_session: Session) -> None:
    cases = [
        ({"slug": "a b", "name": "X"}, "L'identifiant ne contient que des lettres sans accent"),
        ({"slug": "ok", "name": "N" * 201}, "Le nom compte 201 caractères, 200 au plus."),
        ({"slug": "ok", "name": "X", "ranking_rule": "?"}, "Règle de classement inconnue."),
        ({"slug": "ok", "name": "X", "lang": "de"}, "Langue inconnue"),
    ]
    for data, message in cases:
        r = console.post("/console/competitions/nouvelle", data=data)
        assert r.status_code == 400
        assert message in text(r)
    assert [c.slug for c in db_session.exec(select(Competition)).all()] == ["cn2026"]


def test_an_unexpected_error_is_a_french_500_page(app: Flask, client: FlaskClient) -> None:
    app.config["PROPAGATE_EXCEPTIONS"] = False  # as in production (TESTING re-raises)

    @app.route("/_test/panne")
    def _boom() -> str:
        raise RuntimeError("boom")

    r = client.get("/_test/panne")
    assert r.status_code == 500
    page = text(r)
    assert "Erreur interne" in page and "Une erreur inattendue est survenue" in page
    assert "Internal Server Error" not in page and "boom" not in page
    assert r.headers["Content-Security-Policy"].endswith("frame-ancestors 'none'")
    r = client.delete("/")
    assert r.status_code == 405 and "Méthode non permise" in text(r)


def test_huge_page_numbers_and_standings_values(
    console: FlaskClient, competition: Competition, db_session: Session,
    make_problem: Callable[..., Problem], frozen_clock: Any,
) -> None:
    for url in (f"/archives?page={HUGE}", f"/console/courrier/recu?page={HUGE}",
                f"/console/courrier/sortant?page={HUGE}", f"/console/joueurs?page={HUGE}"):
        r = console.get(url)
        assert r.status_code == 200, url
    prob = make_problem(code="P1")
    r = console.post("/console/competitions/cn2026", data={
        "action": "standings", "ranking_rule": "frsc_points", "best_of": "",
        "tie_break": "shared", "frsc_beyond_table": "zero", "frsc_ex_aequo": "share",
        f"event_value_{prob.id}": HUGE}, follow_redirects=True)
    assert "Rien n'a été changé : Valeur de l'épreuve P1 : au plus 100000." in text(r)
    db_session.expire_all()
    assert db_session.get(Problem, prob.id).event_value == 100  # type: ignore[union-attr]
