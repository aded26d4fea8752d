"""Every page renders (status, key French text), user text is escaped, permissions hold and
a forged post is refused when CSRF protection is on.

The pages run against the real app and database (SQLite here, PostgreSQL in CI) through the
root ``app``/``client`` fixtures; problems are drawn by ``puzzles.generate`` and sheets go in
through the real ``submit_sheet`` service. The clock is frozen at 2026-05-10 10:00 UTC
(13:00 in Bucharest, summer time UTC+3).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from webapp.auth import create_arbitre
from webapp.models import (
    AuditLog,
    Channel,
    Competition,
    Player,
    Problem,
    ProblemStatus,
    Submission,
    Verification,
)
from webapp.services import verification
from webapp.services.submissions import submit_sheet

pytestmark = pytest.mark.db

SHEET = "1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 166\n"
# printf '1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 166\n' | sha256sum
SHEET_SHA256 = "3b1073f620e03c04aef98fc33bef1ecebfe0135ce14bc71d571cb312aded88ab"
EVIL = "<script>alert('x')</script>"
ESCAPED = "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"  # Jinja's autoescape


def login_player(client: FlaskClient, player: Player) -> None:
    with client.session_transaction() as sess:
        sess.clear()
        sess["player_id"] = player.id


def login_arbitre(client: FlaskClient, db_session: Session) -> None:
    a = create_arbitre(session=db_session, username="juge", password="motdepasse1",
                       name="Juge Arbitre")
    db_session.commit()
    with client.session_transaction() as sess:
        sess.clear()
        sess["arbitre_id"] = a.id


def page(resp: Any) -> str:
    return resp.get_data(as_text=True)


def visible_text(resp: Any) -> str:
    return html.unescape(page(resp))


@pytest.fixture
def ana(make_player: Callable[..., Player]) -> Player:
    return make_player("Ana Popescu", "ana@example.ro", club="CS București")


@pytest.fixture
def evil(make_player: Callable[..., Player]) -> Player:
    return make_player(EVIL, "evil@example.fr", club="<b>club</b>")


@pytest.fixture
def p1(make_problem: Callable[..., Problem]) -> Problem:
    # published an hour ago, closes in 5 days: 2026-05-15 10:00 UTC = 13:00 Bucharest
    return make_problem(code="P1")


# --- public pages ----------------------------------------------------------------------------


def test_index_lists_open_problems(client: FlaskClient, p1: Problem, frozen_clock: Any) -> None:
    resp = client.get("/")
    assert resp.status_code == 200
    text = visible_text(resp)
    assert "Problèmes ouverts" in text
    assert 'href="/problemes/P1"' in page(resp)
    assert "Championnat par correspondance 2026" in text
    assert 'data-countdown="2026-05-15T10:00:00Z"' in page(resp)
    # without JavaScript the time left is already written: 5 days exactly
    assert "Il reste 5 j 00 h 00 min" in text


def test_competition_calendar(client: FlaskClient, p1: Problem, frozen_clock: Any) -> None:
    resp = client.get("/competitions/cn2026")
    assert resp.status_code == 200
    text = visible_text(resp)
    assert "Calendrier" in text and "Scrabble intégral" in text
    assert "15/05/2026 à 13:00 (Europe/Bucharest, UTC+03:00)" in text
    assert "15/05/2026 à 10:00:00 UTC" in text
    assert client.get("/competitions/inconnue").status_code == 404


def test_problem_page_shows_letters_board_and_deadline_three_ways(
    client: FlaskClient, p1: Problem, frozen_clock: Any
) -> None:
    resp = client.get("/problemes/P1")
    assert resp.status_code == 200
    body, text = page(resp), visible_text(resp)
    assert "Le sac entier : 102 lettres, jokers compris." in text
    # E×15 and two jokers in the stock listing
    assert 'title="15 × E"' in body and 'title="2 × ?"' in body
    assert body.count('<rect class="sq') == 225
    # Bucharest time, UTC, and a slot the browser fills with the visitor's own time (Intl)
    assert "15/05/2026 à 13:00 (Europe/Bucharest, UTC+03:00)" in text
    assert "15/05/2026 à 10:00:00 UTC" in text
    assert 'data-local-time="2026-05-15T10:00:00Z"' in body
    assert 'data-countdown="2026-05-15T10:00:00Z"' in body
    assert "Connectez-vous" in text


@pytest.mark.parametrize(
    ("game", "expected"),
    [
        ("integral_partiel", "lettres tirées"),
        ("rangee", "à utiliser dans l'ordre"),
        ("anticipation", "L'ordre de tirage complet a été publié avec le problème"),
        ("serie_maximaux", 'class="group-no">7<'),
        ("anticipation_avocalique", "Consonnes annoncées"),
        ("superscrabble", "Le tirage (7 lettres) à placer en scrabble"),
        ("superscrabble_incomplet", "Construisez votre grille"),
        ("n_scrabble", 'class="group-no">4<'),
    ],
)
def test_problem_page_per_game_type(
    client: FlaskClient, make_problem: Callable[..., Problem], frozen_clock: Any,
    game: str, expected: str,
) -> None:
    from scoring.lexicon import default_lexicon

    prob = make_problem(game=game, seed=7, code="G1", lexicon=default_lexicon())
    resp = client.get(f"/problemes/{prob.code}")
    assert resp.status_code == 200
    assert expected in visible_text(resp)


def test_superscrabble_page_draws_the_given_board(
    client: FlaskClient, make_problem: Callable[..., Problem], frozen_clock: Any
) -> None:
    from puzzles.problem import Problem as Puzzle
    from scoring.board import Board
    from scoring.lexicon import default_lexicon

    prob = make_problem(game="superscrabble", seed=3, code="S1", lexicon=default_lexicon())
    board = Board.from_cgp(Puzzle.from_dict(prob.params).board)
    body = page(client.get("/problemes/S1"))
    assert body.count('<g class="tile') == board.tile_count > 0


def test_unpublished_problem_is_hidden_from_the_public(
    client: FlaskClient, make_problem: Callable[..., Problem], db_session: Session,
    frozen_clock: Any,
) -> None:
    make_problem(code="LATER", publish=timedelta(days=2), status=ProblemStatus.SCHEDULED)
    assert client.get("/problemes/LATER").status_code == 404
    assert "Page introuvable" in visible_text(client.get("/problemes/LATER"))
    login_arbitre(client, db_session)
    assert client.get("/problemes/LATER").status_code == 200


def test_archive_lists_only_published_results(
    client: FlaskClient, p1: Problem, frozen_clock: Any
) -> None:
    resp = client.get("/archives")
    assert resp.status_code == 200
    assert "Aucun problème archivé" in visible_text(resp)


# --- player pages -----------------------------------------------------------------------------


def test_player_pages_need_a_sign_in(client: FlaskClient, p1: Problem) -> None:
    for url in ("/joueur/", "/joueur/problemes/P1/envoyer", "/joueur/problemes/P1/versions"):
        resp = client.get(url)
        assert resp.status_code == 302
        assert resp.headers["Location"].startswith("/connexion?next=")


def test_submit_page_offers_paste_upload_and_the_interactive_board(
    client: FlaskClient, ana: Player, p1: Problem, frozen_clock: Any
) -> None:
    login_player(client, ana)
    resp = client.get("/joueur/problemes/P1/envoyer")
    assert resp.status_code == 200
    body, text = page(resp), visible_text(resp)
    assert '<label for="feuille">' in body and '<label for="fichier">' in body
    assert 'id="interactive-board"' in body
    assert "la validité des mots n'est pas contrôlée ici" in text
    data = json.loads(re.search(
        r'<script type="application/json" id="board-data">(.*?)</script>', body, re.S
    ).group(1))
    assert data["values"]["Z"] == 10 and data["values"]["E"] == 1
    assert data["layout"]["word_mult"][0] == 3 and data["layout"]["letter_mult"][3] == 2
    assert data["stock"]["E"] == 15 and data["stock"]["?"] == 2
    assert data["header"] == ["Problème: P1"]
    assert 'name="csrf_token"' in body


def test_pasted_sheet_gives_an_immediate_receipt(
    client: FlaskClient, ana: Player, p1: Problem, db_session: Session, frozen_clock: Any
) -> None:
    login_player(client, ana)
    resp = client.post("/joueur/problemes/P1/envoyer", data={"feuille": SHEET})
    assert resp.status_code == 302
    sub = db_session.exec(select(Submission)).one()
    assert resp.headers["Location"] == f"/joueur/feuilles/{sub.id}"
    assert sub.raw_text == SHEET and sub.channel == Channel.WEB
    receipt = client.get(resp.headers["Location"])
    assert receipt.status_code == 200
    text = visible_text(receipt)
    assert '<strong id="sheet-number">1</strong>' in page(receipt)
    assert sub.sha256 == SHEET_SHA256
    assert f'<dd class="mono small" id="sha256">{SHEET_SHA256}</dd>' in page(receipt)
    # server receive time with its zone, and in UTC
    assert "10/05/2026 à 13:00:00 (Europe/Bucharest, UTC+03:00)" in text
    assert "10/05/2026 à 10:00:00 UTC" in text
    assert "H8 (horizontal, ligne H, à partir de la colonne 8)" in text
    assert "15F (vertical, colonne 15, à partir de la ligne F)" in text
    assert "Feuille reçue." in text
    # nothing about validity before the deadline
    for verdict in ("valide", "zéro", "nul"):
        assert verdict not in text.lower().replace("validité", "")


def test_unreadable_lines_are_listed_with_their_numbers_and_the_sheet_is_kept(
    client: FlaskClient, ana: Player, p1: Problem, db_session: Session, frozen_clock: Any
) -> None:
    login_player(client, ana)
    text = "1 ACEFHIR h8 FICHERA 82 82\n2 SUW WUS 84 166\n"
    resp = client.post("/joueur/problemes/P1/envoyer", data={"feuille": text},
                       follow_redirects=True)
    assert resp.status_code == 200
    shown = visible_text(resp)
    assert "Lignes non comprises" in shown
    assert "Ligne 2 : référence manquante ou illisible" in shown
    assert db_session.exec(select(Submission)).one().raw_text == text


def test_uploaded_windows_1252_file_is_read(
    client: FlaskClient, ana: Player, p1: Problem, db_session: Session, frozen_clock: Any
) -> None:
    import io

    login_player(client, ana)
    raw = ("Problème: P1\r\n" + SHEET.replace("\n", "\r\n")).encode("cp1252")
    resp = client.post("/joueur/problemes/P1/envoyer", data={
        "feuille": "", "fichier": (io.BytesIO(raw), "feuille.txt"),
    }, content_type="multipart/form-data")
    assert resp.status_code == 302
    sub = db_session.exec(select(Submission)).one()
    assert sub.raw_text.startswith("Problème: P1")
    assert sub.parse_errors == []


def test_empty_sheet_is_refused_and_nothing_is_stored(
    client: FlaskClient, ana: Player, p1: Problem, db_session: Session
) -> None:
    login_player(client, ana)
    resp = client.post("/joueur/problemes/P1/envoyer", data={"feuille": "  \n"})
    assert resp.status_code == 400
    assert "La feuille est vide" in visible_text(resp)
    assert db_session.exec(select(Submission)).all() == []


def test_upload_over_the_limit_gets_a_french_413(
    app: Flask, client: FlaskClient, ana: Player, p1: Problem, db_session: Session
) -> None:
    import io

    assert app.config["MAX_CONTENT_LENGTH"] == 256 * 1024
    login_player(client, ana)
    big = b"1 ACEFHIR h8 FICHERA 82 82\n" * 12000  # 324 kB
    resp = client.post("/joueur/problemes/P1/envoyer", data={
        "fichier": (io.BytesIO(big), "gros.txt"),
    }, content_type="multipart/form-data")
    assert resp.status_code == 413
    assert "dépasse 256 Ko" in visible_text(resp)
    assert db_session.exec(select(Submission)).all() == []


def test_receipt_numbers_the_players_own_sheets_not_the_server_rows(
    client: FlaskClient, ana: Player, evil: Player, p1: Problem, db_session: Session,
    frozen_clock: Any,
) -> None:
    """« Feuille n° 3 » is the 3rd version Ana sent for this problem (issue 13, point 7), on
    the receipt page and in the receipt e-mail, whatever the server-wide row id."""
    from webapp.models import OutboxMessage
    from webapp.services import clock

    def send(player: Player, minutes: int) -> Submission:
        out = submit_sheet(session=db_session, player=player, problem=p1, text=SHEET,
                           channel=Channel.WEB,
                           received_at=clock.now() + timedelta(minutes=minutes))
        db_session.commit()
        assert out.submission is not None
        return out.submission

    # rows in order: Ana v1, the other player's v1, Ana v2, Ana v3 -> Ana's 3rd sheet is the
    # 4th row: its id is her first id + 3, its number 3
    first = send(ana, 1)
    send(evil, 2)
    send(ana, 3)
    third = send(ana, 4)
    assert (third.version, third.id) == (3, (first.id or 0) + 3)
    login_player(client, ana)
    receipt = client.get(f"/joueur/feuilles/{third.id}")
    assert receipt.status_code == 200
    assert '<strong id="sheet-number">3</strong>' in page(receipt)
    assert "<title>Accusé de réception n° 3 — Arbitre</title>" in page(receipt)
    mail = db_session.exec(
        select(OutboxMessage).where(OutboxMessage.dedupe_key == f"receipt:{third.id}")
    ).one()
    assert "Référence de l'envoi : feuille n° 3\n" in mail.body_text
    other = db_session.exec(select(Submission).where(Submission.player_id == evil.id)).one()
    assert other.version == 1


def test_history_and_receipts_are_the_players_own(
    client: FlaskClient, ana: Player, evil: Player, p1: Problem, db_session: Session,
    frozen_clock: Any,
) -> None:
    login_player(client, ana)
    client.post("/joueur/problemes/P1/envoyer", data={"feuille": "1 ACEFHIR h8 FICHERA 82 82\n"})
    frozen_clock.shift(timedelta(hours=1))
    client.post("/joueur/problemes/P1/envoyer", data={"feuille": SHEET})
    subs = db_session.exec(select(Submission).order_by(Submission.version)).all()
    assert [s.version for s in subs] == [1, 2]
    hist = visible_text(client.get("/joueur/problemes/P1/versions"))
    assert "n° 2" in hist and "n° 1" in hist and "la plus récente" in hist
    assert "10/05/2026 à 14:00:00 (Europe/Bucharest, UTC+03:00)" in hist
    # an older receipt says it was replaced
    assert "remplacée par une version plus récente" in visible_text(
        client.get(f"/joueur/feuilles/{subs[0].id}"))
    # another player cannot read them
    login_player(client, evil)
    assert client.get(f"/joueur/feuilles/{subs[1].id}").status_code == 404


def test_player_space_lists_sheets(
    client: FlaskClient, ana: Player, p1: Problem, frozen_clock: Any
) -> None:
    login_player(client, ana)
    client.post("/joueur/problemes/P1/envoyer", data={"feuille": SHEET})
    text = visible_text(client.get("/joueur/"))
    assert "Mes feuilles" in text and "Scrabble intégral" in text and "lue" in text


# --- reports and permissions ------------------------------------------------------------------


def _verified(db_session: Session, players: list[Player], prob: Problem,
              frozen_start: Any) -> dict[int, Verification]:
    for i, pl in enumerate(players):
        submit_sheet(session=db_session, player=pl, problem=prob, text=SHEET,
                     channel=Channel.WEB, received_at=frozen_start + timedelta(minutes=i))
    prob.status = ProblemStatus.CLOSED
    db_session.add(prob)
    created = verification.verify_problem(session=db_session, problem=prob, actor="system")
    db_session.commit()
    subs = {s.id: s.player_id for s in db_session.exec(select(Submission)).all()}
    return {subs[v.submission_id]: v for v in created}


def test_report_before_publication_is_only_for_its_player_and_the_arbitre(
    client: FlaskClient, ana: Player, evil: Player, p1: Problem, db_session: Session,
    frozen_start: Any, frozen_clock: Any,
) -> None:
    ver = _verified(db_session, [ana, evil], p1, frozen_start)
    url = f"/rapports/{ver[ana.id].id}"
    assert client.get(url).status_code == 404  # anonymous: the report does not exist for them
    login_player(client, evil)
    assert client.get(url).status_code == 403
    login_player(client, ana)
    resp = client.get(url)
    assert resp.status_code == 200
    text = visible_text(resp)
    assert '<strong id="final-score">166</strong>' in page(resp)
    assert "FICHERA" in text and "WUS" in text
    assert "n'est visible que par vous et l'arbitre" in text
    # the final grid and one move of the replay (move 1; the others on demand)
    assert page(resp).count('class="replay-step current"') == 1
    assert page(resp).count("<svg") == 2
    assert "Coup 1 / 2" in page(resp)
    login_arbitre(client, db_session)
    assert client.get(url).status_code == 200


def test_zeroed_move_is_explained(
    client: FlaskClient, ana: Player, p1: Problem, db_session: Session, frozen_start: Any,
    frozen_clock: Any,
) -> None:
    # SWU down column 15 makes FICHERAU, not a word: the move is zero, with the reason
    submit_sheet(session=db_session, player=ana, problem=p1,
                 text="1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f SWU 30 112\n",
                 channel=Channel.WEB, received_at=frozen_start)
    p1.status = ProblemStatus.CLOSED
    db_session.add(p1)
    (v,) = verification.verify_problem(session=db_session, problem=p1, actor="system")
    db_session.commit()
    login_player(client, ana)
    resp = client.get(f"/rapports/{v.id}")
    body = page(resp)
    move2 = v.report["moves"][1]
    assert move2["status"] in ("zéro", "zéro en cascade") and move2["reasons"]
    assert '<strong id="final-score">82</strong>' in body
    assert any("FICHERAU" in r for r in move2["reasons"])
    for reason in move2["reasons"]:
        assert reason in html.unescape(body)
    assert 'class="zero"' in body


# --- console -----------------------------------------------------------------------------------

CONSOLE_PAGES = ["/console/", "/console/competitions/nouvelle", "/console/competitions/cn2026",
                 "/console/joueurs", "/console/problemes/nouveau", "/console/appels",
                 "/console/journal", "/console/courrier"]


def test_console_is_for_arbitres_only(
    client: FlaskClient, ana: Player, p1: Problem, db_session: Session
) -> None:
    urls = [*CONSOLE_PAGES, f"/console/problemes/{p1.id}"]
    for url in urls:
        resp = client.get(url)
        assert resp.status_code == 302, url
        assert resp.headers["Location"].startswith("/arbitre/connexion")
    login_player(client, ana)
    for url in urls:
        assert client.get(url).status_code == 302, url
    assert client.post(f"/console/problemes/{p1.id}/etape", data={"step": "close"}
                       ).status_code == 302
    login_arbitre(client, db_session)
    for url in urls:
        resp = client.get(url)
        assert resp.status_code == 200, url
        assert "Console" in visible_text(resp) or "console" in visible_text(resp)


def test_console_creates_a_competition_and_a_drawn_problem(
    client: FlaskClient, db_session: Session, frozen_clock: Any
) -> None:
    login_arbitre(client, db_session)
    resp = client.post("/console/competitions/nouvelle", data={
        "name": "Coupe d'hiver", "slug": "hiver", "lang": "fr", "ranking_rule": "sum_scores",
    })
    assert resp.status_code == 302 and resp.headers["Location"] == "/console/competitions/hiver"
    comp = db_session.exec(select(Competition).where(Competition.slug == "hiver")).one()
    resp = client.post("/console/problemes/nouveau", data={
        "competition_id": comp.id, "source": "generate", "game": "integral_partiel",
        "lang": "fr", "seed": "42", "timezone": "Europe/Bucharest",
        "publish_at": "2026-06-01T09:00", "deadline_at": "2026-06-08T21:00", "code": "H1",
    })
    assert resp.status_code == 302
    prob = db_session.exec(select(Problem).where(Problem.code == "H1")).one()
    # local Bucharest times (UTC+3 in June) stored as UTC instants
    assert prob.publish_at.isoformat() == "2026-06-01T06:00:00+00:00"
    assert prob.deadline_at.isoformat() == "2026-06-08T18:00:00+00:00"
    assert prob.status == ProblemStatus.SCHEDULED and prob.game == "integral_partiel"
    from puzzles.generate import new_problem

    assert prob.params["stock"] == new_problem("integral_partiel", seed=42).stock
    page_ = visible_text(client.get(f"/console/problemes/{prob.id}"))
    assert "Publier maintenant" in page_ and "lettres tirées" in page_
    actions = [a.action for a in db_session.exec(select(AuditLog)).all()]
    assert "competition.create" in actions and "problem.create" in actions


def test_console_problem_form_errors_keep_what_was_typed(
    client: FlaskClient, db_session: Session, competition: Competition
) -> None:
    login_arbitre(client, db_session)
    resp = client.post("/console/problemes/nouveau", data={
        "competition_id": competition.id, "source": "json", "problem_json": "{ pas du json",
        "timezone": "Europe/Bucharest", "publish_at": "2026-06-01T09:00",
        "deadline_at": "2026-06-08T21:00", "title": "Mon problème",
    })
    assert resp.status_code == 400
    text = visible_text(resp)
    assert "Ligne 1 : JSON illisible" in text
    assert 'value="Mon problème"' in text and "{ pas du json" in text
    assert db_session.exec(select(Problem)).all() == []


def test_console_player_import_reports_line_numbers_and_imports_nothing_on_error(
    client: FlaskClient, db_session: Session, competition: Competition
) -> None:
    login_arbitre(client, db_session)
    bad = "nom,club,courriel\nAna Popescu,CSB,ana@example.ro\nBob,,pas-une-adresse\n"
    resp = client.post("/console/joueurs", data={"csv": bad, "competition_id": competition.id})
    assert resp.status_code == 400
    text = visible_text(resp)
    assert "Rien n'a été importé" in text
    assert ("Ligne 3 : adresse électronique invalide : « pas-une-adresse » "
            "(une adresse contient exactement un « @ »).") in text
    assert db_session.exec(select(Player)).all() == []
    good = "nom;club;courriel\nAna Popescu;CSB;ana@example.ro\nBob Martin;;bob@example.fr\n"
    resp = client.post("/console/joueurs", data={"csv": good, "competition_id": competition.id},
                       follow_redirects=True)
    assert resp.status_code == 200
    assert "Import terminé : 2 créé(s), 0 mis à jour, 0 inchangé(s)." in visible_text(resp)
    assert sorted(p.email for p in db_session.exec(select(Player)).all()) == [
        "ana@example.ro", "bob@example.fr"]


def test_console_lists_submissions_as_they_arrive(
    client: FlaskClient, ana: Player, evil: Player, p1: Problem, db_session: Session,
    frozen_start: Any, frozen_clock: Any,
) -> None:
    submit_sheet(session=db_session, player=evil, problem=p1, text=SHEET, channel=Channel.EMAIL,
                 received_at=frozen_start)
    db_session.commit()
    login_arbitre(client, db_session)
    resp = client.get(f"/console/problemes/{p1.id}?auto=1")
    body = page(resp)
    assert 'http-equiv="refresh"' in body
    assert "Feuilles reçues (1 joueur(s))" in visible_text(resp)
    assert ESCAPED in body and EVIL not in body
    dash = page(client.get("/console/"))
    assert ESCAPED in dash and EVIL not in dash


def test_console_steps_close_then_verify(
    client: FlaskClient, ana: Player, p1: Problem, db_session: Session, frozen_start: Any,
    frozen_clock: Any,
) -> None:
    submit_sheet(session=db_session, player=ana, problem=p1, text=SHEET, channel=Channel.WEB,
                 received_at=frozen_start)
    db_session.commit()
    login_arbitre(client, db_session)
    # before the deadline the problem cannot be closed
    resp = client.post(f"/console/problemes/{p1.id}/etape", data={"step": "close"},
                       follow_redirects=True)
    assert "Le délai n'est pas écoulé" in visible_text(resp)
    frozen_clock.move_to(p1.deadline_at + timedelta(minutes=1))
    client.post(f"/console/problemes/{p1.id}/etape", data={"step": "close"})
    client.post(f"/console/problemes/{p1.id}/etape", data={"step": "verify"})
    db_session.expire_all()
    assert db_session.get(Problem, p1.id).status == ProblemStatus.VERIFIED
    (v,) = db_session.exec(select(Verification)).all()
    assert v.final_score == 166
    text = visible_text(client.get(f"/console/problemes/{p1.id}"))
    assert "166 pts" in text and "Publier le classement provisoire" in text


def test_console_ruling_needs_a_reason(
    client: FlaskClient, p1: Problem, db_session: Session
) -> None:
    login_arbitre(client, db_session)
    resp = client.post(f"/console/problemes/{p1.id}/decisions",
                       data={"kind": "reject_word", "word": "wus", "comment": ""})
    assert resp.status_code == 400
    shown = visible_text(resp)
    assert "Non enregistré" in shown and "Motivez la décision" in shown
    # what was typed is still there
    assert 'value="wus"' in shown and '<option value="reject_word" selected>' in shown
    resp = client.post(f"/console/problemes/{p1.id}/decisions",
                       data={"kind": "accept_word", "word": "wus", "comment": "usage attesté"},
                       follow_redirects=True)
    text = visible_text(resp)
    assert "Décision enregistrée" in text and "mot admis <code>WUS</code> : usage attesté" in text


def test_audit_log_filters(
    client: FlaskClient, p1: Problem, db_session: Session
) -> None:
    login_arbitre(client, db_session)
    resp = client.get("/console/journal?action=problem.")
    text = visible_text(resp)
    assert "problem.create" in text and "competition.create" not in text


# --- CSRF --------------------------------------------------------------------------------------


def test_forged_post_is_refused_when_csrf_is_on(
    app: Flask, client: FlaskClient, ana: Player, p1: Problem, db_session: Session,
    frozen_clock: Any,
) -> None:
    app.config["WTF_CSRF_ENABLED"] = True
    login_player(client, ana)
    forged = client.post("/joueur/problemes/P1/envoyer", data={"feuille": SHEET})
    assert forged.status_code == 400
    assert "Requête refusée" in visible_text(forged)
    assert db_session.exec(select(Submission)).all() == []
    form = page(client.get("/joueur/problemes/P1/envoyer"))
    token = re.search(r'name="csrf_token" value="([^"]+)"', form).group(1)
    ok = client.post("/joueur/problemes/P1/envoyer", data={"feuille": SHEET, "csrf_token": token})
    assert ok.status_code == 302
    assert len(db_session.exec(select(Submission)).all()) == 1


def test_player_space_without_any_competition(
    client: FlaskClient, db_session: Session
) -> None:
    from webapp.services.players import create_player

    loner = create_player(session=db_session, name="Solitaire", email="seul@example.fr")
    db_session.commit()
    login_player(client, loner)
    resp = client.get("/joueur/")
    assert resp.status_code == 200
    shown = visible_text(resp)
    assert "Aucun problème ouvert dans vos compétitions." in shown
    assert "Vous n'avez encore envoyé aucune feuille." in shown


def test_forged_console_post_is_refused_when_csrf_is_on(
    app: Flask, client: FlaskClient, p1: Problem, db_session: Session, frozen_clock: Any
) -> None:
    app.config["WTF_CSRF_ENABLED"] = True
    login_arbitre(client, db_session)
    forged = client.post(f"/console/problemes/{p1.id}/decisions",
                         data={"kind": "accept_word", "word": "WUS", "comment": "forgé"})
    assert forged.status_code == 400
    from webapp.models import Ruling

    assert db_session.exec(select(Ruling)).all() == []


def test_report_of_an_unreadable_sheet_renders(
    client: FlaskClient, ana: Player, p1: Problem, db_session: Session, frozen_start: Any,
    frozen_clock: Any,
) -> None:
    submit_sheet(session=db_session, player=ana, problem=p1, text="bonjour, voici ma feuille",
                 channel=Channel.WEB, received_at=frozen_start)
    p1.status = ProblemStatus.CLOSED
    db_session.add(p1)
    (v,) = verification.verify_problem(session=db_session, problem=p1, actor="system")
    db_session.commit()
    login_player(client, ana)
    resp = client.get(f"/rapports/{v.id}")
    assert resp.status_code == 200
    body = page(resp)
    assert '<strong id="final-score">0</strong>' in body
    # the parser read one move (VOICI, without a reference): it is shown as a zero, with
    # the verifier's reasons, on an empty grid
    (move,) = v.report["moves"]
    assert move["word"] == "VOICI" and move["score"] == 0 and move["reasons"]
    assert body.count('class="replay-step current"') == 1
    for reason in move["reasons"]:
        assert reason in html.unescape(body)
