"""The report of a Superscrabble sheet on a phone (issue 13.5): its answers become one card per
answer like the other report tables, each value under its column's name, but the names come
from one style rule per column (``table#scrabble-answers td:nth-child(k)::before``) rather than
from a ``data-label`` on each cell — with 1,010 answers the attributes alone pushed the page
over its size bound (tests/web/test_pages_report_size.py: 527,621 bytes for < 500,000).

Rendered by the app (French and Romanian, Accept-Language), shown in Chromium at 390 px with
the app's own style sheet: each card's labels are the table's column headers, no label shows
on a desktop screen, and the page never scrolls sideways.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlmodel import Session

from tests.web.conftest import competition, make_player, make_problem  # noqa: F401 (fixtures)
from tests.web.test_pages import login_player
from tests.web.test_pages_report_size import verified
from webapp.models import Player, Problem
from webapp.services.stored import puzzle_of

pytestmark = [pytest.mark.browser, pytest.mark.db]

CSS = (Path(__file__).resolve().parents[2] / "webapp" / "static" / "css"
       / "arbitre.css").read_text()

LABELS = """() => [...document.querySelectorAll('#scrabble-answers tbody tr:first-child td')]
    .map(td => getComputedStyle(td, '::before').content)"""
HEADERS = """() => [...document.querySelectorAll('#scrabble-answers thead th')]
    .map(th => JSON.stringify(th.textContent))"""


@pytest.mark.parametrize("lang", ["fr", "ro"])
def test_superscrabble_answers_are_labelled_cards_on_a_phone(
    lang: str, client: FlaskClient, db_session: Session, browser: Any, frozen_start: Any,
    make_player: Callable[..., Player], make_problem: Callable[..., Problem],  # noqa: F811
) -> None:
    from scoring.lexicon import default_lexicon

    ana = make_player("Ana Popescu", "ana@example.ro")
    ss = make_problem(code="S1", game="superscrabble", seed=13, lexicon=default_lexicon())
    rack = puzzle_of(ss).rack.replace("?", "E")
    sheet = "Scrabbles:\n" + "".join(f"{n} H{n} {rack}\n" for n in (1, 2, 3))
    v = verified(db_session, ana, ss, sheet, frozen_start)
    login_player(client, ana)
    body = client.get(f"/rapports/{v.id}", headers={"Accept-Language": lang}).get_data(
        as_text=True)
    assert 'id="scrabble-answers"' in body and "data-label" not in body.split(
        'id="scrabble-answers"')[1].split("</table>")[0]
    page_html = body.replace("</head>", f"<style>{CSS}</style></head>")
    for width, shown in ((390, True), (1280, False)):
        context = browser.new_context(viewport={"width": width, "height": 844},
                                      is_mobile=width < 700, has_touch=width < 700)
        try:
            page = context.new_page()
            page.set_default_timeout(60_000)
            page.set_content(page_html, wait_until="load")
            headers = page.evaluate(HEADERS)
            assert len(headers) == 4
            labels = page.evaluate(LABELS)
            # the card label is the column header, word for word; none on a desktop screen
            assert labels == (headers if shown else ["none"] * 4), (width, labels, headers)
            widths = page.evaluate("[document.documentElement.scrollWidth,"
                                   " document.documentElement.clientWidth]")
            assert widths[0] <= widths[1] == width, widths
        finally:
            context.close()
