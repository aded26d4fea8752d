"""In Chromium against the real server (issue 13.2 and 13.3): the printable problem sheet
lays out on exactly one A4 page (Chromium's own print to PDF, the page count read from the
PDF), and the player page shows the season chart; its screenshot is kept in
docs/screenshots/joueur-saison.png (docs/WEB.md shows it).

Season of Bob (sheets of RULES §12 [E5]: FICHERA 82, then WUS 84, cumul 166):
P1: Ana 166, Bob 82 -> Bob 82/166 = 49.40 %, 2nd;   P2 (reference 200): Bob 166 = 83.00 %, 1st;
P3: Ana 166, then Bob 166 a minute later -> 100.00 %, 2nd;   P4: Bob 166, Cid 82 -> 100.00 %, 1st.
"""

from __future__ import annotations

import os
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import expect
from sqlmodel import Session

from webapp.db import get_engine
from webapp.models import Channel
from webapp.services import clock, lifecycle, problems
from webapp.services.players import create_player
from webapp.services.submissions import submit_sheet

pytestmark = [pytest.mark.browser, pytest.mark.db]

FULL = "1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 166\n"
FIRST = "1 ACEFHIR h8 FICHERA 82 82\n"
#: docs/screenshots is rewritten only when asked (ARBITRE_UPDATE_SCREENSHOTS=1), so a test run
#: leaves the checkout as it found it
DOC_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def pdf_pages(pdf: bytes) -> int:
    """The number of page objects in a PDF (``/Type /Page``, not ``/Pages``)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


@pytest.fixture
def season(app: Flask) -> dict[str, Any]:
    from puzzles.generate import new_problem

    now = clock.now()
    with app.app_context(), Session(get_engine(app), expire_on_commit=False) as s:
        comp = problems.create_competition(session=s, slug="cn2026",
                                           name="Championnat par correspondance 2026")
        people = {}
        for name, email, club, lic, cat, country in (
                ("Ana Popescu", "ana@example.ro", "CS București", "RO-0042", "A", "Roumanie"),
                ("Bob Martin", "bob@example.fr", "Scrabble Club Lyon", "FR-12345", "B",
                 "France"),
                ("Cid Dumas", "cid@example.fr", "", "", "B", "France")):
            p = create_player(session=s, name=name, email=email, club=club, licence=lic,
                              category=cat, country=country)
            problems.register(session=s, competition=comp, player=p)
            people[name.split()[0].lower()] = p
        probs = []
        for k in range(1, 5):
            deadline = now - timedelta(days=5 - k)
            probs.append(problems.create_problem(
                session=s, competition=comp, puzzle=new_problem("integral", seed=k),
                publish_at=deadline - timedelta(days=1), deadline_at=deadline,
                code=f"P{k}", status="open"))
        probs[1].reference_score = 200
        s.add(probs[1])
        ana, bob, cid = people["ana"], people["bob"], people["cid"]
        sheets = [(0, ana, FULL), (0, bob, FIRST), (1, bob, FULL), (1, ana, FIRST),
                  (2, ana, FULL), (2, bob, FULL), (3, bob, FULL), (3, cid, FIRST)]
        for i, (k, pl, text) in enumerate(sheets):
            submit_sheet(session=s, player=pl, problem=probs[k], text=text,
                         channel=Channel.WEB,
                         received_at=probs[k].deadline_at - timedelta(hours=2, minutes=-i))
        from scoring.lexicon import default_lexicon

        lexicon = default_lexicon()
        printed = []
        for game in ("anticipation", "rangee", "superscrabble", "superscrabble_incomplet",
                     "serie_maximaux", "n_scrabble", "integral_partiel"):
            printed.append(problems.create_problem(
                session=s, competition=comp,
                puzzle=new_problem(game, seed=3, lexicon=lexicon),
                publish_at=now - timedelta(hours=1), deadline_at=now + timedelta(days=3),
                status="open").code)
        s.commit()
        ids = {"bob": bob.id, "printed": printed}
    with app.app_context():
        done = lifecycle.run_due(now=clock.now())
    assert [d for d in done if d.startswith("provisional:")] == [
        "provisional:P1", "provisional:P2", "provisional:P3", "provisional:P4"]
    return ids


def test_print_sheets_fit_one_a4_page(page: Any, live_server: Any,
                                      season: dict[str, Any]) -> None:
    # an Intégral (24 lines, the whole bag), an Anticipation (15 groups), a rangée, the
    # Superscrabbles (a given grid), a Série, an N-Scrabble, an Intégral partiel
    for code in ("P1", *season["printed"]):
        page.goto(f"{live_server.url}/problemes/{code}/imprimer")
        expect(page.locator("#feuille-de-route thead th")).to_have_text(
            ["Coup", "Lettres", "Réf.", "Mot", "Score", "Cumul"])
        expect(page.locator("#grille svg")).to_be_visible()
        pdf = page.pdf(format="A4", prefer_css_page_size=True)
        # for a human look: the page as printed (A4 less the 10 mm margins, at 96 dpi)
        page.emulate_media(media="print")
        page.set_viewport_size({"width": 718, "height": 1047})
        page.screenshot(path=f"/tmp/arbitre-impression-{code}.png", full_page=True)
        page.emulate_media(media="screen")
        page.set_viewport_size({"width": 1280, "height": 1000})
        assert pdf_pages(pdf) == 1, code


def test_player_page_chart_and_screenshot(page: Any, live_server: Any,
                                          season: dict[str, Any], tmp_path: Path) -> None:
    page.set_viewport_size({"width": 1000, "height": 900})
    page.goto(f"{live_server.url}/joueurs/{season['bob']}")
    expect(page.locator("h1")).to_have_text("Bob Martin")
    expect(page.locator("#licence")).to_have_text("FR-12345")
    chart = page.locator("#graphique-saison svg")
    expect(chart).to_be_visible()
    expect(chart.locator("rect.bar")).to_have_count(4)
    expect(chart.locator("circle.pt")).to_have_count(4)
    # P1 49.40 %, P2 83.00 %, P3 100.00 %, P4 100.00 %; ranks 2, 1, 2, 1
    rows = page.locator("#parcours tbody tr")
    expect(rows).to_have_count(4)
    assert [rows.nth(i).locator("td").nth(7).inner_text() for i in range(4)] == [
        "49,40", "83,00", "100,00", "100,00"]
    assert [rows.nth(i).locator("td").nth(5).inner_text() for i in range(4)] == [
        "2 / 2", "1 / 2", "2 / 2", "1 / 2"]
    # (49.40 + 83.00 + 100.00 + 100.00) / 4 = 83.10
    expect(page.locator("#moyenne")).to_have_text("83,10 %")
    shots = DOC_SCREENSHOTS if os.environ.get("ARBITRE_UPDATE_SCREENSHOTS") == "1" else tmp_path
    shots.mkdir(parents=True, exist_ok=True)
    # the page down to the end of its table of events (the site footer left out), so that the
    # PNG stays under the 150 KB of docs/WEB.md (the whole page, 1100 × 1542 px, was 164 KB)
    bottom = page.locator("section:has(#parcours)").evaluate(
        "e => e.getBoundingClientRect().bottom + window.scrollY")
    shot = shots / "joueur-saison.png"
    page.screenshot(path=str(shot), full_page=True,
                    clip={"x": 0, "y": 0, "width": 1000, "height": bottom + 16})
    assert 10_000 < shot.stat().st_size < 150_000, shot.stat().st_size
