"""Phones (issue 13.5), in Chromium at 390 × 844 CSS pixels (a phone held upright, touch,
mobile viewport), in French and in Romanian (the browser's Accept-Language): the public home,
the player's home, the submit page with its interactive board, the receipt of a sheet sent
from the phone, a report with a zeroed move, the Duplicate page with its master grid, the correspondence game page (and every
other page a player or a visitor reads, the printable problem sheet among them — it has its
own viewport, its grid above the letters on a phone) fit the screen — the document is never wider than
the window (``scrollWidth <= clientWidth = 390``) —, the reasons of the zero are on screen,
and every square of a board the player taps is at least 32 × 32 CSS pixels (the interactive
board: 34 px squares, min-width 1.2rem + 15 × 36 px = 559.2 px with 2 px gaps ->
(559.2 − 19.2 − 30) / 15 = 34; the Duplicate grid: 520 px for 504 units, 32 units a square
-> 32 × 520 / 504 = 33.0 px), the board scrolling inside its own box and « Voir toute la
grille » fitting it to the screen.

The data: tests/browser/phone_world.py (Ana's sheet on P0 plays SWU, not a word: move 2
counts 0 with the verifier's two reasons).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import expect

from tests.browser.phone_world import build_world, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.db]

WIDTH = 390
#: what the pages say, per language (French is the source; Romanian from the catalogue)
TEXTS = {
    "fr": {"reason": "Erreur de mot : SWU n'est pas admis.", "fit": "Voir toute la grille",
           "zoom": "Agrandir la grille", "report": "Rapport de vérification : Ana Popescu"},
    "ro": {"reason": "Eroare de cuvânt: SWU nu este admis.", "fit": "Vezi toată grila",
           "zoom": "Mărește grila", "report": "Raport de verificare: Ana Popescu"},
}


def no_horizontal_scroll(page: Any) -> None:
    """The document is no wider than the window: nothing makes the page scroll sideways."""
    widths = page.evaluate("[document.documentElement.scrollWidth,"
                           " document.documentElement.clientWidth, window.innerWidth]")
    assert widths[1] == WIDTH, widths
    assert widths[0] <= widths[1], f"{page.url}: the page is {widths[0]} px wide"


def on_screen(locator: Any) -> None:
    """Visible, and wholly between the left and right edges of the screen."""
    expect(locator).to_be_visible()
    box = locator.bounding_box()
    assert box is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= WIDTH, box


def square_sizes(page: Any, selector: str) -> dict[str, float]:
    """How many squares, and the smallest width and height among them (CSS pixels)."""
    result: dict[str, float] = page.eval_on_selector_all(selector, """els => {
        const r = els.map(e => e.getBoundingClientRect());
        return {count: r.length, w: Math.min(...r.map(b => b.width)),
                h: Math.min(...r.map(b => b.height))};
    }""")
    return result


@pytest.fixture
def phone(browser: Any, request: pytest.FixtureRequest) -> Any:
    lang = request.param
    context = browser.new_context(
        locale={"fr": "fr-FR", "ro": "ro-RO"}[lang], timezone_id="Europe/Bucharest",
        viewport={"width": WIDTH, "height": 844}, device_scale_factor=1, is_mobile=True,
        has_touch=True)
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.set_default_navigation_timeout(60_000)
    expect.set_options(timeout=60_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.lang = lang
    yield page
    context.close()
    assert errors == [], f"JavaScript errors: {errors}"


@pytest.mark.parametrize("phone", ["fr", "ro"], indirect=True)
def test_pages_fit_a_390px_phone(app: Flask, live_server: Any, phone: Any,
                                 tmp_path: Path) -> None:
    page, lang = phone, phone.lang
    text = TEXTS[lang]
    world = build_world(app, tmp_path)
    base, pages = live_server.url, world["pages"]

    def visit(name: str) -> None:
        page.goto(base + pages[name])
        expect(page.locator("html")).to_have_attribute("lang", lang)

    # the public home: the open problems as cards (P1, A1 — their order is by deadline)
    visit("public-home")
    rows = page.locator("#problemes-ouverts tbody tr")
    expect(rows).to_have_count(2)
    on_screen(rows.first)
    on_screen(rows.first.locator("[data-countdown]"))
    no_horizontal_scroll(page)

    sign_in(page, app, base, "ana@example.ro")
    visit("player-home")
    sheets = page.locator("#feuilles tbody tr")
    expect(sheets).to_have_count(2)  # P1 and P0, one version each
    for k in range(2):
        on_screen(sheets.nth(k))
    no_horizontal_scroll(page)

    # the submit page: the board keeps tappable squares and scrolls inside its own box
    visit("submit")
    expect(page.locator("#interactive-board")).to_be_visible()
    expect(page.locator(".ib-sq")).to_have_count(225)
    no_horizontal_scroll(page)
    sizes = square_sizes(page, ".ib-sq")
    assert sizes["count"] == 225 and sizes["w"] >= 32 and sizes["h"] >= 32, sizes
    assert round(sizes["w"]) == 34, sizes
    wrap = page.locator("#ib-grid-wrap")
    on_screen(wrap)
    assert wrap.evaluate("e => e.scrollWidth > e.clientWidth")
    # opened centred on the star, H8 (square 112), which is tapped: its reference is written
    star = page.locator('.ib-sq[data-sq="112"]')
    on_screen(star)
    star.tap()
    expect(page.locator("#ib-ref")).to_have_text("H8")
    # the zoom button: the whole grid on the screen, then back to tappable squares
    toggle = page.locator(".ib-board .zoom-toggle")
    expect(toggle).to_have_text(text["fit"])
    toggle.tap()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(toggle).to_have_text(text["zoom"])
    assert wrap.evaluate("e => e.scrollWidth <= e.clientWidth")
    on_screen(page.locator('.ib-sq[data-sq="224"]'))  # O15, the last square
    no_horizontal_scroll(page)
    toggle.tap()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    assert square_sizes(page, ".ib-sq")["w"] >= 32

    # send the sheet from the phone (the text area holds her version 1): the receipt of
    # version 2
    send = page.locator("form.stack button[type=submit]")
    on_screen(send)
    send.tap()
    page.wait_for_url(re.compile(r".*/joueur/feuilles/\d+$"))
    expect(page.locator("#sheet-number")).to_have_text("2")
    on_screen(page.locator("#sha256"))
    moves = page.locator("#comprise-coups tbody tr")
    expect(moves).to_have_count(2)
    on_screen(moves.nth(1))
    no_horizontal_scroll(page)

    # the report: move 2 is a zero, its card shows the counted 0 and the verifier's reasons
    visit("report")
    expect(page.locator("h1")).to_have_text(text["report"])
    zero = page.locator("#coups tbody tr.zero")
    expect(zero).to_have_count(1)
    on_screen(zero)
    counted = zero.locator("td").nth(6)
    expect(counted).to_have_text("0")
    on_screen(counted)
    reasons = zero.locator(".reason")
    expect(reasons.first).to_have_text(text["reason"])
    for k in range(reasons.count()):
        on_screen(reasons.nth(k))
    no_horizontal_scroll(page)

    # Duplicate: round 1's results, round 2 open; the master grid's squares are tappable
    visit("duplicate")
    expect(page.locator("#grille-maitre rect[data-sq]")).to_have_count(225)
    sizes = square_sizes(page, "#grille-maitre rect[data-sq]")
    assert sizes["w"] >= 32 and sizes["h"] >= 32, sizes
    on_screen(page.locator("#grille-maitre"))
    on_screen(page.locator("#historique tbody tr").first)
    on_screen(page.locator("#mes-resultats tbody tr").first)
    expect(page.locator("#classement tbody tr")).to_have_count(3)  # Ana, Bob, Cid registered
    no_horizontal_scroll(page)
    # a tap on G7 (row G = 6, column 7: 6 × 15 + 6 = 96) writes its reference in the bulletin
    page.locator('#grille-maitre rect[data-sq="96"]').tap()
    expect(page.locator("#bulletin")).to_have_value("G7 ")

    visit("correspondence")
    on_screen(page.locator("main svg").first)
    no_horizontal_scroll(page)

    # every other page a player or a visitor reads (problem pages, rankings, the player page
    # and its season chart, rules, archives, versions, an Anticipation's submit page, appeal)
    for path in world["other_pages"]:
        page.goto(base + path)
        expect(page.locator("html")).to_have_attribute("lang", lang)
        expect(page.locator("h1").first).to_be_visible()
        no_horizontal_scroll(page)
