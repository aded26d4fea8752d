"""Batch verification: which sheets, one report per submission and lexicon, rulings as
inputs. Scores are the worked example of RULES §12 [E5]: FICHERA H8 = 82, then WUS 15F = 84
(cumul 166)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session, select

from tests.web.season import FIRST, FULL, submit_web
from webapp.models import RulingKind, Verification
from webapp.services import lexicons, verification
from webapp.services.submissions import accept_late

pytestmark = pytest.mark.db

def test_latest_on_time_version_of_each_player_is_verified_once(
    ctx, db_session: Session, make_player, make_problem, frozen_start
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    prob = make_problem(code="P1", deadline=timedelta(days=1))
    submit_web(db_session, ana, prob, FIRST, frozen_start)
    ana_v2 = submit_web(db_session, ana, prob, FULL, frozen_start + timedelta(hours=1))
    bob_v1 = submit_web(db_session, bob, prob, FIRST, frozen_start + timedelta(hours=2))
    # Bob's correction arrives one second after the deadline: his on-time sheet stands
    bob_late = submit_web(db_session, bob, prob, FULL, prob.deadline_at + timedelta(seconds=1))
    db_session.commit()

    assert [s.id for s in verification.eligible_submissions(db_session, prob)] == [
        ana_v2.id, bob_v1.id
    ]
    created = verification.verify_problem(session=db_session, problem=prob, actor="system")
    db_session.commit()
    assert {v.submission_id: (v.final_score, v.valid, v.run) for v in created} == {
        ana_v2.id: (166, True, 1), bob_v1.id: (82, True, 1)
    }
    lex = lexicons.base_lexicon(prob)
    assert {v.lexicon_sha256 for v in created} == {lex.identity.sha256}
    moves = {v.submission_id: v.report["moves"] for v in created}
    assert [(m["word"], m["score"]) for m in moves[ana_v2.id]] == [("FICHERA", 82), ("WUS", 84)]
    assert "Score final : 166 points" in created[0].report["text"] or \
        "Score final : 166 points" in created[1].report["text"]

    # second run: nothing new
    assert verification.verify_problem(session=db_session, problem=prob, actor="system") == []
    assert len(db_session.exec(select(Verification)).all()) == 2

    # the arbitre accepts the late correction: it replaces the on-time sheet
    accept_late(session=db_session, submission=bob_late, actor="juge",
                reason="panne du serveur de courriel du joueur")
    assert [s.id for s in verification.eligible_submissions(db_session, prob)] == [
        ana_v2.id, bob_late.id
    ]


def test_word_ruling_changes_the_verdict_through_the_lexicon(
    ctx, db_session: Session, make_player, make_problem, frozen_start
) -> None:
    from scoring.lexicon import default_lexicon

    ana = make_player("Ana", "ana@example.ro")
    # published with its list's identity: the ruled list must not be taken for another list
    prob = make_problem(code="P1", deadline=timedelta(days=1), lexicon=default_lexicon())
    assert prob.lexicon_sha256 == default_lexicon().identity.sha256
    sub = submit_web(db_session, ana, prob, "Problème: P1\n" + FULL, frozen_start)
    db_session.commit()
    verification.add_ruling(session=db_session, problem=prob, kind=RulingKind.REJECT_WORD,
                            word="wus", actor="juge", comment="mot refusé pour ce problème")
    lex = verification.ruled_lexicon(db_session, prob)
    base = lexicons.base_lexicon(prob)
    assert "WUS" in base and "WUS" not in lex and "FICHERA" in lex
    assert lex.identity.word_count == base.identity.word_count - 1
    assert lex.identity.sha256 != base.identity.sha256
    assert lex.identity.name == "fr-comprehensive+décisions"
    res = verification.run_verifier(prob, sub, lex)
    assert (res.final_score, res.valid) == (82, False)
    statuses = [m["status"] for m in res.report["moves"]]
    assert statuses == ["valide", "zéro"]
    assert res.report["errors"] == []
    assert res.report["lexicon"]["sha256"] == lex.identity.sha256


def test_rulings_must_be_motivated(ctx, db_session, make_problem) -> None:
    prob = make_problem(code="P1")
    with pytest.raises(ValueError, match="Motivez"):
        verification.add_ruling(session=db_session, problem=prob,
                                kind=RulingKind.ACCEPT_WORD, word="KWYJIBO", actor="juge")


def test_a_lexicon_other_than_the_published_one_stops_the_batch(
    ctx, db_session, make_player, make_problem
) -> None:
    prob = make_problem(code="P1")
    prob.lexicon_sha256 = "0" * 64
    with pytest.raises(verification.VerificationError, match="n'est pas celle du problème P1"):
        verification.verify_problem(session=db_session, problem=prob, actor="system")
