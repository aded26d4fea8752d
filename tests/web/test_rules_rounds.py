"""Issue 13.4 for the Duplicate family: a rules page per round-based game (Duplicate,
Tactique, Top, Complétif, Superjoker, Métagramme, Elliptique, Partie de Superscrabble, the
correspondence game) in plain words with an example bulletin that the game's own parser
reads, linked from every game of that type, in French and in Romanian."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlmodel import Session, select

from puzzles.duplicate import Bulletin, parse_bulletin
from puzzles.variants import (
    FreeBulletin,
    ScrabbleSheet,
    TactiqueBillet,
    parse_free_bulletin,
    parse_scrabble_sheet,
    parse_tactique_billet,
)
from puzzles.duplicate.registry import ROUND_GAMES
from webapp.game_rules import PAGES
from webapp.services.correspondence import parse_move

#: each round game's rules page (its ``rules_page`` fact), pinned here
VARIANT_PAGES = {
    "": "duplicate", "tactique": "duplicate_tactique", "top": "duplicate_top",
    "completif": "duplicate_completif", "superjoker": "duplicate_superjoker",
    "metagramme": "duplicate_metagramme", "elliptique": "duplicate_elliptique",
    "superscrabble": "partie_superscrabble",
}

ROUND_PAGES = {
    "duplicate": "Duplicate", "duplicate_tactique": "Duplicate Tactique",
    "duplicate_top": "Duplicate Top", "duplicate_completif": "Duplicate Complétif",
    "duplicate_superjoker": "Duplicate Superjoker",
    "duplicate_metagramme": "Duplicate Métagramme",
    "duplicate_elliptique": "Duplicate Elliptique",
    "partie_superscrabble": "Partie de Superscrabble", "correspondance": "Partie par correspondance",
}


def _text(body: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body)))


def _example(body: str) -> str:
    return html.unescape(body.split('id="feuille-exemple">', 1)[1].split("</pre>", 1)[0])


def test_a_rules_page_per_round_game_with_an_example_its_parser_reads(
    client: FlaskClient,
) -> None:
    assert {k for k, p in PAGES.items() if p.round_based} == set(ROUND_PAGES)
    index = client.get("/regles").get_data(as_text=True)
    section = index.split('id="regles-tours"', 1)[1].split("</ul>", 1)[0]
    assert re.findall(r'href="/regles/([a-z_]+)"', section) == list(ROUND_PAGES)
    for key, label in ROUND_PAGES.items():
        body = client.get(f"/regles/{key}").get_data(as_text=True)
        assert f"<h1>{label}</h1>" in body, key
        line = _example(body).strip()
        if key == "duplicate_tactique":
            billet = parse_tactique_billet(line)
            assert isinstance(billet, TactiqueBillet), billet
            # RESTAIT 70 + MOTS 25: the sum written is 70 + 25 = 95
            assert billet.total == 70 + 25
        elif key in ("duplicate_completif", "duplicate_superjoker", "duplicate_metagramme"):
            free = parse_free_bulletin(line)
            assert isinstance(free, FreeBulletin), free
            assert (free.chosen, free.swapped) == {
                "duplicate_completif": ("T", ""), "duplicate_superjoker": ("AT", ""),
                "duplicate_metagramme": ("K", "N")}[key]
        elif key == "partie_superscrabble":
            sheet = parse_scrabble_sheet(line)
            assert isinstance(sheet, ScrabbleSheet), sheet
            assert sheet.count == 2 and len(sheet.entries) == 2
        elif key == "correspondance":
            assert parse_move(line) == ("H8", "FICHERA")
        else:
            bulletin = parse_bulletin(line)
            assert isinstance(bulletin, Bulletin), bulletin
            assert (bulletin.ref, bulletin.claimed) == ("H4", 70)
        heading = "Exemple de coup" if key == "correspondance" else "Exemple de bulletin"
        assert f'<h2 id="exemple">{heading}</h2>' in body, key


def test_round_rules_pages_in_romanian(client: FlaskClient) -> None:
    ro = {"Accept-Language": "ro"}
    page = _text(client.get("/regles/duplicate_tactique", headers=ro).get_data(as_text=True))
    assert "Duplicat Tactic" in page
    assert ("Biletul cuprinde cele două cuvinte în ordinea în care sunt așezate, fiecare cu "
            "referința și punctajul său, apoi „=” și suma lor.") in page
    assert "Le billet porte les deux mots" not in page
    # every paragraph of every page, one-sheet games included, reads Romanian
    for key, rules in PAGES.items():
        page = _text(client.get(f"/regles/{key}", headers=ro).get_data(as_text=True))
        for french in (rules.summary, *rules.paragraphs, rules.ranking, *rules.example_notes):
            assert french not in page, (key, french)
        assert "Exemplu de" in page, key


@pytest.mark.db
def test_every_duplicate_and_correspondence_game_links_to_its_rules(
    client: FlaskClient, db_session: Session, competition: Any,
    make_player: Callable[..., Any], frozen_clock: Any, frozen_start: Any,
) -> None:
    from puzzles.duplicate import DuplicateSettings
    from webapp.auth import create_arbitre
    from webapp.services import correspondence, duplicate

    ana = make_player("Ana Popescu", "ana@example.ro")
    bob = make_player("Bogdan Ionescu", "bogdan@example.ro")
    juge = create_arbitre(session=db_session, username="juge", password="motdepasse1")
    for i, variant in enumerate(VARIANT_PAGES):
        code = f"D{i}"
        duplicate.create_game(
            session=db_session, competition=competition, code=code, title=f"Partie {i}",
            settings=DuplicateSettings(lang="fr", rounds=2),
            rhythm={"kind": "hours", "hours": 24}, starts_at=frozen_start + timedelta(days=1),
            variant=variant, superscrabble=({"start": "H7 LA", "racks": ["RETAINS", "AEINRST"]}
                                            if variant == "superscrabble" else None))
        db_session.commit()
        with client.session_transaction() as sess:  # a scheduled game shows to the arbitre
            sess["arbitre_id"] = juge.id
        body = client.get(f"/duplicate/{code}").get_data(as_text=True)
        link = re.search(r'<a class="badge" id="regles" href="([^"]+)"', body)
        assert link is not None, variant
        assert link.group(1) == f"/regles/{VARIANT_PAGES[variant]}"
        if variant == "tactique":  # the game's name, rhythm and rules link in Romanian
            ro = _text(client.get(f"/duplicate/{code}", headers={"Accept-Language": "ro"})
                       .get_data(as_text=True))
            assert "Duplicat Tactic — reguli" in ro, ro
            assert "o tură la fiecare 24 de ore" in ro, ro  # (20 and more: « de »)
            assert "Duplicate Tactique" not in ro and "toutes les 24 heures" not in ro
    # the games' list (games under way: their status set so, no round drawn) names each
    # game's rules
    from webapp.models import DuplicateGame, DuplicateStatus

    for game_row in db_session.exec(select(DuplicateGame)).all():
        game_row.status = DuplicateStatus.RUNNING
        db_session.add(game_row)
    db_session.commit()
    index = client.get("/duplicate").get_data(as_text=True)
    links = re.findall(r'<td data-label="Jeu"><a href="/regles/([a-z_]+)" title="[^"]*">'
                       r'([^<]+)</a></td>', index)
    assert sorted(links) == sorted((VARIANT_PAGES[v], ROUND_PAGES[VARIANT_PAGES[v]])
                                   for v in VARIANT_PAGES), links
    assert 'href="/regles#regles-tours"' in index
    game = correspondence.create_game(
        session=db_session, competition=competition, red=ana, blue=bob, code="C1",
        row="ACEFHIRSUWLEVERAINTE", starts_at=frozen_start, title="Ana – Bogdan")
    db_session.commit()
    body = client.get(f"/correspondance/{game.code}").get_data(as_text=True)
    link = re.search(r'<a class="badge" id="regles" href="([^"]+)"', body)
    assert link is not None and link.group(1) == "/regles/correspondance"


def test_every_round_game_names_its_rules_page() -> None:
    """The rules page is the game's fact (``RoundGame.rules_page``), one per game, each a
    page of webapp.game_rules."""
    assert {key: g.rules_page for key, g in ROUND_GAMES.items()} == VARIANT_PAGES
    assert all(page in PAGES for page in VARIANT_PAGES.values())
