"""The interactive board's sheet, for every game type, read back by the verifier.

For each game type a problem is drawn (``puzzles.generate``, seed 3) and a legal sheet is
found for it (``puzzles.solver`` with a fixed node budget, so the same sheet every run; for
the Anticipation aveugle, the player's own groups are an Anticipation's groups played in the
aveugle's order; for the Superscrabble, the answers the solver lists; for the Superscrabble
incomplet, three construction moves the solver finds for the same letters, then four
scrabbles of the rack on that grid from the move generator). That sheet, typed by
hand, is the reference: the verifier gives it a score. Then the same moves are put on the
interactive board in Chromium (square, direction, group, word; « Passer » for a pass) and
the text the board writes must get **the same score** from the verifier.

Issue 9 (point 13): on an Anticipation, the board wrote move 1's two words as ``1 G1 …`` and
``2 G9 …``, a sheet scoring 0 where the same moves typed by hand scored 54. RULES §6.1: « Au
coup 1, le joueur [peut] jouer deux mots successifs : d'abord un mot de 2 à 4 lettres du
groupe 1, puis un mot du groupe de 7 lettres ».

Issue 9 (point 14): back on the submission page after sending a sheet, the board starts from
the version that counts, and a move added there is written after the earlier lines.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import timedelta
from functools import cache
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import expect
from sqlmodel import Session, select

from puzzles.feuille import Feuille, FeuilleMove, format_feuille
from puzzles.generate import new_problem
from puzzles.problem import GameType
from puzzles.problem import Problem as Puzzle
from puzzles.verify import MoveStatus, verify_text
from scoring.lexicon import default_lexicon
from scoring.notation import format_ref, parse_ref
from webapp.db import get_engine
from webapp.models import Submission
from webapp.services import clock, problems
from webapp.services.players import create_player

from .test_player_flow import sign_in_by_link

pytestmark = [pytest.mark.browser, pytest.mark.db]

BOARD_GAMES = list(GameType)


@cache
def lexicon() -> Any:
    return default_lexicon()


@cache
def reference(game: GameType) -> tuple[Puzzle, Feuille, str]:
    """(problem, sheet, the sheet as typed by hand) for ``game``."""
    from puzzles.solver import solve

    lex = lexicon()
    if game is GameType.SUPERSCRABBLE_INCOMPLET:
        return incomplet_reference()
    pz = new_problem(game.value, seed=3, lexicon=lex)
    if game is GameType.ANTICIPATION_AVEUGLE:
        # the player's own 15 groups: an Anticipation's, played in this problem's order
        own = new_problem("anticipation", seed=3, lexicon=lex)
        sol = solve(replace(own, order=pz.order), lex, seconds=30, seed=1, nodes=60)
        feuille = replace(sol.feuille, groups=own.groups, problem_id=pz.id)
    else:
        # a rangée's solver widens slowly: more nodes for a sheet of a few moves
        nodes = 400 if game is GameType.RANGEE else 60
        sol = solve(pz, lex, seconds=60, seed=1, nodes=nodes)
        feuille = sol.feuille
    return pz, feuille, format_feuille(feuille)


def incomplet_reference() -> tuple[Puzzle, Feuille, str]:
    from puzzles.solver import solve
    from scoring.board import Board
    from scoring.config import GameConfig
    from scoring.move import Placement
    from scoring.movegen import generate

    lex = lexicon()
    pz = new_problem("superscrabble_incomplet", seed=11, lexicon=lex)
    letters = "".join(sorted(pz.construction_stock().elements()))
    built = solve(replace(pz, game=GameType.INTEGRAL, stock=letters, rack=""), lex,
                  seconds=30, seed=1, nodes=60).feuille.moves[:3]
    board = Board()
    for m in built:
        assert m.ref is not None and m.word is not None
        Placement.from_notation(board, m.ref, m.word).apply(board)
    config = GameConfig.default(pz.lang, lex)
    scrabbles = [g for g in generate(board, pz.rack, config) if len(g.placement.tiles) == 7][:4]
    answers = tuple(FeuilleMove(number=i, ref=format_ref(g.ref), word=g.word)
                    for i, g in enumerate(scrabbles, start=1))
    feuille = Feuille(moves=tuple(built), scrabbles=answers, problem_id=pz.id)
    return pz, feuille, format_feuille(feuille)


def board_entries(pz: Puzzle, feuille: Feuille) -> list[FeuilleMove]:
    if pz.game is GameType.SUPERSCRABBLE:
        return list(feuille.scrabbles)
    return list(feuille.moves) + list(feuille.scrabbles)


def play_on_board(page: Any, moves: list[FeuilleMove], answers_from: int | None = None) -> None:
    """Put ``moves`` on the board; from index ``answers_from`` on, as Superscrabble
    incomplet answers."""
    for i, m in enumerate(moves):
        if i == answers_from:
            page.check("#ib-answers")
        if m.group is not None:
            page.select_option("#ib-group", str(m.group))
        if m.passed:
            page.click("#ib-pass")
            continue
        assert m.ref is not None and m.word is not None
        ref = parse_ref(m.ref)
        page.click(f'.ib-sq[data-sq="{ref.row * 15 + ref.col}"]')
        page.check('input[name=ib-dir][value="h"]' if ref.horizontal
                   else 'input[name=ib-dir][value="v"]')
        page.fill("#ib-word", m.word)
        page.click("#ib-add")


@pytest.fixture
def signed_in(app: Flask, live_server: Any, page: Any) -> dict[str, Any]:
    with app.app_context(), Session(get_engine(app), expire_on_commit=False) as s:
        comp = problems.create_competition(session=s, slug="jeux", name="Tous les jeux")
        ana = create_player(session=s, name="Ana Popescu", email="ana@example.ro")
        problems.register(session=s, competition=comp, player=ana)
        s.commit()
        comp_id = comp.id
    sign_in_by_link(page, app, live_server.url, "ana@example.ro")
    return {"competition_id": comp_id}


def open_problem(app: Flask, competition_id: int, pz: Puzzle, code: str) -> None:
    from webapp.models import Competition

    with app.app_context(), Session(get_engine(app), expire_on_commit=False) as s:
        comp = s.get(Competition, competition_id)
        now = clock.now()
        problems.create_problem(
            session=s, competition=comp, puzzle=pz, publish_at=now - timedelta(hours=1),
            deadline_at=now + timedelta(hours=2), code=code, status="open",
        )
        s.commit()


@pytest.mark.parametrize("game", BOARD_GAMES, ids=[g.value for g in BOARD_GAMES])
def test_the_board_writes_a_sheet_the_verifier_scores_as_typed(
    app: Flask, live_server: Any, page: Any, signed_in: dict[str, Any], game: GameType
) -> None:
    pz, feuille, typed = reference(game)
    lex = lexicon()
    expected = verify_text(pz, typed, lex)
    entries = board_entries(pz, feuille)
    assert len(entries) >= 4, "the reference sheet should have a few moves"
    assert expected.final_score > 0
    assert not expected.errors
    assert {m.status for m in expected.moves + expected.scrabbles} <= {
        MoveStatus.VALID, MoveStatus.PASSED}

    code = "J-" + game.value.replace("_", "-")
    open_problem(app, signed_in["competition_id"], pz, code)
    page.goto(f"{live_server.url}/joueur/problemes/{code}/envoyer")
    page.wait_for_selector("#interactive-board:not([hidden])")
    if game is GameType.ANTICIPATION_AVEUGLE:
        # his own groups head the sheet; the board writes the moves after them
        own = " ".join(f"{i}={g}" for i, g in enumerate(feuille.groups, start=1))
        page.fill("#feuille", f"Groupes: {own}\n")
    incomplet = game is GameType.SUPERSCRABBLE_INCOMPLET
    play_on_board(page, entries, answers_from=len(feuille.moves) if incomplet else None)
    written = page.input_value("#feuille")

    # the site's problem code is the puzzle's id (services.problems.create_problem)
    got = verify_text(replace(pz, id=code), written, lex)
    assert not got.errors, got.errors
    assert [m.status for m in got.moves + got.scrabbles] == [
        m.status for m in expected.moves + expected.scrabbles
    ]
    assert got.final_score == expected.final_score, written
    # and every line carries the move number the verifier expects
    assert [m.number for m in got.moves] == [m.number for m in expected.moves]

    # the same text reaches the server by the form and is read without an error
    page.click("text=Envoyer la feuille")
    page.wait_for_url(re.compile(r".*/joueur/feuilles/\d+$"))
    with app.app_context(), Session(get_engine(app)) as s:
        sub = s.exec(select(Submission)).one()
    assert sub.raw_text == written.replace("\n", "\r\n")
    assert sub.parse_errors == []


def test_anticipation_move_one_is_two_lines_numbered_one(
    app: Flask, live_server: Any, page: Any, signed_in: dict[str, Any]
) -> None:
    """The regression itself: group 1's word then the drawn group's word are both move 1;
    the page explains it and the third word is move 2."""
    pz, feuille, typed = reference(GameType.ANTICIPATION)
    first_three = list(feuille.moves[:3])
    assert [m.number for m in first_three] == [1, 1, 2] and first_three[0].group == 1
    open_problem(app, signed_in["competition_id"], pz, "A1")
    page.goto(f"{live_server.url}/joueur/problemes/A1/envoyer")
    page.wait_for_selector("#interactive-board:not([hidden])")
    assert "vous pouvez jouer deux mots de suite" in page.inner_text("#ib-coup1")
    play_on_board(page, first_three[:1])
    assert page.inner_text("#ib-next").startswith("1 (second mot du coup 1")
    play_on_board(page, first_three[1:])
    lines = page.input_value("#feuille").splitlines()
    assert [ln.split()[:2] for ln in lines[1:]] == [
        ["1", "G1"], ["1", f"G{first_three[1].group}"], ["2", f"G{first_three[2].group}"]
    ]
    assert page.inner_text("#ib-next") == "3"


def test_back_on_the_board_after_sending_the_moves_are_there(
    app: Flask, live_server: Any, page: Any, signed_in: dict[str, Any]
) -> None:
    pz, feuille, _ = reference(GameType.INTEGRAL)
    pz = replace(pz, id="I1")
    typed = format_feuille(replace(feuille, problem_id="I1"))
    lex = lexicon()
    moves = list(feuille.moves)
    open_problem(app, signed_in["competition_id"], pz, "I1")
    url = f"{live_server.url}/joueur/problemes/I1/envoyer"
    page.goto(url)
    page.wait_for_selector("#interactive-board:not([hidden])")
    # the first three moves typed by hand, with a comment of the player's own, then sent
    first = verify_text(pz, typed, lex)
    hand = "# ma feuille\n" + "\n".join(typed.splitlines()[:5]) + "\n"
    assert [ln.split("|")[0].strip() for ln in hand.splitlines()[3:]] == ["1", "2", "3"]
    page.fill("#feuille", hand)
    page.click("text=Envoyer la feuille")
    page.wait_for_url(re.compile(r".*/joueur/feuilles/\d+$"))

    # back on the page: the board shows the three moves of the version that counts
    page.goto(url)
    page.wait_for_selector("#interactive-board:not([hidden])")
    assert page.locator("#ib-moves tr").count() == 3
    assert page.locator(".ib-sq.tile").count() == sum(len(m.letters or "") for m in moves[:3])
    assert page.inner_text("#ib-next") == "4"
    # move 4 on the board: appended; the earlier lines and the comment stay
    play_on_board(page, moves[3:4])
    written = page.input_value("#feuille")
    assert written.startswith(hand)
    assert written[len(hand):].split()[:1] == ["4"]
    got = verify_text(pz, written, lex)
    # the first four moves of the reference sheet: its score vector up to move 4
    expected4 = sum(m.score for m in first.moves[:4])
    assert got.final_score == expected4 and not got.errors
    # « Retirer le dernier coup » takes back move 4's line only
    page.click("#ib-undo")
    assert page.input_value("#feuille") == hand
    assert page.locator("#ib-moves tr").count() == 3


def test_relire_la_feuille_puts_a_text_edited_by_hand_back_on_the_board(
    app: Flask, live_server: Any, page: Any, signed_in: dict[str, Any]
) -> None:
    pz, feuille, _ = reference(GameType.INTEGRAL)
    pz = replace(pz, id="I2")
    typed = format_feuille(replace(feuille, problem_id="I2"))
    moves = list(feuille.moves)
    open_problem(app, signed_in["competition_id"], pz, "I2")
    page.goto(f"{live_server.url}/joueur/problemes/I2/envoyer")
    page.wait_for_selector("#interactive-board:not([hidden])")
    assert page.locator("#ib-moves tr").count() == 0
    # five moves pasted by hand: the board says it no longer follows the text
    hand = "\n".join(typed.splitlines()[:7]) + "\n"  # header, titles, moves 1-5
    page.fill("#feuille", hand)
    page.dispatch_event("#feuille", "input")
    assert "modifiée à la main" in page.inner_text("#ib-note")
    page.click("#ib-reload")
    expect(page.locator("#ib-note")).to_have_text("Grille relue : 5 coup(s).", timeout=30_000)
    assert page.locator("#ib-moves tr").count() == 5
    assert page.inner_text("#ib-next") == "6"
    play_on_board(page, moves[5:6])
    written = page.input_value("#feuille")
    assert written.startswith(hand) and written[len(hand):].split()[:1] == ["6"]
    lex = lexicon()
    expected = verify_text(pz, typed, lex)
    got = verify_text(pz, written, lex)
    assert not got.errors
    assert got.final_score == sum(m.score for m in expected.moves[:6])
