"""The screenshots of docs/WEB.md (docs/screenshots/*.png), taken in Chromium from the real
server holding the demonstration championship (webapp.demo, what ``arbitre serve`` seeds)
and the data of the phone tests (tests/browser/phone_world.py).

Skipped unless asked: ``ARBITRE_UPDATE_SCREENSHOTS=1 .venv/bin/pytest -q
tests/browser/test_screenshots.py`` rewrites the files (the player page with its season chart,
docs/screenshots/joueur-saison.png, is drawn by tests/browser/test_people_print.py under the
same variable). Desktop shots are 1280 CSS pixels wide, phone shots 390; each is one screen
(a viewport, not the whole page) so a PNG stays under 150 KB.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import expect
from sqlmodel import Session

from tests.browser.phone_world import build_world, sign_in
from webapp.auth import create_arbitre
from webapp.db import get_engine

pytestmark = [
    pytest.mark.browser, pytest.mark.db,
    pytest.mark.skipif(os.environ.get("ARBITRE_UPDATE_SCREENSHOTS") != "1",
                       reason="writes docs/screenshots: set ARBITRE_UPDATE_SCREENSHOTS=1"),
]

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
MAX_BYTES = 150_000


def shoot(page: Any, name: str, *, at: str | None = None) -> None:
    """One PNG of what the screen shows (scrolled to ``at`` first when given); a page of
    dense text whose whole screen makes a PNG over 150 KB is cut shorter, 10 % at a time."""
    if at is not None:
        page.evaluate("sel => document.querySelector(sel).scrollIntoView({block: 'start'})",
                      at)
    path = SHOTS / f"{name}.png"
    size = page.viewport_size
    height = size["height"]
    while True:
        page.screenshot(path=str(path), animations="disabled", caret="hide",
                        clip={"x": 0, "y": 0, "width": size["width"], "height": height})
        if path.stat().st_size <= MAX_BYTES or height < 300:
            break
        height = int(height * 0.9)
    assert 5_000 < path.stat().st_size <= MAX_BYTES, (name, path.stat().st_size)


def new_page(browser: Any, *, phone: bool, lang: str = "fr") -> Any:
    size = {"width": 390, "height": 844} if phone else {"width": 1280, "height": 720}
    context = browser.new_context(locale={"fr": "fr-FR", "ro": "ro-RO"}[lang],
                                  timezone_id="Europe/Bucharest", viewport=size,
                                  device_scale_factor=1, is_mobile=phone, has_touch=phone)
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.set_default_navigation_timeout(60_000)
    expect.set_options(timeout=60_000)
    return page


def test_screenshots_of_the_pages(app: Flask, live_server: Any, browser: Any,
                                  tmp_path: Path) -> None:
    from webapp.demo import seed_demo

    SHOTS.mkdir(parents=True, exist_ok=True)
    assert seed_demo(app) is not None
    world = build_world(app, tmp_path)
    with app.app_context(), Session(get_engine(app)) as s:
        create_arbitre(session=s, username="juge", password="motdepasse-juge",
                       name="Juge Arbitre")
        s.commit()
    base, pages = live_server.url, world["pages"]

    # --- phones: the player's pages at 390 px, French; the report in Romanian too
    page = new_page(browser, phone=True)
    page.goto(base + "/")
    expect(page.locator("#problemes-ouverts")).to_be_visible()
    shoot(page, "tel-accueil")
    sign_in(page, app, base, "ana@example.ro")
    page.goto(base + pages["player-home"])
    # his round games, what waits for him first (issue 22 §1), then his sheets
    shoot(page, "tel-mon-espace-parties", at="#mes-parties")
    shoot(page, "tel-mon-espace", at="#mes-feuilles")
    page.goto(base + pages["submit"])
    expect(page.locator(".ib-sq")).to_have_count(225)
    page.locator('.ib-sq[data-sq="97"]').tap()  # G8: the square chosen, its reference shown
    shoot(page, "tel-envoyer-grille", at="#grille-titre")
    page.locator(".ib-board .zoom-toggle").tap()
    expect(page.locator(".ib-board .zoom-toggle")).to_have_attribute("aria-pressed", "true")
    shoot(page, "tel-envoyer-grille-entiere", at="#grille-titre")
    page.goto(base + pages["receipt"])
    shoot(page, "tel-accuse")
    page.goto(base + pages["report"])
    shoot(page, "tel-rapport", at="#coups tbody tr.zero")
    page.goto(base + pages["duplicate"])
    shoot(page, "tel-duplicate", at="#grille-titre")
    # its history (the draws as valued tiles) and its ranking, as cards
    shoot(page, "tel-duplicate-classement", at="#historique")
    page.goto(base + pages["correspondence"])
    shoot(page, "tel-correspondance")
    page.context.close()

    page = new_page(browser, phone=True, lang="ro")
    page.goto(base + pages["report"])
    expect(page.locator("html")).to_have_attribute("lang", "ro")
    shoot(page, "tel-rapport-ro", at="#coups tbody tr.zero")
    page.context.close()

    # --- desktop: calendars and printing, rules, Duplicate, report
    page = new_page(browser, phone=False)
    page.goto(base + "/competitions/cn2026")
    expect(page.locator('a[href$="calendrier.ics"]').first).to_be_visible()
    shoot(page, "competition-calendrier")
    page.set_viewport_size({"width": 800, "height": 1130})  # about an A4 page at 96 dpi
    page.goto(base + "/problemes/P1/imprimer")
    expect(page.locator("#feuille-de-route")).to_be_visible()
    page.emulate_media(media="print")
    shoot(page, "impression")
    page.emulate_media(media="screen")
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(base + "/regles")
    shoot(page, "regles")
    page.goto(base + "/regles/anticipation")
    shoot(page, "regles-anticipation")
    page.goto(base + "/duplicate")
    shoot(page, "duplicate-parties")
    page.goto(base + pages["duplicate"])
    shoot(page, "duplicate-partie")
    page.goto(base + pages["report"])
    shoot(page, "rapport", at="#coups")

    # --- the arbitre's console
    page.goto(base + "/arbitre/connexion")
    page.fill("#username", "juge")
    page.fill("#password", "motdepasse-juge")
    page.click("main button[type=submit]")
    expect(page.locator('form[action="/deconnexion"]')).to_be_attached()
    for name, path in (("console", "/console/"), ("console-journal", "/console/journal"),
                       ("console-courrier", "/console/courrier/sortant"),
                       ("console-duplicate", "/console/duplicate/D1"),
                       ("console-correspondance", "/console/correspondance")):
        page.goto(base + path)
        expect(page.locator("h1")).to_be_visible()
        shoot(page, name)
    page.context.close()
