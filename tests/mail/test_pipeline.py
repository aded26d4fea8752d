"""Pipeline decisions with the database: replies, rate limit, ambiguity, quarantine, LMTP,
the local mbox, and outbox claims."""

from __future__ import annotations

import smtplib
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask

from tests.mail.conftest import ANA, Seed, add_problem, eml, free_port
from tests.mail.helpers import make_mail, rows

pytestmark = [pytest.mark.db, pytest.mark.mail]

TO = f"feuilles+{ANA[2]}@arbitre.test"
FROM = "ana.ionescu@example.org"


def _receive(app: Flask, raw: bytes, env_from: str = FROM, to: str = TO) -> tuple[int, str]:
    from mailer.pipeline import receive

    return receive(app, raw, channel="smtp", envelope_from=env_from, envelope_to=[to])


def test_stranger_replies_are_rate_limited(app: Flask, seed: Seed) -> None:
    from webapp.models import OutboxMessage

    app.config["MAIL_REPLY_RATE_PER_HOUR"] = 10
    for i in range(12):
        raw = make_mail(frm="x@stranger.example", to="feuilles@arbitre.test", subject="I3",
                        body="1 ACEFHIR h8 FICHERA 82 82", message_id=f"<s{i}@stranger>")
        assert _receive(app, raw, "x@stranger.example", "feuilles@arbitre.test")[1] == "ignored"
    out = rows(app, OutboxMessage)
    assert len(out) == 10
    assert {(o.kind, o.to_addr) for o in out} == {("instructions", "x@stranger.example")}
    assert out[0].headers["Auto-Submitted"] == "auto-replied"
    assert "nous ne pouvons pas l'attribuer à un joueur inscrit" in out[0].body_text


def test_registered_address_without_token_gets_its_personal_address(
    app: Flask, seed: Seed
) -> None:
    from webapp.models import OutboxMessage, Submission

    raw = make_mail(frm=f"Ana <{FROM}>", to="feuilles@arbitre.test", subject="I3",
                    body="1 ACEFHIR h8 FICHERA 82 82", message_id="<nt@example.org>",
                    extra={"Reply-To": "attacker@evil.example"})
    assert _receive(app, raw, FROM, "feuilles@arbitre.test")[1] == "ignored"
    assert rows(app, Submission) == []
    (out,) = rows(app, OutboxMessage)
    assert (out.kind, out.to_addr) == ("instructions", ANA[1])
    assert f"Votre adresse personnelle de dépôt est : {TO}" in out.body_text


def test_list_message_without_token_gets_no_answer(app: Flask, seed: Seed) -> None:
    from webapp.models import OutboxMessage

    raw = make_mail(frm="x@stranger.example", to="feuilles@arbitre.test", subject="I3",
                    body="1 ACEFHIR h8 FICHERA 82 82", extra={"List-Id": "<l.example>"})
    assert _receive(app, raw, "x@stranger.example", "feuilles@arbitre.test")[1] == "ignored"
    assert rows(app, OutboxMessage) == []


def test_two_open_problems_and_no_reference_asks_which(app: Flask, seed: Seed) -> None:
    from webapp.models import InboundMessage, OutboxMessage, Submission

    add_problem(app, seed, "A7", "Anticipation n° 7")
    raw = make_mail(frm=FROM, to=TO, subject="ma feuille", body="1 ACEFHIR h8 FICHERA 82 82")
    assert _receive(app, raw)[1] == "ignored"
    assert rows(app, Submission) == []
    (out,) = rows(app, OutboxMessage)
    assert (out.kind, out.to_addr) == ("ambiguity", ANA[1])
    assert "  - [I3] Intégral n° 3 (clôture le 31/12/2099 à 18:00 UTC)" in out.body_text
    assert "  - [A7] Anticipation n° 7" in out.body_text
    assert rows(app, InboundMessage)[0].error == "problème non précisé ou inconnu"
    # With the reference in the sheet it goes through.
    raw2 = make_mail(frm=FROM, to=TO, subject="ma feuille",
                     body="Problème : A7\n1 ACEFHIR h8 FICHERA 82 82")
    assert _receive(app, raw2)[1] == "processed"
    (sub,) = rows(app, Submission)
    assert sub.feuille["problem"] == "A7"


def test_quarantine_replay_and_discard_from_the_cli(
    app: Flask, seed: Seed, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import webapp.mail_cli
    import webapp.services.submissions as submissions
    from webapp.models import InboundMessage, Submission

    real_submit = submissions.submit_sheet

    def broken(**kwargs: Any) -> Any:
        raise RuntimeError("panne simulée du service de dépôt")

    monkeypatch.setattr(submissions, "submit_sheet", broken)
    for i in range(2):
        raw = make_mail(frm=FROM, to=TO, subject="I3", body="1 ACEFHIR h8 FICHERA 82 82",
                        message_id=f"<q{i}@example.org>")
        assert _receive(app, raw)[1] == "quarantined"
    assert rows(app, Submission) == []
    first, second = rows(app, InboundMessage)
    assert first.error == ("erreur de traitement : RuntimeError: panne simulée du service "
                           "de dépôt")

    monkeypatch.setattr(submissions, "submit_sheet", real_submit)
    monkeypatch.setattr(webapp.mail_cli, "_app", lambda: app)
    assert webapp.mail_cli.main(["quarantine", "list"]) == 0
    listing = capsys.readouterr().out
    assert f"n° {first.id} " in listing and f"n° {second.id} " in listing
    assert webapp.mail_cli.main(["quarantine", "replay", str(first.id)]) == 0
    assert capsys.readouterr().out == f"Message n° {first.id} rejoué : processed\n"
    assert webapp.mail_cli.main(
        ["quarantine", "discard", str(second.id), "--motif", "doublon"]) == 0
    assert webapp.mail_cli.main(["quarantine", "replay", str(second.id)]) == 1
    assert "seul un message en quarantaine ou ignoré peut être rejoué" in capsys.readouterr().err
    assert [r.status for r in rows(app, InboundMessage)] == ["processed", "discarded"]
    assert rows(app, InboundMessage)[1].error == "écarté par l'arbitre : doublon"
    assert len(rows(app, Submission)) == 1


def test_pending_messages_are_processed_at_start(app: Flask, seed: Seed) -> None:
    from mailer.pipeline import process_pending, store_raw
    from webapp.models import InboundMessage, Submission

    raw = make_mail(frm=FROM, to=TO, subject="I3", body="1 ACEFHIR h8 FICHERA 82 82")
    store_raw(app, raw, channel="smtp", envelope_from=FROM, envelope_to=[TO])  # then "crash"
    assert process_pending(app) == 1
    assert process_pending(app) == 0
    assert [r.status for r in rows(app, InboundMessage)] == ["processed"]
    assert len(rows(app, Submission)) == 1


def test_lmtp_listener(app: Flask, seed: Seed) -> None:
    from mailer.intake import start_embedded
    from webapp.models import InboundMessage

    port = free_port()
    app.config.update(MAIL_SMTP_LISTEN="", MAIL_LMTP_LISTEN=f"127.0.0.1:{port}")
    handle = start_embedded(app, sender=False)
    try:
        with smtplib.LMTP("127.0.0.1", port) as c:
            assert c.sendmail(FROM, [TO], make_mail(frm=FROM, to=TO, subject="I3",
                                                    body="1 ACEFHIR h8 FICHERA 82 82")) == {}
    finally:
        handle.stop()
    (row,) = rows(app, InboundMessage)
    assert (row.channel, row.status) == ("lmtp", "processed")


def test_unknown_recipient_refused(app: Flask, seed: Seed, intake: Any, smtp_port: int) -> None:
    with smtplib.SMTP("127.0.0.1", smtp_port) as c:
        c.ehlo()
        c.mail(FROM)
        code, text = c.rcpt("postmaster@arbitre.test")
    assert code == 550
    assert "Adresse inconnue" in text.decode()


def test_local_mbox_without_relay(app: Flask, seed: Seed) -> None:
    from mailer.outbox import _deliver_local as deliver_local
    from mailer.outbox import build_message, read_local_mailbox, send_pending
    from webapp.models import OutboxMessage

    app.config["SMTP_RELAY"] = ""
    _receive(app, make_mail(frm=FROM, to=TO, subject="I3", body="1 ACEFHIR h8 FICHERA 82 82",
                            message_id="<mbox@example.org>"))
    assert send_pending(app) == 1
    assert send_pending(app) == 0
    (got,) = read_local_mailbox(app)
    (row,) = rows(app, OutboxMessage)
    assert row.status == "sent"
    assert got["message_id"] == row.message_id
    assert (got["kind"], got["to"], got["auto_submitted"]) == ("receipt", ANA[1], "auto-replied")
    assert got["in_reply_to"] == "<mbox@example.org>"
    assert "FICHERA" in got["text"] and got["html"].startswith("<!DOCTYPE html>")
    # A retry after a crash between append and "sent" does not append it twice.
    deliver_local(app, build_message(row, "Arbitre <arbitre@arbitre.test>"))
    assert len(read_local_mailbox(app)) == 1


def test_claims_are_exclusive_and_leases_expire(app: Flask, seed: Seed) -> None:
    from mailer.outbox import claim
    from mailer.settings import MailSettings
    from webapp.models import OutboxMessage
    from webapp.services import clock

    _receive(app, make_mail(frm=FROM, to=TO, subject="I3", body="1 ACEFHIR h8 FICHERA 82 82"))
    settings = MailSettings.from_config({**app.config, "OUTBOX_LEASE_SECONDS": 60})
    now = clock.now()
    first = claim(app, settings, now)
    assert [c.attempts for c in first] == [1]
    assert claim(app, settings, now) == []  # another worker: nothing left
    assert claim(app, settings, now + timedelta(seconds=59)) == []
    (row,) = rows(app, OutboxMessage)
    assert (row.status, row.attempts) == ("sending", 1)
    again = claim(app, settings, now + timedelta(seconds=61))  # the first worker died
    assert [(c.id, c.attempts) for c in again] == [(first[0].id, 2)]


def test_auto_reply_over_smtp_gets_nothing(
    app: Flask, seed: Seed, intake: Any, smtp_port: int
) -> None:
    from webapp.models import InboundMessage, OutboxMessage

    with smtplib.SMTP("127.0.0.1", smtp_port) as c:
        c.sendmail(FROM, [TO], eml("auto_reply.eml"))
    assert intake.wait_idle()
    (row,) = rows(app, InboundMessage)
    assert row.status == "ignored"
    assert row.error == "message automatique ignoré : Auto-Submitted: auto-replied"
    assert rows(app, OutboxMessage) == []


def test_batch_quarantines_only_the_failing_message(
    app: Flask, seed: Seed, monkeypatch: pytest.MonkeyPatch
) -> None:
    import webapp.services.submissions as submissions
    from mailer.pipeline import process_batch, store_raw
    from tests.mail.conftest import BOGDAN
    from webapp.models import InboundMessage, OutboxMessage, Submission

    real_submit = submissions.submit_sheet

    def picky(**kwargs: Any) -> Any:
        if kwargs["player"].email == BOGDAN[1]:
            raise RuntimeError("panne pour ce joueur")
        return real_submit(**kwargs)

    monkeypatch.setattr(submissions, "submit_sheet", picky)
    ids = []
    for i, (frm, token) in enumerate([(FROM, ANA[2]), (BOGDAN[1], BOGDAN[2]), (FROM, ANA[2])]):
        to = f"feuilles+{token}@arbitre.test"
        raw = make_mail(frm=frm, to=to, subject="I3", body=f"1 ACEFHIR h8 FICHERA 82 {82 + i}")
        ids.append(store_raw(app, raw, channel="smtp", envelope_from=frm, envelope_to=[to]).id)
    assert process_batch(app, ids) == {
        ids[0]: "processed", ids[1]: "quarantined", ids[2]: "processed"}
    assert [r.status for r in rows(app, InboundMessage)] == [
        "processed", "quarantined", "processed"]
    assert [s.version for s in rows(app, Submission)] == [1, 2]
    # Nothing of the failed message survived its savepoint: two receipts, both for Ana.
    assert [o.to_addr for o in rows(app, OutboxMessage)] == [ANA[1], ANA[1]]


def test_naming_a_finished_problem_says_so(app: Flask, seed: Seed) -> None:
    from webapp.db import session_scope
    from webapp.models import InboundMessage, OutboxMessage, Problem, Submission

    old = add_problem(app, seed, "P0", "Partiel terminé")
    with session_scope(app) as s:
        problem = s.get(Problem, old)
        assert problem is not None
        problem.status = "final"
        s.add(problem)
    raw = make_mail(frm=FROM, to=TO, subject="Problème : P0", body="1 ACEFHIR h8 FICHERA 82 82")
    assert _receive(app, raw)[1] == "ignored"
    assert rows(app, Submission) == []
    note = ("Le problème « Partiel terminé » (P0) a déjà son classement définitif : il "
            "n'accepte pas de feuille de route.")
    assert rows(app, InboundMessage)[0].error == note
    (out,) = rows(app, OutboxMessage)
    assert out.kind == "ambiguity"
    assert note in out.body_text
    assert "  - [I3] Intégral n° 3" in out.body_text


def test_cli_send_outbox_and_process_pending(
    app: Flask, seed: Seed, relay: Any, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import webapp.mail_cli
    from mailer.pipeline import store_raw
    from webapp.models import OutboxMessage

    monkeypatch.setattr(webapp.mail_cli, "_app", lambda: app)
    store_raw(app, make_mail(frm=FROM, to=TO, subject="I3", body="1 ACEFHIR h8 FICHERA 82 82"),
              channel="smtp", envelope_from=FROM, envelope_to=[TO])
    assert webapp.mail_cli.main(["process-pending"]) == 0
    assert webapp.mail_cli.main(["send-outbox"]) == 0
    assert capsys.readouterr().out == "1 message(s) traité(s)\n1 message(s) envoyé(s)\n"
    assert [o.status for o in rows(app, OutboxMessage)] == ["sent"]
    assert len(relay.handler.accepted) == 1


def test_a_batch_checks_numbers_and_answers_its_sheets_as_one_by_one(
    app: Flask, seed: Seed
) -> None:
    """One batch (one transaction, the players' answers read once, the audit entries and
    receipts written together): Ana's sheets are numbered 1, 2, 3 and her fourth is refused
    at the limit of three (her second names her token in capitals: found all the same, and
    counted) — and Bogdan, not registered, is refused; each
    stored sheet has its audit entry and one receipt, in reply to its message."""
    from sqlmodel import select

    from mailer.pipeline import process_batch, store_raw
    from tests.mail.conftest import BOGDAN
    from webapp.db import session_scope
    from webapp.models import AuditLog, InboundMessage, OutboxMessage, Registration, Submission

    app.config["SUBMISSIONS_PER_WINDOW"] = 3
    app.config["SUBMISSION_WINDOW_SECONDS"] = 3600
    with app.app_context(), session_scope(app) as s:
        s.delete(s.exec(select(Registration)
                        .where(Registration.player_id == seed.bogdan_id)).one())
    sent = [(FROM, TO), (BOGDAN[1], f"feuilles+{BOGDAN[2]}@arbitre.test"),
            (FROM, f"feuilles+{ANA[2].upper()}@arbitre.test"), (FROM, TO), (FROM, TO)]
    ids = []
    for i, (frm, to) in enumerate(sent):
        raw = make_mail(frm=frm, to=to, subject="I3", message_id=f"<b{i}@example.org>",
                        body=f"1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 {166 + i}")
        ids.append(store_raw(app, raw, channel="smtp", envelope_from=frm, envelope_to=[to]).id)
    assert process_batch(app, ids) == dict(zip(ids, [
        "processed", "ignored", "processed", "processed", "ignored"], strict=True))
    inbound = {r.id: r for r in rows(app, InboundMessage)}
    assert inbound[ids[1]].error.startswith("feuille refusée : Vous n'êtes pas inscrit")
    assert inbound[ids[4]].error.startswith("feuille refusée : Trop de feuilles envoyées")
    subs = sorted(rows(app, Submission), key=lambda s: s.version)
    assert [(s.player_id, s.version, s.inbound_message_id) for s in subs] == [
        (seed.ana_id, 1, ids[0]), (seed.ana_id, 2, ids[2]), (seed.ana_id, 3, ids[3])]
    assert [s.previous_id for s in subs] == [None, subs[0].id, subs[1].id]
    assert [inbound[i].submission_id for i in (ids[0], ids[2], ids[3])] == [s.id for s in subs]
    entries = [e for e in rows(app, AuditLog) if e.action == "submission.received"]
    assert sorted((e.target, e.details["version"]) for e in entries) == [
        (f"submission:{s.id}", s.version) for s in subs]
    out = rows(app, OutboxMessage)
    receipts = sorted((o for o in out if o.kind == "receipt"), key=lambda o: o.dedupe_key)
    assert [(o.dedupe_key, o.headers["In-Reply-To"]) for o in receipts] == sorted(
        (f"receipt:{s.id}", f"<b{i}@example.org>") for s, i in zip(subs, (0, 2, 3),
                                                                       strict=True))
    assert all(o.status == "pending" and o.to_addr == ANA[1] for o in receipts)
    assert "feuille n° 3" in next(o for o in receipts
                                  if o.dedupe_key == f"receipt:{subs[2].id}").body_text
    assert sorted(o.to_addr for o in out if o.kind == "refused") == sorted([BOGDAN[1], ANA[1]])
