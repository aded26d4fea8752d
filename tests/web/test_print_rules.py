"""Printing and the rules pages (issue 13.3 and 13.4): the printable problem sheet has the
grid, the letters and a blank feuille de route in the FRSc columns; each game type has a
rules page in French with an example sheet the parser reads, linked from every problem of
that type; an Anticipation's two-word move 1 is explained where the sheet is written.

Seed (FRSc, Anticipation): « Si un joueur a placé 2 mots, il inscrira sur le billet les deux
scores obtenus, dans l'ordre des mots placés, ainsi que le cumul de ces deux scores. »
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

from puzzles.feuille import parse_feuille
from puzzles.problem import GameType
from webapp.game_rules import COLUMNS, PAGES
from webapp.models import Problem, ProblemStatus


def text(resp: Any) -> str:
    return html.unescape(resp.get_data(as_text=True))


def header_cells(body: str) -> list[str]:
    table = body.split('id="feuille-de-route"', 1)[1].split("</thead>", 1)[0]
    return [html.unescape(c) for c in re.findall(r"<th>(.*?)</th>", table)]


def first_cells(body: str) -> list[str]:
    table = body.split('id="feuille-de-route"', 1)[1].split("</tbody>", 1)[0]
    return re.findall(r'<td class="n">(.*?)</td>', table)


@pytest.mark.db
def test_print_page_has_the_columns_the_grid_and_the_letters(
    client: FlaskClient, make_problem: Callable[..., Problem]
) -> None:
    prob = make_problem(game="integral", code="P1")
    resp = client.get("/problemes/P1/imprimer")
    assert resp.status_code == 200
    body = resp.get_data(as_text=True)
    assert header_cells(body) == ["Coup", "Lettres", "Réf.", "Mot", "Score", "Cumul"]
    assert list(COLUMNS) == header_cells(body)
    # an Intégral: 24 blank numbered lines under the grid
    assert first_cells(body) == [str(k) for k in range(1, 25)]
    # the grid: the board SVG (15 × 15, its row letters A–O) inside the sheet
    grid = body.split('id="grille"', 1)[1].split("</svg>", 1)[0]
    assert "<svg" in grid and "Grille de départ" in grid
    # the printed page asks for one A4 page
    with client.get("/static/css/print_sheet.css") as static:
        css = static.get_data(as_text=True)
    assert "@page { size: A4 portrait;" in css
    assert 'href="/static/css/print_sheet.css"' in body
    assert prob.title in text(resp)
    # the problem page links to its printable sheet
    assert 'href="/problemes/P1/imprimer"' in client.get("/problemes/P1").get_data(as_text=True)


@pytest.mark.db
def test_anticipation_print_sheet_explains_the_two_word_move_1(
    client: FlaskClient, make_problem: Callable[..., Problem]
) -> None:
    make_problem(game="anticipation", code="A1")
    body = client.get("/problemes/A1/imprimer").get_data(as_text=True)
    # move 1 twice (the group-1 word, then the 7-letter word), then moves 2 to 14
    assert first_cells(body) == ["1", "1"] + [str(k) for k in range(2, 15)]
    note = html.unescape(body.split('id="coup-1-deux-mots"', 1)[1].split("</p>", 1)[0])
    assert "deux lignes n° 1, le mot du groupe 1 d'abord" in note
    assert "dans la colonne Cumul, la somme des deux scores" in note


@pytest.mark.db
def test_print_page_of_a_scheduled_problem_is_not_public(
    client: FlaskClient, make_problem: Callable[..., Problem]
) -> None:
    make_problem(code="S1", status=ProblemStatus.SCHEDULED)
    resp = client.get("/problemes/S1/imprimer")
    assert resp.status_code == 404
    assert "Page introuvable" in text(resp)


def test_every_game_type_has_a_rules_page_whose_example_parses(client: FlaskClient) -> None:
    # the one-sheet game types, then the round-based games (tests/web/test_rules_rounds.py)
    assert {k for k, p in PAGES.items() if not p.round_based} == {g.value for g in GameType}
    index = client.get("/regles").get_data(as_text=True)
    for g in GameType:
        assert f'href="/regles/{g.value}"' in index
        resp = client.get(f"/regles/{g.value}")
        assert resp.status_code == 200, g
        page = text(resp)
        assert f"<h1>{g.label}</h1>" in page
        example = page.split('id="feuille-exemple">', 1)[1].split("</pre>", 1)[0]
        parsed = parse_feuille(example, superscrabble=g is GameType.SUPERSCRABBLE)
        assert parsed.errors == (), (g, parsed.errors)
        assert parsed.feuille.moves or parsed.feuille.scrabbles
    assert client.get("/regles/inconnu").status_code == 404


def test_anticipation_rules_explain_move_1_with_the_sum_of_both_scores(
    client: FlaskClient,
) -> None:
    page = text(client.get("/regles/anticipation"))
    assert "ainsi que le cumul de ces deux scores" in page
    example = page.split('id="feuille-exemple">', 1)[1].split("</pre>", 1)[0]
    parsed = parse_feuille(example)
    first = [m for m in parsed.feuille.moves if m.number == 1]
    # TAS 6 then LES 5: the second line's cumul is their sum, 6 + 5 = 11
    assert [(m.group, m.word, m.score) for m in first] == [(1, "TAS", 6), (2, "LES", 5)]
    assert first[1].cumul == 6 + 5
    assert "TAS (groupe 1) vaut 6, puis LES (groupe 2) vaut 5" in page


@pytest.mark.db
def test_problem_page_links_to_the_rules_of_its_type(
    client: FlaskClient, make_problem: Callable[..., Problem]
) -> None:
    for game, code in (("anticipation", "A1"), ("n_scrabble", "N1"),
                       ("integral_partiel", "I1")):
        make_problem(game=game, code=code)
        body = client.get(f"/problemes/{code}").get_data(as_text=True)
        link = re.search(r'<a class="badge" id="regles" href="([^"]+)"[^>]*>(.*?)</a>', body)
        assert link is not None, code
        assert link.group(1) == f"/regles/{game}"
        assert html.unescape(link.group(2)) == f"{GameType(game).label} — règles"
        assert client.get(link.group(1)).status_code == 200


def test_printed_move_numbers_per_game_type() -> None:
    """The first column of the printed sheet, read from the game-type table: an Anticipation's
    move 1 has two lines (« le premier coup en deux mots », RULES §6.1), the Scrabble exclusif
    14 moves of one line, the group games one line per group, the others blank rows."""
    from types import SimpleNamespace

    from webapp.views.people import PRINT_ROWS, sheet_rows

    two_lines = ["1", "1"] + [str(k) for k in range(2, 15)]  # 2 + 13 = 15 lines
    fourteen = [str(k) for k in range(1, 15)]
    four = SimpleNamespace(groups=("ABCDEFG",) * 4)
    for game in GameType:
        rows = sheet_rows(game.value, four)
        if game in (GameType.ANTICIPATION, GameType.ANTICIPATION_AVOCALIQUE,
                    GameType.ANTICIPATION_AVEUGLE):
            assert rows == two_lines and len(rows) == 15, game
        elif game in (GameType.EXCLUSIF_RESISTANCE, GameType.EXCLUSIF_FOND):
            assert rows == fourteen, game
        elif game in (GameType.SERIE_MAXIMAUX, GameType.SERIE_MAXIMAUX_CONSONNES,
                      GameType.N_SCRABBLE, GameType.N_SCRABBLE_CONSONNES):
            assert rows == ["1", "2", "3", "4"], game
        else:
            assert rows == [str(k) for k in range(1, PRINT_ROWS[game.value] + 1)], game
    assert len(sheet_rows("integral", None)) == 24 and len(sheet_rows("rangee", None)) == 20
    assert len(sheet_rows("duplicate", None)) == 20  # not a sheet game: the default
