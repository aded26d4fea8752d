"""Sheets refused or held back before they replace the version that counts (issue 9):

- a sheet longer than any solution of the problem (``puzzles.limits``) is refused with a
  French message, by the web form and by ``submit_sheet`` itself (the mail path), and
  nothing is stored;
- on the web, a version with unreadable lines does not silently replace a readable one: the
  form shows the lines and asks; confirmed, it is stored (and the outcome says so).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, col, select

from webapp.models import Channel, Player, Problem, Submission
from webapp.services import clock
from webapp.services.submissions import SubmissionRefused, submit_sheet

from .test_pages import SHEET, login_player

pytestmark = pytest.mark.db

#: n one-letter moves; the cumul is written right (2 points a move) so only the count matters
def short_moves(n: int) -> str:
    return "".join(f"{k} A A1 AA 2 {2 * k}\n" for k in range(1, n + 1))


@pytest.fixture
def ana(make_player: Callable[..., Player]) -> Player:
    return make_player("Ana Popescu", "ana@example.ro")


@pytest.fixture
def p1(make_problem: Callable[..., Problem]) -> Problem:
    return make_problem(code="P1")  # an Intégral with the whole French bag (102 tiles)


def subs(db_session: Session) -> list[Submission]:
    db_session.expire_all()
    return list(db_session.exec(select(Submission).order_by(col(Submission.id))).all())


def test_a_sheet_longer_than_any_solution_is_refused_and_the_text_kept(
    client: FlaskClient, ana: Player, p1: Problem, db_session: Session, frozen_clock: Any
) -> None:
    """102 tiles, at least 2 at move 1 and 1 at each later move: at most 101 moves; with the
    margin of 10 lines a sheet may hold 111. 112 lines are refused."""
    login_player(client, ana)
    resp = client.post("/joueur/problemes/P1/envoyer", data={"feuille": SHEET})
    assert resp.status_code == 302
    long_sheet = short_moves(112)
    resp = client.post("/joueur/problemes/P1/envoyer", data={"feuille": long_sheet})
    assert resp.status_code == 400
    shown = html.unescape(resp.get_data(as_text=True))
    assert ("Cette feuille compte 112 coups ou lignes, alors qu'une solution de ce problème "
            "(Scrabble intégral) en a au plus 101 : au-delà de 111 lignes, la feuille n'est "
            "pas enregistrée.") in shown
    assert "votre version précédente, s'il y en a une, reste celle qui compte" in shown
    assert long_sheet.splitlines()[-1] in shown  # the text is given back in the form
    assert [s.raw_text for s in subs(db_session)] == [SHEET]
    # 111 lines: taken
    resp = client.post("/joueur/problemes/P1/envoyer", data={"feuille": short_moves(111)})
    assert resp.status_code == 302
    assert len(subs(db_session)) == 2


def test_the_mail_path_refuses_it_too(
    app: Flask, ana: Player, p1: Problem, db_session: Session, frozen_clock: Any
) -> None:
    with app.app_context(), pytest.raises(SubmissionRefused, match="compte 10001 coups"):
        submit_sheet(session=db_session, player=ana, problem=p1, text=short_moves(10001),
                     channel=Channel.EMAIL, received_at=clock.now())
    db_session.rollback()
    assert subs(db_session) == []


def test_unreadable_version_asks_before_replacing_a_readable_one(
    client: FlaskClient, ana: Player, p1: Problem, db_session: Session, frozen_clock: Any
) -> None:
    login_player(client, ana)
    assert client.post("/joueur/problemes/P1/envoyer", data={"feuille": SHEET}).status_code == 302
    broken = "1 ACEFHIR h8 FICHERA 82 82\n2 SUW WUS 84 166\n"
    resp = client.post("/joueur/problemes/P1/envoyer", data={"feuille": broken})
    assert resp.status_code == 200
    shown = html.unescape(resp.get_data(as_text=True))
    assert "Cette feuille a 1 ligne(s) illisible(s)" in shown
    assert "alors que votre version 1, reçue le 10/05/2026 à 13:00" in shown
    assert "Ligne 2 : référence manquante ou illisible" in shown
    assert "Elle n'a pas encore été enregistrée" in shown
    assert 'name="confirmer"' in shown
    assert broken.splitlines()[1] in shown  # kept in the text area
    assert [s.raw_text for s in subs(db_session)] == [SHEET]  # the readable one still counts

    # confirmed: stored as version 2, with its errors, as the receipt shows
    resp = client.post("/joueur/problemes/P1/envoyer",
                       data={"feuille": broken, "confirmer": "1"})
    assert resp.status_code == 302
    stored = subs(db_session)
    assert [s.version for s in stored] == [1, 2] and stored[1].raw_text == broken
    assert stored[1].parse_errors
    receipt = html.unescape(client.get(resp.headers["Location"]).get_data(as_text=True))
    assert ("Cette version remplace votre version 1, qui se lisait entièrement : c'est "
            "désormais celle-ci qui compte, avec ses lignes illisibles.") in receipt

    # the version that counts is now unreadable: a third unreadable one is not held back
    worse = broken + "3 n'importe quoi\n"
    resp = client.post("/joueur/problemes/P1/envoyer", data={"feuille": worse})
    assert resp.status_code == 302
    assert len(subs(db_session)) == 3
    receipt = html.unescape(client.get(resp.headers["Location"]).get_data(as_text=True))
    assert "Lignes non comprises" in receipt and "qui se lisait entièrement" not in receipt


def test_the_outcome_tells_the_mail_side(
    app: Flask, ana: Player, p1: Problem, db_session: Session, frozen_clock: Any
) -> None:
    with app.app_context():
        first = submit_sheet(session=db_session, player=ana, problem=p1, text=SHEET,
                             channel=Channel.EMAIL, received_at=clock.now())
        assert not first.replaces_readable  # nothing before it
        second = submit_sheet(session=db_session, player=ana, problem=p1,
                              text="1 ACEFHIR h8 FICHERA 82 82\n2 SUW WUS 84 166\n",
                              channel=Channel.EMAIL, received_at=clock.now())
        assert second.errors and second.replaces_readable
        third = submit_sheet(session=db_session, player=ana, problem=p1, text="2 SUW\n",
                             channel=Channel.EMAIL, received_at=clock.now())
        assert third.errors and not third.replaces_readable  # it replaces an unreadable one
        db_session.commit()


def test_the_board_reads_a_text_back_without_storing_it(
    client: FlaskClient, ana: Player, p1: Problem, db_session: Session, frozen_clock: Any
) -> None:
    url = "/joueur/problemes/P1/grille"
    assert client.post(url, data={"feuille": SHEET}).status_code == 302  # sign in first
    login_player(client, ana)
    resp = client.post(url, data={"feuille": SHEET + "n'importe quoi\n"})
    assert resp.status_code == 200
    assert resp.get_json() == {"moves": [
        {"number": 1, "group": None, "ref": "H8", "word": "FICHERA", "passed": False,
         "annul": [], "score": 82, "answer": False},
        {"number": 2, "group": None, "ref": "15F", "word": "WUS", "passed": False,
         "annul": [], "score": 84, "answer": False},
    ]}
    assert subs(db_session) == []
    assert client.post("/joueur/problemes/NOPE/grille", data={"feuille": SHEET}).status_code == 404
