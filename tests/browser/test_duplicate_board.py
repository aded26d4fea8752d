"""The Duplicate bulletin form in Chromium: a click on the master grid writes the reference,
the points of the typed word are computed in the page, the bulletin is sent and stored.

Game of tests/web/test_duplicate.py: round 1 draws ZAEIBCD on an empty grid; ZA at H7 = Z 10
on H7 + A 1 on the star H8 (double word) = (10 + 1) × 2 = 22.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import expect
from sqlmodel import Session, select

from puzzles.duplicate import DuplicateSettings
from tests.browser.test_player_flow import sign_in_by_link
from tests.web.test_duplicate import full_bag
from webapp.db import get_engine
from webapp.models import DuplicateEntry
from webapp.services import clock, duplicate, lifecycle, problems
from webapp.services.players import create_player

pytestmark = [pytest.mark.browser, pytest.mark.db]


@pytest.fixture
def running_game(app: Flask, tmp_path: Path) -> None:
    words = tmp_path / "za.txt"
    words.write_text("ZA\nZAS\n", "utf-8")
    app.config["LEXICONS"] = {"za": str(words)}
    with app.app_context(), Session(get_engine(app), expire_on_commit=False) as s:
        comp = problems.create_competition(session=s, slug="dup", name="Duplicate")
        ana = create_player(session=s, name="Ana Popescu", email="ana@example.ro")
        problems.register(session=s, competition=comp, player=ana)
        duplicate.create_game(
            session=s, competition=comp, title="Duplicate du lundi", code="D1",
            settings=DuplicateSettings(lang="fr", rounds=2),
            rhythm={"kind": "hours", "hours": 24}, starts_at=clock.now() - timedelta(minutes=1),
            lexicon_name="za", bag_order=full_bag())
        s.commit()
    with app.app_context():
        assert lifecycle.run_due(now=clock.now()) == ["draw:D1:1"]


def test_click_the_grid_type_the_word_see_the_points(
    app: Flask, live_server: Any, page: Any, running_game: None
) -> None:
    base = live_server.url
    sign_in_by_link(page, app, base, "ana@example.ro")
    page.goto(base + "/duplicate/D1")
    h7 = 7 * 15 + 6
    page.click(f'#grille-maitre [data-sq="{h7}"]')
    expect(page.locator("#bulletin")).to_have_value("H7 ")
    page.locator("#bulletin").press_sequentially("ZA")
    expect(page.locator("#bulletin-preview")).to_have_text("ZA en H7 : 22 points.")
    # a second click on the same square: vertical
    page.click(f'#grille-maitre [data-sq="{h7}"]')
    expect(page.locator("#bulletin")).to_have_value("7H ZA")
    page.click(f'#grille-maitre [data-sq="{h7}"]')
    expect(page.locator("#bulletin")).to_have_value("H7 ZA")
    page.locator("#bulletin").press_sequentially(" 20")
    expect(page.locator("#bulletin-preview")).to_have_text(
        "ZA en H7 : 22 points (vous annoncez 20).")
    page.fill("#bulletin", "H7 ZA 22")
    page.click(".bulletin-form button[type=submit]")
    expect(page.locator(".flash.success")).to_contain_text("Bulletin reçu.")
    with app.app_context(), Session(get_engine(app)) as s:
        entry = s.exec(select(DuplicateEntry)).one()
        assert (entry.raw_text, entry.channel, entry.late) == ("H7 ZA 22", "web", False)
    assert page.js_errors == []


def test_the_bulletin_preview_in_romanian(
    app: Flask, live_server: Any, page: Any, running_game: None
) -> None:
    """Issue 13.1: duplicate.js and scoring.js speak the page's language (the messages come
    from the page). ZA at H7 = 22 as above; « ZAX » takes an X the draw ZAEIBCD lacks; a
    word running off the grid is scoring.js's error. ZAX at H7 = (Z 10 + A 1 + X 10) × 2 (the
    star H8 doubles the word) = 42."""
    from webapp.models import Player

    with app.app_context(), Session(get_engine(app)) as s:
        ana = s.exec(select(Player)).one()
        ana.locale = "ro"
        s.add(ana)
        s.commit()
    base = live_server.url
    sign_in_by_link(page, app, base, "ana@example.ro")
    page.goto(base + "/duplicate/D1")
    expect(page.locator("#bulletin-preview")).to_have_text(
        "Faceți clic pe pătratul primei litere, apoi tastați cuvântul.")
    h7 = 7 * 15 + 6
    page.click(f'#grille-maitre [data-sq="{h7}"]')
    page.locator("#bulletin").press_sequentially("ZA 20")
    expect(page.locator("#bulletin-preview")).to_have_text(
        "ZA în H7: 22 puncte (anunțați 20).")
    page.fill("#bulletin", "H7 ZAX")
    expect(page.locator("#bulletin-preview")).to_have_text(
        "ZAX în H7: 42 puncte — litere care lipsesc din extragere: X.")
    page.fill("#bulletin", "H14 ZAZA")  # columns 14 to 17: off the grid
    expect(page.locator("#bulletin-preview")).to_have_text(
        "Un cuvânt de 4 litere în H14 iese din grilă.")
    assert page.js_errors == []


def test_the_preview_of_a_completif_bulletin_counts_the_chosen_letter(
    app: Flask, live_server: Any, page: Any, tmp_path: Path
) -> None:
    """A Complétif draws 6 letters (ZEIBCD, the bag being ZEIBCDS…) and the player names the
    7th after a « + »: « H7 ZA 22 +A » takes its A from the stock, so no letter is missing;
    without « +A » the A is named as missing. ZA at H7 = (Z 10 + A 1) × 2 = 22."""
    from collections import Counter

    from scoring.tiles import tileset

    words = tmp_path / "za.txt"
    words.write_text("ZA\nZAS\n", "utf-8")
    app.config["LEXICONS"] = {"za": str(words)}
    bag = "ZEIBCDS" + "".join(sorted((tileset("fr").bag() - Counter("ZEIBCDS")).elements()))
    with app.app_context(), Session(get_engine(app), expire_on_commit=False) as s:
        comp = problems.create_competition(session=s, slug="dup", name="Duplicate")
        ana = create_player(session=s, name="Ana Popescu", email="ana@example.ro")
        problems.register(session=s, competition=comp, player=ana)
        duplicate.create_game(
            session=s, competition=comp, title="Complétif", code="C1",
            settings=DuplicateSettings(lang="fr", rounds=1),
            rhythm={"kind": "hours", "hours": 24}, starts_at=clock.now() - timedelta(minutes=1),
            lexicon_name="za", bag_order=bag, variant="completif")
        s.commit()
    with app.app_context():
        assert lifecycle.run_due(now=clock.now()) == ["draw:C1:1"]
    base = live_server.url
    sign_in_by_link(page, app, base, "ana@example.ro")
    page.goto(base + "/duplicate/C1")
    page.fill("#bulletin", "H7 ZA 22")
    expect(page.locator("#bulletin-preview")).to_have_text(
        "ZA en H7 : 22 points — lettres absentes du tirage : A.")
    page.fill("#bulletin", "H7 ZA 22 +A")
    expect(page.locator("#bulletin-preview")).to_have_text("ZA en H7 : 22 points.")
    # a click on the grid (the first one: horizontal) keeps the chosen letter
    page.click(f'#grille-maitre [data-sq="{7 * 15 + 6}"]')
    expect(page.locator("#bulletin")).to_have_value("H7 ZA 22 +A")
    assert page.js_errors == []
