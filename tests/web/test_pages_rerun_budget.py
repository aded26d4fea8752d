"""The console's re-run preview is bounded (issue 9): it runs in the arbitre's web request,
so its verifier work stops at ``RERUN_PREVIEW_SECONDS``; a partial preview says how many
sheets it re-verified, offers to go on (results already computed are kept and not computed
again) and cannot be applied.

The budget is set to 0 s here so that the outcome does not depend on the machine's speed:
with 0 s no sheet is verified in the request, and only results already kept count.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, col, select

from webapp.models import Verification
from webapp.services import verification

from .test_pages_results import as_arbitre, results, text  # noqa: F401  (fixture)

pytestmark = pytest.mark.db

REASON = "décision sur WUS"


@pytest.fixture(autouse=True)
def empty_result_cache() -> None:
    with verification._results_lock:
        verification._results.clear()


def current_scores(db_session: Session) -> list[int]:
    db_session.expire_all()
    return sorted(v.final_score for v in db_session.exec(
        select(Verification).where(col(Verification.superseded_at).is_(None))).all())


def test_partial_preview_goes_on_and_only_a_complete_one_applies(
    app: Flask, client: FlaskClient, results: dict[str, Any],  # noqa: F811
    db_session: Session,
) -> None:
    prob = results["problem"]
    as_arbitre(client, db_session)
    # Ana's sheet holds WUS (166 = 82 + 84); the two others only FICHERA (82)
    assert current_scores(db_session) == [82, 82, 166]
    client.post(f"/console/problemes/{prob.id}/decisions",
                data={"kind": "reject_word", "word": "WUS", "comment": "absent de la liste"})
    app.config["RERUN_PREVIEW_SECONDS"] = 0
    url = f"/console/problemes/{prob.id}/reverifier"

    resp = client.post(url, data={"reason": REASON, "action": "preview"})
    assert resp.status_code == 200
    shown = text(resp)
    assert "Aperçu partiel : 0 feuille(s) revérifiée(s) sur 3" in shown
    assert "un aperçu s'arrête après 0 s de vérification" in shown
    assert "Poursuivre l'aperçu" in shown
    assert "Appliquer cette vérification" not in shown
    # nothing re-verified yet: no place changes
    assert "Changements de classement : 0" in shown
    assert "Aucun joueur ne change de place." in shown
    # applying a partial preview writes nothing
    resp = client.post(url, data={"reason": REASON, "action": "apply", "digest": "x"},
                       follow_redirects=True)
    assert "L'aperçu n'est pas encore complet : rien n'a été appliqué." in text(resp)
    assert len(db_session.exec(select(Verification)).all()) == 3

    # the sheets verified once (here by an unbounded preview, as a longer budget would) are
    # kept: the 0-second preview is now complete and shows Ana's 166 → 82
    with app.app_context():
        full = verification.preview_rerun(session=db_session, problem=prob, reason=REASON)
    assert full.complete and full.sheets == 3
    resp = client.post(url, data={"reason": REASON, "action": "preview"})
    shown = text(resp)
    assert "Aperçu partiel" not in shown and "3 feuille(s) revérifiée(s)." in shown
    assert "Ana Popescu" in shown and "166" in shown
    digest = resp.get_data(as_text=True).split('name="digest" value="', 1)[1].split('"', 1)[0]
    done = client.post(url, data={"reason": REASON, "action": "apply", "digest": digest},
                       follow_redirects=True)
    assert "Nouvelle vérification appliquée" in text(done)
    assert current_scores(db_session) == [82, 82, 82]  # 166 − 84 (WUS refused)


def test_the_service_refuses_a_partial_preview(
    app: Flask, results: dict[str, Any], db_session: Session  # noqa: F811
) -> None:
    prob = results["problem"]
    with app.app_context():
        partial = verification.preview_rerun(session=db_session, problem=prob, reason=REASON,
                                             budget_seconds=0)
        assert (len(partial.results), partial.sheets, partial.complete) == (0, 3, False)
        with pytest.raises(ValueError, match="Aperçu partiel \\(0 feuilles revérifiées sur 3\\)"):
            verification.apply_rerun(session=db_session, problem=prob, preview=partial,
                                     actor="juge")
