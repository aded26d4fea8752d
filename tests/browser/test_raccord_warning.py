"""Issue 22 §4 in Chromium: the live preview of the bulletin warns of a raccord shorter than
the correction allows, as the correction judges it (tests/web/test_raccord_length.py pins
the correction of the same bulletins: « ZA ZASE 13 » 13 with a warning « raccord de deux
lettres (ZA) au lieu de trois », « ZAS ZASE 13 » valid, « Z ZASE 13 » unreadable; after a
two-letter first word « ZA ZAS 12 » valid).

Game « ZAS first » (words {ZA, ZAS, ZASE}): round 1's top ZAS, round 2 open; the game of
tests/web/za_game.py: round 1's top ZA (a two-letter first word), round 2 open."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import expect
from sqlmodel import Session, select

from tests.browser.test_player_flow import sign_in_by_link
from tests.web.test_raccord_length import zas_game
from tests.web.za_game import full_bag
from webapp.db import get_engine
from webapp.models import Channel, DuplicateGame, DuplicateRound, Player
from webapp.services import clock, duplicate, lifecycle, problems
from webapp.services.players import create_player

pytestmark = [pytest.mark.browser, pytest.mark.db]

TWO = ("Raccord « %s » de deux lettres au lieu de trois : un avertissement s'il situe le mot "
       "(sans référence juste).")
ONE = ("Raccord « %s » d'une seule lettre : trois lettres de raccord au minimum, ce bulletin "
       "serait illisible.")


def _second_round(app: Flask, tmp_path: Path, *, zas: bool) -> str:
    """The game with round 1 played by Ana (its top) and round 2 drawn; its round-1 top."""
    from puzzles.duplicate import DuplicateSettings
    from tests.web.za_game import ALL_ANSWERED, use_word_list

    code = "ZS1" if zas else "D1"
    start = clock.now() - timedelta(minutes=1)
    with app.app_context(), Session(get_engine(app), expire_on_commit=False) as s:
        comp = problems.create_competition(session=s, slug="dup", name="Duplicate")
        ana = create_player(session=s, name="Ana Popescu", email="ana@example.ro")
        problems.register(session=s, competition=comp, player=ana)
        s.commit()
        if zas:
            zas_game(app, s, comp, tmp_path, starts_at=start)
        else:
            use_word_list(app, tmp_path, "ZA\nZAS\n")
            duplicate.create_game(
                session=s, competition=comp, title="Express", code=code,
                settings=DuplicateSettings(lang="fr", rounds=2), rhythm=dict(ALL_ANSWERED),
                starts_at=start, lexicon_name="za", bag_order=full_bag())
            s.commit()
    with app.app_context():
        assert lifecycle.run_due(now=clock.now()) == [f"draw:{code}:1"]
        with Session(get_engine(app)) as s:
            game = s.exec(select(DuplicateGame)).one()
            player = s.exec(select(Player)).one()
            duplicate.submit_bulletin(session=s, player=player, game=game,
                                      text="H8 ZAS 24" if zas else "H7 ZA 22",
                                      channel=Channel.WEB, received_at=clock.now())
            s.commit()
        assert lifecycle.run_due(now=clock.now())[-1] == f"draw:{code}:2"
        with Session(get_engine(app)) as s:
            r1 = s.exec(select(DuplicateRound).where(DuplicateRound.number == 1)).one()
            top = r1.top or {}
            return f"{top['word']} {top['ref']}"


def test_the_preview_warns_of_a_raccord_of_two_letters_or_one(
    app: Flask, live_server: Any, page: Any, tmp_path: Path,
) -> None:
    top = _second_round(app, tmp_path, zas=True)
    assert top.split()[0] == "ZAS"
    ref = top.split()[1]  # ZAS through the star; ZASE starts where ZAS does
    a_at = "+1,0" if ref[0].isalpha() else "0,+1"  # H8: across; 8H: down
    s_at = "+2,0" if ref[0].isalpha() else "0,+2"
    base = live_server.url
    sign_in_by_link(page, app, base, "ana@example.ro")
    page.goto(base + "/duplicate/ZS1")
    expect(page.locator("#bulletin-raccord-length")).to_have_text(
        "Un raccord compte au moins trois lettres : de deux, il vaut un avertissement quand "
        "c'est lui qui situe le mot ; d'une seule, le bulletin est illisible.")
    preview = page.locator("#bulletin-preview")
    warning = page.locator("#bulletin-preview .raccord-warning")
    box = page.locator("#bulletin")
    box.press_sequentially("ZA ZASE 13")
    expect(warning).to_have_text(TWO % "ZA")
    # three letters: nothing to say
    box.fill("")
    box.press_sequentially("ZAS ZASE 13")
    expect(preview).to_have_text("Cliquez sur la case de la première lettre, puis tapez le mot.")
    expect(warning).to_have_count(0)
    box.fill("")
    box.press_sequentially("Z ZASE 13")
    expect(warning).to_have_text(ONE % "Z")
    # letters at their places: the preview locates the word by them, and counts them
    box.fill("")
    box.press_sequentially(f"Z@0,0 A@{a_at} ZASE 13")
    expect(preview).to_have_text(f"ZASE en {ref} : 13 points. " + TWO % f"Z@0,0 A@{a_at}")
    box.fill("")
    box.press_sequentially(f"Z@0,0 A@{a_at} S@{s_at} ZASE 13")
    expect(preview).to_have_text(f"ZASE en {ref} : 13 points.")
    # a reference written does not excuse a one-letter raccord: the server cannot read it
    box.fill("")
    box.press_sequentially(f"{ref} Z ZASE 13")
    expect(warning).to_have_text(ONE % "Z")
    assert page.js_errors == []


def test_after_a_two_letter_first_word_two_letters_raise_no_warning(
    app: Flask, live_server: Any, page: Any, tmp_path: Path,
) -> None:
    assert _second_round(app, tmp_path, zas=False) == "ZA H7"
    with app.app_context(), Session(get_engine(app)) as s:
        ana = s.exec(select(Player)).one()
        ana.locale = "ro"
        s.add(ana)
        s.commit()
    base = live_server.url
    sign_in_by_link(page, app, base, "ana@example.ro")
    page.goto(base + "/duplicate/D1")
    expect(page.locator("#bulletin-raccord-length")).to_have_text(
        "O legătură are trei litere, dar primul cuvânt al acestei partide avea doar două: o "
        "legătură de două litere ajunge. Cu o singură literă, buletinul este ilizibil.")
    warning = page.locator("#bulletin-preview .raccord-warning")
    box = page.locator("#bulletin")
    box.press_sequentially("ZA ZAS 12")
    expect(page.locator("#bulletin-preview")).to_have_text(
        "Faceți clic pe pătratul primei litere, apoi tastați cuvântul.")
    expect(warning).to_have_count(0)
    box.fill("")
    box.press_sequentially("Z ZAS 12")
    expect(warning).to_have_text(
        "Legătura „Z” are o singură literă: cel puțin trei litere de legătură, acest buletin "
        "ar fi ilizibil.")
    assert page.js_errors == []
