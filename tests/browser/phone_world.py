"""The data the phone-layout tests (``test_phones.py``) and the documentation screenshots
(``test_screenshots.py``) draw: a championship with a finished problem whose report holds a
zeroed move, an open problem with a sheet sent, an open Anticipation, a Duplicate game whose
first round has results and whose second round is drawn, a correspondence game.

Sheets (the Intégral of seed 1, RULES §12 [E5]):
- Ana on P0: FICHERA 82, then SWU at 15F — not a word: move 2 counts 0, cumul 82.
- Bob on P0: FICHERA 82, WUS 84 -> 166. Cid on P0: FICHERA 82.
Duplicate (words ZA, ZAS; round 1 draws ZAEIBCD on an empty grid): ZA at H7 =
(Z 10 + A 1 on the star) × 2 = 22, the top; Bob writes ZA at H7 claiming 20 (the correction
says 22).
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask
from playwright.sync_api import expect
from sqlmodel import Session, col, select

from puzzles.duplicate import DuplicateSettings
from scoring.tiles import tileset
from tests.web.test_duplicate import full_bag
from webapp.db import get_engine
from webapp.models import (
    Channel,
    DuplicateGame,
    OutboxMessage,
    Submission,
    Verification,
)
from webapp.services import clock, correspondence, duplicate, lifecycle, problems
from webapp.services.players import create_player
from webapp.services.submissions import submit_sheet

FULL = "1 ACEFHIR H8 FICHERA 82 82\n2 SUW 15F WUS 84 166\n"
FIRST = "1 ACEFHIR H8 FICHERA 82 82\n"
WITH_ZERO = "1 ACEFHIR H8 FICHERA 82 82\n2 SUW 15F SWU 30 112\n"
#: the correspondence row: RED (Ana) holds ZAEIBCD, BLUE (Bob) SEOUFGH
CORR_HEAD = "ZAEIBCDSEOUFGHAE"


def sign_in(page: Any, app: Flask, base: str, email: str) -> None:
    """Sign in by the e-mailed link, in whatever language the page speaks: wait for the
    answer (the flash), read the link from the outbox, follow it, wait for the sign-out
    button of a signed-in page."""
    page.goto(base + "/connexion")
    page.fill("#email", email)
    page.click("button[type=submit]")
    expect(page.get_by_role("status")).to_be_visible()
    with app.app_context(), Session(get_engine(app)) as s:
        mail = s.exec(select(OutboxMessage).where(OutboxMessage.kind == "login")
                      .order_by(col(OutboxMessage.id).desc())).first()
    assert mail is not None
    link = re.search(r"http://[^/\s]+(/connexion/lien/[A-Za-z0-9_-]+)", mail.body_text)
    assert link is not None
    page.goto(base + link.group(1))
    page.click("main button[type=submit]")
    expect(page.locator('form[action="/deconnexion"]')).to_be_attached()


def build_world(app: Flask, tmp_path: Path) -> dict[str, Any]:
    """Create everything; returns the paths of the pages and the ids the tests need."""
    from puzzles.generate import new_problem

    words = tmp_path / "za.txt"
    words.write_text("ZA\nZAS\n", "utf-8")
    app.config["LEXICONS"] = {**app.config.get("LEXICONS", {}), "za": str(words)}
    now = clock.now()
    with app.app_context(), Session(get_engine(app), expire_on_commit=False) as s:
        comp = problems.create_competition(session=s, slug="cn2026",
                                           name="Championnat par correspondance 2026")
        people = {}
        for name, email, club, lic, cat, country in (
                ("Ana Popescu", "ana@example.ro", "CS Scrabble București", "RO-0042", "A",
                 "Roumanie"),
                ("Bob Martin", "bob@example.fr", "Scrabble Club de Lyon", "FR-12345", "B",
                 "France"),
                ("Cid Dumas", "cid@example.fr", "Club de Liège", "BE-0007", "B",
                 "Belgique")):
            p = create_player(session=s, name=name, email=email, club=club, licence=lic,
                              category=cat, country=country)
            problems.register(session=s, competition=comp, player=p)
            people[name.split()[0].lower()] = p
        ana, bob, cid = people["ana"], people["bob"], people["cid"]
        done = problems.create_problem(
            session=s, competition=comp, puzzle=new_problem("integral", seed=1),
            publish_at=now - timedelta(days=3), deadline_at=now - timedelta(days=1),
            code="P0", status="open", title="Intégral n° 1")
        for i, (pl, text) in enumerate(((ana, WITH_ZERO), (bob, FULL), (cid, FIRST))):
            submit_sheet(session=s, player=pl, problem=done, text="Problème: P0\n" + text,
                         channel=Channel.WEB,
                         received_at=now - timedelta(days=2, hours=-i))
        open_ = problems.create_problem(
            session=s, competition=comp, puzzle=new_problem("integral", seed=1),
            publish_at=now - timedelta(hours=1), deadline_at=now + timedelta(days=2),
            code="P1", status="open", title="Intégral n° 2")
        sent = submit_sheet(session=s, player=ana, problem=open_,
                            text="Problème: P1\n" + FULL, channel=Channel.WEB,
                            received_at=now - timedelta(minutes=30))
        problems.create_problem(
            session=s, competition=comp, puzzle=new_problem("anticipation", seed=7),
            publish_at=now - timedelta(hours=1), deadline_at=now + timedelta(days=3),
            code="A1", status="open", title="Anticipation n° 1")
        duplicate.create_game(
            session=s, competition=comp, title="Duplicate du lundi", code="D1",
            settings=DuplicateSettings(lang="fr", rounds=3),
            rhythm={"kind": "hours", "hours": 24}, starts_at=now - timedelta(days=2),
            lexicon_name="za", bag_order=full_bag())
        rest = tileset("fr").bag() - Counter(CORR_HEAD)
        game = correspondence.create_game(
            session=s, competition=comp, red=ana, blue=bob, code="CO1", lexicon_name="za",
            row=CORR_HEAD + "".join(sorted(rest.elements()))[:30],
            starts_at=now - timedelta(hours=3))
        s.commit()
        ids: dict[str, Any] = {"ana": ana.id, "bob": bob.id, "sent": sent.submission.id,
                               "competition": comp.id}
    with app.app_context():
        lifecycle.run_due(now=now - timedelta(days=2) + timedelta(minutes=1))
    with app.app_context(), Session(get_engine(app), expire_on_commit=False) as s:
        d1 = s.exec(select(DuplicateGame).where(DuplicateGame.code == "D1")).one()
        for pl, line, k in ((ana, "H7 ZA 22", 1), (bob, "H7 ZA 20", 2)):
            duplicate.submit_bulletin(
                session=s, player=pl, game=d1, text=line, channel=Channel.WEB,
                received_at=now - timedelta(days=2) + timedelta(hours=k))
        correspondence.submit_move(session=s, player=ana, game=game, text="H8 ZA",
                                   channel=Channel.WEB, received_at=now - timedelta(hours=2))
        s.commit()
    with app.app_context():
        lifecycle.run_due(now=now)
    with app.app_context(), Session(get_engine(app)) as s:
        zeroed = s.exec(select(Verification.id).join(
            Submission, Submission.id == Verification.submission_id).where(
            Submission.player_id == ids["ana"], Submission.problem_id == done.id)).one()
    ids["report"] = zeroed
    ids["pages"] = {
        "public-home": "/",
        "player-home": "/joueur/",
        "submit": "/joueur/problemes/P1/envoyer",
        "receipt": f"/joueur/feuilles/{ids['sent']}",
        "report": f"/rapports/{zeroed}",
        "duplicate": "/duplicate/D1",
        "correspondence": "/correspondance/CO1",
    }
    #: the other pages a player or a visitor reads
    ids["other_pages"] = [
        "/problemes/P0", "/problemes/P1", "/problemes/A1", "/problemes/P0/classement",
        "/competitions/cn2026", "/competitions/cn2026/classement", "/archives",
        f"/joueurs/{ids['ana']}", "/problemes/P1/imprimer", "/regles", "/regles/anticipation", "/duplicate",
        "/duplicate/D1?tour=1", f"/correspondance/serie/{ids['competition']}",
        "/joueur/problemes/P1/versions", "/joueur/problemes/A1/envoyer",
        f"/joueur/rapports/{zeroed}/appel",
    ]
    return ids
