"""Issue 22 §4: « Say on the rules page and under the form that a raccord needs three letters;
warn in the live preview » — and the preview says what the correction does (S1 4.3.1: « au
moins 3 lettres de raccord » ; S1 5.2: « À partir du deuxième coup (sauf si le mot joué au
premier coup ne comporte que deux lettres), raccord de deux lettres au lieu de trois » is a
warning; a raccord of one letter is no bulletin, ``parse_bulletin``).

Two games, each on its own small word list:
- « ZAS first » (:func:`zas_game`): words {ZA, ZAS, ZASE}; round 1 draws ZASIBCD, top ZAS
  (Z 10 + A 1 + S 1 on the star's double word = 24, ZA only 22); round 2 draws the reliquat
  IBCD + E O U: ZASE, ZAS and an E on a plain square, 10 + 1 + 1 + 1 = 13. The first word had
  three letters: a raccord needs three. « ZA ZASE 13 » is located by its two-letter raccord:
  13 with a warning « raccord de deux lettres (ZA) au lieu de trois »; « ZAS ZASE 13 » is
  valid; « Z ZASE 13 » is unreadable (« trois lettres de raccord au minimum »).
- tests/web/za_game.py's game: top ZA at round 1, a two-letter first word: « ZA ZAS 12 »
  in round 2 is valid (12 = 10 + 1 + 1, S on H9), no warning.
The page's board data carries the rule (raccord_min 3, 2; None in round 1) that
static/js/duplicate.js warns by (tests/browser/test_raccord_warning.py)."""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from puzzles.duplicate import DuplicateSettings, GameState, raccord_minimum
from scoring.tiles import tileset
from tests.web.test_pages import login_player
from tests.web.za_game import ALL_ANSWERED, START, use_word_list, za_game
from webapp.models import Channel, Competition, DuplicateGame, DuplicateRound, Player
from webapp.services import clock, duplicate, lifecycle

pytestmark = pytest.mark.db

HEAD = "ZASIBCD" + "EOU"  # round 1, then round 2's new letters


def zas_bag() -> str:
    return HEAD + "".join(sorted((tileset("fr").bag() - Counter(HEAD)).elements()))


def zas_game(app: Flask, s: Session, competition: Competition, tmp_path: Path,
             code: str = "ZS1", starts_at: Any = START) -> DuplicateGame:
    """The two-round game whose first word is ZAS (a three-letter first word)."""
    use_word_list(app, tmp_path, "ZA\nZAS\nZASE\n")
    game = duplicate.create_game(
        session=s, competition=competition, title="Raccords", code=code,
        settings=DuplicateSettings(lang="fr", rounds=2), rhythm=dict(ALL_ANSWERED),
        starts_at=starts_at, lexicon_name="za", bag_order=zas_bag())
    s.commit()
    return game


def _round(s: Session, game: DuplicateGame, number: int) -> DuplicateRound:
    s.expire_all()
    return s.exec(select(DuplicateRound).where(DuplicateRound.game_id == game.id,
                                               DuplicateRound.number == number)).one()


def _board_data(page: str) -> dict[str, Any]:
    m = re.search(r'<script type="application/json" id="duplicate-data">(.*?)</script>', page,
                  re.S)
    assert m is not None
    data: dict[str, Any] = json.loads(html.unescape(m.group(1)))
    return data


def _results(rnd: DuplicateRound) -> dict[str, tuple[int, str, str]]:
    return {x["name"]: (x["score"], x["kind"], x.get("reason", "")) for x in rnd.results}


def test_the_rule_as_the_correction_reads_the_state() -> None:
    state = GameState("/".join(["15"] * 15), tuple(zas_bag()))
    assert raccord_minimum(state) is None  # the first round: an empty grid, no raccord
    grid = "/".join(["15"] * 7 + ["6ZAS6"] + ["15"] * 7)
    assert raccord_minimum(replace(state, board_cgp=grid, first_word="ZAS")) == 3
    assert raccord_minimum(replace(state, board_cgp=grid, first_word="ZA")) == 2
    # a state stored before the first word was kept: a grid of fewer than three letters
    # tells a two-letter first word (RoundContext.two_letter_first_word)
    assert raccord_minimum(replace(state, board_cgp=grid, first_word="")) == 3
    short = "/".join(["15"] * 7 + ["7ZA6"] + ["15"] * 7)
    assert raccord_minimum(replace(state, board_cgp=short, first_word="")) == 2


def test_a_short_raccord_is_judged_as_the_form_and_rules_say(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    cid = make_player("Cid", "cid@example.fr")
    game = zas_game(app, db_session, competition, tmp_path)
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:ZS1:1"]
    login_player(client, ana)
    page = client.get("/duplicate/ZS1").get_data(as_text=True)
    assert _board_data(page)["raccord_min"] is None
    assert ("Un raccord compte au moins trois lettres : de deux, il vaut un avertissement "
            "quand c'est lui qui situe le mot ; d'une seule, le bulletin est "
            "illisible.") in page
    frozen_clock.move_to(START + timedelta(minutes=5))
    for p in (ana, bob, cid):
        duplicate.submit_bulletin(session=db_session, player=p, game=game, text="H8 ZAS 24",
                                  channel=Channel.WEB, received_at=clock.now())
    db_session.commit()
    assert lifecycle.run_due(now=clock.now())[-1] == "draw:ZS1:2"
    r1 = _round(db_session, game, 1)
    assert ((r1.top or {})["word"], (r1.top or {})["score"]) == ("ZAS", 24)
    r2 = _round(db_session, game, 2)
    assert r2.draw["rack"] == "IBCDEOU"

    page = client.get("/duplicate/ZS1").get_data(as_text=True)
    assert _board_data(page)["raccord_min"] == 3
    assert "Un raccord compte au moins trois lettres" in page
    frozen_clock.move_to(START + timedelta(minutes=10))
    for p, text in ((ana, "ZA ZASE 13"), (bob, "ZAS ZASE 13"), (cid, "Z ZASE 13")):
        out = duplicate.submit_bulletin(session=db_session, player=p, game=game, text=text,
                                        channel=Channel.WEB, received_at=clock.now())
        assert out.errors == (["Raccord « Z » : trois lettres de raccord au minimum."]
                              if p is cid else [])
    db_session.commit()
    # Cid's unreadable bulletin is no answer: the round closes at its 48 hours
    frozen_clock.move_to(START + timedelta(hours=48, minutes=5))
    lifecycle.run_due(now=clock.now())
    assert _results(_round(db_session, game, 2)) == {
        "Ana": (13, "avertissement",
                "Avertissement : raccord de deux lettres (ZA) au lieu de trois."),
        "Bob": (13, "valide", "Valide."),
        "Cid": (0, "nul", "Nul : bulletin illisible — Raccord « Z » : trois lettres de "
                          "raccord au minimum."),
    }


def test_after_a_two_letter_first_word_two_raccord_letters_are_enough(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    game = za_game(app, db_session, competition, tmp_path, code="D1")
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:D1:1"]
    duplicate.submit_bulletin(session=db_session, player=ana, game=game, text="H7 ZA 22",
                              channel=Channel.WEB, received_at=clock.now())
    db_session.commit()
    assert lifecycle.run_due(now=clock.now())[-1] == "draw:D1:2"
    login_player(client, ana)
    page = client.get("/duplicate/D1").get_data(as_text=True)
    assert _board_data(page)["raccord_min"] == 2
    assert ("Un raccord compte trois lettres, mais le premier mot de cette partie n'en "
            "avait que deux : un raccord de deux lettres suffit.") in page
    duplicate.submit_bulletin(session=db_session, player=ana, game=game, text="ZA ZAS 12",
                              channel=Channel.WEB, received_at=clock.now())
    db_session.commit()
    lifecycle.run_due(now=clock.now())
    assert _results(_round(db_session, game, 2)) == {"Ana": (12, "valide", "Valide.")}


def test_the_rules_page_says_a_raccord_needs_three_letters(client: FlaskClient) -> None:
    page = html.unescape(client.get("/regles/duplicate").get_data(as_text=True))
    assert ("Un raccord compte au moins trois lettres. D'une seule lettre, le bulletin est "
            "illisible et ne compte pas : renvoyez-le corrigé avant la clôture. De deux "
            "lettres, il vaut un avertissement quand c'est lui qui situe le mot (sans "
            "référence juste), sauf si le premier mot de la partie n'avait que deux "
            "lettres.") in page
    client.post("/langue", data={"lang": "ro", "next": "/regles/duplicate"})
    page = html.unescape(client.get("/regles/duplicate").get_data(as_text=True))
    assert "O legătură are cel puțin trei litere. Cu o singură literă" in page
