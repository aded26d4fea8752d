"""Pages after the deadline: the provisional ranking (page and exact CSV), reports open to
everyone once results are public, appeals, re-verification with a preview, finalisation.

The schedule itself moves the problem (``lifecycle.run_due`` at an instant after the
deadline); scores are the worked example of RULES §12 [E5]: FICHERA 82, WUS 84, cumul 166.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.web.season import FIRST, FULL, text
from tests.web.test_pages import login_player
from webapp.auth import create_arbitre
from webapp.models import (
    Appeal,
    Channel,
    Player,
    Problem,
    ProblemStatus,
    Ranking,
    Submission,
    Verification,
)
from webapp.services import lifecycle
from webapp.services.submissions import submit_sheet

pytestmark = pytest.mark.db

EVIL = "<script>alert('x')</script>"


def as_arbitre(client: FlaskClient, db_session: Session) -> None:
    a = create_arbitre(session=db_session, username="juge", password="motdepasse1")
    db_session.commit()
    with client.session_transaction() as sess:
        sess.clear()
        sess["arbitre_id"] = a.id


@pytest.fixture
def results(
    app: Any, db_session: Session, make_player: Callable[..., Player],
    make_problem: Callable[..., Problem], frozen_start: Any, frozen_clock: Any,
) -> dict[str, Any]:
    ana = make_player("Ana Popescu", "ana@example.ro", club="CS București")
    evil = make_player(EVIL, "evil@example.fr", club="=HYPERLINK(\"x\")")
    bob = make_player("Bob Martin", "bob@example.fr")
    prob = make_problem(code="P1", deadline=timedelta(days=1))
    for pl, sheet, minutes in ((ana, FULL, 0), (evil, FIRST, 1), (bob, FIRST, 2)):
        submit_sheet(session=db_session, player=pl, problem=prob, text=sheet,
                     channel=Channel.WEB, received_at=frozen_start + timedelta(minutes=minutes))
    db_session.commit()
    after = prob.deadline_at + timedelta(minutes=1)
    frozen_clock.move_to(after)
    with app.app_context():
        assert lifecycle.run_due(now=after) == ["close:P1", "verify:P1", "provisional:P1"]
    db_session.expire_all()
    vers = {db_session.get(Submission, v.submission_id).player_id: v
            for v in db_session.exec(select(Verification)).all()}
    return {"ana": ana, "evil": evil, "bob": bob, "problem": prob, "ver": vers}


def test_ranking_csv_is_exact(client: FlaskClient, results: dict[str, Any]) -> None:
    resp = client.get("/problemes/P1/classement.csv")
    assert resp.status_code == 200
    assert resp.mimetype == "text/csv"
    assert resp.headers["Content-Disposition"] == (
        'attachment; filename="classement-P1-provisoire.csv"')
    # 82 / 166 = 49.397...%: ties at 82 go to the earlier sheet (received 10:01 before 10:02)
    assert resp.get_data(as_text=True) == (
        "\ufeffrang;joueur;club;score;pourcentage;reçue_le_utc\r\n"
        "1;Ana Popescu;CS București;166;100,00;2026-05-10 10:00:00\r\n"
        "2;<script>alert('x')</script>;\"'=HYPERLINK(\"\"x\"\")\";82;49,40;2026-05-10 10:01:00\r\n"
        "3;Bob Martin;;82;49,40;2026-05-10 10:02:00\r\n"
    )


def test_ranking_page_escapes_and_highlights_the_player(
    client: FlaskClient, results: dict[str, Any]
) -> None:
    login_player(client, results["ana"])
    resp = client.get("/problemes/P1/classement")
    body = resp.get_data(as_text=True)
    assert resp.status_code == 200
    assert EVIL not in body and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in body
    assert f'<tr data-player="{results["ana"].id}" class="me">' in body
    assert body.count('class="me"') == 1
    shown = text(resp)
    assert "Classement provisoire" in shown and "3 joueur(s) classé(s)" in shown
    # 10:00 UTC is 13:00 in Bucharest
    assert "10/05/2026 à 13:00" in shown and "100,00" in shown and "49,40" in shown


def test_reports_are_public_once_results_are(
    client: FlaskClient, results: dict[str, Any]
) -> None:
    v = results["ver"][results["ana"].id]
    assert client.get(f"/rapports/{v.id}").status_code == 200
    login_player(client, results["bob"])
    resp = client.get(f"/rapports/{v.id}")
    assert resp.status_code == 200
    assert "Faire appel" not in text(resp)  # only on one's own report


def test_player_appeals_and_the_arbitre_answers(
    client: FlaskClient, results: dict[str, Any], db_session: Session
) -> None:
    v = results["ver"][results["bob"].id]
    login_player(client, results["bob"])
    page = text(client.get(f"/joueur/rapports/{v.id}/appel"))
    assert "Le délai d'appel court jusqu'au 18/05/2026 à 13:01" in page
    resp = client.post(f"/joueur/rapports/{v.id}/appel", data={"texte": "  "})
    assert resp.status_code == 400
    assert "Expliquez en quelques mots" in text(resp)
    resp = client.post(f"/joueur/rapports/{v.id}/appel",
                       data={"texte": "Mon WUS a été oublié."}, follow_redirects=True)
    assert "Votre appel est enregistré" in text(resp)
    appeal = db_session.exec(select(Appeal)).one()
    # someone else's report cannot be appealed
    login_player(client, results["ana"])
    assert client.get(f"/joueur/rapports/{v.id}/appel").status_code == 404

    as_arbitre(client, db_session)
    listing = text(client.get("/console/appels"))
    assert "Mon WUS a été oublié." in listing and "Bob Martin" in listing
    client.post(f"/console/appels/{appeal.id}", data={"decision": "reject",
                                                      "answer": "La feuille reçue n'a qu'un coup."})
    db_session.refresh(appeal)
    assert (appeal.status, appeal.answer) == ("rejected", "La feuille reçue n'a qu'un coup.")
    login_player(client, results["bob"])
    assert "La feuille reçue n'a qu'un coup." in text(client.get(f"/joueur/rapports/{v.id}/appel"))


def test_rerun_shows_the_ranking_changes_before_applying(
    client: FlaskClient, results: dict[str, Any], db_session: Session
) -> None:
    as_arbitre(client, db_session)
    prob = results["problem"]
    # the arbitre refuses WUS for this problem: Ana's second move becomes a zero
    client.post(f"/console/problemes/{prob.id}/decisions",
                data={"kind": "reject_word", "word": "WUS", "comment": "absent de la liste"})
    resp = client.post(f"/console/problemes/{prob.id}/reverifier",
                       data={"reason": "décision sur WUS", "action": "preview"})
    assert resp.status_code == 200
    page = resp.get_data(as_text=True)
    shown = text(resp)
    assert "Aperçu" in shown and "Ana Popescu" in shown
    # nothing written yet
    assert len(db_session.exec(select(Verification)).all()) == 3
    digest = page.split('name="digest" value="', 1)[1].split('"', 1)[0]
    # a stale preview is not applied
    stale = client.post(f"/console/problemes/{prob.id}/reverifier",
                        data={"reason": "décision sur WUS", "action": "apply", "digest": "x"})
    assert "Les résultats ont changé depuis l'aperçu" in text(stale)
    assert len(db_session.exec(select(Verification)).all()) == 3
    done = client.post(f"/console/problemes/{prob.id}/reverifier",
                       data={"reason": "décision sur WUS", "action": "apply", "digest": digest},
                       follow_redirects=True)
    assert "Nouvelle vérification appliquée" in text(done)
    current = db_session.exec(
        select(Verification).where(Verification.superseded_at.is_(None))  # type: ignore[union-attr]
    ).all()
    assert sorted(v.final_score for v in current) == [82, 82, 82]
    rk = db_session.exec(select(Ranking).where(Ranking.superseded_at.is_(None))).one()  # type: ignore[union-attr]
    assert rk.comment == "décision sur WUS"


def test_finalise_needs_a_comment_and_no_open_appeal(
    client: FlaskClient, results: dict[str, Any], db_session: Session
) -> None:
    prob = results["problem"]
    as_arbitre(client, db_session)
    assert "Rendre le classement définitif" in text(client.get(f"/console/problemes/{prob.id}"))
    resp = client.post(f"/console/problemes/{prob.id}/finaliser", data={"comment": ""},
                       follow_redirects=True)
    assert "Un commentaire accompagne le classement définitif." in text(resp)
    # the page previews the final ranking; while the appeal window is open, publishing
    # needs the box ticked (and the preview's digest)
    page = client.get(f"/console/problemes/{prob.id}/finaliser").get_data(as_text=True)
    digest = page.split('name="digest" value="', 1)[1].split('"', 1)[0]
    client.post(f"/console/problemes/{prob.id}/finaliser",
                data={"comment": "Merci à tous ; aucun appel.", "digest": digest,
                      "early": "1"})
    db_session.expire_all()
    assert db_session.get(Problem, prob.id).status == ProblemStatus.FINAL
    final = db_session.exec(select(Ranking).where(Ranking.kind == "final")).one()
    assert final.comment == "Merci à tous ; aucun appel."
    page = text(client.get("/problemes/P1/classement"))
    assert "Classement définitif" in page and "Merci à tous ; aucun appel." in page
    assert "classement-P1-definitif.csv" in client.get(
        "/problemes/P1/classement.csv").headers["Content-Disposition"]
    # the archive now lists it
    assert "Scrabble intégral n° 1" in text(client.get("/archives"))


def test_reference_solution_entered_by_the_arbitre_is_published_with_the_results(
    client: FlaskClient, results: dict[str, Any], db_session: Session
) -> None:
    prob = results["problem"]
    as_arbitre(client, db_session)
    bad = "1 ACEFHIR h8 FICHERA 82 82\n2 SUW\n"
    resp = client.post(f"/console/problemes/{prob.id}/reference",
                       data={"action": "enter", "feuille": bad})
    assert resp.status_code == 400
    assert "Solution de référence — Ligne 2 :" in text(resp)
    assert bad in text(resp)  # kept in the form
    db_session.expire_all()
    assert "reference" not in db_session.get(Problem, prob.id).params
    resp = client.post(f"/console/problemes/{prob.id}/reference",
                       data={"action": "enter", "feuille": FULL}, follow_redirects=True)
    assert "Solution de référence enregistrée : 166 points." in text(resp)
    db_session.expire_all()
    stored = db_session.get(Problem, prob.id)
    assert stored.reference_score == 166
    assert [m["word"] for m in stored.params["reference"]["moves"]] == ["FICHERA", "WUS"]
    # results are public (provisional): everyone sees it, with its final grid
    with client.session_transaction() as sess:
        sess.clear()
    page = client.get("/problemes/P1").get_data(as_text=True)
    assert '<strong id="reference-total">166</strong>' in page
    assert "FICHERA" in page and page.count("<svg") == 2


def test_reference_solution_from_the_solver(
    client: FlaskClient, results: dict[str, Any], db_session: Session
) -> None:
    prob = results["problem"]
    as_arbitre(client, db_session)
    resp = client.post(f"/console/problemes/{prob.id}/reference",
                       data={"action": "solve", "seconds": "2"}, follow_redirects=True)
    db_session.expire_all()
    ref = db_session.get(Problem, prob.id).params["reference"]
    assert ref["source"].startswith("solveur (2 s")
    # the solver's sheet, checked by the verifier: every move counts, cumul = total
    assert ref["moves"] and all(m["status"] == "valide" for m in ref["moves"])
    assert ref["moves"][-1]["cumul"] == ref["total"] > 166
    assert f"Solution de référence enregistrée : {ref['total']} points." in text(resp)


def test_appeal_answer_goes_back_only_within_the_console(
    client: FlaskClient, results: dict[str, Any], db_session: Session
) -> None:
    v = results["ver"][results["bob"].id]
    login_player(client, results["bob"])
    client.post(f"/joueur/rapports/{v.id}/appel", data={"texte": "Je conteste."})
    appeal = db_session.exec(select(Appeal)).one()
    as_arbitre(client, db_session)
    resp = client.post(f"/console/appels/{appeal.id}", data={
        "decision": "reject", "answer": "Non.", "back": "https://ailleurs.example/piège"})
    assert resp.headers["Location"] == "/console/appels"


def test_an_identical_sheet_sent_again_keeps_its_first_time_for_the_tie_break(
    app: Any, client: FlaskClient, db_session: Session, make_player: Callable[..., Player],
    make_problem: Callable[..., Problem], frozen_start: Any, frozen_clock: Any,
) -> None:
    """Issue 22 §4: « An identical re-sent sheet does not reset its submission time for the
    tie-break (same SHA-256 as the version that counts → keep the earlier time), and ranking
    pages show the seconds when they decide a tie. » Ana sends FICHERA (82) at +0 s, Bob the
    same score at +30 s, Ana the very same text again at +60 s (a second mail): Ana stays
    first. Cid sends FICHERA at +10 s, then another text, then FICHERA again at +90 s: his
    sheet did not stand meanwhile, so +90 s counts and he is third."""
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    cid = make_player("Cid", "cid@example.fr")
    prob = make_problem(code="P1", deadline=timedelta(days=1))
    s = timedelta(seconds=1)
    for pl, sheet, at in ((ana, FIRST, 0), (cid, FIRST, 10), (bob, FIRST, 30),
                          (cid, FIRST + "\n", 40), (ana, FIRST, 60), (cid, FIRST, 90)):
        submit_sheet(session=db_session, player=pl, problem=prob, text=sheet,
                     channel=Channel.EMAIL, received_at=frozen_start + at * s)
    db_session.commit()
    after = prob.deadline_at + timedelta(minutes=1)
    frozen_clock.move_to(after)
    with app.app_context():
        assert lifecycle.run_due(now=after) == ["close:P1", "verify:P1", "provisional:P1"]
    db_session.expire_all()
    ranking = db_session.exec(select(Ranking)).one()
    assert [(r["rank"], r["name"], r["score"], r["received_at"][11:19]) for r in ranking.rows
            ] == [(1, "Ana", 82, "10:00:00"), (2, "Bob", 82, "10:00:30"),
                  (3, "Cid", 82, "10:01:30")]
    page = client.get("/problemes/P1/classement").get_data(as_text=True)
    # 10:00 UTC in the problem's zone (Europe/Bucharest, UTC+03:00), to the second: it decides
    assert "10/05/2026 à 13:00:00" in page and "10/05/2026 à 13:00:30" in page
    assert "10/05/2026 à 13:01:30" in page
