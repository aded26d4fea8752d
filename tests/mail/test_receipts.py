"""What the e-mail receipt tells the player (issues 9 and 15): lines left out as greeting or
closing words, an unreadable version that now counts, and late sheets in every state of the
problem until its final ranking."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from flask import Flask

from tests.mail.conftest import ANA, Seed
from tests.mail.helpers import make_mail, rows

pytestmark = [pytest.mark.db, pytest.mark.mail]

TO = f"feuilles+{ANA[2]}@arbitre.test"
FROM = "ana.ionescu@example.org"
GOOD = "1 ACEFHIR h8 FICHERA 82 82\n2 EILNST? 9c ENLISTa 70 152"


def _send(app: Flask, body: str, subject: str = "I3", mid: str | None = None) -> str:
    from mailer.pipeline import receive

    raw = make_mail(frm=FROM, to=TO, subject=subject, body=body, message_id=mid)
    return receive(app, raw, channel="smtp", envelope_from=FROM, envelope_to=[TO])[1]


def _receipts(app: Flask) -> list[str]:
    from webapp.models import OutboxMessage

    return [o.body_text for o in rows(app, OutboxMessage, kind="receipt")]


def test_a_garbled_last_line_in_words_is_named_in_the_receipt(app: Flask, seed: Seed) -> None:
    """« deux E5 maison vingt » looks like closing words (no capitalised word): it is left out
    of the sheet, and the receipt now quotes it with the greeting and the signature line."""
    from webapp.models import Submission

    body = f"Bonjour,\n\n{GOOD}\ndeux E5 maison vingt\n\nCordialement,\nAna"
    assert _send(app, body) == "processed"
    (sub,) = rows(app, Submission)
    assert sub.raw_text == GOOD  # the two moves, nothing else
    (text,) = _receipts(app)
    assert (
        "Lignes laissées de côté, prises pour des formules d'accompagnement (avant ou après la "
        "feuille) :\n"
        "  « Bonjour, »\n"
        "  « deux E5 maison vingt »\n"
        "  « Cordialement, »\n"
        "  « Ana »\n"
        "Si l'une d'elles était un coup, écrivez-la comme les autres (numéro, tirage, référence, "
        "mot, score) et renvoyez la feuille entière.\n"
    ) in text


def test_a_clean_sheet_lists_no_left_out_line(app: Flask, seed: Seed) -> None:
    assert _send(app, GOOD) == "processed"
    (text,) = _receipts(app)
    assert "laissées de côté" not in text


def test_an_unreadable_version_replacing_a_readable_one_says_it_now_counts(
    app: Flask, seed: Seed
) -> None:
    from webapp.models import Submission

    assert _send(app, GOOD, mid="<v1@x>") == "processed"
    bad = "1 ACEFHIR h8 FICHERA 82 82\n2 EILNST? zz ENLISTa 70 152\n3 AEIRSTU 10a SAUTERIE 80 232"
    assert _send(app, bad, mid="<v2@x>") == "processed"
    first, second = rows(app, Submission)
    assert (first.version, first.parse_errors, second.version) == (1, [], 2)
    assert len(second.parse_errors) == 1
    text = _receipts(app)[1]
    assert (
        "ATTENTION : cette version remplace la version n° 1, qui était lisible en entier, et "
        "c'est désormais ELLE QUI COMPTE, avec ses 1 ligne(s) illisible(s) indiquée(s) "
        "ci-dessous."
    ) in text
    assert "  - ligne 2 : référence manquante ou illisible" in text
    assert ("Tant que vous n'envoyez pas d'autre version, c'est celle-ci qui compte, et ces "
            "lignes ne pourront pas être vérifiées comme vous l'entendiez.") in text
    assert "Cette feuille remplace celle que vous aviez envoyée auparavant." not in text
    # A readable version replacing it gets the ordinary sentence.
    assert _send(app, GOOD + "\n", mid="<v3@x>") == "processed"
    assert "Cette feuille remplace celle que vous aviez envoyée auparavant." in _receipts(app)[2]


def _set_status(app: Flask, problem_id: int, status: str) -> None:
    from webapp.db import session_scope
    from webapp.models import Problem

    with app.app_context(), session_scope(app) as s:
        p = s.get(Problem, problem_id)
        assert p is not None
        p.status = status
        p.deadline_at = datetime(2026, 1, 10, 18, 0, tzinfo=UTC)
        s.add(p)


@pytest.mark.parametrize("status", ["closed", "verified", "provisional"])
def test_a_late_sheet_by_mail_is_a_late_version_until_the_ranking_is_final(
    app: Flask, seed: Seed, status: str
) -> None:
    """Issue 15: the web stores a sheet sent after the deadline as a late version for the
    arbitre; the mail channel did so only while the problem was open or closed, so a sheet
    mailed once the (automatic) verification had run stayed a bare inbound message."""
    from webapp.models import InboundMessage, Submission

    _set_status(app, seed.problem_id, status)
    assert _send(app, GOOD, subject="Problème : I3") == "processed"
    (sub,) = rows(app, Submission)
    assert (sub.late, sub.accepted_late, sub.channel) == (True, False, "email")
    (inbound,) = rows(app, InboundMessage)
    assert inbound.submission_id == sub.id
    (text,) = _receipts(app)
    # 18:00 UTC on 10 January is 20:00 in Bucharest (UTC+2 in winter).
    assert ("ATTENTION : elle est arrivée APRÈS la clôture (10/01/2026 à 20:00:00 "
            "(Europe/Bucharest, UTC+02:00)). Elle est "
            "conservée comme feuille hors délai : l'arbitre décidera si elle est prise en "
            "compte ; s'il l'accepte, elle sera vérifiée et classée avec les autres, même si "
            "les résultats provisoires sont déjà publiés.") in " ".join(text.split())


def test_a_sheet_for_a_final_problem_is_kept_and_answered(app: Flask, seed: Seed) -> None:
    from webapp.models import InboundMessage, OutboxMessage, Submission

    _set_status(app, seed.problem_id, "final")
    assert _send(app, GOOD, subject="Problème : I3") == "ignored"
    assert rows(app, Submission) == []
    (inbound,) = rows(app, InboundMessage)
    note = ("Le problème « Intégral n° 3 » (I3) a déjà son classement définitif : il n'accepte "
            "pas de feuille de route.")
    assert inbound.error == note
    (out,) = rows(app, OutboxMessage)
    assert out.kind == "ambiguity" and note in " ".join(out.body_text.split())


def test_the_only_open_problem_rule_ignores_verified_ones(app: Flask, seed: Seed) -> None:
    """A sheet naming no problem still goes to the only open one when another problem is
    verified (and so now takes late sheets when named)."""
    from tests.mail.conftest import add_problem
    from webapp.models import Submission

    other = add_problem(app, seed, "A7", "Anticipation n° 7")
    _set_status(app, other, "verified")
    assert _send(app, GOOD, subject="ma feuille") == "processed"
    (sub,) = rows(app, Submission)
    assert (sub.problem_id, sub.late) == (seed.problem_id, False)


def test_accepting_a_late_sheet_after_verification_points_to_the_rerun(
    app: Flask, seed: Seed
) -> None:
    """Issue 15: a late sheet accepted once the batch has run is verified by nobody until a
    re-run; the console says so on the same page and links the re-run."""
    import html

    from webapp.auth import create_arbitre
    from webapp.db import session_scope
    from webapp.models import Submission

    _set_status(app, seed.problem_id, "verified")
    assert _send(app, GOOD, subject="Problème : I3") == "processed"
    (sub,) = rows(app, Submission)
    with app.app_context(), session_scope(app) as s:
        arbitre = create_arbitre(session=s, username="juge", password="motdepasse1")
        s.flush()
        arbitre_id = arbitre.id
    client = app.test_client()
    with client.session_transaction() as sess:
        sess["arbitre_id"] = arbitre_id
    resp = client.post(f"/console/problemes/{seed.problem_id}/hors-delai/{sub.id}",
                       data={"reason": "courrier retardé par le serveur"}, follow_redirects=True)
    assert resp.status_code == 200
    page = html.unescape(resp.get_data(as_text=True))
    assert ("Feuille hors délai acceptée. Les feuilles sont déjà vérifiées : elle n'entrera au "
            "classement qu'après « Relancer la vérification… » (en haut de cette page).") in page
    assert (f'pas encore classée : <a href="/console/problemes/{seed.problem_id}/reverifier">'
            "relancer la vérification</a>") in page
    (after,) = rows(app, Submission)
    assert after.accepted_late is True
