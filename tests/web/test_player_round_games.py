"""Issue 22 §1 (first point): the player's space lists every round game he takes part in and
what waits for him — a bulletin to send (with the round's close), a move to play (with its
deadline) — before the rest, as ICCF or lichess show « your turn ».

The Duplicate is the two-round ZA game of tests/web/za_game.py (round 1 drawn at START, every
24 hours); the correspondence game is tests/web/test_correspondence_game.py's row, RED to
move first with 72 hours a move.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session

from tests.web.test_correspondence_game import _row
from tests.web.test_pages import login_player
from tests.web.za_game import START, za_game
from webapp.models import Channel, Competition, Player
from webapp.services import clock, correspondence, duplicate, duplicate_pages, lifecycle

pytestmark = pytest.mark.db


def _line(page: str, code: str) -> str:
    m = re.search(rf'<li[^>]*data-game="{code}"[^>]*>(.*?)</li>', page, re.S)
    assert m, f"no line for {code}"
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", m.group(0))).split())


def test_the_player_space_lists_his_round_games_and_what_waits_for_him(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    za_game(app, db_session, competition, tmp_path, code="D1", title="Duplicate du lundi",
            rhythm={"kind": "hours", "hours": 24}, timezone="Europe/Bucharest")
    frozen_clock.move_to(START)
    correspondence.create_game(session=db_session, competition=competition, red=ana, blue=bob,
                               row=_row(), starts_at=START, code="CO1", lexicon_name="za")
    db_session.commit()

    # before the first draw: the game and its start (10:00 UTC = 13:00 in Bucharest)
    login_player(client, ana)
    page = client.get("/joueur/").get_data(as_text=True)
    assert "Mes parties Duplicate et par correspondance" in page
    assert _line(page, "D1") == ("Duplicate du lundi (Duplicate) — premier tirage "
                                 "le 10/05/2026 à 13:00 (Europe/Bucharest, UTC+03:00)")
    assert _line(page, "CO1").startswith("Ana – Bob (partie par correspondance contre Bob) — "
                                         "à vous de jouer le coup 1 avant le 13/05/2026")
    # what waits for her comes first
    assert page.index('data-game="CO1"') < page.index('data-game="D1"')

    assert lifecycle.run_due(now=clock.now()) == ["draw:D1:1"]
    page = client.get("/joueur/").get_data(as_text=True)
    assert _line(page, "D1") == ("Duplicate du lundi (Duplicate) — à vous : envoyez votre "
                                 "bulletin du tour 1 avant le 11/05/2026 à 13:00 "
                                 "(Europe/Bucharest, UTC+03:00)")
    assert 'data-action="bulletin"' in page

    game = duplicate_pages.game_by_code(db_session, "D1")
    assert game is not None
    # an unreadable bulletin is no answer: the round still waits for her
    duplicate.submit_bulletin(session=db_session, player=ana, game=game, text="H7 ZA 22 33",
                              channel=Channel.WEB, received_at=clock.now())
    db_session.commit()
    page = client.get("/joueur/").get_data(as_text=True)
    assert 'data-game="D1" data-action="bulletin"' in page
    duplicate.submit_bulletin(session=db_session, player=ana, game=game, text="H7 ZA 22",
                              channel=Channel.WEB, received_at=clock.now())
    db_session.commit()
    page = client.get("/joueur/").get_data(as_text=True)
    assert _line(page, "D1") == ("Duplicate du lundi (Duplicate) — bulletin du tour 1 reçu "
                                 "(modifiable jusqu’au 11/05/2026 à 13:00 "
                                 "(Europe/Bucharest, UTC+03:00))")

    # Bob: his Duplicate bulletin is awaited; the correspondence move is Ana's
    login_player(client, bob)
    page = client.get("/joueur/").get_data(as_text=True)
    assert 'data-game="D1" data-action="bulletin"' in page
    assert _line(page, "CO1").startswith("Ana – Bob (partie par correspondance contre Ana) — "
                                         "au tour de votre adversaire")


def test_the_public_index_of_correspondence_games(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """Issue 22 §1: « a public index of correspondence games (/correspondance is a 404) »."""
    words = tmp_path / "za.txt"
    words.write_text("ZA\nZAS\n", "utf-8")
    app.config["LEXICONS"] = {"za": str(words)}
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    cid = make_player("Cid", "cid@example.fr")
    frozen_clock.move_to(START)
    correspondence.create_game(session=db_session, competition=competition, red=ana, blue=bob,
                               row=_row(), starts_at=START, code="CO1", lexicon_name="za")
    correspondence.create_game(session=db_session, competition=competition, red=cid, blue=ana,
                               row=_row(), starts_at=START, code="CO2", lexicon_name="za",
                               move_hours=48)
    db_session.commit()
    resp = client.get("/correspondance")
    assert resp.status_code == 200
    page = resp.get_data(as_text=True)
    # the move due first on top: CO2 (48 h) before CO1 (72 h); each in its game's zone, the
    # site's by default: 10:00 UTC = 13:00 in Bucharest (UTC+3 in May)
    assert page.index('data-game="CO2"') < page.index('data-game="CO1"')
    assert _line(page, "CO2") == ("Cid – Ana CO2 — Cid (ROUGE) contre Ana (BLEU) · au tour de "
                                  "Cid, coup 1, jusqu’au 12/05/2026 à 13:00 (Europe/Bucharest, "
                                  "UTC+03:00)")
    assert "Aucune partie terminée." in page
    assert f'href="/correspondance/serie/{competition.id}"' in page and "parties : 2" in page
    assert 'href="/correspondance"' in client.get("/duplicate").get_data(as_text=True)
