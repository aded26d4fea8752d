"""Issue 22 §3 « The correspondence game as people play it » (RULES §8.1, docs/VARIANTS.md
« Server »): the game's own time zone on every page, mail and the sheet; the letter row drawn
from a seed instead of typed; the sheet's front laid out; older games kept in Europe/Paris by
migration 0014.

The row and word list are tests/web/test_correspondence_game.py's ({ZA, ZAS}; RED holds
ZAEIBCD). Clock frozen at START = 10/05/2026 10:00 UTC; 72 hours a move, the reminder 24
hours before, the grace 24 hours. Tokyo is UTC+9 all year (no summer time): START + 72 h =
13/05 10:00 UTC = 19:00 in Tokyo; Bucharest is UTC+3 in May: 13:00; Paris UTC+2: 12:00.
"""

from __future__ import annotations

import email
import email.policy
import html
import re
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from puzzles.correspondence import row_from_seed
from puzzles.duplicate import secret_bag
from scoring.tiles import tileset
from tests.web.test_correspondence_game import _row, sheet_rows, text_of
from tests.web.test_duplicate import START
from tests.web.test_pages import login_arbitre, login_player
from webapp.db import alembic_config
from webapp.models import Competition, CorrespondenceGame, Player
from webapp.services import clock, lifecycle

pytestmark = pytest.mark.db

HOUR = timedelta(hours=1)
MAX_SEED = 2**128 - 1  # 340282366920938463463374607431768211455


def _text(resp: Any) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", resp.get_data(as_text=True))).split())


def _game(db_session: Session, code: str) -> CorrespondenceGame:
    db_session.expire_all()
    return db_session.exec(select(CorrespondenceGame).where(
        CorrespondenceGame.code == code)).one()


def _form(competition: Competition, red: Player, blue: Player, **more: str) -> dict[str, str]:
    return {"competition_id": str(competition.id), "red_id": str(red.id),
            "blue_id": str(blue.id), "row": _row(), "title": "", "code": "CT1",
            "lexicon": "za", "move_hours": "72", "reminder_hours": "24", "grace_hours": "24",
            **more}


class Recorder:
    """A real SMTP relay's handler (aiosmtpd on loopback): every message accepted."""

    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        msg = email.message_from_bytes(envelope.original_content or b"",
                                       policy=email.policy.default)
        self.messages.append(msg)  # type: ignore[arg-type]
        return "250 OK"


@pytest.fixture
def relay(app: Flask) -> Iterator[Recorder]:
    from aiosmtpd.controller import Controller

    from tests.ports import free_port

    port = free_port()
    handler = Recorder()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    app.config["SMTP_RELAY"] = f"127.0.0.1:{port}"
    yield handler
    controller.stop()


def _delivered(app: Flask, relay: Recorder, to: str) -> list[str]:
    """Send the outbox through the relay; the bodies (blanks folded) received for ``to``."""
    from mailer.outbox import send_pending

    send_pending(app)
    out = []
    for m in relay.messages:
        if to in str(m["To"]):
            body = m.get_body(preferencelist=("plain",))
            assert body is not None
            out.append(" ".join(body.get_content().split()))
    return out


def test_a_game_in_its_own_time_zone_on_every_page_mail_and_the_sheet(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path, relay: Recorder,
) -> None:
    """« The time zone comes from the site's setting like everywhere else […]; the creation
    form can choose it. »"""
    words = tmp_path / "za.txt"
    words.write_text("ZA\nZAS\n", "utf-8")
    app.config["LEXICONS"] = {"za": str(words)}
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    frozen_clock.move_to(START)
    login_arbitre(client, db_session)
    # the form offers the site's zone; a zone that does not exist is refused in French
    assert 'name="timezone" value="Europe/Bucharest"' in client.get(
        "/console/correspondance").get_data(as_text=True)
    bad = client.post("/console/correspondance", data=_form(competition, ana, bob,
                                                             timezone="Mars/Olympus"))
    assert bad.status_code == 400
    assert "Fuseau horaire inconnu : « Mars/Olympus »." in _text(bad)
    assert db_session.exec(select(CorrespondenceGame)).all() == []

    assert client.post("/console/correspondance", data=_form(
        competition, ana, bob, timezone="Asia/Tokyo")).status_code == 302
    # no zone given: the site's (DEFAULT_TIMEZONE, Europe/Bucharest)
    no_zone = {k: v for k, v in _form(competition, bob, ana, code="CT2").items()}
    assert client.post("/console/correspondance", data=no_zone).status_code == 302
    assert (_game(db_session, "CT1").timezone, _game(db_session, "CT2").timezone) == (
        "Asia/Tokyo", "Europe/Bucharest")

    tokyo = "13/05/2026 à 19:00 (Asia/Tokyo, UTC+09:00)"
    bucharest = "13/05/2026 à 13:00 (Europe/Bucharest, UTC+03:00)"
    [turn_ana] = _delivered(app, relay, "ana@example.ro")
    assert f"Répondez avant le {tokyo}" in turn_ana
    [turn_bob] = _delivered(app, relay, "bob@example.fr")
    assert f"Répondez avant le {bucharest}" in turn_bob

    # the game page, the public index and the player's space: the game's zone
    login_player(client, ana)
    page = client.get("/correspondance/CT1")
    assert f"Coup attendu jusqu'au {tokyo}" in _text(page)
    assert text_of(page.get_data(as_text=True), "tolerance") == (
        "Tolérance : un coup reçu jusqu’au 14/05/2026 à 19:00 (Asia/Tokyo, UTC+09:00) compte "
        "encore.")
    index = _text(client.get("/correspondance"))
    assert f"au tour de Ana, coup 1, jusqu’au {tokyo}" in index
    assert f"au tour de Bob, coup 1, jusqu’au {bucharest}" in index
    space = _text(client.get("/joueur/"))
    assert f"à vous de jouer le coup 1 avant le {tokyo}" in space

    # Ana plays at START + 1 h (20:00 in Tokyo): the sheet says when it came, in Tokyo time;
    # Bob's deadline is START + 73 h = 13/05 11:00 UTC = 20:00 in Tokyo
    frozen_clock.move_to(START + HOUR)
    assert client.post("/correspondance/CT1/coup", data={"coup": "H8 ZA"}).status_code == 302
    page_html = client.get("/correspondance/CT1").get_data(as_text=True)
    assert 'title="reçu le 10/05/2026 à 20:00 (Asia/Tokyo, UTC+09:00)">1h00</td>' in page_html
    later = "13/05/2026 à 20:00 (Asia/Tokyo, UTC+09:00)"
    assert f"Répondez avant le {later}" in _delivered(app, relay, "bob@example.fr")[-1]
    # the reminder 24 hours before Bob's deadline; then the loss on time, 24 hours after it
    frozen_clock.move_to(START + 49 * HOUR)
    assert "remind:CT1:2" in lifecycle.run_due(now=clock.now())
    delivered = _delivered(app, relay, "bob@example.fr")
    [reminder] = [m for m in delivered if "Rappel" in m and "(CT1) » est attendu" in m]
    assert f"est attendu avant le {later}." in reminder
    # CT2's reminder, due too (Bob's move 1 there), lists CT1 among what waits for him, in
    # CT1's own zone (issue 22 §1)
    [other] = [m for m in delivered if "Rappel" in m and "(CT2) » est attendu" in m]
    assert f"(CT1) : à vous de jouer le coup 2, avant le {later}" in other
    assert ("Sans coup reçu le 14/05/2026 à 20:00 (Asia/Tokyo, UTC+09:00) au plus tard, la "
            "partie est perdue au temps.") in reminder
    frozen_clock.move_to(START + 97 * HOUR)
    assert "time:CT1:2" in lifecycle.run_due(now=clock.now())
    assert _game(db_session, "CT1").end_reason == (
        "BLEU perd au temps (aucun coup reçu avant le 14/05/2026 à 20:00 (Asia/Tokyo, "
        "UTC+09:00)).")
    assert "Perdue au temps : BLEU (Bob)." in _text(client.get("/correspondance/CT1"))


def test_the_arbitre_draws_the_row_from_a_seed_instead_of_typing_it(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """« The arbitre gets a generated letter row (a seed, like the problems) instead of
    typing 100 letters »: an empty row is the whole French bag (102 tiles, two jokers) in the
    order of a fresh secret 128-bit seed (or the arbitre's), stored with the game and shown
    on its sheet, from which the same row is drawn again; typing a row stays possible."""
    words = tmp_path / "za.txt"
    words.write_text("ZA\nZAS\n", "utf-8")
    app.config["LEXICONS"] = {"za": str(words)}
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    frozen_clock.move_to(START)
    login_arbitre(client, db_session)
    url = "/console/correspondance"
    for seed, why in (
            ("-1", f"Graine de la rangée : -1 est hors des limites (de 0 à {MAX_SEED})."),
            (str(MAX_SEED + 1), f"Graine de la rangée : {MAX_SEED + 1} est hors des limites"),
            ("douze", "Graine de la rangée : « douze » n'est pas un nombre entier.")):
        bad = client.post(url, data=_form(competition, ana, bob, row="", seed=seed))
        assert bad.status_code == 400 and why in _text(bad), seed
    both = client.post(url, data=_form(competition, ana, bob, seed="12345"))
    assert both.status_code == 400
    assert ("La rangée écrite n'est pas celle que tire la graine 12345 : donnez l'une ou "
            "l'autre.") in _text(both)
    assert db_session.exec(select(CorrespondenceGame)).all() == []

    # no row, no seed: a fresh secret seed
    resp = client.post(url, data=_form(competition, ana, bob, row="", code="G1"),
                       follow_redirects=True)
    g1 = _game(db_session, "G1")
    assert g1.row_seed.isdigit() and 0 <= int(g1.row_seed) <= MAX_SEED
    assert f"Partie par correspondance G1 créée ; rangée tirée de la graine {g1.row_seed} : " \
        "ROUGE joue." in _text(resp)
    assert g1.row == "".join(secret_bag("fr", int(g1.row_seed)))
    assert len(g1.row) == 102 and Counter(g1.row) == Counter(tileset("fr").counts)
    assert Counter(g1.row)["?"] == 2
    assert client.post(url, data=_form(competition, ana, bob, row="", code="G2")
                       ).status_code == 302
    assert _game(db_session, "G2").row_seed != g1.row_seed  # a new seed each time

    # the arbitre's seed: the same row every time, RED holds its first 7 letters
    assert client.post(url, data=_form(competition, ana, bob, row="", seed="12345",
                                       code="G3")).status_code == 302
    g3 = _game(db_session, "G3")
    assert (g3.row_seed, g3.row) == ("12345", row_from_seed("fr", 12345))
    assert g3.row[:14] == "UITQMBEHC?NEXS"
    login_player(client, ana)
    page = client.get("/correspondance/G3").get_data(as_text=True)
    assert "Rangée tirée de la graine 12345 (elle la retire à l’identique)." in page
    rack = re.search(r'<p class="small">Votre chevalet :</p>(.*?)</div>', page, re.S)
    assert rack is not None
    # the rack's tiles with their values (French: U I T 1, Q 8, M 2, B 3, E 1)
    assert re.findall(r'aria-label="([^"]+)">\w<sub>(\d+)</sub>', rack.group(1)) == [
        ("U", "1"), ("I", "1"), ("T", "1"), ("Q", "8"), ("M", "2"), ("B", "3"), ("E", "1")]
    login_arbitre_again(client, db_session)
    # a typed row stays possible, and is said so on the sheet
    assert client.post(url, data=_form(competition, ana, bob, code="G4")).status_code == 302
    g4 = _game(db_session, "G4")
    assert (g4.row, g4.row_seed) == (_row(), "")
    assert "Rangée écrite par l’arbitre." in client.get("/correspondance/G4").get_data(
        as_text=True)

    # a whole series on one drawn row (three players without a game yet)
    group = [make_player(n, f"{n.lower()}@example.fr") for n in ("Cid", "Dan", "Eve")]
    made = client.post("/console/correspondance/serie", data={
        "series_competition_id": str(competition.id), "series_row": "", "series_seed": "7",
        "code_prefix": "S", "series_lexicon": "za", "series_timezone": "Europe/Paris",
        "player_ids": [str(p.id) for p in group]})
    assert made.status_code == 302, re.findall(r'role="alert">([^<]*)', made.get_data(
        as_text=True))
    db_session.expire_all()
    series = db_session.exec(select(CorrespondenceGame).where(
        CorrespondenceGame.code.startswith("S-"))).all()  # type: ignore[attr-defined]
    assert len(series) == 3
    assert {(g.row, g.row_seed, g.timezone) for g in series} == {
        (row_from_seed("fr", 7), "7", "Europe/Paris")}


def login_arbitre_again(client: FlaskClient, db_session: Session) -> None:
    from webapp.models import Arbitre

    judge = db_session.exec(select(Arbitre).where(Arbitre.username == "juge")).one()
    with client.session_transaction() as sess:
        sess.clear()
        sess["arbitre_id"] = judge.id


def test_the_sheet_front_event_players_row_and_grid(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """RULES §8.1: « front: event, players, arbiters, RED's previous coefficient and rank,
    the letter row, and a grid; back: a table of moves and scores, thinking time, and the
    final results » — laid out on the game page, not the raw record."""
    words = tmp_path / "za.txt"
    words.write_text("ZA\nZAS\n", "utf-8")
    app.config["LEXICONS"] = {"za": str(words)}
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    frozen_clock.move_to(START)
    login_arbitre(client, db_session)  # « Juge Arbitre »
    assert client.post("/console/correspondance", data=_form(
        competition, ana, bob)).status_code == 302
    page = client.get("/correspondance/CT1").get_data(as_text=True)
    assert "arbitre-fisa-de-concurs" not in page  # the raw record is the download only
    assert 'href="/correspondance/CT1/fiche.txt"' in page
    front = text_of(page, "fiche-recto")
    assert front.startswith("Recto Épreuve Championnat par correspondance 2026 ROUGE Ana "
                            "BLEU Bob Arbitres Juge Arbitre ROUGE avant la partie première "
                            "partie de la série Rangée de lettres 46 lettres")
    assert "14 sont entrées en jeu" in front
    row = re.search(r'<div id="rangee"[^>]*>(.*?)</div>\s*</div>\s*<div class="fisa-grid">',
                    page, re.S)
    assert row is not None
    tiles = re.findall(r'aria-label="([^"]+)">[^<]*<sub>(\d+)</sub>', row.group(1))
    # the 46 letters of the row (16 + 30), each with its French value: Z 10, A 1, …
    assert "".join(ch if ch != "joker" else "?" for ch, _ in tiles) == _row()
    values = dict(tileset("fr").points)
    assert all(int(v) == values.get(ch, 0) for ch, v in tiles)
    assert tiles[:3] == [("Z", "10"), ("A", "1"), ("E", "1")]
    assert '<div class="fisa-grid"><h4>Grille</h4><svg' in page  # the grid on the front
    back = text_of(page, "fiche-verso")
    assert back == ("Verso Plafonds d’ouverture (compensation du trait de ROUGE) : tout score "
                    "peut être joué, mais la fiche crédite au plus tour I : ROUGE 10, BLEU 20 "
                    "; tour II : ROUGE 30, BLEU 40. Aucun coup joué pour l’instant.")
    assert sheet_rows(page) == []


def test_migration_0014_keeps_older_games_in_europe_paris(empty_engine: sa.Engine) -> None:
    """Games created before 0014 were shown in the hard-coded Europe/Paris: they keep it, so
    their deadlines read as before; their row was typed (no seed)."""
    cfg = alembic_config(empty_engine)
    command.upgrade(cfg, "0013")
    now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    with empty_engine.begin() as conn:
        conn.execute(sa.text(
            "INSERT INTO competition (slug, name, description, ranking_rule, lang, created_at, "
            "open_registration) VALUES ('c', 'C', '', 'sum_scores', 'fr', :t, false)"), {"t": now})
        for name in ("Ana", "Bob"):
            conn.execute(sa.text(
                "INSERT INTO player (name, club, email, token, bounce_count, active, "
                "created_at, session_epoch) VALUES (:n, '', :e, :k, 0, true, :t, 0)"),
                {"n": name, "e": f"{name.lower()}@example.fr", "k": f"tok{name}", "t": now})
        ids = conn.execute(sa.text("SELECT id FROM player ORDER BY name")).scalars().all()
        comp = conn.execute(sa.text("SELECT id FROM competition")).scalar()
        conn.execute(sa.text(
            "INSERT INTO correspondence_game (code, competition_id, title, lang, lexicon_name, "
            "row, red_id, blue_id, moves, move_hours, reminder_hours, grace_hours, "
            "turn_started_at, reminded_moves, status, end_reason, created_at) VALUES "
            "('OLD', :c, 'Ana – Bob', 'fr', 'default', 'ZAEIBCDSEOUFGH', :r, :b, '[]', 72, 24, "
            "24, :t, -1, 'playing', '', :t)"), {"c": comp, "r": ids[0], "b": ids[1], "t": now})
    command.upgrade(cfg, "0014")
    with empty_engine.connect() as conn:
        assert conn.execute(sa.text(
            "SELECT code, timezone, row_seed FROM correspondence_game")).all() == [
            ("OLD", "Europe/Paris", "")]
    command.downgrade(cfg, "0013")
    with empty_engine.connect() as conn:
        columns = {c["name"] for c in sa.inspect(conn).get_columns("correspondence_game")}
        assert "timezone" not in columns and "row_seed" not in columns
        assert conn.execute(sa.text("SELECT code FROM correspondence_game")).scalars().all() \
            == ["OLD"]


def _tiles(fragment: str) -> list[tuple[str, str]]:
    """(letter, value) of each valued tile (``letter_tiles`` with values) in ``fragment``."""
    return re.findall(r'<span class="letter[^"]*" aria-label="([^"]+)">[^<]*<sub>(\d+)</sub>',
                      fragment)


def test_the_duplicate_draws_show_their_letter_values(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """Issue 22 §2: « Tiles show their letter values on the Duplicate and correspondence
    pages, as on the problem pages. » Round 1 of the ZA game draws ZAEIBCD; French values
    (FISF): Z 10, A E I 1, B C 3, D 2 — on the public page and the console's."""
    from tests.web.za_game import za_game

    make_player("Ana", "ana@example.ro")
    za_game(app, db_session, competition, tmp_path)
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:EX1:1"]
    expected = [("Z", "10"), ("A", "1"), ("E", "1"), ("I", "1"), ("B", "3"), ("C", "3"),
                ("D", "2")]
    page = client.get("/duplicate/EX1").get_data(as_text=True)
    section = re.search(r'id="tirage-en-cours".*?</section>', page, re.S)
    assert section is not None and _tiles(section.group(0)) == expected
    login_arbitre(client, db_session)
    console = client.get("/console/duplicate/EX1").get_data(as_text=True)
    assert _tiles(console) == expected


def test_rounds_in_roman_numerals_as_the_rules_write_them() -> None:
    """RULES §8.1's cap table writes the rounds « I », « II »."""
    from webapp.services.correspondence import roman

    assert [roman(n) for n in (1, 2, 3, 4, 9, 14, 40, 49, 90, 1994)] == [
        "I", "II", "III", "IV", "IX", "XIV", "XL", "XLIX", "XC", "MCMXCIV"]
