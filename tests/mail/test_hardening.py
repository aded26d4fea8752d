"""Hardening of the mail paths (issue 9): a message that cannot be built fails alone, the
local mailbox survives a writer killed with SIGKILL, the intake is no relay for strangers,
and addresses are validated where they enter."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from flask import Flask

from tests.mail.conftest import ANA, Relay, Seed, wait_for
from tests.mail.helpers import make_mail, rows

pytestmark = [pytest.mark.db, pytest.mark.mail]

ROOT = Path(__file__).resolve().parents[2]
TO = f"feuilles+{ANA[2]}@arbitre.test"
FROM = "ana.ionescu@example.org"
SHEET = "1 ACEFHIR h8 FICHERA 82 82"


def _receive(app: Flask, raw: bytes, env_from: str, to: str) -> tuple[int, str]:
    from mailer.pipeline import receive

    return receive(app, raw, channel="smtp", envelope_from=env_from, envelope_to=[to])


def _enqueue(app: Flask, to_addr: str, key: str) -> int:
    from webapp.db import session_scope
    from webapp.services.notify import enqueue

    with app.app_context(), session_scope(app) as s:
        row = enqueue(session=s, kind="login", to_addr=to_addr, template="login",
                      context={"link": "http://arbitre.test/x"}, dedupe_key=key)
        s.flush()
        assert row.id is not None
        return row.id


# --- 1. one bad address never blocks the outbox ---------------------------------------------


def test_an_unbuildable_message_fails_alone_and_its_batch_is_sent(
    app: Flask, seed: Seed, relay: Relay
) -> None:
    """A To such as « v:9,m;{y)^4} » (what parseaddr makes of the From `"v:9,m;{y)^4}`)
    made building the message raise for the whole claimed batch, which stayed `sending`."""
    from mailer.outbox import send_pending
    from webapp.models import OutboxMessage

    good1 = _enqueue(app, "ana@example.org", "k1")
    bad = _enqueue(app, "v:9,m;{y)^4}", "k2")
    group = _enqueue(app, "g:a,b;c@d.ef", "k3")
    good2 = _enqueue(app, "bogdan@example.net", "k4")
    assert send_pending(app) == 2
    by_id = {r.id: r for r in rows(app, OutboxMessage)}
    assert [by_id[i].status for i in (good1, bad, group, good2)] == [
        "sent", "failed", "failed", "sent"]
    assert by_id[bad].last_error == ("message impossible à construire : adresse « v:9,m;{y)^4} » "
                                     "invalide (une adresse contient exactement un « @ »)")
    assert by_id[group].last_error == (
        "message impossible à construire : adresse « g:a,b;c@d.ef » invalide "
        "(caractère(s) non permis avant le « @ » : « , » « : » « ; »)")
    assert sorted(e.rcpt_tos[0] for e in relay.handler.accepted) == [
        "ana@example.org", "bogdan@example.net"]
    assert send_pending(app) == 0  # nothing left `sending` to retry every lease


def test_interrupted_attempts_count_towards_the_limit(app: Flask, seed: Seed) -> None:
    """A row whose every attempt was cut short (process killed mid-send) is `failed` once
    OUTBOX_MAX_ATTEMPTS attempts were made, instead of being retried for ever."""
    from mailer.outbox import claim
    from mailer.settings import MailSettings
    from webapp.models import OutboxMessage
    from webapp.services import clock

    row_id = _enqueue(app, "ana@example.org", "k")
    settings = MailSettings.from_config({**app.config, "OUTBOX_MAX_ATTEMPTS": 3,
                                         "OUTBOX_LEASE_SECONDS": 60})
    now = clock.now()
    # Attempts 1, 2, 3 are claimed and never recorded (the worker dies each time).
    for n in (1, 2, 3):
        assert [(c.id, c.attempts) for c in claim(app, settings, now)] == [(row_id, n)]
        now += timedelta(seconds=61)
    assert claim(app, settings, now) == []
    (row,) = rows(app, OutboxMessage)
    assert (row.status, row.attempts) == ("failed", 3)
    assert row.last_error == ("abandonné après 3 tentatives interrompues "
                              "(processus arrêté pendant l'envoi)")


@pytest.mark.parametrize("frm", ['"v:9,m;{y)^4}', "g:a,b;c@d.ef"])
def test_an_unusable_from_is_stored_and_never_answered(app: Flask, seed: Seed, frm: str) -> None:
    from webapp.models import InboundMessage, OutboxMessage

    raw = make_mail(frm="x@example.org", to="feuilles@arbitre.test", subject="I3", body=SHEET)
    raw = raw.replace(b"From: x@example.org", b"From: " + frm.encode())
    assert _receive(app, raw, "", "feuilles@arbitre.test")[1] == "ignored"
    assert rows(app, OutboxMessage) == []
    (row,) = rows(app, InboundMessage)
    assert row.error is not None and "inutilisable" in row.error and "pas de réponse" in row.error


def test_csv_import_refuses_a_group_address(app: Flask) -> None:
    """`g:a,b;c@d.ef` passed the old pattern `^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$`."""
    from webapp.db import session_scope
    from webapp.services.players import import_players_csv

    with app.app_context(), session_scope(app) as s:
        report = import_players_csv(session=s, text="nom,email\nGus,g:a,b;c@d.ef\n", actor="t")
    # The comma splits the cell: the address read is « g:a ».
    assert report.messages() == [
        "Ligne 2 : adresse électronique invalide : « g:a » (une adresse contient exactement "
        "un « @ »)."]
    with app.app_context(), session_scope(app) as s:
        report = import_players_csv(session=s, text='nom;email\nGus;"g:a,b;c@d.ef"\n',
                                    actor="t")
    assert report.messages() == [
        "Ligne 2 : adresse électronique invalide : « g:a,b;c@d.ef » (caractère(s) non permis "
        "avant le « @ » : « , » « : » « ; »)."]


# --- 2. the local mailbox ----------------------------------------------------------------------

_HOLDER = """
import sys, time
from pathlib import Path
from mailer.outbox import mbox_locked
with mbox_locked(Path(sys.argv[1])) as handle:
    handle.write(b"From MAILER-DAEMON Mon Nov 30 00:00:00 2026\\nMessage-ID: <half@x>\\nSubj")
    handle.flush()
    print("locked", flush=True)
    time.sleep(600)
"""


def _lock_is_free(path: Path) -> bool:
    with open(path, "ab") as f:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(f.fileno(), fcntl.LOCK_UN)
        return True


def test_a_writer_killed_holding_the_mailbox_lock_blocks_nothing(app: Flask, seed: Seed) -> None:
    """MAIL.md: « after the lease it is sent again ». A real process is SIGKILLed while it
    holds the lock and has written half a message; the next delivery goes through, the half
    message is cut off, and a stale dot-lock left by the old code is not consulted."""
    from mailer.outbox import claim, mbox_path, read_local_mailbox, send_pending
    from mailer.settings import MailSettings
    from webapp.models import OutboxMessage

    app.config.update(SMTP_RELAY="", OUTBOX_LEASE_SECONDS=0.5)
    _enqueue(app, "ana@example.org", "first")
    assert send_pending(app) == 1
    path = mbox_path(app)
    Path(str(path) + ".lock").write_text("")  # the dot-lock a killed old writer left
    second = _enqueue(app, "bogdan@example.net", "second")
    # The worker that claimed `second` is the one about to die.
    assert [c.id for c in claim(app, MailSettings.from_config(app.config))] == [second]
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(path)], cwd=ROOT,
                              stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == b"locked\n"
        assert not _lock_is_free(path)
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(60)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(60)
        if holder.stdout is not None:
            holder.stdout.close()
    assert holder.returncode == -signal.SIGKILL
    wait_for(lambda: _lock_is_free(path), timeout=30)
    wait_for(lambda: send_pending(app) == 1, timeout=30)  # after the 0.5 s lease
    got = read_local_mailbox(app)
    assert [m["to"] for m in got] == ["ana@example.org", "bogdan@example.net"]
    assert b"<half@x>" not in path.read_bytes()
    assert [r.status for r in rows(app, OutboxMessage)] == ["sent", "sent"]


def test_the_mailbox_index_survives_an_mbox_written_without_it(app: Flask, seed: Seed) -> None:
    """An mbox written before the index existed is indexed once; a Message-ID already in it
    is not appended again, a new one is."""
    import mailbox

    from mailer.outbox import (
        _deliver_local,
        build_message,
        index_path,
        mbox_path,
        read_local_mailbox,
    )
    from webapp.models import OutboxMessage

    _enqueue(app, "ana@example.org", "a")
    _enqueue(app, "bogdan@example.net", "b")
    first, second = rows(app, OutboxMessage)
    path = mbox_path(app)
    path.parent.mkdir(parents=True, exist_ok=True)
    box = mailbox.mbox(str(path))
    box.add(build_message(first, "arbitre@arbitre.test"))
    box.close()
    _deliver_local(app, build_message(first, "arbitre@arbitre.test"))
    _deliver_local(app, build_message(second, "arbitre@arbitre.test"))
    _deliver_local(app, build_message(second, "arbitre@arbitre.test"))
    assert [m["message_id"] for m in read_local_mailbox(app)] == [first.message_id,
                                                                   second.message_id]
    lines = index_path(app).read_text().splitlines()
    assert [line.split("\t")[1] for line in lines] == [first.message_id, second.message_id]
    assert int(lines[-1].split("\t")[0]) == path.stat().st_size


# --- 3. the intake is no relay for strangers ---------------------------------------------------


def test_instructions_are_bounded_over_all_addresses_and_echo_nothing(
    app: Flask, seed: Seed
) -> None:
    from webapp.models import InboundMessage, OutboxMessage

    app.config["MAIL_INSTRUCTIONS_PER_HOUR"] = 5
    for i in range(8):  # 8 forged From addresses, one message each: under the per-address 10
        raw = make_mail(frm=f"victim{i}@example.com", to="feuilles@arbitre.test",
                        subject="Achetez nos montres http://spam.example", body=SHEET,
                        message_id=f"<v{i}@spam>")
        assert _receive(app, raw, f"victim{i}@example.com", "feuilles@arbitre.test")[1] == \
            "ignored"
    out = rows(app, OutboxMessage)
    assert [o.to_addr for o in out] == [f"victim{i}@example.com" for i in range(5)]
    assert {o.subject for o in out} == {"Comment envoyer une feuille de route"}
    assert not any("montres" in (o.body_text + (o.body_html or "")) or "spam.example" in
                   (o.body_text + (o.body_html or "")) for o in out)
    assert len(rows(app, InboundMessage, status="ignored")) == 8  # all kept
    # The strangers spent the budget; a registered player writing without his token still
    # gets his instructions (sent to his registered address, not counted in the budget).
    raw = make_mail(frm=FROM, to="feuilles@arbitre.test", subject="I3", body=SHEET)
    assert _receive(app, raw, FROM, "feuilles@arbitre.test")[1] == "ignored"
    last = rows(app, OutboxMessage)[-1]
    assert (len(rows(app, OutboxMessage)), last.to_addr, last.player_id) == (
        6, ANA[1], seed.ana_id)
    assert f"Votre adresse personnelle de dépôt est : {TO}" in last.body_text


def test_a_stranger_cannot_tell_whether_a_token_exists(app: Flask, seed: Seed) -> None:
    """Unknown address without token, unknown token, and Ana's real token used from another
    address: the three answers are the same text (up to the address they quote)."""
    from webapp.models import OutboxMessage

    cases = [("a@stranger.example", "feuilles@arbitre.test"),
             ("b@stranger.example", "feuilles+nosuchtoken1@arbitre.test"),
             ("c@stranger.example", TO)]
    for frm, to in cases:
        assert _receive(app, make_mail(frm=frm, to=to, subject="I3", body=SHEET), frm, to)[1] \
            == "ignored"
    out = rows(app, OutboxMessage)
    assert [o.to_addr for o in out] == [c[0] for c in cases]
    texts = {o.body_text.replace(o.to_addr, "ADDR") for o in out}
    htmls = {(o.body_html or "").replace(o.to_addr, "ADDR") for o in out}
    assert len(texts) == 1 and len(htmls) == 1
    assert "ne correspond pas" not in texts.pop()


# --- fuzzers -----------------------------------------------------------------------------------

FROM_FUZZ_COUNT = 300


def test_fuzzed_from_headers_never_quarantine_nor_reach_the_outbox_unbuildable(
    app: Flask, seed: Seed, relay: Relay
) -> None:
    """300 seeded random From headers (specials, quotes, groups, encoded words, non-ASCII):
    every message ends `ignored`, every answer goes to a valid address and is delivered."""
    import random

    from mailer.outbox import send_pending
    from webapp.models import InboundMessage, OutboxMessage
    from webapp.services.addresses import address_problem

    app.config.update(MAIL_INSTRUCTIONS_PER_HOUR=10_000)
    rng = random.Random(20261130)
    alphabet = 'abcxyz09._+-"<>@,;:()[]\\ {}^\'=?é€\t'
    shapes = [
        lambda w: w,
        lambda w: f'"{w}"',
        lambda w: f"{w} <{w}@example.org>",
        lambda w: f"{w}@{w}.example",
        lambda w: f"g:{w},{w};{w}@d.ef",
        lambda w: f"=?utf-8?q?{w}?= <x{abs(hash(w)) % 997}@example.org>",
        lambda w: f"=?utf-8?b?{w}?=",
    ]
    for i in range(FROM_FUZZ_COUNT):
        word = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14)))
        frm = rng.choice(shapes)(word).replace("\n", " ")
        raw = (f"From: {frm}\r\nTo: feuilles@arbitre.test\r\nSubject: I3\r\n"
               f"Message-ID: <fz{i}@fuzz>\r\n\r\n{SHEET}\r\n").encode()
        status = _receive(app, raw, "", "feuilles@arbitre.test")[1]
        assert status == "ignored", (frm, status)
    assert len(rows(app, InboundMessage, status="ignored")) == FROM_FUZZ_COUNT
    out = rows(app, OutboxMessage)
    assert all(address_problem(o.to_addr) is None for o in out)
    assert send_pending(app) == len(out)
    assert len(relay.handler.accepted) == len(out)


MAIL_FUZZ_COUNT = 200


def test_fuzzed_mails_are_all_kept_and_answered_or_explained(
    app: Flask, seed: Seed, relay: Relay
) -> None:
    """200 seeded mutations of the fixture corpus (bytes flipped, cut short, headers doubled,
    CR/LF mangled), sent as Ana: none is lost, none is quarantined, every answer is built."""
    import random

    from mailer.outbox import send_pending
    from tests.mail.conftest import EML_DIR
    from webapp.models import InboundMessage, OutboxMessage

    app.config.update(MAIL_REPLY_RATE_PER_HOUR=10_000, MAIL_INSTRUCTIONS_PER_HOUR=10_000)
    rng = random.Random(9)
    corpus = [p.read_bytes() for p in sorted(EML_DIR.glob("*.eml"))]
    corpus.append(make_mail(frm=FROM, to=TO, subject="I3", body=SHEET))

    def mutate(data: bytes) -> bytes:
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            op = rng.randrange(5)
            if op == 0 and b:  # flip bytes
                for _ in range(rng.randint(1, 8)):
                    b[rng.randrange(len(b))] = rng.randrange(256)
            elif op == 1 and b:  # cut short
                del b[rng.randrange(len(b)):]
            elif op == 2:  # double a header line
                lines = bytes(b).split(b"\n")
                k = rng.randrange(min(len(lines), 12))
                lines.insert(k, lines[k])
                b = bytearray(b"\n".join(lines))
            elif op == 3:  # bare CR / LF
                b = bytearray(bytes(b).replace(b"\r\n", rng.choice([b"\r", b"\n", b"\n\r"])))
            else:  # insert junk
                at = rng.randrange(len(b) + 1)
                b[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 30)))
        return bytes(b)

    statuses: list[str] = []
    for _ in range(MAIL_FUZZ_COUNT):
        raw = mutate(rng.choice(corpus))
        statuses.append(_receive(app, raw, FROM, TO)[1])
    kept = rows(app, InboundMessage)
    assert len(kept) == MAIL_FUZZ_COUNT
    assert "quarantined" not in statuses, [k.error for k in kept if k.status == "quarantined"]
    assert set(statuses) <= {"processed", "ignored", "duplicate"}
    out = rows(app, OutboxMessage)
    assert send_pending(app) == len(out)
    assert all(o.status == "sent" for o in rows(app, OutboxMessage))


ADDRESS_FUZZ_COUNT = 2000


def test_every_address_the_validator_accepts_builds_and_round_trips() -> None:
    """2,000 seeded random strings over an alphabet rich in RFC 5322 specials, half of them
    shaped ``x@y.z``: whatever ``address_problem`` accepts goes into a ``To`` header, is
    serialised, and reads back as the very same address; whatever it refuses has a reason."""
    import email
    import random
    from email.message import EmailMessage
    from email.utils import parseaddr

    from webapp.services.addresses import address_problem

    rng = random.Random(15)
    atext = "abzAZ09.-_+'!#$%&*/=?^`{|}~"
    label = "abzAZ09-"
    specials = "@\"(),:;<>[]\\ é\t\x00"

    def word(alphabet: str) -> str:
        return "".join(rng.choice(specials if rng.random() < 0.04 else alphabet)
                       for _ in range(rng.randint(0, 9)))

    accepted = 0
    for _ in range(ADDRESS_FUZZ_COUNT):
        candidate = (f"{word(atext)}@{word(label)}.{word(label)}" if rng.random() < 0.7
                     else word(atext + specials))
        problem = address_problem(candidate)
        if problem is not None:
            assert problem.strip()
            continue
        accepted += 1
        msg = EmailMessage()
        msg["To"] = candidate
        msg.set_content("x")
        back = email.message_from_bytes(msg.as_bytes())
        assert parseaddr(str(back["To"]))[1] == candidate
    # Seed 15 gives 334 accepted out of 2,000: the loop exercised both sides.
    assert accepted == 334
