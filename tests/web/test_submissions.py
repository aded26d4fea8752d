"""submit_sheet: raw text first, version chain, lateness by server receive time, the receipt
in the same transaction, and malformed sheets kept whole."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session, select

from webapp.models import Channel, OutboxMessage, ProblemStatus, Submission
from webapp.services.submissions import SubmissionRefused, submit_sheet

pytestmark = pytest.mark.db

TEXT = "Problème: P1\n1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 166\n"
# `printf 'Problème: P1\n1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 166\n' | sha256sum`
TEXT_SHA256 = "4978cdc9d33a32641f1a4107896158f1b34c0815dc689684b12264b9525a05e9"


def test_sheet_is_stored_parsed_and_acknowledged(
    ctx, db_session: Session, make_player, make_problem, frozen_start
) -> None:
    ana = make_player("Ana Popescu", "ana@example.ro")
    prob = make_problem(code="P1", deadline=timedelta(days=2))
    received = frozen_start + timedelta(minutes=5)
    out = submit_sheet(
        session=db_session, player=ana, problem=prob, text=TEXT, channel=Channel.WEB,
        received_at=received,
    )
    db_session.commit()

    sub = db_session.exec(select(Submission)).one()
    assert (sub.version, sub.previous_id, sub.late, sub.accepted_late) == (1, None, False, False)
    assert sub.raw_text == TEXT and sub.sha256 == TEXT_SHA256
    assert sub.received_at == datetime(2026, 5, 10, 10, 5, tzinfo=UTC)
    assert sub.parse_errors == []
    assert [(m["number"], m["ref"], m["word"], m["score"]) for m in sub.feuille["moves"]] == [
        (1, "H8", "FICHERA", 82), (2, "15F", "WUS", 84)
    ]
    assert out.ok and out.late is False and out.version == 1

    receipt = db_session.exec(select(OutboxMessage)).one()
    assert receipt.kind == "receipt" and receipt.to_addr == "ana@example.ro"
    assert receipt.dedupe_key == f"receipt:{sub.id}"
    body = receipt.body_text
    assert "Référence de l'envoi : feuille n° 1\n" in body
    # server receive time with its zone: 10:05 UTC is 13:05 in Bucharest (EEST, UTC+3)
    assert "10/05/2026 à 13:05:00 (Europe/Bucharest, UTC+03:00)" in body
    assert TEXT_SHA256 in body
    assert "H8 (horizontal, ligne H, à partir de la colonne 8)" in body
    assert "15F (vertical, colonne 15, à partir de la ligne F)" in body
    assert "Total annoncé : 166" in body
    # nothing about word validity before the deadline
    assert "ne sont vérifiés qu'après la clôture" in body
    for verdict in ("invalide", "nul ", "score retenu"):
        assert verdict not in body


def test_versions_chain_and_every_version_is_kept(
    ctx, db_session: Session, make_player, make_problem, frozen_start
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    prob = make_problem(code="P1")
    first = submit_sheet(session=db_session, player=ana, problem=prob, text=TEXT,
                         channel=Channel.WEB, received_at=frozen_start)
    second = submit_sheet(session=db_session, player=ana, problem=prob, text=TEXT + "\n",
                          channel=Channel.EMAIL, received_at=frozen_start + timedelta(hours=1))
    db_session.commit()
    subs = db_session.exec(select(Submission).order_by(Submission.version)).all()
    assert [(s.version, s.channel) for s in subs] == [(1, "web"), (2, "email")]
    assert subs[1].previous_id == subs[0].id == first.submission.id
    assert second.previous is not None and second.previous.id == subs[0].id
    assert "Cette feuille remplace celle que vous aviez envoyée" in second.receipt.body_text
    assert len(db_session.exec(select(OutboxMessage)).all()) == 2


def test_one_second_late_is_late_and_exactly_on_time_is_not(
    ctx, db_session: Session, make_player, make_problem, frozen_start
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    prob = make_problem(code="P1", deadline=timedelta(days=1))
    deadline = prob.deadline_at
    on_time = submit_sheet(session=db_session, player=ana, problem=prob, text=TEXT,
                           channel=Channel.WEB, received_at=deadline)
    late = submit_sheet(session=db_session, player=bob, problem=prob, text=TEXT,
                        channel=Channel.EMAIL, received_at=deadline + timedelta(seconds=1))
    db_session.commit()
    assert on_time.late is False
    assert late.late is True and late.submission.late is True
    assert late.submission.accepted_late is False
    assert "(HORS DÉLAI)" in late.receipt.subject
    assert "APRÈS la clôture" in late.receipt.body_text
    assert "HORS DÉLAI" not in on_time.receipt.subject


def test_malformed_sheet_is_kept_whole_with_line_numbered_errors(
    ctx, db_session: Session, make_player, make_problem, frozen_start
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    prob = make_problem(code="P1")
    text = "1 ACEFHIR h8 FICHERA 82 82\n2 blabla\n3 SUW 15f WUS 84 166\n"
    out = submit_sheet(session=db_session, player=ana, problem=prob, text=text,
                       channel=Channel.EMAIL, received_at=frozen_start)
    db_session.commit()
    sub = db_session.get(Submission, out.submission.id)
    assert sub is not None and sub.raw_text == text
    assert [e["line"] for e in sub.parse_errors] == [2]
    assert sub.parse_errors[0]["message"].startswith("référence manquante ou illisible")
    assert "ligne 2 : référence manquante ou illisible" in out.receipt.body_text
    assert "renvoyez la feuille entière" in out.receipt.body_text


def test_receipt_and_sheet_share_one_transaction(
    ctx, db_session: Session, make_player, make_problem, frozen_start
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    prob = make_problem(code="P1")
    submit_sheet(session=db_session, player=ana, problem=prob, text=TEXT,
                 channel=Channel.WEB, received_at=frozen_start)
    db_session.rollback()
    assert db_session.exec(select(Submission)).all() == []
    assert db_session.exec(select(OutboxMessage)).all() == []


def test_sheet_before_publication_is_refused_in_french(
    ctx, db_session: Session, make_player, make_problem, frozen_start
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    prob = make_problem(code="P1", publish=timedelta(days=1), status=ProblemStatus.SCHEDULED)
    with pytest.raises(SubmissionRefused, match="n'est pas encore publié"):
        submit_sheet(session=db_session, player=ana, problem=prob, text=TEXT,
                     channel=Channel.WEB, received_at=frozen_start)


def test_naive_receive_time_is_refused(ctx, db_session, make_player, make_problem) -> None:
    ana = make_player("Ana", "ana@example.ro")
    prob = make_problem(code="P1")
    with pytest.raises(ValueError, match="timezone-aware"):
        submit_sheet(session=db_session, player=ana, problem=prob, text=TEXT,
                     channel=Channel.WEB, received_at=datetime(2026, 5, 10, 10, 0))


def test_simultaneous_sheets_of_one_player_get_consecutive_versions(
    app, ctx, db_session: Session, make_player, make_problem, frozen_start
) -> None:
    import threading

    from webapp.db import session_scope

    ana = make_player("Ana", "ana@example.ro")
    prob = make_problem(code="P1")
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def send(i: int) -> None:
        try:
            with app.app_context():
                barrier.wait()
                with session_scope(app) as s:
                    submit_sheet(session=s, player=s.get(type(ana), ana.id),
                                 problem=s.get(type(prob), prob.id), text=f"{TEXT}# {i}\n",
                                 channel=Channel.EMAIL if i % 2 else Channel.WEB,
                                 received_at=frozen_start + timedelta(seconds=i))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == []
    subs = db_session.exec(select(Submission).order_by(Submission.version)).all()
    assert [s.version for s in subs] == [1, 2, 3, 4]
    assert [s.previous_id for s in subs] == [None] + [s.id for s in subs[:-1]]


def test_a_broken_mail_template_never_costs_the_sheet(
    ctx, db_session: Session, make_player, make_problem, frozen_start, monkeypatch, caplog
) -> None:
    import mailer.compose

    def broken(template: str, **kw: object) -> object:
        raise RuntimeError("modèle cassé")

    monkeypatch.setattr(mailer.compose, "render", broken)
    ana = make_player("Ana", "ana@example.ro")
    prob = make_problem(code="P1")
    out = submit_sheet(session=db_session, player=ana, problem=prob, text=TEXT,
                       channel=Channel.WEB, received_at=frozen_start)
    db_session.commit()
    assert db_session.get(Submission, out.submission.id).raw_text == TEXT  # type: ignore[union-attr]
    receipt = db_session.exec(select(OutboxMessage)).one()
    assert receipt.subject == "Accusé de réception de votre feuille de route"
    assert "Référence de l'envoi : feuille n° 1\n" in receipt.body_text
    assert f"Empreinte SHA-256 : {TEXT_SHA256}" in receipt.body_text
    assert "template receipt failed" in caplog.text


def test_extending_the_deadline_judges_lateness_again(
    ctx, db_session: Session, make_player, make_problem, frozen_start
) -> None:
    from webapp.services.problems import reschedule

    ana = make_player("Ana", "ana@example.ro")
    prob = make_problem(code="P1", deadline=timedelta(days=1))
    out = submit_sheet(session=db_session, player=ana, problem=prob, text=TEXT,
                       channel=Channel.EMAIL, received_at=prob.deadline_at + timedelta(hours=1))
    assert out.late is True
    new_deadline = prob.deadline_at + timedelta(days=1)
    changed = reschedule(session=db_session, problem=prob, publish_at=prob.publish_at,
                         deadline_at=new_deadline, actor="juge",
                         reason="panne du serveur de courriel")
    db_session.commit()
    assert changed == [out.submission.id]
    assert db_session.get(Submission, out.submission.id).late is False  # type: ignore[union-attr]
    assert prob.params["deadline"] == "2026-05-12T13:00:00+03:00[Europe/Bucharest]"
    with pytest.raises(ValueError, match="seule la clôture peut changer"):
        reschedule(session=db_session, problem=prob, actor="juge", reason="x",
                   publish_at=prob.publish_at + timedelta(hours=1), deadline_at=new_deadline)
