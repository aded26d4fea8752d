"""The correspondence game's score sheet as a printable document that rebuilds the game, and a
game ended by play (not on time) on the server: four passes, the leftover letters, a draw
(issue 12 audit, /tmp/team/issue12-audit.md; RULES §8.1; docs/VARIANTS.md « Server »).

Word list {ZA, ZAS} (nobody can play on a row of E's). The row: 14 E's (French E = 1), RED
holds EEEEEEE, BLUE EEEEEEE, nothing left to draw.
- Ana (RED) passes by the web at START + 1 h (thinking time 1h00), Bob (BLUE) by mail at
  START + 3 h 30 (2h30), Ana by mail at START + 4 h (0h30), Bob by the web at START + 30 h
  (26h00): four passes in a row end the game (G16: ``passes_to_end`` 4).
- Leftovers: each loses his 7 E's, 7 × 1 = 7; nobody went out, so nothing is added (E20):
  RED 0 − 7 = −7, BLUE 0 − 7 = −7 → a draw, ½ – ½.
- Series: Ana and Bob 1 game, 1 draw, 0,5 point, spread 0; coefficient 1500 + 20 × (½ − ½)
  = 1500,0 each (Elo, K = 20, expectation 1 / (1 + 10^0) = ½); equal on points, spread and
  coefficient: they share rank 1.
- A second game, Ana (RED) against Cid, created after the first ended: its sheet's front
  gives RED's previous coefficient 1500.0 and rank 1, and the arbitre who created it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from puzzles.correspondence import parse_sheet
from tests.web.test_correspondence_game import sheet_rows, text_of
from tests.web.test_duplicate import START, _mail, _outbox
from tests.web.test_pages import login_arbitre, login_player
from webapp.models import Arbitre, Competition, CorrespondenceGame, Player
from webapp.services import correspondence

pytestmark = pytest.mark.db

HOUR = timedelta(hours=1)
ROW = "E" * 14


def _game(db_session: Session, code: str) -> CorrespondenceGame:
    db_session.expire_all()
    return db_session.exec(select(CorrespondenceGame).where(
        CorrespondenceGame.code == code)).one()


def test_a_draw_by_passes_and_the_printable_sheet_that_rebuilds_it(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    words = tmp_path / "za.txt"
    words.write_text("ZA\nZAS\n", "utf-8")
    app.config["LEXICONS"] = {"za": str(words)}
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    cid = make_player("Cid", "cid@example.fr")
    frozen_clock.move_to(START)
    login_arbitre(client, db_session)  # « Juge Arbitre »
    form = {"competition_id": str(competition.id), "red_id": str(ana.id),
            "blue_id": str(bob.id), "row": ROW, "title": "", "code": "CD1",
            "lexicon": "za", "move_hours": "72", "reminder_hours": "24", "grace_hours": "24"}
    assert client.post("/console/correspondance", data=form).status_code == 302

    login_player(client, ana)
    frozen_clock.move_to(START + HOUR)
    assert client.post("/correspondance/CD1/coup", data={"coup": "passe"}).status_code == 302
    frozen_clock.move_to(START + 3 * HOUR + 30 * timedelta(minutes=1))
    assert _mail(app, bob, "Re: CD1", "passe\n-- \nBob")[1] == "processed"
    frozen_clock.move_to(START + 4 * HOUR)
    assert _mail(app, ana, "CD1", "passe")[1] == "processed"
    login_player(client, bob)
    frozen_clock.move_to(START + 30 * HOUR)
    assert client.post("/correspondance/CD1/coup", data={"coup": "passe"}).status_code == 302

    game = _game(db_session, "CD1")
    state = correspondence.state_of(game)
    assert (game.status, game.result_red, game.result_blue) == ("finished", 0.5, 0.5)
    assert state.leftover == (-7, -7) and state.totals == (0 - 7, 0 - 7)
    assert "4 passes" in game.end_reason
    finals = _outbox(db_session, correspondence.KIND_FINAL)
    assert {m.to_addr: m.subject for m in finals} == {
        "ana@example.ro": "Ana – Bob (CD1) — partie nulle",
        "bob@example.fr": "Ana – Bob (CD1) — partie nulle"}

    # the game page's sheet, laid out: the four passes with their thinking times, then the
    # end; nobody lost on time, so the page does not say « perdue au temps »
    page = client.get("/correspondance/CD1").get_data(as_text=True)
    assert sheet_rows(page) == [
        ["1", "I", "ROUGE", "", "passe", "0", "0", "1h00", "0", "0"],
        ["2", "I", "BLEU", "", "passe", "0", "0", "2h30", "0", "0"],
        ["3", "II", "ROUGE", "", "passe", "0", "0", "0h30", "0", "0"],
        ["4", "II", "BLEU", "", "passe", "0", "0", "26h00", "0", "0"]]
    assert text_of(page, "fiche-resultat") == (
        f"Fin {game.end_reason} Lettres restantes ROUGE -7, BLEU -7 Totaux ROUGE -7, BLEU -7 "
        "Résultat ROUGE ½, BLEU ½")
    assert "perdue au temps" not in page.lower()
    # the printable document: plain text, every move with its thinking time, the end
    assert 'href="/correspondance/CD1/fiche.txt"' in page
    doc = client.get("/correspondance/CD1/fiche.txt")
    assert doc.status_code == 200 and doc.mimetype == "text/plain"
    assert doc.headers["Content-Disposition"] == 'inline; filename="fisa-CD1.txt"'
    text = doc.get_data(as_text=True)
    lines = text.splitlines()
    assert lines[:8] == [
        "arbitre-fisa-de-concurs 1", "épreuve: Championnat par correspondance 2026",
        "rouge: Ana", "bleu: Bob", "arbitres: Juge Arbitre",
        "coefficient rouge: ", "rang rouge: ", f"rangée: {ROW}"]
    assert lines[9:] == [
        "coups:", "1 rouge passe 0 0 1h00", "1 bleu passe 0 0 2h30", "2 rouge passe 0 0 0h30",
        "2 bleu passe 0 0 26h00", f"fin: {game.end_reason}", "restes: -7 -7",
        "résultat: -7 -7"]
    # it rebuilds the game: same moves, grid, leftovers and totals as the server's
    header, rebuilt = parse_sheet(text, correspondence.config_of(game))
    assert (header.event, header.red, header.blue, header.arbiters) == (
        "Championnat par correspondance 2026", "Ana", "Bob", "Juge Arbitre")
    assert rebuilt.moves == state.moves and rebuilt.board_cgp == state.board_cgp
    assert rebuilt.finished and (rebuilt.leftover, rebuilt.totals) == ((-7, -7), (-7, -7))

    table = client.get(f"/correspondance/serie/{competition.id}").get_data(as_text=True)
    for name in ("Ana", "Bob"):
        assert (f'<tr class="series-row"><td>1</td><td>{name}</td><td>1</td><td>0</td>'
                '<td>1</td><td>0</td><td>0,5</td><td>0</td><td>1500,0</td></tr>') in table

    # a second game of the series: RED's previous coefficient and rank on its front
    frozen_clock.move_to(START + 31 * HOUR)
    judge = db_session.exec(select(Arbitre).where(Arbitre.username == "juge")).one()
    with client.session_transaction() as sess:
        sess.clear()
        sess["arbitre_id"] = judge.id
    assert client.post("/console/correspondance", data={
        **form, "blue_id": str(cid.id), "code": "CD2", "row": ROW}).status_code == 302
    doc2 = client.get("/correspondance/CD2/fiche.txt").get_data(as_text=True)
    assert doc2.splitlines()[2:7] == [
        "rouge: Ana", "bleu: Cid", "arbitres: Juge Arbitre", "coefficient rouge: 1500.0",
        "rang rouge: 1"]
    header2, fresh = parse_sheet(doc2, correspondence.config_of(_game(db_session, "CD2")))
    assert (header2.red_coefficient, header2.red_rank, fresh.moves) == (1500.0, 1, ())
