"""The console's mail pages: inbound messages with the quarantine, replay, discard, the raw
download, and the outbox's « renvoyer maintenant ».

Real parts throughout: messages go through ``mailer.pipeline.receive`` on the real database
(SQLite here, PostgreSQL with ``ARBITRE_TEST_DATABASE_URL``); the quarantine is caused by a
real fault — the problem's time zone is misspelt (``Europe/Bucuresti``), so composing the
receipt raises ``ZoneInfoNotFoundError`` — and fixed by correcting it, not by a mock. The
outbox test sends through a real aiosmtpd relay on loopback that refuses permanently (550),
then accepts. The clock is frozen at 2026-05-10 10:00 UTC (13:00 in Bucharest).
"""

from __future__ import annotations

import email.policy
import html
import re
from collections.abc import Callable
from email.message import EmailMessage
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, col, select

from tests.conftest import FROZEN_START
from webapp.auth import create_arbitre
from webapp.models import (
    AuditLog,
    InboundMessage,
    OutboxMessage,
    Player,
    Problem,
    Submission,
)

pytestmark = [pytest.mark.db, pytest.mark.mail]

SHEET = "Problème : P1\n1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 166\n"
BAD_ZONE = "Europe/Bucuresti"
REASON = ("erreur de traitement : ZoneInfoNotFoundError: "
          "'No time zone found with key Europe/Bucuresti'")
EVIL = "<script>alert('x')</script>"
ESCAPED = "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"


def mail(player: Player, *, subject: str = "Feuille P1", body: str = SHEET,
         message_id: str = "<f1@example.org>") -> bytes:
    msg = EmailMessage()
    msg["From"] = f"{player.name} <{player.email}>"
    msg["To"] = f"feuilles+{player.token}@arbitre.test"
    msg["Subject"] = subject
    msg["Message-ID"] = message_id
    msg["Authentication-Results"] = ("mx.arbitre.test; spf=pass smtp.mailfrom=example.org; "
                                     "dkim=pass header.d=example.org; dmarc=pass")
    msg.set_content(body)
    return msg.as_bytes(policy=email.policy.SMTP)


def receive(app: Flask, raw: bytes, player: Player) -> tuple[int, str]:
    from mailer.pipeline import receive as pipeline_receive

    return pipeline_receive(app, raw, channel="smtp", envelope_from=player.email,
                            envelope_to=[f"feuilles+{player.token}@arbitre.test"])


def login_arbitre(client: FlaskClient, db_session: Session) -> None:
    a = create_arbitre(session=db_session, username="juge", password="motdepasse1")
    db_session.commit()
    with client.session_transaction() as sess:
        sess.clear()
        sess["arbitre_id"] = a.id


def text_of(resp: Any) -> str:
    return html.unescape(resp.get_data(as_text=True))


def csrf_from(client: FlaskClient, url: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', client.get(url).get_data(as_text=True))
    assert found is not None
    return found.group(1)


@pytest.fixture
def ana(make_player: Callable[..., Player]) -> Player:
    return make_player("Ana Ionescu", "ana@example.org")


@pytest.fixture
def p1(make_problem: Callable[..., Problem]) -> Problem:
    return make_problem(code="P1")


@pytest.fixture
def quarantined(app: Flask, db_session: Session, ana: Player, p1: Problem,
                frozen_clock: Any) -> int:
    """A real message whose submission fails: the problem's zone is misspelt."""
    p1.timezone = BAD_ZONE
    db_session.add(p1)
    db_session.commit()
    inbound_id, status = receive(app, mail(ana), ana)
    assert status == "quarantined"
    return inbound_id


def fix_zone(db_session: Session, p1: Problem) -> None:
    p1.timezone = "Europe/Bucharest"
    db_session.add(p1)
    db_session.commit()


def test_quarantined_message_is_listed_with_its_reason_and_the_badge(
    client: FlaskClient, db_session: Session, quarantined: int
) -> None:
    row = db_session.get(InboundMessage, quarantined)
    assert row is not None and row.error == REASON
    assert db_session.exec(select(Submission)).all() == []
    login_arbitre(client, db_session)
    resp = client.get("/console/courrier/recu")
    assert resp.status_code == 200
    shown = text_of(resp)
    body = resp.get_data(as_text=True)
    assert f'data-id="{quarantined}"' in body
    assert REASON in shown
    assert "en quarantaine" in shown
    assert "Ana Ionescu <ana@example.org>" in shown  # From
    assert "Feuille P1" in shown
    assert f"{row.size} o" in shown
    # received at the frozen instant: Bucharest (summer time) and UTC
    assert "10/05/2026 à 13:00 (Europe/Bucharest, UTC+03:00)" in shown
    assert "10/05/2026 à 10:00:00 UTC" in shown
    # the failed transaction took the identification with it: nothing linked yet
    assert ">P1</a>" not in body
    badge = re.search(r'<span class="badge bad" id="quarantine-badge"[^>]*>(\d+)</span>', body)
    assert badge is not None and badge.group(1) == "1"
    # every console page carries the navigation and its badge (not the dashboard here: it
    # shows the problem's times, and the misspelt zone makes it fail)
    assert 'id="quarantine-badge"' in client.get("/console/journal").get_data(as_text=True)


def test_detail_page_shows_headers_signals_sheet_and_error(
    client: FlaskClient, db_session: Session, quarantined: int
) -> None:
    login_arbitre(client, db_session)
    resp = client.get(f"/console/courrier/recu/{quarantined}")
    assert resp.status_code == 200
    shown = text_of(resp)
    assert REASON in shown
    assert "<dt>Message-ID</dt><dd>&lt;f1@example.org&gt;</dd>" in resp.get_data(as_text=True)
    for verdict in ("spf", "dkim", "dmarc"):
        assert re.search(rf"<dt>{verdict}</dt><dd>pass</dd>", shown)
    # the sheet as mailer.parse extracts it, which is what would be submitted
    sheet = re.search(r'<pre id="sheet">(.*?)</pre>', shown, re.S)
    # mailer.parse drops the last newline
    assert sheet is not None and sheet.group(1) == SHEET.rstrip("\n")
    assert "Source : le texte du message" in shown  # its text/plain body part
    assert f'href="/console/courrier/recu/{quarantined}/brut"' in resp.get_data(as_text=True)
    assert "Rejouer le message" in shown and "Écarter le message" in shown


def test_replay_after_the_fix_gives_one_submission_and_one_receipt(
    app: Flask, client: FlaskClient, db_session: Session, quarantined: int, p1: Problem
) -> None:
    login_arbitre(client, db_session)
    url = f"/console/courrier/recu/{quarantined}/rejouer"
    # no reason: refused, nothing done, what was typed is kept
    refused = client.post(url, data={"replay_reason": "  "})
    assert refused.status_code == 400
    assert "Indiquez le motif pour rejouer le message." in text_of(refused)
    db_session.expire_all()
    assert db_session.get(InboundMessage, quarantined).status == "quarantined"  # type: ignore[union-attr]

    fix_zone(db_session, p1)
    dashboard = client.get("/console/").get_data(as_text=True)
    badge = re.search(r'<span class="badge bad" id="quarantine-badge"[^>]*>(\d+)</span>', dashboard)
    assert badge is not None and badge.group(1) == "1"
    assert "1 message(s) reçu(s) en quarantaine : à rejouer ou écarter" in html.unescape(dashboard)
    done = client.post(url, data={"replay_reason": "fuseau du problème corrigé"})
    assert done.status_code == 302
    assert done.headers["Location"] == f"/console/courrier/recu/{quarantined}"
    db_session.expire_all()
    row = db_session.get(InboundMessage, quarantined)
    assert row is not None and (row.status, row.error) == ("processed", None)
    (sub,) = db_session.exec(select(Submission)).all()
    assert (sub.inbound_message_id, sub.version) == (quarantined, 1)
    assert sub.raw_text == SHEET.rstrip("\n")
    assert row.submission_id == sub.id
    (receipt,) = db_session.exec(select(OutboxMessage)).all()
    assert (receipt.kind, receipt.to_addr, receipt.dedupe_key) == (
        "receipt", "ana@example.org", f"receipt:{sub.id}")
    (entry,) = db_session.exec(select(AuditLog).where(AuditLog.action == "mail.replay")).all()
    assert (entry.actor, entry.target) == ("juge", f"inbound:{quarantined}")
    assert entry.details["reason"] == "fuseau du problème corrigé"
    assert entry.details["previous_status"] == "quarantined"
    assert entry.details["previous_error"] == REASON
    assert (entry.details["status"], entry.details["submission_id"]) == ("processed", sub.id)

    page = client.get(f"/console/courrier/recu/{quarantined}")
    shown = text_of(page)
    assert f"Message n° {quarantined} rejoué : traité." in shown
    assert f"feuille n° {sub.id}, version 1" in shown
    assert re.search(rf"<td>{receipt.id}</td><td>[^<]+</td><td>accusé de réception</td>",
                     html.unescape(shown))
    assert 'id="quarantine-badge"' not in page.get_data(as_text=True)
    listed = client.get("/console/courrier/recu?statut=processed").get_data(as_text=True)
    assert f'data-id="{quarantined}"' in listed
    assert f'Ana Ionescu\n        · <a href="/console/problemes/{p1.id}">P1</a>' in listed
    assert f"· feuille n° {sub.id}</td>" in listed
    # a processed message cannot be replayed (no second submission)
    again = client.post(url, data={"replay_reason": "encore"})
    assert again.status_code == 400
    assert "seul un message en quarantaine ou ignoré peut être rejoué" in text_of(again)
    assert len(db_session.exec(select(Submission)).all()) == 1
    assert len(db_session.exec(select(OutboxMessage)).all()) == 1


def test_discard_requires_a_reason_changes_the_status_and_is_audited(
    client: FlaskClient, db_session: Session, quarantined: int
) -> None:
    login_arbitre(client, db_session)
    url = f"/console/courrier/recu/{quarantined}/ecarter"
    refused = client.post(url, data={"discard_reason": ""})
    assert refused.status_code == 400
    assert "Indiquez le motif pour écarter le message." in text_of(refused)
    db_session.expire_all()
    assert db_session.get(InboundMessage, quarantined).status == "quarantined"  # type: ignore[union-attr]
    assert db_session.exec(select(AuditLog).where(AuditLog.action == "mail.discard")).all() == []

    assert client.post(url, data={"discard_reason": "envoyé deux fois"}).status_code == 302
    db_session.expire_all()
    row = db_session.get(InboundMessage, quarantined)
    assert row is not None
    assert (row.status, row.error) == ("discarded", "écarté par l'arbitre : envoyé deux fois")
    (entry,) = db_session.exec(select(AuditLog).where(AuditLog.action == "mail.discard")).all()
    assert (entry.actor, entry.target, entry.details["reason"]) == (
        "juge", f"inbound:{quarantined}", "envoyé deux fois")
    assert entry.details["previous_error"] == REASON
    assert db_session.exec(select(Submission)).all() == []
    # gone from « à traiter », listed under « écartés »
    assert f'data-id="{quarantined}"' not in client.get("/console/courrier/recu").get_data(
        as_text=True)
    assert f'data-id="{quarantined}"' in client.get(
        "/console/courrier/recu?statut=discarded").get_data(as_text=True)
    # a discarded message can be neither discarded again nor replayed
    assert client.post(url, data={"discard_reason": "x"}).status_code == 400
    assert client.post(f"/console/courrier/recu/{quarantined}/rejouer",
                       data={"replay_reason": "x"}).status_code == 400


def test_only_arbitres_see_or_act(
    client: FlaskClient, db_session: Session, quarantined: int, ana: Player
) -> None:
    urls = ["/console/courrier/recu", f"/console/courrier/recu/{quarantined}",
            f"/console/courrier/recu/{quarantined}/brut", "/console/courrier/sortant"]
    for who in ("anonymous", "player"):
        if who == "player":
            with client.session_transaction() as sess:
                sess["player_id"] = ana.id
        for url in urls:
            resp = client.get(url)
            assert resp.status_code == 302, url
            assert resp.headers["Location"].startswith("/arbitre/connexion"), url
        for action, field in (("rejouer", "replay_reason"), ("ecarter", "discard_reason")):
            resp = client.post(f"/console/courrier/recu/{quarantined}/{action}",
                               data={field: "tentative"})
            assert resp.status_code == 302
    db_session.expire_all()
    assert db_session.get(InboundMessage, quarantined).status == "quarantined"  # type: ignore[union-attr]
    assert db_session.exec(select(AuditLog).where(col(AuditLog.action).startswith("mail."))
                           ).all() == []


def test_forged_post_without_csrf_token_is_refused(
    app: Flask, client: FlaskClient, db_session: Session, quarantined: int
) -> None:
    app.config["WTF_CSRF_ENABLED"] = True
    login_arbitre(client, db_session)
    url = f"/console/courrier/recu/{quarantined}/ecarter"
    forged = client.post(url, data={"discard_reason": "forgé"})
    assert forged.status_code == 400
    assert "Requête refusée" in text_of(forged)
    db_session.expire_all()
    assert db_session.get(InboundMessage, quarantined).status == "quarantined"  # type: ignore[union-attr]
    token = csrf_from(client, f"/console/courrier/recu/{quarantined}")
    ok = client.post(url, data={"discard_reason": "vrai motif", "csrf_token": token})
    assert ok.status_code == 302
    db_session.expire_all()
    assert db_session.get(InboundMessage, quarantined).status == "discarded"  # type: ignore[union-attr]


def test_raw_download_returns_the_exact_stored_bytes(
    app: Flask, client: FlaskClient, db_session: Session, ana: Player, frozen_clock: Any
) -> None:
    # odd bytes on purpose: a Windows-1252 body, CRLF line ends, a NUL-free binary-ish line
    raw = (b"From: Ana <ana@example.org>\r\nTo: feuilles@arbitre.test\r\n"
           b"Subject: =?utf-8?q?caf=C3=A9?=\r\nContent-Type: text/plain; charset=windows-1252\r\n"
           b"\r\n1 ACEFHIR h8 FICHERA 82 82\r\n\x9c\xe9\xe8 \xff\r\n")
    inbound_id, _ = receive(app, raw, ana)
    login_arbitre(client, db_session)
    resp = client.get(f"/console/courrier/recu/{inbound_id}/brut")
    assert resp.status_code == 200
    assert resp.data == raw
    assert resp.mimetype == "message/rfc822"
    assert resp.headers["Content-Disposition"] == (
        f'attachment; filename="message-{inbound_id}.eml"')
    assert resp.headers["X-Content-Type-Options"] == "nosniff"
    assert client.get("/console/courrier/recu/999999/brut").status_code == 404


def test_html_in_subject_and_body_is_escaped(
    app: Flask, client: FlaskClient, db_session: Session, ana: Player, p1: Problem,
    frozen_clock: Any
) -> None:
    p1.timezone = BAD_ZONE
    db_session.add(p1)
    db_session.commit()
    inbound_id, status = receive(app, mail(ana, subject=f"P1 {EVIL}",
                                           body=SHEET + EVIL + "\n"), ana)
    assert status == "quarantined"
    login_arbitre(client, db_session)
    for url in ("/console/courrier/recu", f"/console/courrier/recu/{inbound_id}"):
        body = client.get(url).get_data(as_text=True)
        assert EVIL not in body, url
        assert ESCAPED in body, url


def test_filters_order_and_pagination(
    app: Flask, client: FlaskClient, db_session: Session, ana: Player, p1: Problem,
    frozen_clock: Any
) -> None:
    from mailer.pipeline import Incoming, store_many
    from webapp.services import clock

    processed_id, status = receive(app, mail(ana, message_id="<ok@example.org>"), ana)
    assert status == "processed"
    frozen_clock.shift(60)
    stranger = Player(name="Inconnu", email="x@stranger.example", token="pas-inscrit")
    ignored_id, status = receive(app, mail(stranger, message_id="<q@example.org>"), stranger)
    assert status == "ignored"
    frozen_clock.shift(60)
    # 51 messages left « stored » (as after a crash before processing): to be handled
    now = clock.now()
    stored = store_many(app, [
        Incoming(mail(ana, message_id=f"<s{i}@example.org>"), "smtp", ana.email,
                 ["feuilles@arbitre.test"], now) for i in range(51)])
    login_arbitre(client, db_session)
    first = client.get("/console/courrier/recu").get_data(as_text=True)
    ids = [int(i) for i in re.findall(r'<tr class="inbound-row [a-z]+" data-id="(\d+)"', first)]
    # newest first; same instant: highest id first
    assert ids == sorted(stored, reverse=True)[:50]
    assert "Page 1 / 2" in first
    second = client.get("/console/courrier/recu?page=2").get_data(as_text=True)
    assert re.findall(r'data-id="(\d+)"', second) == [str(min(stored))]
    everything = client.get("/console/courrier/recu?statut=tous&page=2").get_data(as_text=True)
    assert re.findall(r'data-id="(\d+)"', everything) == [
        str(min(stored)), str(ignored_id), str(processed_id)]
    assert "53 message(s)" in html.unescape(everything)
    only_processed = client.get("/console/courrier/recu?statut=processed").get_data(
        as_text=True)
    assert re.findall(r'data-id="(\d+)"', only_processed) == [str(processed_id)]


class RefusingRelay:
    """An outgoing relay that refuses permanently (550) until told to accept."""

    def __init__(self) -> None:
        self.refuse = True
        self.accepted: list[bytes] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.refuse:
            return "550 5.1.1 mailbox unknown (test)"
        self.accepted.append(envelope.original_content or b"")
        return "250 OK"


def test_failed_outbox_row_is_retried_now(
    app: Flask, client: FlaskClient, db_session: Session, ana: Player, p1: Problem,
    frozen_clock: Any
) -> None:
    from aiosmtpd.controller import Controller

    from mailer.outbox import send_pending
    from tests.ports import free_port

    port = free_port()
    handler = RefusingRelay()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        app.config["SMTP_RELAY"] = f"127.0.0.1:{port}"
        _, status = receive(app, mail(ana), ana)
        assert status == "processed"
        assert send_pending(app) == 0
        (row,) = db_session.exec(select(OutboxMessage)).all()
        assert (row.kind, row.status, row.attempts) == ("receipt", "failed", 1)
        assert row.last_error is not None and "550" in row.last_error

        login_arbitre(client, db_session)
        listing = client.get("/console/courrier/sortant")
        shown = text_of(listing)
        assert "Renvoyer maintenant" in shown and row.last_error in shown
        assert "échec" in shown

        assert client.post(f"/console/courrier/sortant/{row.id}/renvoyer").status_code == 302
        db_session.expire_all()
        again = db_session.get(OutboxMessage, row.id)
        assert again is not None
        assert (again.status, again.attempts) == ("pending", 1)
        assert again.next_attempt_at == FROZEN_START
        (entry,) = db_session.exec(
            select(AuditLog).where(AuditLog.action == "mail.outbox_retry")).all()
        assert (entry.actor, entry.target, entry.details["attempts"]) == (
            "juge", f"outbox:{row.id}", 1)
        # only a failed row can be retried
        client.post(f"/console/courrier/sortant/{row.id}/renvoyer")
        assert len(db_session.exec(
            select(AuditLog).where(AuditLog.action == "mail.outbox_retry")).all()) == 1

        handler.refuse = False
        assert send_pending(app) == 1
        db_session.expire_all()
        sent = db_session.get(OutboxMessage, row.id)
        assert sent is not None and (sent.status, sent.attempts) == ("sent", 2)
        assert len(handler.accepted) == 1
        assert f"Message-ID: {row.message_id}".encode() in handler.accepted[0]
    finally:
        controller.stop()


def test_the_refusal_a_message_caused_is_on_its_page(
    app: Flask, client: FlaskClient, db_session: Session, p1: Problem, frozen_clock: Any
) -> None:
    """A sheet from a player not registered in the competition is refused and the player is
    told why (outbox kind ``refused``); the message's console page lists that reply among
    what the message caused, as it lists the other replies of the pipeline (the page built
    its keys from four of the five reply kinds and left the refusal out)."""
    from mailer.mailroom import inbound_detail
    from webapp.services import players

    eve = players.create_player(session=db_session, name="Eve Stan", email="eve@example.org")
    db_session.commit()
    inbound_id, status = receive(app, mail(eve), eve)
    assert status == "ignored"
    detail = inbound_detail(db_session, inbound_id)
    assert detail is not None
    assert [(m.kind, m.to_addr) for m in detail.outbox] == [("refused", "eve@example.org")]
    login_arbitre(client, db_session)
    shown = text_of(client.get(f"/console/courrier/recu/{inbound_id}"))
    assert "feuille refusée" in shown


def test_a_row_being_sent_names_its_holder(
    app: Flask, client: FlaskClient, db_session: Session, ana: Player, p1: Problem,
    frozen_clock: Any
) -> None:
    """Issue 24 §6: a ``sending`` row records the process that claimed it (host, pid), and
    the outbox page says who it is (a row held by a dead process is taken back by the next
    sender at once: tests/mail/test_outbox_holder.py)."""
    import os
    import socket

    from mailer.outbox import claim
    from mailer.settings import MailSettings

    _, status = receive(app, mail(ana), ana)
    assert status == "processed"
    (claimed,) = claim(app, MailSettings.from_config(app.config))
    row = db_session.get(OutboxMessage, claimed.id)
    assert row is not None and (row.status, row.holder_host, row.holder_pid) == (
        "sending", socket.gethostname(), os.getpid())
    login_arbitre(client, db_session)
    shown = text_of(client.get("/console/courrier/sortant"))
    assert f"par {socket.gethostname()}, processus {os.getpid()}" in shown
    client.post("/langue", data={"lang": "ro", "next": "/console/courrier/sortant"})
    shown = text_of(client.get("/console/courrier/sortant"))
    assert f"de {socket.gethostname()}, procesul {os.getpid()}" in shown
