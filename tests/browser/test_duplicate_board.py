"""The Duplicate bulletin form in Chromium: a click on the master grid writes the reference,
the points of the typed word are computed in the page, the bulletin is sent and stored.

Game of tests/web/test_duplicate.py: round 1 draws ZAEIBCD on an empty grid; ZA at H7 = Z 10
on H7 + A 1 on the star H8 (double word) = (10 + 1) × 2 = 22.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import expect
from sqlmodel import Session, col, select

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


def variant_game(app: Flask, tmp_path: Path, code: str, variant: str, head: str) -> None:
    """A one-round game of ``variant`` on the word list {ZA, ZAS}, its bag ``head`` then the
    rest of the French bag, Ana registered; round 1 drawn."""
    from collections import Counter

    from scoring.tiles import tileset

    words = tmp_path / "za.txt"
    words.write_text("ZA\nZAS\n", "utf-8")
    app.config["LEXICONS"] = {"za": str(words)}
    bag = head + "".join(sorted((tileset("fr").bag() - Counter(head)).elements()))
    with app.app_context(), Session(get_engine(app), expire_on_commit=False) as s:
        comp = problems.create_competition(session=s, slug="dup", name="Duplicate")
        ana = create_player(session=s, name="Ana Popescu", email="ana@example.ro")
        problems.register(session=s, competition=comp, player=ana)
        duplicate.create_game(
            session=s, competition=comp, title=f"Duplicate {variant}", code=code,
            settings=DuplicateSettings(lang="fr", rounds=1),
            rhythm={"kind": "hours", "hours": 24}, starts_at=clock.now() - timedelta(minutes=1),
            lexicon_name="za", bag_order=bag, variant=variant)
        s.commit()
    with app.app_context():
        assert lifecycle.run_due(now=clock.now()) == [f"draw:{code}:1"]


def bulletins(app: Flask) -> list[str]:
    """The bulletins the server stored, in the order received."""
    with app.app_context(), Session(get_engine(app)) as s:
        return [e.raw_text for e in s.exec(select(DuplicateEntry).order_by(
            col(DuplicateEntry.id))).all()]


def send(page: Any, text: str) -> None:
    page.fill("#bulletin", text)
    page.click(".bulletin-form button[type=submit]")


def test_the_preview_of_a_completif_bulletin_counts_the_chosen_letter(
    app: Flask, live_server: Any, page: Any, tmp_path: Path
) -> None:
    """A Complétif draws 6 letters (ZEIBCD, the bag being ZEIBCDS…) and the player names the
    7th after a « + »: « H7 ZA 22 +A » takes its A from the stock, so no letter is missing;
    without « +A » the A is named as missing, and the bulletin is not sent. ZA at H7 =
    (Z 10 + A 1) × 2 = 22."""
    variant_game(app, tmp_path, "C1", "completif", "ZEIBCDS")
    base = live_server.url
    sign_in_by_link(page, app, base, "ana@example.ro")
    page.goto(base + "/duplicate/C1")
    # the stock as valued tiles (issue 22 §2): the 102 tiles less the 6 drawn, the 9 A at 1,
    # the K at 10, the two jokers at 0, no Z (the only one is drawn)
    expect(page.locator("#stock .letter")).to_have_count(102 - 6)
    tiles = page.eval_on_selector_all("#stock .letter", "els => els.map(e => e.textContent)")
    assert (tiles.count("A1"), tiles.count("K10"), tiles.count("?0")) == (9, 1, 2)
    assert not [t for t in tiles if t.startswith("Z")]
    page.fill("#bulletin", "H7 ZA 22")
    expect(page.locator("#bulletin-preview")).to_have_text(
        "ZA en H7 : 22 points — lettres absentes du tirage : A.")
    page.fill("#bulletin", "H7 ZA 22 +A")
    expect(page.locator("#bulletin-preview")).to_have_text("ZA en H7 : 22 points.")
    # a click on the grid (the first one: horizontal) keeps the chosen letter
    page.click(f'#grille-maitre [data-sq="{7 * 15 + 6}"]')
    expect(page.locator("#bulletin")).to_have_value("H7 ZA 22 +A")
    # sent without « +A »: refused in the page, nothing reaches the server
    send(page, "H7 ZA 22")
    expect(page.locator("#bulletin-refused")).to_have_text(
        "Bulletin non envoyé : ZA en H7 prend des lettres que le tirage ZEIBCD ne donne pas : A.")
    # typing again hides the refusal; with « +A » the bulletin goes
    page.locator("#bulletin").press_sequentially(" +A")
    expect(page.locator("#bulletin-refused")).to_be_hidden()
    page.click(".bulletin-form button[type=submit]")
    expect(page.locator(".flash.success")).to_contain_text("Bulletin reçu.")
    assert bulletins(app) == ["H7 ZA 22 +A"]
    # the chosen letter written as a joker (« a », RULES §9.3 E12: the server decides what it
    # is): not refused in the page. Za at H7 = (10 + 0) × 2 = 20
    send(page, "H7 Za 20 +A")
    expect(page.locator(".flash.success")).to_contain_text("Bulletin reçu.")
    assert bulletins(app) == ["H7 ZA 22 +A", "H7 Za 20 +A"]
    assert page.js_errors == []


def test_a_joker_of_the_draw_covers_one_letter_written_without_its_mark(
    app: Flask, live_server: Any, page: Any, tmp_path: Path
) -> None:
    """The draw ZEIBCD? has a joker: « H7 ZA 22 » writes the A without its joker mark, which
    the correction credits as the joker (commit e0a53af) — sent; « H7 ZAX » needs two letters
    the draw lacks, A and X, for one joker — refused."""
    variant_game(app, tmp_path, "J1", "", "ZEIBCD?")
    base = live_server.url
    sign_in_by_link(page, app, base, "ana@example.ro")
    page.goto(base + "/duplicate/J1")
    send(page, "H7 ZAX 42")
    expect(page.locator("#bulletin-refused")).to_have_text(
        "Bulletin non envoyé : ZAX en H7 prend des lettres que le tirage ZEIBCD? ne donne pas"
        " : A X.")
    send(page, "H7 ZA 22")
    expect(page.locator(".flash.success")).to_contain_text("Bulletin reçu.")
    assert bulletins(app) == ["H7 ZA 22"]
    assert page.js_errors == []


def test_a_bulletin_taking_letters_the_draw_lacks_is_not_sent(
    app: Flask, live_server: Any, page: Any, running_game: None
) -> None:
    """Like the one-sheet games' board: the bulletin form refuses a word whose letters the
    draw ZAEIBCD does not give — with the letters named, in the page's language — and sends
    it once the word can be played (the server's correction stays the judge). ZAX takes an X;
    « Za » marks its A as a joker, and the draw has none ("?"). ZAX at H7 = (10 + 1 + 10) × 2
    = 42; ZA at H7 = 22."""
    from webapp.models import Player

    base = live_server.url
    sign_in_by_link(page, app, base, "ana@example.ro")
    page.goto(base + "/duplicate/D1")
    expect(page.locator("#bulletin-refused")).to_be_hidden()
    send(page, "H7 ZAX 42")
    expect(page.locator("#bulletin-refused")).to_have_text(
        "Bulletin non envoyé : ZAX en H7 prend des lettres que le tirage ZAEIBCD ne donne pas"
        " : X.")
    assert page.url == base + "/duplicate/D1"
    send(page, "H7 Za 12")
    expect(page.locator("#bulletin-refused")).to_have_text(
        "Bulletin non envoyé : Za en H7 prend des lettres que le tirage ZAEIBCD ne donne pas"
        " : ?.")
    # a bulletin the page cannot place (no reference: the raccord notation) is the server's
    # to read; here the word ZA is sent
    send(page, "H7 ZA 22")
    expect(page.locator(".flash.success")).to_contain_text("Bulletin reçu.")
    assert bulletins(app) == ["H7 ZA 22"]

    # in Romanian (Ana's stored choice)
    with app.app_context(), Session(get_engine(app)) as s:
        ana = s.exec(select(Player)).one()
        ana.locale = "ro"
        s.add(ana)
        s.commit()
    page.goto(base + "/duplicate/D1")
    expect(page.locator("html")).to_have_attribute("lang", "ro")
    send(page, "H7 ZAX 42")
    expect(page.locator("#bulletin-refused")).to_have_text(
        "Buletin netrimis: ZAX în H7 folosește litere pe care extragerea ZAEIBCD nu le dă: X.")
    assert bulletins(app) == ["H7 ZA 22"]
    assert page.js_errors == []


def test_a_metagramme_bulletin_counts_the_letter_given_back_and_the_one_chosen(
    app: Flask, live_server: Any, page: Any, tmp_path: Path
) -> None:
    """Métagramme: 7 letters drawn (ZEIBCDS); « -S +A » gives the S back and takes an A from
    the stock. « H7 ZA 22 » lacks the A; « H7 ZAS 24 -S +A » needs the S given back; « H7 ZA
    22 -S +A » is sent. ZA at H7 = (10 + 1) × 2 = 22; ZAS = (10 + 1 + 1) × 2 = 24."""
    variant_game(app, tmp_path, "M1", "metagramme", "ZEIBCDS")
    base = live_server.url
    sign_in_by_link(page, app, base, "ana@example.ro")
    page.goto(base + "/duplicate/M1")
    send(page, "H7 ZA 22")
    expect(page.locator("#bulletin-refused")).to_have_text(
        "Bulletin non envoyé : ZA en H7 prend des lettres que le tirage ZEIBCDS ne donne pas"
        " : A.")
    send(page, "H7 ZAS 24 -S +A")
    expect(page.locator("#bulletin-refused")).to_have_text(
        "Bulletin non envoyé : ZAS en H7 prend des lettres que le tirage ZEIBCDS ne donne pas"
        " : S.")
    send(page, "H7 ZA 22 -S +A")
    expect(page.locator(".flash.success")).to_contain_text("Bulletin reçu.")
    assert bulletins(app) == ["H7 ZA 22 -S +A"]
    assert page.js_errors == []


def test_round_two_the_grid_letters_a_word_crosses_are_not_asked_of_the_draw(
    app: Flask, live_server: Any, page: Any, tmp_path: Path
) -> None:
    """Round 2 of the game above (the bag of tests/web/za_game.py): the master grid holds
    round 1's top, ZA at H7 (Z on H7, A on the star H8), and the draw is the reliquat EIBCD
    + SE. « H7 ZAS » takes only its S from the draw (Z and A are on the grid): sent; « H7
    ZAX » still lacks its X. ZAS at H7 = 10 + 1 + 1 = 12 (the star is already covered)."""
    words = tmp_path / "za.txt"
    words.write_text("ZA\nZAS\n", "utf-8")
    app.config["LEXICONS"] = {"za": str(words)}
    start = clock.now() - timedelta(days=1, hours=1)
    with app.app_context(), Session(get_engine(app), expire_on_commit=False) as s:
        comp = problems.create_competition(session=s, slug="dup", name="Duplicate")
        ana = create_player(session=s, name="Ana Popescu", email="ana@example.ro")
        problems.register(session=s, competition=comp, player=ana)
        duplicate.create_game(
            session=s, competition=comp, title="Duplicate du lundi", code="D1",
            settings=DuplicateSettings(lang="fr", rounds=2),
            rhythm={"kind": "hours", "hours": 24}, starts_at=start,
            lexicon_name="za", bag_order=full_bag())
        s.commit()
    with app.app_context():
        assert lifecycle.run_due(now=start + timedelta(minutes=1)) == ["draw:D1:1"]
        assert lifecycle.run_due(now=clock.now()) == [
            "close:D1:1", "correct:D1:1", "publish:D1:1", "draw:D1:2"]
    base = live_server.url
    sign_in_by_link(page, app, base, "ana@example.ro")
    page.goto(base + "/duplicate/D1")
    data = json.loads(page.locator("#duplicate-data").text_content())
    assert sorted(data["rack"]) == sorted("EIBCD" + "SE")
    assert data["cgp"].split()[0].split("/")[7] == "6ZA7"  # row H: Z on H7, A on H8
    page.fill("#bulletin", "H7 ZAS")
    expect(page.locator("#bulletin-preview")).to_have_text("ZAS en H7 : 12 points.")
    send(page, "H7 ZAX 21")
    expect(page.locator("#bulletin-refused")).to_have_text(
        "Bulletin non envoyé : ZAX en H7 prend des lettres que le tirage "
        f"{data['rack']} ne donne pas : X.")
    send(page, "H7 ZAS 12")
    expect(page.locator(".flash.success")).to_contain_text("Bulletin reçu.")
    assert bulletins(app) == ["H7 ZAS 12"]
    assert page.js_errors == []


def test_raccord_letters_at_their_places_and_the_vertical_mark_are_kept(
    app: Flask, live_server: Any, page: Any, tmp_path: Path
) -> None:
    """Issue 20 §3: raccord letters copied where they stand (« Z@0,0 A@+1,0 ») and the mark
    of a word written downwards (« (vertical) ») are no word for the page: written after the
    word they leave the preview on ZAS (round 2 of the game above: ZAS at H7 = 10 + 1 + 1 =
    12); without a reference they locate the word for the preview as the server does; a
    click on the grid keeps them, and the server stores them as placed letters. S1 4.3.1:
    « Une lettre de raccord est une lettre déjà placée sur la grille, reportée sur le
    bulletin de jeu »."""
    words = tmp_path / "za.txt"
    words.write_text("ZA\nZAS\n", "utf-8")
    app.config["LEXICONS"] = {"za": str(words)}
    start = clock.now() - timedelta(days=1, hours=1)
    with app.app_context(), Session(get_engine(app), expire_on_commit=False) as s:
        comp = problems.create_competition(session=s, slug="dup", name="Duplicate")
        ana = create_player(session=s, name="Ana Popescu", email="ana@example.ro")
        problems.register(session=s, competition=comp, player=ana)
        duplicate.create_game(
            session=s, competition=comp, title="Duplicate du lundi", code="D1",
            settings=DuplicateSettings(lang="fr", rounds=2),
            rhythm={"kind": "hours", "hours": 24}, starts_at=start,
            lexicon_name="za", bag_order=full_bag())
        s.commit()
    with app.app_context():
        assert lifecycle.run_due(now=start + timedelta(minutes=1)) == ["draw:D1:1"]
        assert lifecycle.run_due(now=clock.now()) == [
            "close:D1:1", "correct:D1:1", "publish:D1:1", "draw:D1:2"]
    base = live_server.url
    sign_in_by_link(page, app, base, "ana@example.ro")
    page.goto(base + "/duplicate/D1")
    expect(page.locator("#bulletin-raccord-help")).to_contain_text(
        "« R@+1,0 M@+3,0 O@+1,+1 KRUMPS 56 »")
    page.fill("#bulletin", "H7 ZAS Z@0,0 A @ +1 , 0 12")
    expect(page.locator("#bulletin-preview")).to_have_text("ZAS en H7 : 12 points.")
    # without a reference the placed letters locate the word in the page too: only H7 has
    # the Z and the A there for a ZAS the draw can make (down column 7 it would take an A)
    page.fill("#bulletin", "Z@0,0 A@+1,0 ZAS 12")
    expect(page.locator("#bulletin-preview")).to_have_text("ZAS en H7 : 12 points.")
    page.fill("#bulletin", "Z@0,0 A@+1,+1 ZAS 12")  # no A under the Z's right neighbour
    expect(page.locator("#bulletin-preview")).to_have_text(
        "Cliquez sur la case de la première lettre, puis tapez le mot.")
    page.fill("#bulletin", "(vertical) Z@0,0 A@+1,0 ZAS 12")
    h7 = 7 * 15 + 6  # the Z of round 1's top: its tile takes the click
    page.click(f'#grille-maitre g.tile[data-sq="{h7}"]')
    expect(page.locator("#bulletin")).to_have_value("H7 (vertical) Z@0,0 A@+1,0 ZAS 12")
    expect(page.locator("#bulletin-preview")).to_have_text("ZAS en H7 : 12 points.")
    send(page, "Z@0,0 A@+1,0 ZAS 12")
    expect(page.locator(".flash.success")).to_contain_text("Bulletin reçu.")
    assert bulletins(app) == ["Z@0,0 A@+1,0 ZAS 12"]
    with app.app_context(), Session(get_engine(app)) as s:
        entry = s.exec(select(DuplicateEntry)).one()
        assert entry.bulletin == {"word": "ZAS", "ref": None, "raccord": None, "claimed": 12,
                                  "raccord_at": [["Z", 0, 0], ["A", 1, 0]]}
    assert page.js_errors == []
