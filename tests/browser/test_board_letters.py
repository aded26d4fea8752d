"""Issue 13.7: the interactive board refuses a word made of letters the game does not give
the move (with the reason, in the page's language), and the rangée's board shows the next
letters of the row — not the whole stock — moving on as moves are added.

RULES §7.3: « each move uses exactly the first k letters of the remaining row, 1 ≤ k ≤ 7 …
No letter may be skipped ». The problems are drawn with fixed seeds; the letters typed are
taken from each problem's own letters in the test, so the arithmetic is the row's."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import expect
from sqlmodel import Session, select

from puzzles.generate import new_problem
from webapp.db import get_engine
from webapp.models import Player

from .test_board_games import lexicon, open_problem, signed_in  # noqa: F401 (the fixture)

pytestmark = [pytest.mark.browser, pytest.mark.db]

H8 = 7 * 15 + 7


def _type(page: Any, square: int, word: str) -> None:
    page.click(f'.ib-sq[data-sq="{square}"]')
    page.check('input[name=ib-dir][value="h"]')
    page.fill("#ib-word", word)


def test_the_rangee_board_shows_the_next_letters_and_refuses_a_skip(
    app: Flask, live_server: Any, page: Any, signed_in: dict[str, Any],  # noqa: F811
) -> None:
    pz = new_problem("rangee", seed=3, lexicon=lexicon())
    row = pz.row
    open_problem(app, signed_in["competition_id"], pz, "R1")
    page.goto(f"{live_server.url}/joueur/problemes/R1/envoyer")
    page.wait_for_selector("#interactive-board:not([hidden])")
    # no whole stock: the next 7 letters of the row, then how many follow
    expect(page.locator("#ib-stock")).to_have_count(0)
    expect(page.locator("#ib-row-next")).to_have_text(row[:7])
    expect(page.locator("#ib-row-rest")).to_have_text(f"puis encore {len(row) - 7} lettre(s)")
    # skipping the first letter: refused, with the letters due
    # (seed 3: the row starts NEIINQ…; « EI » skips the N)
    assert row.startswith("NEIINQ")
    _type(page, H8, row[1:3])
    expect(page.locator("#ib-preview .ib-error")).to_have_text(
        "À la rangée, un coup prend les lettres suivantes dans l'ordre, sans en sauter : "
        "avec 2 lettre(s), NE — pas EI.")
    expect(page.locator("#ib-add")).to_be_disabled()
    # the first two letters, in any order on the grid: accepted; the row moves on by 2
    _type(page, H8, row[1] + row[0])
    expect(page.locator("#ib-add")).to_be_enabled()
    expect(page.locator("#ib-row-next .taken")).to_have_count(2)
    page.click("#ib-add")
    expect(page.locator("#ib-row-next")).to_have_text(row[2:9])
    expect(page.locator("#ib-row-rest")).to_have_text(
        f"puis encore {len(row) - 9} lettre(s)")  # 2 taken + 7 shown


def test_a_letter_the_stock_or_the_group_lacks_is_refused_in_the_players_language(
    app: Flask, live_server: Any, page: Any, signed_in: dict[str, Any],  # noqa: F811
) -> None:
    partiel = new_problem("integral_partiel", seed=3, lexicon=lexicon())
    stock = Counter(partiel.stock)
    absent = next(ch for ch in "KWXYZJQ" if stock[ch] == 0)
    present = next(ch for ch in sorted(stock) if ch != "?" and ch != absent)
    open_problem(app, signed_in["competition_id"], partiel, "P1")
    page.goto(f"{live_server.url}/joueur/problemes/P1/envoyer")
    page.wait_for_selector("#interactive-board:not([hidden])")
    # the premium squares in French: A1 a triple word, A4 a double letter
    expect(page.locator('.ib-sq[data-sq="0"]')).to_have_text("MT")
    expect(page.locator('.ib-sq[data-sq="0"]')).to_have_attribute(
        "aria-label", "A1, mot compte triple")
    expect(page.locator('.ib-sq[data-sq="3"]')).to_have_text("LD")
    _type(page, H8, present + absent)
    expect(page.locator("#ib-preview .ib-error")).to_have_text(
        f"Lettres absentes des lettres restantes : {absent}.")
    expect(page.locator("#ib-add")).to_be_disabled()

    # an Anticipation, the page in Romanian (the player's stored choice): group 2 chosen
    anticipation = new_problem("anticipation", seed=3, lexicon=lexicon())
    group2 = anticipation.groups[1]
    absent = next(ch for ch in "KWXYZJQBCDFGHLMNPRSTV" if ch not in group2)
    letter = next(ch for ch in group2 if ch != "?")
    open_problem(app, signed_in["competition_id"], anticipation, "A1")
    with app.app_context(), Session(get_engine(app)) as s:
        for player in s.exec(select(Player)).all():
            player.locale = "ro"
            s.add(player)
        s.commit()
    page.goto(f"{live_server.url}/joueur/problemes/A1/envoyer")
    page.wait_for_selector("#interactive-board:not([hidden])")
    # the premium squares' labels and names in Romanian (A1 cuvânt triplu, B2 cuvânt dublu,
    # A4 literă dublă, B6 literă triplă)
    for square, label, name in ((0, "CT", "A1, cuvânt triplu"), (16, "CD", "B2, cuvânt dublu"),
                                (3, "LD", "A4, literă dublă"), (20, "LT", "B6, literă triplă")):
        expect(page.locator(f'.ib-sq[data-sq="{square}"]')).to_have_text(label)
        expect(page.locator(f'.ib-sq[data-sq="{square}"]')).to_have_attribute("aria-label", name)
    page.select_option("#ib-group", "2")
    _type(page, H8, letter + absent)
    expect(page.locator("#ib-preview .ib-error")).to_have_text(
        f"Litere care lipsesc din grupul 2: {absent}.")
    expect(page.locator("#ib-add")).to_be_disabled()
    _type(page, H8, "")  # nothing typed: the Romanian prompt
    expect(page.locator("#ib-preview")).to_have_text(
        "Tastați cuvântul (jokerul cu literă mică sau între paranteze: RESTAI(T)).")
