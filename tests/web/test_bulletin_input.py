"""Issue 24 §2–§4 by the web form (the mail side: tests/mail/test_bulletins.py): every
solution of a bulletin stored and corrected, bulletins bounded (length, solutions, versions
and rate per player and round: French refusals, nothing stored, no receipt), control
characters stripped, any number a French reason — never « erreur interne »."""

from __future__ import annotations

import html
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape
from sqlmodel import Session, col, select

from puzzles.variants import VariantSettings
from tests.conftest import FROZEN_START
from tests.web.benie_game import FIRST, TWO_SOLUTIONS, benie_game
from tests.web.test_pages import login_player
from webapp.models import (
    Competition,
    DuplicateEntry,
    DuplicateGame,
    DuplicateRound,
    OutboxMessage,
    Player,
)
from webapp.services import clock, lifecycle

pytestmark = pytest.mark.db

START = FROZEN_START
DAY = timedelta(days=1)


@pytest.fixture
def ana(make_player: Callable[..., Player]) -> Player:
    return make_player("Ana", "ana@example.ro")


def _start(app: Flask, db_session: Session, competition: Competition, tmp_path: Path,
           frozen_clock: Any, variant: str = "") -> DuplicateGame:
    game = benie_game(app, db_session, competition, tmp_path, starts_at=START,
                      variant=variant)
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == [f"draw:{game.code}:1"]
    return game


def _entries(s: Session) -> list[DuplicateEntry]:
    s.expire_all()
    return list(s.exec(select(DuplicateEntry).order_by(col(DuplicateEntry.id))).all())


def _receipts(s: Session) -> list[OutboxMessage]:
    s.expire_all()
    return list(s.exec(select(OutboxMessage).where(OutboxMessage.kind == "receipt")
                       .order_by(col(OutboxMessage.id))).all())


def _round1(s: Session) -> DuplicateRound:
    s.expire_all()
    return s.exec(select(DuplicateRound).where(DuplicateRound.number == 1)).one()


def test_second_solution_is_stored_and_credited(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session,
    competition: Competition, tmp_path: Path, frozen_clock: Any, ana: Player,
) -> None:
    """The issue's bulletin « H8 ZZZQX 99 / H4 BENIE 20 »: S1 5.6 « si deux solutions ou plus
    sont portées sur le bulletin de jeu et que le score indiqué ne [correspond à aucune…] »
    — the score written for BENIE is exact, so BENIE is retained: 20, not the old 0
    (« le mot ZZZQX n'est pas admis »). The stored JSON has both; a one-solution bulletin
    keeps the old keys (no « alternatives »), so stored data stays readable."""
    _start(app, db_session, competition, tmp_path, frozen_clock)
    assert _round1(db_session).draw["rack"] == FIRST
    assert (_round1(db_session).top or {})["score"] == 20
    login_player(client, ana)
    assert client.post("/duplicate/B24/bulletin",
                       data={"bulletin": TWO_SOLUTIONS}).status_code == 302
    [entry] = _entries(db_session)
    assert entry.bulletin == {
        "word": "ZZZQX", "ref": "H8", "raccord": None, "claimed": 99,
        "alternatives": [{"word": "BENIE", "ref": "H4", "raccord": None, "claimed": 20}]}
    assert entry.parse_errors == []
    [receipt] = _receipts(db_session)
    assert f"Bulletin lu : {TWO_SOLUTIONS}" in receipt.body_text
    frozen_clock.move_to(START + DAY)
    assert lifecycle.run_due(now=clock.now())[:3] == [
        "close:B24:1", "correct:B24:1", "publish:B24:1"]
    [result] = _round1(db_session).results
    assert (result["score"], result["kind"], result["ref"], result["word"]) == (
        20, "valide", "H4", "BENIE")
    assert result["reason"].startswith("2 solutions sur le bulletin ; retenue : H4 BENIE. ")


def test_one_solution_keeps_the_old_stored_form(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session,
    competition: Competition, tmp_path: Path, frozen_clock: Any, ana: Player,
) -> None:
    _start(app, db_session, competition, tmp_path, frozen_clock)
    login_player(client, ana)
    client.post("/duplicate/B24/bulletin", data={"bulletin": "H4 BENIE 20"})
    [entry] = _entries(db_session)
    assert entry.bulletin == {"word": "BENIE", "ref": "H4", "raccord": None, "claimed": 20}


def test_completif_solutions_keep_their_letters(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session,
    competition: Competition, tmp_path: Path, frozen_clock: Any, ana: Player,
) -> None:
    """Complétif: 6 letters drawn (BENIES) and one taken from the stock. Each solution
    names its letter; both are stored with their letters and BENIE (exact score) is
    retained — the letters used to be gathered on the first solution (« TT »: two letters
    where one is allowed, a zero)."""
    _start(app, db_session, competition, tmp_path, frozen_clock, variant="completif")
    assert _round1(db_session).draw["rack"] == "BENIES"
    login_player(client, ana)
    client.post("/duplicate/B24/bulletin",
                data={"bulletin": "H8 ZZZQX 99 +T / H4 BENIE 20 +T"})
    [entry] = _entries(db_session)
    assert entry.bulletin == {
        "word": "ZZZQX", "ref": "H8", "raccord": None, "claimed": 99, "chosen": "T",
        "swapped": "",
        "alternatives": [{"word": "BENIE", "ref": "H4", "raccord": None, "claimed": 20,
                          "chosen": "T", "swapped": ""}]}
    assert "Bulletin lu : H8 ZZZQX 99 +T / H4 BENIE 20 +T" in _receipts(db_session)[0].body_text
    frozen_clock.move_to(START + DAY)
    lifecycle.run_due(now=clock.now())
    [result] = _round1(db_session).results
    assert (result["score"], result["kind"], result["word"]) == (20, "valide", "BENIE")


def test_a_long_bulletin_is_refused_and_not_echoed(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session,
    competition: Competition, tmp_path: Path, frozen_clock: Any, ana: Player,
) -> None:
    """The issue's 100 KB one-line bulletin: refused (BULLETIN_MAX_CHARS, 200), nothing
    stored, no receipt; the form shows back at most BULLETIN_TEXT_MAX_CHARS (2000) of it.
    A short line over a long text (BULLETIN_TEXT_MAX_CHARS) is refused too."""
    _start(app, db_session, competition, tmp_path, frozen_clock)
    login_player(client, ana)
    huge = "H4 BENIE 20 / " * 7143 + "H4 BENIE 20"  # 100,013 characters on one line
    assert len(huge) == 100_013
    resp = client.post("/duplicate/B24/bulletin", data={"bulletin": huge})
    page = resp.get_data(as_text=True)
    assert resp.status_code == 400
    assert ("Bulletin trop long : 100013 caractères sur sa ligne, au plus 200. Un bulletin "
            "tient en une ligne (ex. « H4 RESTAIt 70 ») ; il n&#39;a pas été enregistré.") in page
    assert f'value="{html.escape(huge[:2000])}"' in page and huge[:2001] not in page
    long_text = "H4 BENIE 20\n" + "signature " * 300
    resp = client.post("/duplicate/B24/bulletin", data={"bulletin": long_text})
    assert resp.status_code == 400
    assert "Message trop long : 3012 caractères, au plus 2000." in resp.get_data(as_text=True)
    assert _entries(db_session) == [] and _receipts(db_session) == []


def test_solutions_versions_and_rate_are_bounded(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session,
    competition: Competition, tmp_path: Path, frozen_clock: Any, ana: Player,
) -> None:
    """BULLETIN_MAX_SOLUTIONS (5), BULLETINS_PER_WINDOW in BULLETIN_WINDOW_SECONDS (here 3
    a minute) and BULLETIN_VERSIONS_PER_ROUND (here 4): French refusals, nothing stored, no
    receipt; the window passes and one more is taken, then the round's bound holds."""
    # the same text posted again within seconds would be one version (the double click's
    # guard, tests/web/test_bulletin_repost.py): off here, every post is counted
    app.config.update(BULLETINS_PER_WINDOW=3, BULLETIN_VERSIONS_PER_ROUND=4,
                      BULLETIN_REPOST_SECONDS=0)
    _start(app, db_session, competition, tmp_path, frozen_clock)
    login_player(client, ana)
    six = " / ".join(["H4 BENIE 20"] * 6)
    resp = client.post("/duplicate/B24/bulletin", data={"bulletin": six})
    assert resp.status_code == 400
    assert ("Trop de solutions sur le bulletin : 6, au plus 5. Il n&#39;a pas été "
            "enregistré.") in resp.get_data(as_text=True)
    five = " / ".join(["H4 BENIE 20"] * 5)
    for _ in range(3):
        assert client.post("/duplicate/B24/bulletin", data={"bulletin": five}).status_code == 302
    resp = client.post("/duplicate/B24/bulletin", data={"bulletin": "H4 BENIE 20"})
    assert resp.status_code == 400
    assert ("Trop de bulletins envoyés en peu de temps : au plus 3 par minute. Votre bulletin "
            "n&#39;a pas été enregistré ; renvoyez-le dans un moment.") in resp.get_data(
                as_text=True)
    assert [e.version for e in _entries(db_session)] == [1, 2, 3]
    frozen_clock.shift(61)
    assert client.post("/duplicate/B24/bulletin",
                       data={"bulletin": "H4 BENIE 20"}).status_code == 302
    frozen_clock.shift(61)
    resp = client.post("/duplicate/B24/bulletin", data={"bulletin": "H4 BENIE 20"})
    assert resp.status_code == 400
    assert ("Vous avez déjà envoyé 4 bulletins pour le tour 1 : au plus 4 par tour. Celui-ci "
            "n&#39;a pas été enregistré ; le dernier reçu compte.") in resp.get_data(
                as_text=True)
    assert [e.version for e in _entries(db_session)] == [1, 2, 3, 4]
    assert len(_receipts(db_session)) == 4


def test_control_characters_are_stripped(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session,
    competition: Competition, tmp_path: Path, frozen_clock: Any, ana: Player,
) -> None:
    """ESC, BEL, backspace and DEL in a web bulletin (NUL the app already strips from
    forms) are removed before anything is stored: the text, the receipt and the page show
    none of them, and the bulletin reads."""
    _start(app, db_session, competition, tmp_path, frozen_clock)
    login_player(client, ana)
    client.post("/duplicate/B24/bulletin",
                data={"bulletin": "H4 BE\x1b[31mNIE\x07 20\x08\x7f\x00"})
    [entry] = _entries(db_session)
    assert entry.raw_text == "H4 BE[31mNIE 20"
    # « BE[31mNIE » is not a word: the reason quotes it without the ESC
    assert entry.parse_errors == ["« BE[31mNIE » n'est ni une référence (H4, 4H), ni un mot, "
                                  "ni un score."]
    client.post("/duplicate/B24/bulletin", data={"bulletin": "H4 BENIE\x1b 20\x00"})
    entry = _entries(db_session)[-1]
    assert (entry.raw_text, entry.parse_errors) == ("H4 BENIE 20", [])
    bodies = [m.body_text + (m.body_html or "") for m in _receipts(db_session)]
    page = client.get("/duplicate/B24").get_data(as_text=True)
    for text in (*bodies, page):
        assert not any(ch in text for ch in "\x00\x1b\x07\x08\x7f")


@pytest.mark.parametrize(("line", "reason"), [
    ("H8 ZA ²", "« ² » n'est ni une référence (H4, 4H), ni un mot, ni un score."),
    ("H8 ZA " + "7" * 5000, "Score « 777777777777… » : au plus 4 chiffres."),
])
def test_odd_numbers_are_french_reasons(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session,
    competition: Competition, tmp_path: Path, frozen_clock: Any, ana: Player,
    line: str, reason: str,
) -> None:
    """« Erreur interne à la lecture du bulletin » before; now the parser's reason (the
    5,000-digit line is within BULLETIN_MAX_CHARS here, so it reaches the parser)."""
    app.config["BULLETIN_MAX_CHARS"] = 0
    app.config["BULLETIN_TEXT_MAX_CHARS"] = 0
    _start(app, db_session, competition, tmp_path, frozen_clock)
    login_player(client, ana)
    resp = client.post("/duplicate/B24/bulletin", data={"bulletin": line},
                       follow_redirects=True)
    page = resp.get_data(as_text=True)
    assert str(escape("Bulletin reçu mais illisible : " + reason)) in page
    assert "rreur interne" not in page
    [entry] = _entries(db_session)
    assert entry.parse_errors == [reason] and entry.bulletin is None


def test_the_rate_holds_for_bulletins_sent_at_once(
    app: Flask, ctx: Flask, db_session: Session, competition: Competition, tmp_path: Path,
    frozen_clock: Any, ana: Player,
) -> None:
    """The issue's 25 posts in 0.4 s, here 25 at the same instant from 25 threads (web and
    mail alternating): the player's row lock serialises them, so exactly
    BULLETINS_PER_WINDOW (10) are stored, with their 10 receipts; the 15 others are refused
    with nothing stored."""
    import threading

    from webapp.db import session_scope
    from webapp.models import Channel
    from webapp.services import duplicate

    game = _start(app, db_session, competition, tmp_path, frozen_clock)
    barrier = threading.Barrier(25)
    refused: list[str] = []
    errors: list[BaseException] = []

    def send(i: int) -> None:
        try:
            with app.app_context():
                barrier.wait()
                with session_scope(app) as s:
                    duplicate.submit_bulletin(
                        session=s, player=s.get(Player, ana.id),
                        game=s.get(DuplicateGame, game.id), text=f"H4 BENIE {i}",
                        channel=Channel.EMAIL if i % 2 else Channel.WEB,
                        received_at=START + timedelta(seconds=1))
        except duplicate.BulletinRefused as exc:
            refused.append(str(exc))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(25)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    assert [e.version for e in _entries(db_session)] == list(range(1, 11))
    assert len(_receipts(db_session)) == 10
    assert refused == ["Trop de bulletins envoyés en peu de temps : au plus 10 par minute. "
                       "Votre bulletin n'a pas été enregistré ; renvoyez-le dans un "
                       "moment."] * 15


def test_a_superscrabble_sheet_may_be_longer(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session,
    competition: Competition, tmp_path: Path, frozen_clock: Any, ana: Player,
) -> None:
    """A Partie de Superscrabble sheet lists every scrabble of the round, comma-separated:
    its line may take BULLETIN_TEXT_MAX_CHARS (2000), not BULLETIN_MAX_CHARS (200)."""
    from tests.web.za_game import use_word_list
    from webapp.services import duplicate

    use_word_list(app, tmp_path, "ZA\nBENIES\n", name="benie")
    with app.app_context():
        duplicate.create_game(
            session=db_session, competition=competition, title="Super", code="S24",
            settings=VariantSettings(variant="top"),
            rhythm={"kind": "hours", "hours": 24}, starts_at=START, lexicon_name="benie",
            variant="superscrabble", superscrabble={"start": "H7 ZA", "racks": ["BENIEST"]})
        db_session.commit()
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:S24:1"]
    login_player(client, ana)
    sheet = ", ".join(["8A BENIES"] * 30) + " ; 30"  # 30 × 9 + 29 × 2 + 5 = 333 characters
    assert len(sheet) == 333
    assert client.post("/duplicate/S24/bulletin", data={"bulletin": sheet}).status_code == 302
    [entry] = _entries(db_session)
    assert entry.raw_text == sheet and len(entry.bulletin["entries"]) == 30
    resp = client.post("/duplicate/S24/bulletin", data={"bulletin": sheet * 7})
    assert resp.status_code == 400
    assert "Bulletin trop long : 2331 caractères sur sa ligne, au plus 2000." in resp.get_data(
        as_text=True)


@pytest.mark.parametrize("variant", ["", "completif", "tactique"])
def test_any_text_is_stored_or_refused(
    app: Flask, ctx: Flask, db_session: Session, competition: Competition, tmp_path: Path,
    frozen_clock: Any, ana: Player, variant: str,
) -> None:
    """Through the service itself (on the test database): any text gives a stored bulletin
    (read, or with French reasons) or a French refusal — never another exception, never a
    control character stored, never « erreur interne »."""
    from hypothesis import HealthCheck, given, settings

    from tests.puzzles.test_bulletin_fuzz import texts
    from webapp.models import Channel
    from webapp.services import duplicate

    app.config.update(BULLETINS_PER_WINDOW=0, BULLETIN_VERSIONS_PER_ROUND=0)
    game = _start(app, db_session, competition, tmp_path, frozen_clock, variant=variant)

    @settings(max_examples=60, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(text=texts)
    def check(text: str) -> None:
        try:
            out = duplicate.submit_bulletin(session=db_session, player=ana, game=game,
                                            text=text, channel=Channel.EMAIL,
                                            received_at=START + timedelta(seconds=1))
        except duplicate.DuplicateError as exc:
            assert str(exc).strip()
        else:
            raw = out.entry.raw_text
            assert not any(ord(ch) < 32 and ch not in "\t\n\r" or ch == "\x7f" for ch in raw)
            assert (out.entry.bulletin is None) == bool(out.errors)
            assert not any("rreur interne" in e for e in out.errors)
        finally:
            db_session.rollback()

    check()
