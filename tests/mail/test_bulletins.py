"""Issue 24 §2–§4 by e-mail, over real SMTP on loopback (intake → pipeline → outbox →
relay): the second solution of a mailed bulletin is stored and credited; control characters
are stripped before the text is stored or quoted in the receipt; an odd number gets an
answer, never a quarantine; refused bulletins beyond the rate get one answer per window,
not one per message."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from tests.mail.conftest import ANA, BOGDAN, Relay, Seed, wait_for
from tests.mail.helpers import make_mail, rows
from tests.mail.test_smtp_intake import send
from tests.web.benie_game import TWO_SOLUTIONS, benie_game

pytestmark = [pytest.mark.db, pytest.mark.mail]

TO = f"feuilles+{ANA[2]}@arbitre.test"


def _game(app: Flask, seed: Seed, tmp_path: Path) -> Any:
    """The BENIE game (tests/web/benie_game.py) in the seed's competition, round 1 drawn an
    hour ago (the intake stamps mails with the real clock)."""
    from webapp.db import session_scope
    from webapp.models import Competition
    from webapp.services import clock, lifecycle

    start = clock.now() - timedelta(hours=1)
    with app.app_context(), session_scope(app) as s:
        comp = s.get(Competition, seed.competition_id)
        assert comp is not None
        game = benie_game(app, s, comp, tmp_path, starts_at=start)
    with app.app_context():
        assert lifecycle.run_due(now=clock.now()) == ["draw:B24:1"]
    return game


def _mail(port: int, body: str, n: int, subject: str = "B24") -> None:
    raw = make_mail(frm=f"{ANA[0]} <{ANA[1]}>", to=TO, subject=subject, body=body,
                    message_id=f"<b{n}@example.org>")
    assert send(port, raw, frm=ANA[1], to=[TO]) == {}


def _texts(relay: Relay) -> list[tuple[str, str]]:
    """The answers the relay took (subject, text), the round's draw notices left out."""
    return [(str(m["Subject"]), m.get_body(("plain",)).get_content())
            for m in relay.handler.messages() if "— tour 1 :" not in str(m["Subject"])]


def _wait_texts(relay: Relay, n: int) -> list[tuple[str, str]]:
    """The answers once there are ``n`` of them (polled)."""
    return wait_for(lambda: (t if len(t := _texts(relay)) == n else None))


def test_mailed_second_solution_is_credited(
    app: Flask, seed: Seed, intake: Any, smtp_port: int, relay: Relay, tmp_path: Path
) -> None:
    """« H8 ZZZQX 99 / H4 BENIE 20 » by mail: both solutions stored, the receipt reads
    both, and the correction credits BENIE's 20 (S1 5.6: the solution whose score is
    exact), not 0."""
    from webapp.models import DuplicateEntry, DuplicateRound
    from webapp.services import lifecycle

    _game(app, seed, tmp_path)
    _mail(smtp_port, TWO_SOLUTIONS + "\n\n-- \nAna", 1)
    assert intake.wait_idle()
    [entry] = rows(app, DuplicateEntry)
    assert entry.channel == "email"
    assert entry.bulletin["alternatives"] == [
        {"word": "BENIE", "ref": "H4", "raccord": None, "claimed": 20}]
    [(subject, text)] = wait_for(lambda: _texts(relay))
    assert subject == "Bulletin reçu — Bulletins (B24), tour 1"
    assert f"Bulletin lu : {TWO_SOLUTIONS}" in text
    [rnd] = rows(app, DuplicateRound)
    with app.app_context():
        done = lifecycle.run_due(now=rnd.closes_at)
    assert done[:3] == ["close:B24:1", "correct:B24:1", "publish:B24:1"]
    [rnd] = [r for r in rows(app, DuplicateRound) if r.number == 1]
    assert [(r["name"], r["score"], r["kind"], r["word"]) for r in rnd.results] == [
        (ANA[0], 20, "valide", "BENIE"), (BOGDAN[0], 0, "absent", None)]


def test_mailed_control_characters_and_odd_numbers(
    app: Flask, seed: Seed, intake: Any, smtp_port: int, relay: Relay, tmp_path: Path
) -> None:
    """NUL and ESC in a mailed bulletin were stored raw and quoted raw in the receipt; « ² »
    and a 5,000-digit score answered « erreur interne », and without the game's code in the
    subject the message was quarantined with no answer. Now: stripped; French reasons; every
    message processed and answered."""
    from webapp.models import DuplicateEntry, InboundMessage

    _game(app, seed, tmp_path)
    _mail(smtp_port, "H4 BEN\x00IE\x1b[2J 20", 1)
    _mail(smtp_port, "H8 ZA ²", 2)
    _mail(smtp_port, "H8 ZA " + "9" * 150, 3)
    assert intake.wait_idle()
    entries = rows(app, DuplicateEntry)
    assert [(e.raw_text, e.parse_errors) for e in entries] == [
        ("H4 BENIE[2J 20", ["« BENIE[2J » n'est ni une référence (H4, 4H), ni un mot, ni un "
                            "score."]),
        ("H8 ZA ²", ["« ² » n'est ni une référence (H4, 4H), ni un mot, ni un score."]),
        ("H8 ZA " + "9" * 150, ["Score « 999999999999… » : au plus 4 chiffres."]),
    ]
    texts = _wait_texts(relay, 3)
    for _subject, text in texts:
        assert "\x00" not in text and "\x1b" not in text and "rreur interne" not in text
    # (the relay may take the three in any order)
    bodies = "\n".join(text for _subject, text in texts)
    assert "| H4 BENIE[2J 20" in bodies
    assert "  - « ² » n'est ni une référence (H4, 4H), ni un mot, ni un score." in bodies
    assert "  - Score « 999999999999… » : au plus 4 chiffres." in bodies
    # without the code in the subject: the line does not read as a bulletin, so the message
    # goes on as a sheet (the seed's problem I3) — answered, not quarantined
    _mail(smtp_port, "H8 ZA ²", 4, subject="mon coup")
    assert intake.wait_idle()
    assert [m.status for m in rows(app, InboundMessage)] == ["processed"] * 4
    wait_for(lambda: len(_texts(relay)) == 4)


def test_refused_mail_bulletins_get_one_answer_per_window(
    app: Flask, seed: Seed, intake: Any, smtp_port: int, relay: Relay, tmp_path: Path
) -> None:
    """Six bulletins in a row, two a window allowed: two stored with their receipts, four
    refused with nothing stored — and one refusal mail, not four."""
    from webapp.models import DuplicateEntry, InboundMessage, OutboxMessage

    # two bulletins per player and round in an hour (an hour: the test's sends, however
    # slow the machine, fall in one window; the pipeline reads the setting as it goes)
    app.config.update(BULLETINS_PER_WINDOW=2, BULLETIN_WINDOW_SECONDS=3600)
    _game(app, seed, tmp_path)
    for n in range(6):
        _mail(smtp_port, "H4 BENIE 20", n)
    assert intake.wait_idle()
    assert [e.version for e in rows(app, DuplicateEntry)] == [1, 2]
    inbound = rows(app, InboundMessage)
    assert [m.status for m in inbound] == ["processed"] * 2 + ["ignored"] * 4
    assert inbound[2].error == (
        "bulletin refusé : Trop de bulletins envoyés en peu de temps : au plus 2 par heure. "
        "Votre bulletin n'a pas été enregistré ; renvoyez-le dans un moment.")
    assert inbound[3].error.startswith("bulletin refusé (déjà répondu dans la fenêtre) : ")
    out = [m for m in rows(app, OutboxMessage) if m.kind != "duplicate_draw"]
    assert [m.kind for m in out] == ["receipt", "receipt", "refused"]
    [(subject, text)] = [t for t in _wait_texts(relay, 3) if "non enregistré" in t[0]]
    assert subject == "Bulletin non enregistré : Bulletins (B24) (Re: B24)"
    assert "au plus 2 par heure" in text



def test_refused_correspondence_moves_get_one_answer_per_window(
    app: Flask, seed: Seed, intake: Any, smtp_port: int, relay: Relay, tmp_path: Path
) -> None:
    """The correspondence game's moves by mail: each refused move was answered
    (« coup refusé »), a storm of them a storm of mails. Now one answer per player, game
    and BULLETIN_WINDOW_SECONDS; the control characters are stripped before the move is
    read or quoted, and a long token is quoted cut."""
    from collections import Counter

    from scoring.tiles import tileset
    from tests.web.za_game import use_word_list
    from webapp.db import session_scope
    from webapp.models import Competition, InboundMessage, OutboxMessage, Player
    from webapp.services import clock, correspondence

    app.config["BULLETIN_WINDOW_SECONDS"] = 3600  # the sends fall in one window
    use_word_list(app, tmp_path, "ZA\nZAS\n")
    head = "ZAEIBCDSEOUFGHAE"
    row = head + "".join(sorted((tileset("fr").bag() - Counter(head)).elements()))[:30]
    with app.app_context(), session_scope(app) as s:
        comp = s.get(Competition, seed.competition_id)
        ana, bogdan = s.get(Player, seed.ana_id), s.get(Player, seed.bogdan_id)
        assert comp is not None and ana is not None and bogdan is not None
        correspondence.create_game(session=s, competition=comp, red=ana, blue=bogdan,
                                   row=row, starts_at=clock.now() - timedelta(hours=1),
                                   code="CO24", lexicon_name="za")
    _mail(smtp_port, "\x1b[2JH8 ZA", 1, subject="CO24")  # ESC: stripped, then « [2JH8 »
    _mail(smtp_port, "X" * 300 + " ZA", 2, subject="CO24")
    _mail(smtp_port, "H8 ZAS", 3, subject="CO24")  # no S in Ana's rack
    assert intake.wait_idle()
    inbound = rows(app, InboundMessage)
    assert [m.status for m in inbound] == ["processed"] * 3
    assert inbound[0].error == "partie par correspondance CO24 : coup refusé : Référence " \
        "illisible : « [2JH8 »."
    assert inbound[1].error == ("partie par correspondance CO24 : coup refusé (déjà répondu "
                                "dans la fenêtre) : Référence illisible : « " + "X" * 20
                                + "… ».")
    refused = [m for m in rows(app, OutboxMessage)
               if (m.dedupe_key or "").startswith("corr_refused:")]
    assert len(refused) == 1
    assert "\x1b" not in refused[0].body_text and "[2JH8 ZA" in refused[0].body_text
