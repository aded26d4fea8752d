"""The two-player correspondence game on the server (docs/VARIANTS.md « Server »): created on
the console, moves by the web page and by mail, whose turn, French refusals, the reminder,
the loss on time after the grace, the score sheet page and the series table.

Word list {ZA, ZAS}; the row ZAEIBCD SEOUFGH AE…: RED holds ZAEIBCD, BLUE SEOUFGH.
- Move 1, RED: H8 ZA (Z on the star H8, A on H9) = (10 + 1) × 2 = 22 made; round I caps
  RED's recorded score at 10 (« I: 10 / 20 », RULES §8.1): recorded 10. RED refills A E.
- Move 2, BLUE: H8 ZAS (S on H10, no premium) = 10 + 1 + 1 = 12 made; BLUE's cap in round I
  is 20: recorded 12.
- Move 3, RED: nothing. The deadline is 72 hours after BLUE's move, the reminder 24 hours
  before it, the loss on time 24 hours (the grace) after it: RED loses, 0 – 1.
Series: BLUE 1 win, RED 1 loss; the spread is the recorded scores, 12 − 10 = 2 (a game lost
on time by the player who was ahead would count as won by 1 point instead); coefficients
from 1500, K = 20, expectation ½: BLUE 1500 + 20 × (1 − ½) = 1510, RED 1490.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from scoring.tiles import tileset
from tests.web.test_duplicate import START, _mail, _outbox
from tests.web.test_pages import login_arbitre, login_player
from webapp.models import Competition, CorrespondenceGame, Player
from webapp.services import clock, correspondence, lifecycle

pytestmark = pytest.mark.db

HOUR = timedelta(hours=1)
HEAD = "ZAEIBCDSEOUFGHAE"


def _row() -> str:
    rest = tileset("fr").bag() - Counter(HEAD)
    return HEAD + "".join(sorted(rest.elements()))[:30]


def test_correspondence_game_end_to_end(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    words = tmp_path / "za.txt"
    words.write_text("ZA\nZAS\n", "utf-8")
    app.config["LEXICONS"] = {"za": str(words)}
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    frozen_clock.move_to(START)
    login_arbitre(client, db_session)
    form = {"competition_id": str(competition.id), "red_id": str(ana.id),
            "blue_id": str(bob.id), "row": _row(), "title": "", "code": "CO1",
            "lexicon": "za", "move_hours": "72", "reminder_hours": "24", "grace_hours": "24"}
    bad = client.post("/console/correspondance", data={**form, "row": "ZAEIBCDWWW"})
    assert bad.status_code == 400
    assert "La rangée doit compter au moins 14 lettres" in bad.get_data(as_text=True)
    same = client.post("/console/correspondance", data={**form, "blue_id": str(ana.id)})
    assert "ROUGE et BLEU doivent être deux joueurs différents." in same.get_data(as_text=True)
    assert client.post("/console/correspondance", data=form).status_code == 302
    db_session.expire_all()
    game = db_session.exec(select(CorrespondenceGame)).one()
    assert (game.title, game.red_id, game.blue_id) == ("Ana – Bob", ana.id, bob.id)
    [turn1] = _outbox(db_session, correspondence.KIND_TURN)
    assert turn1.to_addr == "ana@example.ro"
    assert "Votre chevalet : ZAEIBCD" in turn1.body_text

    # Bob may not play first; Ana plays by the web page
    login_player(client, bob)
    page = client.get("/correspondance/CO1").get_data(as_text=True)
    assert 'name="coup"' not in page and "Au tour de ROUGE (coup 1)" in page
    resp = client.post("/correspondance/CO1/coup", data={"coup": "H8 ZAS"})
    assert resp.status_code == 400
    assert "Ce n&#39;est pas votre tour" in resp.get_data(as_text=True)
    login_player(client, ana)
    frozen_clock.move_to(START + HOUR)
    resp = client.post("/correspondance/CO1/coup", data={"coup": "H8 ZAS"})
    assert resp.status_code == 400  # no S in Ana's rack: refused, nothing played
    assert "demande des lettres absentes du chevalet ZAEIBCD" in resp.get_data(as_text=True)
    assert client.post("/correspondance/CO1/coup", data={"coup": "H8 ZA"}).status_code == 302
    db_session.expire_all()
    game = db_session.exec(select(CorrespondenceGame)).one()
    state = correspondence.state_of(game)
    assert [(m.ref, m.word, m.score, m.recorded) for m in state.moves] == [
        ("H8", "ZA", 22, 10)]
    assert state.racks[0] == "EIBCDAE"  # the 5 letters left, then A E from the row

    # Bob by mail, the game's code in the subject
    turn2 = _outbox(db_session, correspondence.KIND_TURN)[-1]
    assert turn2.to_addr == "bob@example.fr" and "Coup de votre adversaire : H8 ZA (22 " \
        "points)." in turn2.body_text
    frozen_clock.move_to(START + 2 * HOUR)
    from webapp.services import changes

    db_session.commit()
    before = changes.current(db_session.connection())
    assert _mail(app, bob, "Re: CO1", "H8 ZAS\n-- \nBob")[1] == "processed"
    db_session.commit()
    # the move set a new deadline: the scheduler's change counter moved (it replans now)
    assert changes.current(db_session.connection()) == before + 1
    db_session.expire_all()
    game = db_session.exec(select(CorrespondenceGame)).one()
    state = correspondence.state_of(game)
    assert [(m.ref, m.word, m.score, m.recorded) for m in state.moves][-1] == (
        "H8", "ZAS", 12, 12)
    assert state.recorded == (10, 12)
    assert game.turn_started_at == START + 2 * HOUR

    # the reminder 24 hours before Ana's deadline (START + 2 h + 72 h), once
    frozen_clock.move_to(START + 50 * HOUR - timedelta(seconds=1))
    assert correspondence.run_due(now=clock.now()) == []
    assert START + 50 * HOUR in lifecycle.upcoming_instants(now=clock.now())
    frozen_clock.move_to(START + 50 * HOUR)
    assert lifecycle.run_due(now=clock.now()) == ["remind:CO1:3"]
    assert lifecycle.run_due(now=clock.now()) == []
    [reminder] = _outbox(db_session, correspondence.KIND_REMINDER)
    assert reminder.to_addr == "ana@example.ro"
    # still in play: the grace is said, « perdue au temps » is not (nobody has lost yet);
    # START + 98 h = 14/05 12:00 UTC, 15:00 in Bucharest (summer time, UTC+3): the site's
    # zone, the game's by default
    playing = client.get("/correspondance/CO1").get_data(as_text=True)
    assert "perdue au temps" not in playing.lower()
    assert text_of(playing, "tolerance") == (
        "Tolérance : un coup reçu jusqu’au 14/05/2026 à 15:00 (Europe/Bucharest, UTC+03:00) "
        "compte encore.")
    # lost on time: the deadline (START + 74 h) plus the grace (24 h)
    frozen_clock.move_to(START + 98 * HOUR - timedelta(seconds=1))
    assert correspondence.run_due(now=clock.now()) == []
    frozen_clock.move_to(START + 98 * HOUR)
    assert lifecycle.run_due(now=clock.now()) == ["time:CO1:3"]
    db_session.expire_all()
    game = db_session.exec(select(CorrespondenceGame)).one()
    assert (game.status, game.result_red, game.result_blue) == ("finished", 0.0, 1.0)
    assert game.end_reason.startswith("ROUGE perd au temps")
    finals = _outbox(db_session, correspondence.KIND_FINAL)
    assert {m.to_addr: m.subject for m in finals} == {
        "ana@example.ro": "Ana – Bob (CO1) — partie perdue",
        "bob@example.fr": "Ana – Bob (CO1) — partie gagnée"}
    # a move now is refused in French
    assert _mail(app, ana, "CO1", "H7 ZA")[1] == "processed"
    assert "La partie CO1 est terminée" in _outbox(db_session, correspondence.KIND_TURN)[
        -1].body_text

    page = client.get("/correspondance/CO1").get_data(as_text=True)
    # the sheet's back, laid out: move, round, colour, ref, word, made, credited (the cap
    # explained), thinking time (1 h each: START → START + 1 h → START + 2 h), running totals
    assert sheet_rows(page) == [
        ["1", "I", "ROUGE", "H8", "ZA", "22",
         "10 ZA 22 points, crédité 10 : plafond d'ouverture (tour I)", "1h00", "10", "0"],
        ["2", "I", "BLEU", "H8", "ZAS", "12", "12", "1h00", "10", "12"]]
    # lost on time: said once it happened, with the loser; the sheet's end says the result
    assert "Perdue au temps : ROUGE (Ana)." in page
    assert text_of(page, "fiche-resultat").endswith("Résultat ROUGE 0, BLEU 1")
    raw = client.get("/correspondance/CO1/fiche.txt").get_data(as_text=True)
    assert "1 rouge H8 ZA 22 10 1h00" in raw and "1 bleu H8 ZAS 12 12 1h00" in raw
    table = client.get(f"/correspondance/serie/{competition.id}").get_data(as_text=True)
    assert ('<tr class="series-row"><td>1</td><td>Bob</td><td>1</td><td>1</td><td>0</td>'
            '<td>0</td><td>1,0</td><td>2</td><td>1510,0</td></tr>') in table
    assert ('<tr class="series-row"><td>2</td><td>Ana</td><td>1</td><td>0</td><td>0</td>'
            '<td>1</td><td>0,0</td><td>-2</td><td>1490,0</td></tr>') in table
    # round robin of the two registered players: one round, Ana (first by name) RED
    assert "<li>Ana (ROUGE) – Bob (BLEU)</li>" in table


def test_series_round_robin_in_one_step(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """The arbitre creates a whole series on the console: the row fixed once, four players
    → 4 × 3 / 2 = 6 games, every pair once, all started now, RED to move in each. Colours
    (puzzles.correspondence.round_robin, players in the order Ana, Bob, Cid, Dan):
    round 1 Ana–Dan, Bob–Cid; round 2 Cid–Ana, Dan–Bob; round 3 Ana–Bob, Cid–Dan (RED
    first): Ana and Cid RED twice, Bob and Dan once — 3 games each, RED in half ± 1. Six
    « à vous de jouer » mails, one to each game's RED. A group of one, a pair that already
    has a game in the series, a player not registered: French refusals, nothing created."""
    words = tmp_path / "za.txt"
    words.write_text("ZA\nZAS\n", "utf-8")
    app.config["LEXICONS"] = {"za": str(words)}
    group = [make_player(n, f"{n.lower()}@example.fr") for n in ("Ana", "Bob", "Cid", "Dan")]
    frozen_clock.move_to(START)
    login_arbitre(client, db_session)
    page = client.get("/console/duplicate").get_data(as_text=True)
    assert 'href="/console/correspondance">Correspondance</a>' in page  # the console menu
    url = "/console/correspondance/serie"
    form = {"series_competition_id": str(competition.id), "series_row": _row(),
            "code_prefix": "S", "series_lexicon": "za", "series_move_hours": "72",
            "series_reminder_hours": "24", "series_grace_hours": "24"}
    one = client.post(url, data={**form, "player_ids": [str(group[0].id)]})
    assert one.status_code == 400
    assert "au moins deux joueurs" in one.get_data(as_text=True)
    outsider = correspondence_outsider(db_session)
    bad = client.post(url, data={**form, "player_ids": [str(p.id) for p in group]
                                 + [str(outsider.id)]})
    assert bad.status_code == 400 and "n&#39;est pas inscrit" in bad.get_data(as_text=True)
    assert db_session.exec(select(CorrespondenceGame)).all() == []  # all or nothing

    resp = client.post(url, data={**form, "player_ids": [str(p.id) for p in group]})
    assert resp.status_code == 302
    assert resp.headers["Location"].endswith(f"/correspondance/serie/{competition.id}")
    db_session.expire_all()
    games = db_session.exec(select(CorrespondenceGame).order_by(CorrespondenceGame.id)).all()
    names = {p.id: p.name for p in group}
    assert [(g.code, names[g.red_id], names[g.blue_id]) for g in games] == [
        ("S-1-1", "Ana", "Dan"), ("S-1-2", "Bob", "Cid"), ("S-2-1", "Cid", "Ana"),
        ("S-2-2", "Dan", "Bob"), ("S-3-1", "Ana", "Bob"), ("S-3-2", "Cid", "Dan")]
    assert {g.row for g in games} == {_row()}
    assert {g.turn_started_at for g in games} == {START} and all(not g.moves for g in games)
    red = Counter(names[g.red_id] for g in games)
    assert red == {"Ana": 2, "Cid": 2, "Bob": 1, "Dan": 1}
    assert sorted(m.to_addr for m in _outbox(db_session, correspondence.KIND_TURN)) == sorted(
        f"{names[g.red_id].lower()}@example.fr" for g in games)
    assert games[0].title == "Tour 1 : Ana – Dan"
    again = client.post(url, data={**form, "code_prefix": "T",
                                   "player_ids": [str(group[0].id), str(group[1].id)]})
    assert again.status_code == 400
    assert "Ana et Bob ont déjà une partie dans la série" in again.get_data(as_text=True)
    assert len(db_session.exec(select(CorrespondenceGame)).all()) == 6
    series = client.get(f"/correspondance/serie/{competition.id}").get_data(as_text=True)
    assert "S-3-2" in series


def text_of(page: str, element_id: str) -> str:
    """The text of the element with this id, nested elements included (tags dropped,
    blanks folded, entities decoded)."""
    from html.parser import HTMLParser

    class Finder(HTMLParser):
        void = {"br", "img", "input", "meta", "link", "hr", "wbr", "source"}

        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.depth, self.parts, self.found = 0, [], False

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if self.depth:
                self.depth += tag not in self.void
                self.parts.append(" ")
            elif dict(attrs).get("id") == element_id and not self.found:
                self.depth, self.found = 1, True

        def handle_endtag(self, tag: str) -> None:
            if self.depth:
                self.depth -= 1
                self.parts.append(" ")

        def handle_data(self, data: str) -> None:
            if self.depth:
                self.parts.append(data)

    finder = Finder()
    finder.feed(page)
    assert finder.found, element_id
    return " ".join("".join(finder.parts).split())


def sheet_rows(page: str) -> list[list[str]]:
    """The back of the fișa on the game page: one list of cell texts per move."""
    rows = re.findall(r'<tr class="fisa-move[^"]*"[^>]*>(.*?)</tr>', page, re.S)
    return [[" ".join(html.unescape(re.sub(r"<[^>]+>", " ", c)).split())
             for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)] for r in rows]


def correspondence_outsider(db_session: Session) -> Player:
    """A player registered in no series."""
    from webapp.services import players

    p = players.create_player(session=db_session, name="Eve", email="eve@example.fr")
    db_session.commit()
    return p


def test_a_drawn_row_comes_from_the_one_secret_seed_source() -> None:
    """The correspondence row and the Duplicate bag draw from the same kind of seed
    (``puzzles.seeds``): a fresh 128-bit secret one, or a given one in the same bounds."""
    from puzzles.seeds import MAX_SEED, SECRET_SEED_BITS
    from webapp.services import duplicate

    assert correspondence.MAX_ROW_SEED == duplicate.MAX_GIVEN_SEED == MAX_SEED == 2**128 - 1
    drawn = [correspondence.draw_row("", None, "fr") for _ in range(8)]
    seeds = [int(seed) for _row, seed in drawn]
    assert len(set(seeds)) == 8 and all(0 <= s < 1 << SECRET_SEED_BITS for s in seeds)
    assert max(s.bit_length() for s in seeds) > 120  # all 8 below 2**120: once in 2**64
    for row, seed in drawn:
        assert Counter(row) == tileset("fr").bag()
        assert correspondence.draw_row(row, int(seed), "fr") == (row, seed)
    assert correspondence.draw_row("", MAX_SEED, "ro")[0] == correspondence.draw_row(
        "", MAX_SEED, "ro")[0]
    with pytest.raises(correspondence.CorrespondenceError, match="de 0 à"):
        correspondence.draw_row("", MAX_SEED + 1, "fr")
    with pytest.raises(correspondence.CorrespondenceError, match="Langue inconnue"):
        correspondence.draw_row("", 1, "de")


def test_a_move_mailed_in_time_and_not_yet_processed_is_played_not_lost_on_time(
    app: Flask, ctx: Flask, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A move the SMTP intake accepted before the end of the grace but had not processed yet
    (a backlog) is received in time: the scheduler waits for it (``webapp.services.backlog``)
    before declaring the game lost on time, and the move is played."""
    import threading

    from mailer import pipeline
    from tests.mail.helpers import make_mail
    from tests.waiting import steps_in_thread, wait_for
    from webapp.models import InboundChannel
    from webapp.services import backlog

    words = tmp_path / "za.txt"
    words.write_text("ZA\nZAS\n", "utf-8")
    app.config["LEXICONS"] = {"za": str(words)}
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    game = correspondence.create_game(
        session=db_session, competition=competition, red=ana, blue=bob, row=_row(),
        starts_at=START, code="CQ1", lexicon_name="za", move_hours=72, grace_hours=24)
    db_session.commit()
    end = correspondence.lost_on_time_at(game)
    assert end == START + 96 * HOUR
    raw = make_mail(frm=ana.email, to=f"feuilles+{ana.token}@arbitre.test",
                    subject="CQ1", body="H8 ZA")
    stored = pipeline.store_raw(app, raw, channel=InboundChannel.SMTP,
                                envelope_from=ana.email,
                                envelope_to=[f"feuilles+{ana.token}@arbitre.test"],
                                received_at=end - timedelta(seconds=2))
    waiting = threading.Event()
    real_pending = backlog.pending

    def pending(deadline: Any) -> int:
        waiting.set()
        return real_pending(deadline)

    monkeypatch.setattr(backlog, "pending", pending)
    frozen_clock.move_to(end)
    worker, done = steps_in_thread(app, lambda: correspondence.run_due(now=clock.now()))
    assert wait_for(waiting.is_set)
    assert worker.is_alive()  # waiting for the message accepted before the end of the grace
    pipeline.process(app, stored.id)
    worker.join(60)
    assert not worker.is_alive()
    assert done == []  # nobody lost: RED's move came in time
    db_session.expire_all()
    game = db_session.exec(select(CorrespondenceGame)).one()
    assert game.status == correspondence.PLAYING
    assert [(m.ref, m.word, m.score) for m in correspondence.state_of(game).moves] == [
        ("H8", "ZA", 22)]
