"""The correspondence game's fișa de concurs in Chromium (issue 22 §3; RULES §8.1: « front:
event, players, arbiters, RED's previous coefficient and rank, the letter row, and a grid;
back: a table of moves and scores, thinking time, and the final results »): the front (its
facts and row beside the grid on a wide screen) then the back, on a 390 px phone each move a
card without sideways scrolling, the back on its own page when printed; the capped move
explained; the tiles of the row with their values.

Word list {ZA, ZAS}; row ZAEIBCD SEOUFGH …: RED plays H8 ZA = (10 + 1) × 2 = 22, credited 10
(round I cap for RED); BLUE H8 ZAS = 12, credited 12 (BLUE's cap 20 does not bite).
"""

from __future__ import annotations

import os
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import expect
from sqlmodel import Session

from scoring.tiles import tileset
from webapp.models import Channel
from webapp.services import clock, correspondence, players, problems

pytestmark = [pytest.mark.browser, pytest.mark.db]

HEAD = "ZAEIBCDSEOUFGHAE"
#: docs/screenshots is rewritten only when asked (ARBITRE_UPDATE_SCREENSHOTS=1), so a test run
#: leaves the checkout as it found it
DOC_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def _row() -> str:
    rest = tileset("fr").bag() - Counter(HEAD)
    return HEAD + "".join(sorted(rest.elements()))[:30]


def _game(app: Flask, db_session: Session, tmp_path: Path) -> None:
    words = tmp_path / "za.txt"
    words.write_text("ZA\nZAS\n", "utf-8")
    app.config["LEXICONS"] = {"za": str(words)}
    with app.app_context():
        comp = problems.create_competition(session=db_session, slug="serie",
                                           name="Série FRSc 2026")
        ana = players.create_player(session=db_session, name="Ana", email="ana@example.ro")
        bob = players.create_player(session=db_session, name="Bob", email="bob@example.fr")
        for p in (ana, bob):
            problems.register(session=db_session, competition=comp, player=p)
        start = clock.now() - timedelta(hours=3)
        game = correspondence.create_game(
            session=db_session, competition=comp, red=ana, blue=bob, row=_row(),
            starts_at=start, code="FISA1", lexicon_name="za", timezone="Asia/Tokyo")
        correspondence.submit_move(session=db_session, player=ana, game=game, text="H8 ZA",
                                   channel=Channel.WEB, received_at=start + timedelta(hours=1))
        correspondence.submit_move(session=db_session, player=bob, game=game, text="H8 ZAS",
                                   channel=Channel.EMAIL,
                                   received_at=start + timedelta(hours=2, minutes=30))
        db_session.commit()


def _box(page: Any, selector: str) -> dict[str, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box  # type: ignore[no-any-return]


def test_the_fisa_front_and_back_laid_out_on_screen_phone_and_paper(
    app: Flask, db_session: Session, live_server: Any, browser: Any, tmp_path: Path,
) -> None:
    _game(app, db_session, tmp_path)
    context = browser.new_context(locale="fr-FR", viewport={"width": 1280, "height": 1000})
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(f"{live_server.url}/correspondance/FISA1")
        expect(page.locator("#fiche-rouge")).to_have_text("Ana")
        expect(page.locator("#fiche-bleu")).to_have_text("Bob")
        expect(page.locator("#fiche-epreuve")).to_have_text("Série FRSc 2026")
        moves = page.locator("#fiche-coups tbody tr")
        expect(moves).to_have_count(2)
        first = moves.nth(0)
        expect(first.locator(".cap-note")).to_have_text(
            "ZA 22 points, crédité 10 : plafond d'ouverture (tour I)")
        expect(first.locator(".cap-note")).to_be_visible()
        expect(moves.nth(1).locator(".cap-note")).to_have_count(0)  # 12 ≤ 20: all counts
        expect(moves.nth(0).locator("td").nth(7)).to_have_text("1h00")
        expect(moves.nth(1).locator("td").nth(7)).to_have_text("1h30")
        # the row's tiles with their values, the ones already in play apart from the rest
        row = page.locator("#rangee .letter")
        expect(row).to_have_count(46)
        expect(row.nth(0)).to_have_text("Z10")
        # RED drew 2 after ZA (Z and A laid), BLUE 1 after ZAS (only his S laid, on the Z
        # and A already there): 14 + 2 + 1 = 17 in play
        expect(page.locator("#rangee .fisa-used .letter")).to_have_count(17)
        # wide screen: the front's facts and row beside its grid, the back below the front,
        # nothing wider than the page
        front, back = _box(page, "#fiche-recto"), _box(page, "#fiche-verso")
        assert back["y"] >= front["y"] + front["height"] - 1
        info, grid = _box(page, ".fisa-info"), _box(page, ".fisa-grid svg")
        assert info["x"] + info["width"] <= grid["x"] + 1 and grid["width"] > 300
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), page.evaluate(
            "[...document.querySelectorAll('*')].filter(e => e.getBoundingClientRect().right"
            " > innerWidth).map(e => e.tagName + '#' + e.id + '.' + e.className + ' '"
            " + Math.round(e.getBoundingClientRect().right)).slice(0, 15)")
        # docs/WEB.md's picture of the sheet (under its 150 KB)
        shots = DOC_SCREENSHOTS if os.environ.get("ARBITRE_UPDATE_SCREENSHOTS") == "1" \
            else tmp_path
        shots.mkdir(parents=True, exist_ok=True)
        page.locator("#fiche").screenshot(path=str(shots / "correspondance-fiche.png"))
        assert (shots / "correspondance-fiche.png").stat().st_size < 150_000
        # paper: the back begins a new page
        page.emulate_media(media="print")
        assert page.evaluate(
            "getComputedStyle(document.getElementById('fiche-verso')).breakBefore") == "page"
        page.emulate_media(media="screen")

        # a 390 px phone: the back under the front, each move a card, no sideways scroll
        page.set_viewport_size({"width": 390, "height": 844})
        page.reload()
        expect(page.locator("#fiche-coups")).to_be_visible()
        front, back = _box(page, "#fiche-recto"), _box(page, "#fiche-verso")
        assert back["y"] >= front["y"] + front["height"] - 1
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        note = _box(page, "#fiche-coups tbody tr:first-child .cap-note")
        assert note["x"] >= 0 and note["x"] + note["width"] <= 390
    finally:
        context.close()
