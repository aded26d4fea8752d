"""Issue 22 §1: « the same list in the reminder mails » — the J-1 reminder of a problem lists,
under the problem, the round games waiting for the player (a Duplicate bulletin to send, a
correspondence move to play, each with its deadline and link), as his space does; over real
SMTP (scheduler → outbox → relay on loopback).

The seed's problem I3 closes on 31/12/2099 at 18:00 UTC; the scheduler runs at 06:00 UTC
that day: J-1 (REMINDER_DAYS 3 and 1: the latest due is « demain »). Both players are
registered and have sent no sheet. At the same tick the Duplicate D1 of the competition
draws its round 1 (a round every 24 hours, time zone Europe/Bucharest, UTC+02:00 in winter):
its close is 01/01/2100 06:00 UTC = 08:00 in Bucharest. The correspondence game CO1 (Ana RED,
Bogdan BLUE) started an hour before, 72 hours a move: Ana's move 1 is due 03/01/2100 05:00
UTC = 06:00 in Paris (the correspondence service's zone, UTC+01:00). Ana waits for both;
Bogdan only for the Duplicate (it is not his turn in CO1)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlmodel import select

from tests.mail.conftest import ANA, BOGDAN, DEADLINE, Relay, Seed, wait_for
from tests.web.za_game import full_bag, use_word_list

pytestmark = [pytest.mark.db, pytest.mark.mail]


def _reminders(relay: Relay) -> dict[str, tuple[str, str, str]]:
    out = {}
    for m in relay.handler.messages():
        if str(m["Subject"]).startswith("Rappel"):
            out[str(m["To"])] = (str(m["Subject"]),
                                 m.get_body(("plain",)).get_content().replace("\r\n", "\n"),
                                 m.get_body(("html",)).get_content())
    return out


def test_the_problem_reminder_lists_the_round_games_waiting(
    app: Flask, seed: Seed, intake: Any, relay: Relay, tmp_path: Path,
) -> None:
    from puzzles.duplicate import DuplicateSettings
    from tests.web.test_correspondence_game import _row
    from webapp.db import session_scope
    from webapp.models import Competition, Player
    from webapp.services import correspondence, duplicate, lifecycle

    app.config["BASE_URL"] = "https://arbitre.test"
    now = DEADLINE - timedelta(hours=12)
    use_word_list(app, tmp_path, "ZA\nZAS\n")
    with app.app_context(), session_scope(app) as s:
        comp = s.get(Competition, seed.competition_id)
        ana, bogdan = s.get(Player, seed.ana_id), s.get(Player, seed.bogdan_id)
        assert comp is not None and ana is not None and bogdan is not None
        duplicate.create_game(
            session=s, competition=comp, title="Duplicate du lundi", code="D1",
            settings=DuplicateSettings(lang="fr", rounds=2),
            rhythm={"kind": "hours", "hours": 24}, starts_at=now, lexicon_name="za",
            bag_order=full_bag(), timezone="Europe/Bucharest")
        correspondence.create_game(session=s, competition=comp, red=ana, blue=bogdan,
                                   row=_row(), starts_at=now - timedelta(hours=1),
                                   code="CO1", title="Ana – Bogdan", lexicon_name="za")
    with app.app_context():
        # the round drawn first (at one tick the problems' steps come before the games')
        assert duplicate.run_due(now=now) == ["draw:D1:1"]
        assert lifecycle.run_due(now=now) == ["remind:I3"]
    mails = wait_for(lambda: (r if len(r := _reminders(relay)) == 2 else None))
    ana_mail = next(v for k, v in mails.items() if ANA[1] in k)
    bogdan_mail = next(v for k, v in mails.items() if BOGDAN[1] in k)
    d1 = ("  - Duplicate du lundi (D1) : votre bulletin du tour 1, avant le 01/01/2100 à 08:00 "
          "(Europe/Bucharest, UTC+02:00)\n    https://arbitre.test/duplicate/D1\n")
    # the correspondence game in its own zone, the site's by default (Europe/Bucharest)
    co1 = ("  - Ana – Bogdan (CO1) : à vous de jouer le coup 1, avant le 03/01/2100 à 07:00 "
           "(Europe/Bucharest, UTC+02:00)\n    https://arbitre.test/correspondance/CO1\n")
    subject, text, html = ana_mail
    assert subject == "Rappel : Intégral n° 3 (I3) — clôture demain"
    assert "Vous attendent aussi :\n" + d1 + co1 in text
    assert text.index("Nous n'avons pas encore reçu votre feuille de route.") \
        < text.index("Vous attendent aussi :")
    assert '<a href="https://arbitre.test/correspondance/CO1">' in html
    _subject, text, _html = bogdan_mail
    assert "Vous attendent aussi :\n" + d1 in text and "CO1" not in text


def test_a_duplicate_round_reminds_who_has_no_readable_bulletin(
    app: Flask, seed: Seed, intake: Any, relay: Relay, tmp_path: Path,
) -> None:
    """A player whom only round games wait for gets a reminder too, as a problem's J-1 goes
    to those without a sheet: DUPLICATE_REMINDER_HOURS (12) before the round's close, to
    the players without a readable bulletin that counts — once. Round 1 is drawn on
    26/12/2099 at 18:00 UTC (20:00 in Bucharest) and closes 24 hours later; the reminder
    goes at 06:00 UTC on the 27th. Ana's bulletin reads (H7 ZA 22): no reminder; Bogdan's
    does not (« H7 ZA 22 33 »): he gets one, which lists his correspondence move too (CO1,
    Bogdan RED, started at the draw: 72 hours, due 29/12/2099 18:00 UTC = 19:00 in Paris).
    The seed's problem I3 (closing 31/12 18:00 UTC) is not yet at its J-3."""
    from puzzles.duplicate import DuplicateSettings
    from tests.web.test_correspondence_game import _row
    from webapp.db import session_scope
    from webapp.models import AuditLog, Channel, Competition, DuplicateGame, Player
    from webapp.services import correspondence, duplicate, lifecycle

    app.config["BASE_URL"] = "https://arbitre.test"
    start = DEADLINE - timedelta(days=5)
    use_word_list(app, tmp_path, "ZA\nZAS\n")
    with app.app_context(), session_scope(app) as s:
        comp = s.get(Competition, seed.competition_id)
        ana, bogdan = s.get(Player, seed.ana_id), s.get(Player, seed.bogdan_id)
        assert comp is not None and ana is not None and bogdan is not None
        duplicate.create_game(
            session=s, competition=comp, title="Duplicate du lundi", code="D1",
            settings=DuplicateSettings(lang="fr", rounds=2),
            rhythm={"kind": "hours", "hours": 24}, starts_at=start, lexicon_name="za",
            bag_order=full_bag(), timezone="Europe/Bucharest")
        correspondence.create_game(session=s, competition=comp, red=bogdan, blue=ana,
                                   row=_row(), starts_at=start, code="CO1",
                                   title="Bogdan – Ana", lexicon_name="za")
    with app.app_context():
        assert lifecycle.run_due(now=start) == ["draw:D1:1"]
        with session_scope(app) as s:
            game = s.exec(select(DuplicateGame)).one()
            for pid, text in ((seed.ana_id, "H7 ZA 22"), (seed.bogdan_id, "H7 ZA 22 33")):
                player = s.get(Player, pid)
                assert player is not None
                duplicate.submit_bulletin(session=s, player=player, game=game, text=text,
                                          channel=Channel.WEB,
                                          received_at=start + timedelta(hours=1))
        # the scheduler wakes for it
        assert start + timedelta(hours=12) in lifecycle.upcoming_instants(now=start)
        assert lifecycle.run_due(now=start + timedelta(hours=11, minutes=59)) == []
        assert lifecycle.run_due(now=start + timedelta(hours=12)) == ["remind:D1:1"]
        assert lifecycle.run_due(now=start + timedelta(hours=13)) == []  # once
        with session_scope(app) as s:
            [entry] = s.exec(select(AuditLog).where(
                AuditLog.action == "duplicate.remind")).all()
            assert entry.details["mails"] == 1
    mails = wait_for(lambda: (r if len(r := _reminders(relay)) == 1 else None))
    [(to, (subject, text, _html))] = mails.items()
    assert BOGDAN[1] in to
    assert subject == ("Rappel : Duplicate du lundi (D1) — bulletin du tour 1 avant le "
                       "27/12/2099 à 20:00 (Europe/Bucharest, UTC+02:00)")
    assert ("Le tour 1 de la partie « Duplicate du lundi (D1) » sera clos le 27/12/2099 à "
            "20:00 (Europe/Bucharest, UTC+02:00). Nous n'avons pas encore reçu de bulletin "
            "lisible de votre part pour ce tour.\n\nTirage : ZAEIBCD\n") in text
    assert "https://arbitre.test/duplicate/D1" in text
    assert ("Vous attendent aussi :\n  - Bogdan – Ana (CO1) : à vous de jouer le coup 1, "
            "avant le 29/12/2099 à 20:00 (Europe/Bucharest, UTC+02:00)\n"
            "    https://arbitre.test/correspondance/CO1\n") in text
    # the list names the other games only (D1 is the mail's own)
    assert "(D1) : votre bulletin" not in text


def test_the_correspondence_reminder_lists_the_other_games_waiting(
    app: Flask, seed: Seed, intake: Any, relay: Relay, tmp_path: Path,
) -> None:
    """The correspondence move's reminder lists the other round games waiting for the player,
    as the problem and Duplicate reminders do. Start 26/12/2099 18:00 UTC. CO1 (Ana RED –
    Bogdan BLUE): 24 hours a move, reminded 12 hours before, so at 06:00 UTC on the 27th.
    D1: round 1 drawn at the start, 48 hours, closing 28/12 18:00 UTC = 20:00 in Bucharest;
    Ana has sent no bulletin. CO2 (Ana RED – Cid BLUE): 72 hours, Ana's move 1 due 29/12
    18:00 UTC = 20:00 in Bucharest (the site's zone). CO3 (Cid RED – Ana BLUE): Cid's turn,
    nothing waits for Ana there. Soonest first; CO1, the mail's own, not in the list. The
    problem I3's J-3 (28/12 18:00) is not due yet."""
    from puzzles.duplicate import DuplicateSettings
    from tests.web.test_correspondence_game import _row
    from webapp.db import session_scope
    from webapp.models import Competition, OutboxKind, OutboxMessage, Player, Registration
    from webapp.services import correspondence, duplicate, lifecycle

    app.config["BASE_URL"] = "https://arbitre.test"
    start = DEADLINE - timedelta(days=5)
    use_word_list(app, tmp_path, "ZA\nZAS\n")
    with app.app_context(), session_scope(app) as s:
        comp = s.get(Competition, seed.competition_id)
        ana, bogdan = s.get(Player, seed.ana_id), s.get(Player, seed.bogdan_id)
        assert comp is not None and ana is not None and bogdan is not None
        cid = Player(name="Cid Dumas", email="cid@example.net", token="tokCid12345")
        s.add(cid)
        s.flush()
        assert cid.id is not None and comp.id is not None
        s.add(Registration(competition_id=comp.id, player_id=cid.id))
        s.flush()
        duplicate.create_game(
            session=s, competition=comp, title="Duplicate du lundi", code="D1",
            settings=DuplicateSettings(lang="fr", rounds=2),
            rhythm={"kind": "hours", "hours": 48}, starts_at=start, lexicon_name="za",
            bag_order=full_bag(), timezone="Europe/Bucharest")
        for code, red, blue, hours, remind in (("CO1", ana, bogdan, 24, 12),
                                               ("CO2", ana, cid, 72, 24),
                                               ("CO3", cid, ana, 72, 24)):
            correspondence.create_game(
                session=s, competition=comp, red=red, blue=blue, row=_row(),
                starts_at=start, code=code, title=f"{red.name} – {blue.name}",
                lexicon_name="za", move_hours=hours, reminder_hours=remind)
    with app.app_context():
        assert lifecycle.run_due(now=start) == ["draw:D1:1"]
        assert start + timedelta(hours=12) in lifecycle.upcoming_instants(now=start)
        assert lifecycle.run_due(now=start + timedelta(hours=12)) == ["remind:CO1:1"]
    mails = wait_for(lambda: (r if len(r := _corr_reminders(relay)) == 1 else None))
    [(to, (_subject, text, html))] = mails.items()
    assert ANA[1] in to
    # the subject as received: the space after « rappel : » survives the folding of a long
    # non-ASCII subject (Python 3.11's own folder dropped it, CPython gh-144156)
    assert _subject == ("Ana Ionescu – Bogdan Pop (CO1) — rappel : à vous de jouer "
                        "avant le 27/12/2099 à 20:00 (Europe/Bucharest, UTC+02:00)")
    with app.app_context(), session_scope(app) as s:
        [row] = s.exec(select(OutboxMessage).where(
            OutboxMessage.kind == OutboxKind.CORR_REMINDER)).all()
        assert row.subject == _subject
    assert ("Rappel : le coup 1 de la partie « Ana Ionescu – Bogdan Pop (CO1) » est attendu "
            "avant le 27/12/2099 à 20:00 (Europe/Bucharest, UTC+02:00).") in text
    assert ("Vous attendent aussi :\n"
            "  - Duplicate du lundi (D1) : votre bulletin du tour 1, avant le 28/12/2099 à "
            "20:00 (Europe/Bucharest, UTC+02:00)\n    https://arbitre.test/duplicate/D1\n"
            "  - Ana Ionescu – Cid Dumas (CO2) : à vous de jouer le coup 1, avant le "
            "29/12/2099 à 20:00 (Europe/Bucharest, UTC+02:00)\n"
            "    https://arbitre.test/correspondance/CO2\n") in text
    assert "(CO1) : à vous" not in text and "CO3" not in text
    assert text.index("perdue au temps") < text.index("Vous attendent aussi :")
    assert '<a href="https://arbitre.test/duplicate/D1">' in html
    assert '<a href="https://arbitre.test/correspondance/CO2">' in html
    assert "CO3" not in html


def _corr_reminders(relay: Relay) -> dict[str, tuple[str, str, str]]:
    out = {}
    for m in relay.handler.messages():
        if " — rappel :" in str(m["Subject"]):
            out[str(m["To"])] = (str(m["Subject"]),
                                 m.get_body(("plain",)).get_content().replace("\r\n", "\n"),
                                 m.get_body(("html",)).get_content())
    return out
