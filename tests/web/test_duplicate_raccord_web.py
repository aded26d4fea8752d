"""Issue 20 §3 and §4 on the web form: a bulletin with raccord letters at their places and the
vertical mark, sent with the form, stored and shown back; an unreadable placed letter is a
French error (in Romanian for a Romanian reader), nothing stored as a bulletin.

The game of tests/web/za_game.py: round 1 draws ZAEIBCD on an empty grid. S1 4.3.1: « Une
lettre de raccord est une lettre déjà placée sur la grille, reportée sur le bulletin de
jeu ».
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.web.test_i18n import PO
from tests.web.test_pages import login_player
from tests.web.za_game import START, za_game
from webapp.models import Competition, DuplicateEntry, Player
from webapp.services import clock, lifecycle

pytestmark = pytest.mark.db


def test_the_form_takes_placed_letters_and_the_vertical_mark(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    za_game(app, db_session, competition, tmp_path, code="D1")
    ana = make_player("Ana", "ana@example.ro")
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:D1:1"]
    login_player(client, ana)
    page = client.get("/duplicate/D1").get_data(as_text=True)
    assert "« R@+1,0 M@+3,0 O@+1,+1 KRUMPS 56 » (le O sous le R)" in page
    assert "« (vertical) MEN PROMENERAI 72 »" in page

    client.post("/duplicate/D1/bulletin", data={"bulletin": "R@+1 ZA 22"})
    page = client.get("/duplicate/D1").get_data(as_text=True)
    assert ("« R@+1 » : une lettre de raccord à sa place s&#39;écrit LETTRE@colonnes,lignes "
            "comptées depuis la première lettre du mot") in page
    client.post("/duplicate/D1/bulletin", data={"bulletin": "↓ Z@0,0 A@+1,0 ZA 22"})
    db_session.expire_all()
    entries = db_session.exec(select(DuplicateEntry).order_by(DuplicateEntry.id)).all()
    assert [e.bulletin for e in entries] == [None, {
        "word": "ZA", "ref": None, "raccord": None, "claimed": 22,
        "raccord_at": [["Z", 0, 0], ["A", 1, 0]], "vertical": True}]
    page = client.get("/duplicate/D1").get_data(as_text=True)
    assert "↓ Z@0,0 A@+1,0 ZA 22" in page  # as written (version 2)


def test_placed_letter_errors_in_romanian() -> None:
    from babel.support import Translations

    from puzzles.duplicate import parse_bulletin
    from webapp.services.phrasebook import translate

    ro = Translations.load(str(PO.parents[2]), ["ro"]).gettext
    texts = ["R@+1 KRUMPS 56", "R@+15,0 M@3,0 KRUMPS", "R@1,0 M@1,0 KRUMPS",
             "RU M@3,0 O@1,1 KRUMPS", "S@0,0 R@1,0 KRUMPS", "R@1,0 KRUMPS"]
    errors = [parse_bulletin(t) for t in texts]
    assert all(isinstance(e, list) for e in errors)
    assert [translate(e[0], ro) for e in errors if isinstance(e, list)] == [
        "„R@+1”: o literă de legătură la locul ei se scrie LITERĂ@coloane,rânduri, numărate de "
        "la prima literă a cuvântului (ex. „O@+1,+1”: un pătrat la dreapta, un pătrat mai jos).",
        "„R@+15,0”: litera de legătură cade în afara grilei.",
        "„M@1,0”: pătratul +1,0 are deja litera de legătură R.",
        "Legătură scrisă în două feluri (RU și M@+3,0): scrieți fie literele consecutive "
        "înaintea cuvântului, fie fiecare literă la locul ei.",
        "„S@0,0”: pătratul 0,0 este cel al primei litere a cuvântului (K), nu S.",
        "Racordul „R@+1,0”: cel puțin trei litere de racord.",
    ]


def test_the_rules_pages_explain_the_notation_and_the_incomplet_construction(
    client: FlaskClient,
) -> None:
    page = html.unescape(client.get("/regles/duplicate").get_data(as_text=True))
    assert "R@+1,0 M@+3,0 O@+1,+1 KRUMPS 56 (le R et le M de KRUMPS sont sur la grille" in page
    assert "porte « (vertical) » devant : (vertical) MEN PROMENERAI 72." in page
    # S2: « la succession des mots placés pour construire cette grille »
    page = html.unescape(client.get("/regles/superscrabble_incomplet").get_data(as_text=True))
    assert "leurs scores ne sont pas demandés, une ligne sans score n'est pas une faute" in page


@pytest.mark.parametrize(("locale", "placed", "vertical"), [
    ("fr", "ou chaque lettre de raccord à sa place, en cases comptées depuis la première "
     "lettre du mot", "et, pour un mot écrit de haut en bas sans référence, « (vertical) » "
     "devant :"),
    ("ro", "sau fiecare literă de legătură la locul ei, în pătrate numărate de la prima literă "
     "a cuvântului", "iar pentru un cuvânt scris de sus în jos fără referință, „(vertical)” "
     "în față:"),
])
def test_the_draw_mail_explains_the_notation(locale: str, placed: str, vertical: str) -> None:
    from mailer.compose import render

    mail = render("duplicate_draw", locale=locale, player_name="Ana", game_title="Marți",
                  round_no=3, rack="AEIRST", deadline=None, grid="(grille)")
    for body in (mail.text, html.unescape(mail.html)):
        assert placed in body and vertical in body
        assert "R@+1,0 M@+3,0 O@+1,+1 KRUMPS 56" in body
        assert "(vertical) MEN PROMENERAI 72" in body
