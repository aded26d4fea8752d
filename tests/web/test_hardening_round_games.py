"""Issue 24 §4: the round games' inputs (Duplicate and its variants, the correspondence
game) on the console, and what a stored value may do to a download or a calendar.

- Every downloaded file has an RFC 6266 ``Content-Disposition`` (an ASCII ``filename="…"``
  and, for any other name, ``filename*=UTF-8''…`` percent-encoded, RFC 5987): a stored code
  with an emoji no longer stops ``/correspondance/<code>/fiche.txt`` (the header was
  Latin-1: ``UnicodeEncodeError``).
- Codes outside the slug alphabet (``/``, an emoji, 33 characters) are refused by the
  console forms and by the services; a code stored before keeps its pages.
- Names and titles with a line break or a control character are refused where they enter
  (console forms, CSV import, player pages, services); the calendar feeds write whatever
  is stored on one line, so a stored bad value never makes them 500 (it did:
  ``Content line can not contain unescaped new line characters``).
- Every field of the round-game console forms is bounded and checked in French (huge
  numbers, ids no row can have — 2³¹ is refused by PostgreSQL only —, a year-1 date, the
  time zone ``../../etc/passwd``, 100,000-character titles): a French 400 and nothing
  stored, never a 500. Hypothesis fuzzes the forms: any field values give a French error
  page or a success.
"""

from __future__ import annotations

import html
import os
import random
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from icalendar import Calendar
from sqlmodel import Session, select

from scoring.tiles import tileset
from tests.web.za_game import START, use_word_list, za_game
from webapp.auth import create_arbitre
from webapp.models import (
    Competition,
    CorrespondenceGame,
    DuplicateGame,
    Player,
    Problem,
    Stage,
)
from webapp.services import clock, correspondence, duplicate, lifecycle, players, problems
from webapp.views.helpers import content_disposition

pytestmark = pytest.mark.db

HUGE = "99999999999999999999999"
ABOVE_INT4 = str(2**31)  # SQLite stores it; PostgreSQL's integer refuses it
SLUG_RULE = ("refusé : de 1 à 32 lettres sans accent, chiffres, - et _, commençant par une "
             "lettre ou un chiffre.")
HEAD = "ZAEIBCDSEOUFGHAE"


def text(resp: Any) -> str:
    return html.unescape(resp.get_data(as_text=True))


def errors_of(resp: Any) -> list[str]:
    """The French error(s) a page shows (the form's error, the flashed ones), each once (the
    layout repeats a form's error at the top of the page)."""
    found = re.findall(r'class="flash error"[^>]*>(.*?)</(?:p|li)>', resp.get_data(as_text=True),
                       re.DOTALL)
    return list(dict.fromkeys(html.unescape(f).strip() for f in found))


def row_letters() -> str:
    rest = tileset("fr").bag() - Counter(HEAD)
    return HEAD + "".join(sorted(rest.elements()))[:30]


@pytest.fixture
def console(client: FlaskClient, db_session: Session, frozen_clock: Any) -> FlaskClient:
    """Signed in under the frozen clock."""
    a = create_arbitre(session=db_session, username="juge", password="motdepasse1")
    db_session.commit()
    with client.session_transaction() as sess:
        sess["arbitre_id"] = a.id
    return client


@pytest.fixture
def pair(make_player: Callable[..., Player]) -> tuple[Player, Player]:
    return make_player("Ana", "ana@example.ro"), make_player("Bob", "bob@example.fr")


def duplicate_form(competition: Competition, **over: str) -> dict[str, Any]:
    form = {"title": "Partie du mardi", "code": "MAR1", "competition_id": str(competition.id),
            "lang": "fr", "rounds": "", "rhythm": "all_answered", "hours": "48",
            "starts_at": "2026-05-12T20:00", "timezone": "Europe/Bucharest",
            "solo_rule": "auto", "solo_points": "10", "warning_conversion_from": "6",
            "review_minutes": "0", "seed": "7", "lexicon": "default"}
    form.update(over)
    return form


def correspondence_form(competition: Competition, red: Player, blue: Player,
                        **over: str) -> dict[str, Any]:
    form = {"competition_id": str(competition.id), "red_id": str(red.id),
            "blue_id": str(blue.id), "row": row_letters(), "title": "", "code": "CO1",
            "lexicon": "za", "move_hours": "72", "reminder_hours": "24", "grace_hours": "24"}
    form.update(over)
    return form


# --- downloads: RFC 6266 / 5987 file names ---------------------------------------------------


def test_the_content_disposition_helper() -> None:
    assert content_disposition("fisa-CO1.txt", inline=True) == 'inline; filename="fisa-CO1.txt"'
    assert content_disposition("message-3.eml") == 'attachment; filename="message-3.eml"'
    # U+1F600 is F0 9F 98 80 in UTF-8; é is C3 A9 (its NFKD fallback: e)
    assert content_disposition("fisa-CO😀.txt", inline=True) == (
        "inline; filename=\"fisa-CO_.txt\"; filename*=UTF-8''fisa-CO%F0%9F%98%80.txt")
    assert content_disposition("classement-été.csv") == (
        "attachment; filename=\"classement-ete.csv\"; "
        "filename*=UTF-8''classement-%C3%A9t%C3%A9.csv")
    # a quote, a semicolon, a percent sign, a line break, a path: never in the header
    value = content_disposition('a"b;c%d\r\n../e.csv')
    assert value == ("attachment; filename=\"a_b_c_d..e.csv\"; "
                     "filename*=UTF-8''a%22b%3Bc%25d..e.csv")
    value.encode("latin-1")


def test_every_download_writes_its_header_with_the_helper() -> None:
    """No view writes a ``Content-Disposition`` of its own (one RFC 6266 helper for all)."""
    root = Path(__file__).resolve().parents[2] / "webapp"
    found = []
    for path in sorted(root.rglob("*.py")):
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            if "Content-Disposition" in line and path.name != "helpers.py":
                found.append((path.name, n, "content_disposition(" in line))
    assert len(found) == 5, found  # the 2 ranking CSVs, the sheet, the calendar, the .eml
    assert all(ok for _name, _n, ok in found), found


def _stored_code(db_session: Session, model: Any, old: str, new: str) -> None:
    """A code stored before codes were checked (what an old database may hold)."""
    db_session.execute(sa.update(model).where(model.code == old).values(code=new))
    db_session.commit()


def test_a_stored_emoji_code_still_downloads_its_sheet(
    app: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    pair: tuple[Player, Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    use_word_list(app, tmp_path, "ZA\nZAS\n")
    red, blue = pair
    with app.app_context():
        correspondence.create_game(session=db_session, competition=competition, red=red,
                                   blue=blue, row=row_letters(), starts_at=clock.now(),
                                   code="CO1", lexicon_name="za")
        db_session.commit()
    _stored_code(db_session, CorrespondenceGame, "CO1", "CO😀")
    r = client.get("/correspondance/" + quote("CO😀") + "/fiche.txt")
    assert r.status_code == 200
    assert r.headers["Content-Disposition"] == (
        "inline; filename=\"fisa-CO_.txt\"; filename*=UTF-8''fisa-CO%F0%9F%98%80.txt")
    assert text(r).splitlines()[2:4] == ["rouge: Ana", "bleu: Bob"]
    assert client.get("/correspondance/" + quote("CO😀")).status_code == 200


# --- codes: the slug alphabet ------------------------------------------------------------------


@pytest.mark.parametrize("code", ["a/b", "CO😀", "A" * 33, "-x", "é1", "a b", "a\nb"])
def test_game_codes_outside_the_slug_alphabet_are_refused(
    app: Flask, console: FlaskClient, db_session: Session, competition: Competition,
    pair: tuple[Player, Player], tmp_path: Path, code: str,
) -> None:
    use_word_list(app, tmp_path, "ZA\nZAS\n")
    shown = " ".join(code.split())  # a line break is shown as a space
    r = console.post("/console/duplicate", data=duplicate_form(competition, code=code))
    assert r.status_code == 400
    assert errors_of(r) == [f"Code de la partie « {shown} » {SLUG_RULE}"]
    r = console.post("/console/correspondance",
                     data=correspondence_form(competition, *pair, code=code))
    assert r.status_code == 400
    assert errors_of(r) == [f"Code de la partie « {shown} » {SLUG_RULE}"]
    # the services refuse them too (a caller other than the console)
    red, blue = pair
    with app.app_context():
        with pytest.raises(correspondence.CorrespondenceError, match="refusé : de 1 à 32"):
            correspondence.create_game(session=db_session, competition=competition, red=red,
                                       blue=blue, row=row_letters(), starts_at=clock.now(),
                                       code=code, lexicon_name="za")
        with pytest.raises(duplicate.DuplicateError, match="refusé : de 1 à 32"):
            za_game(app, db_session, competition, tmp_path, code=code)
    db_session.rollback()
    assert db_session.exec(select(DuplicateGame)).all() == []
    assert db_session.exec(select(CorrespondenceGame)).all() == []


def test_a_round_robin_prefix_outside_the_slug_alphabet_is_refused(
    app: Flask, console: FlaskClient, db_session: Session, competition: Competition,
    pair: tuple[Player, Player], tmp_path: Path,
) -> None:
    use_word_list(app, tmp_path, "ZA\nZAS\n")
    base = {"series_competition_id": str(competition.id),
            "player_ids": [str(p.id) for p in pair], "series_row": row_letters(),
            "series_lexicon": "za"}
    for prefix, message in (
        ("x/y", f"Préfixe des codes « x/y » {SLUG_RULE}"),
        ("A" * 27, "Préfixe des codes : 27 caractères, 26 au plus."),
    ):
        r = console.post("/console/correspondance/serie", data={**base, "code_prefix": prefix})
        assert r.status_code == 400
        assert errors_of(r) == [message]
    assert db_session.exec(select(CorrespondenceGame)).all() == []
    r = console.post("/console/correspondance/serie", data={**base, "code_prefix": "S" * 26})
    assert r.status_code == 302
    assert [g.code for g in db_session.exec(select(CorrespondenceGame)).all()] == [
        "S" * 26 + "-1-1"]


# --- names and titles: one line where they enter, one line in the calendars -----------------


def test_names_with_a_line_break_are_refused_where_they_enter(
    app: Flask, console: FlaskClient, db_session: Session, competition: Competition,
    pair: tuple[Player, Player], make_problem: Callable[..., Problem], tmp_path: Path,
) -> None:
    use_word_list(app, tmp_path, "ZA\nZAS\n")
    ana, _bob = pair
    # the CSV import: a quoted cell may hold a line break (the error names the record's
    # first line)
    r = console.post("/console/joueurs", data={
        "csv": 'nom;club;email\n"Cid\r\nDan";Club;cid@example.fr\nEve;"A\x1bB";eve@example.fr\n'})
    assert r.status_code == 400
    page = text(r)
    assert "Ligne 2 : nom « Cid Dan » : un retour à la ligne n'y est pas admis." in page
    assert "Ligne 4 : club « A B » : le caractère de contrôle U+001B n'y est pas admis." in page
    assert db_session.exec(select(Player).where(Player.email == "eve@example.fr")).first() \
        is None
    # the arbitre's edit of a player, and of his profile
    r = console.post(f"/console/joueurs/{ana.id}", data={
        "name": "Ana\nPopescu", "email": "ana@example.ro", "club": "", "licence": "",
        "category": "", "country": "", "locale": ""})
    assert r.status_code == 400
    assert "Le nom : un retour à la ligne n'y est pas admis." in text(r)
    r = console.post(f"/console/joueurs/{ana.id}/fiche", data={
        "club": "Club\r\nBis", "licence": "", "category": "", "country": "R\x1bO"})
    assert r.status_code == 400
    assert "Le club : un retour à la ligne n'y est pas admis." in text(r)
    assert "Le pays : le caractère de contrôle U+001B n'y est pas admis." in text(r)
    db_session.expire_all()
    assert (db_session.get(Player, ana.id).name, db_session.get(Player, ana.id).club) == (
        "Ana", "")
    # a competition, a stage, a problem, a Duplicate and a correspondence game
    r = console.post("/console/competitions/nouvelle", data={"slug": "ligue", "name": "L\nB"})
    assert r.status_code == 400
    assert "Nom de la compétition : un retour à la ligne n'y est pas admis." in text(r)
    r = console.post("/console/competitions/cn2026",
                     data={"action": "stage", "stage_name": "Tour\u20281"},
                     follow_redirects=True)
    assert "Nom de l'étape : un retour à la ligne n'y est pas admis." in text(r)
    assert db_session.exec(select(Stage)).all() == []
    from tests.web.test_hardening_console import problem_form

    r = console.post("/console/problemes/nouveau",
                     data=problem_form(competition, title="Premier\rproblème"))
    assert r.status_code == 400
    assert errors_of(r) == ["Titre : un retour à la ligne n'y est pas admis."]
    r = console.post("/console/duplicate", data=duplicate_form(competition, title="Mardi\nsoir"))
    assert errors_of(r) == ["Titre : un retour à la ligne n'y est pas admis."]
    r = console.post("/console/correspondance",
                     data=correspondence_form(competition, *pair, title="A\tB"))
    assert errors_of(r) == ["Titre : le caractère de contrôle U+0009 n'y est pas admis."]
    # the services refuse them too
    with app.app_context():
        with pytest.raises(ValueError, match="Nom du joueur : un retour à la ligne"):
            players.create_player(session=db_session, name="Zoé\nZed", email="z@example.fr")
        with pytest.raises(ValueError, match="Nom de la compétition : un retour à la ligne"):
            problems.create_competition(session=db_session, slug="x2", name="X\rY")
        with pytest.raises(duplicate.DuplicateError, match="Titre : un retour à la ligne"):
            za_game(app, db_session, competition, tmp_path, title="Ex\npress")
        with pytest.raises(ValueError, match="Nom de l'arbitre : un retour à la ligne"):
            create_arbitre(session=db_session, username="juge2", password="motdepasse1",
                           name="Juge\r\nBis")
    db_session.rollback()
    assert db_session.exec(select(Competition)).all()[0].slug == "cn2026"
    assert len(db_session.exec(select(Competition)).all()) == 1
    assert db_session.exec(select(DuplicateGame)).all() == []
    assert db_session.exec(select(Problem)).all() == []


def test_the_calendars_write_stored_line_breaks_on_one_line(
    app: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], make_problem: Callable[..., Problem],
    tmp_path: Path, frozen_clock: Any,
) -> None:
    """Values stored before names were checked: the feeds answer, each text on one line."""
    ana = make_player("Ana", "ana@example.ro")
    prob = make_problem(code="P1")
    game = za_game(app, db_session, competition, tmp_path)
    with app.app_context():
        frozen_clock.move_to(START)
        lifecycle.run_due(now=clock.now())  # round 1 drawn: an event of its own
    for model, key, values in (
        (Player, ana.id, {"name": "Ana\r\nPopescu"}),
        (Competition, competition.id, {"name": "Ligue\nB;is", "slug": "cn😀"}),
        (Problem, prob.id, {"title": "Premier\rproblème\x1b"}),
        (DuplicateGame, game.id, {"title": "Ex\u2028press", "code": "EX😀"}),
    ):
        db_session.execute(sa.update(model).where(model.id == key).values(**values))
    db_session.commit()
    label = prob.game.label
    r = client.get(f"/joueurs/{ana.id}/calendrier.ics")
    assert r.status_code == 200
    assert r.headers["Content-Disposition"] == f'inline; filename="arbitre-joueur-{ana.id}.ics"'
    cal = Calendar.from_ical(r.data)
    assert str(cal["X-WR-CALNAME"]) == "Arbitre — Ana Popescu"
    summaries = sorted(str(ev["SUMMARY"]) for ev in cal.walk("VEVENT"))
    assert summaries == sorted([f"Publication : Premier problème ({label})",
                                "Clôture : Premier problème", "Duplicate : Ex press — début",
                                "Duplicate : Ex press — coup 1"])
    assert b"\x1b" not in r.data and b"Ligue" not in r.data
    r = client.get("/competitions/" + quote("cn😀") + "/calendrier.ics")
    assert r.status_code == 200
    assert r.headers["Content-Disposition"] == (
        "inline; filename=\"arbitre-cn_.ics\"; filename*=UTF-8''arbitre-cn%F0%9F%98%80.ics")
    cal = Calendar.from_ical(r.data)
    # an X- property is TEXT (RFC 5545 §3.8.8.2): escaped, which icalendar leaves as read
    assert b"\r\nX-WR-CALNAME:Ligue B\\;is\r\n" in r.data
    assert len(list(cal.walk("VEVENT"))) == 4
    # a stored code is percent-encoded in the events' URLs (RFC 3986)
    assert {str(ev["URL"]) for ev in cal.walk("VEVENT")} == {
        "http://arbitre.test/problemes/P1", "http://arbitre.test/duplicate/EX%F0%9F%98%80"}
    # and its game page still answers (round 1 is open), the title as stored
    r = client.get("/duplicate/" + quote("EX😀"))
    assert r.status_code == 200 and "Ex\u2028press" in text(r)


# --- the console forms' bounds -----------------------------------------------------------------


@pytest.mark.parametrize(("over", "message"), [
    ({"review_minutes": HUGE}, f"Revue du top après la clôture (minutes) : {HUGE} est hors des "
                               "limites (de 0 à 10080)."),
    ({"review_minutes": "-1"}, "Revue du top après la clôture (minutes) : -1 est hors des "
                               "limites (de 0 à 10080)."),
    ({"review_minutes": "1e9"}, "Revue du top après la clôture (minutes) : « 1e9 » n'est pas un "
                                "nombre entier."),
    ({"competition_id": HUGE}, "Choisissez la compétition dont les inscrits joueront la "
                               "partie."),
    ({"competition_id": ABOVE_INT4}, "Choisissez la compétition dont les inscrits joueront la "
                                     "partie."),
    ({"competition_id": "-5"}, "Choisissez la compétition dont les inscrits joueront la "
                               "partie."),
    ({"starts_at": "0001-01-01T00:00"}, "Date hors des limites : « 0001-01-01T00:00 » (l'année "
                                        "doit être comprise entre 2000 et 2100)."),
    ({"starts_at": "9999-12-31T23:59"}, "Date hors des limites : « 9999-12-31T23:59 » (l'année "
                                        "doit être comprise entre 2000 et 2100)."),
    ({"starts_at": "mardi"}, "Date illisible : « mardi » (attendu AAAA-MM-JJTHH:MM)."),
    ({"timezone": "../../etc/passwd"}, "Fuseau horaire inconnu : « ../../etc/passwd »."),
    ({"timezone": "Europe/Nulle_part"}, "Fuseau horaire inconnu : « Europe/Nulle_part »."),
    ({"title": "T" * 100_000}, "Titre : 100000 caractères, 200 au plus."),
    ({"title": ""}, "Donnez un titre à la partie."),
    ({"rounds": HUGE}, f"Nombre de tours : {HUGE} est hors des limites (de 1 à 200)."),
    ({"rounds": "0"}, "Nombre de tours : 0 est hors des limites (de 1 à 200)."),
    ({"solo_points": "dix"}, "Prime de solo : « dix » n'est pas un nombre entier."),
    ({"solo_points": ABOVE_INT4}, f"Prime de solo : {ABOVE_INT4} est hors des limites (de 0 à "
                                  "1000)."),
    ({"warning_conversion_from": HUGE}, "La conversion des avertissements se fait au 4e ou au "
                                        "6e."),
    ({"lang": "xx"}, "Jeu de lettres inconnu : français (102) ou roumain (100)."),
    ({"solo_rule": "x" * 1000}, "Règle du solo inconnue."),
    ({"lexicon": "L" * 101}, "Liste de mots : 101 caractères, 100 au plus."),
    ({"hours": HUGE}, f"Délai d'un tour (heures) : {HUGE} est hors des limites (de 1 à 1440)."),
    ({"hours": ""}, "Délai d'un tour (heures) : valeur obligatoire."),
    ({"rhythm": "live", "review_minutes": "0", "live_minutes": HUGE},
     f"Temps d'un tour en direct (minutes) : {HUGE} est hors des limites (de 1 à 180)."),
    ({"rhythm": "weekdays", "days": "9"}, "Choisissez au moins un jour de la semaine pour la "
                                          "clôture des tours."),
    ({"rhythm": "weekdays", "days": "1", "time": "99999999999999999999:00"},
     "Heure de clôture illisible : « 99999999999999999999:00 » (attendu HH:MM)."),
    ({"rhythm": "weekdays", "days": "1", "time": "25:00"},
     "Heure de clôture illisible : « 25:00 » (attendu HH:MM)."),
    ({"rhythm": "chaque lune"}, "Rythme des tours inconnu : choisissez « toutes les N heures », "
                                "« jours fixes », « dès que tous ont répondu » ou « en "
                                "direct »."),
    ({"variant": "tactique", "tactique_order": "x" * 41},
     "Tactique : ordre des groupes : 41 caractères, 40 au plus."),
    ({"variant": "superscrabble", "superscrabble_start": "H7 " + "L" * 30},
     "Partie de Superscrabble, mot de départ : 33 caractères, 20 au plus."),
    ({"variant": "superscrabble", "superscrabble_start": "H7 LA",
      "superscrabble_racks": " ".join(["RETAINS"] * 201)},
     "Partie de Superscrabble : 201 tirages, 200 au plus."),
])
def test_duplicate_fields_are_checked_in_french(
    console: FlaskClient, competition: Competition, db_session: Session,
    over: dict[str, str], message: str,
) -> None:
    r = console.post("/console/duplicate", data=duplicate_form(competition, **over))
    assert r.status_code == 400
    assert errors_of(r) == [message]
    assert db_session.exec(select(DuplicateGame)).all() == []


def test_an_unknown_variant_is_refused_in_french(
    console: FlaskClient, competition: Competition, db_session: Session,
) -> None:
    r = console.post("/console/duplicate",
                     data=duplicate_form(competition, variant="../" + "v" * 100))
    assert r.status_code == 400
    [error] = errors_of(r)
    assert error == ("Variante « ../" + "v" * 37 + " » inconnue de ce serveur (jouables : "
                     "Duplicate Top, Duplicate Complétif, Duplicate Superjoker, Duplicate "
                     "Métagramme, Duplicate Elliptique, Duplicate Tactique, Partie de "
                     "Superscrabble).")
    assert db_session.exec(select(DuplicateGame)).all() == []
    # the bounds still let the usual game through
    assert console.post("/console/duplicate",
                        data=duplicate_form(competition)).status_code == 302


@pytest.mark.parametrize(("over", "message"), [
    ({"red_id": HUGE}, "Choisissez la série, le joueur ROUGE et le joueur BLEU."),
    ({"blue_id": ABOVE_INT4}, "Choisissez la série, le joueur ROUGE et le joueur BLEU."),
    ({"competition_id": HUGE}, "Choisissez la série, le joueur ROUGE et le joueur BLEU."),
    ({"red_id": "1e3"}, "Choisissez la série, le joueur ROUGE et le joueur BLEU."),
    ({"move_hours": HUGE}, f"Délai d'un coup (heures) : {HUGE} est hors des limites (de 1 à "
                           "1440)."),
    ({"reminder_hours": ABOVE_INT4}, f"Rappel avant le délai (heures) : {ABOVE_INT4} est hors "
                                     "des limites (de 0 à 1440)."),
    ({"grace_hours": "x"}, "Tolérance (heures) : « x » n'est pas un nombre entier."),
    ({"title": "T" * 100_000}, "Titre : 100000 caractères, 200 au plus."),
    ({"row": "A" * 301}, "Rangée de lettres : 301 caractères, 300 au plus."),
    ({"lexicon": "L" * 101}, "Liste de mots : 101 caractères, 100 au plus."),
])
def test_correspondence_fields_are_checked_in_french(
    app: Flask, console: FlaskClient, competition: Competition, db_session: Session,
    pair: tuple[Player, Player], tmp_path: Path, over: dict[str, str], message: str,
) -> None:
    use_word_list(app, tmp_path, "ZA\nZAS\n")
    r = console.post("/console/correspondance", data=correspondence_form(competition, *pair,
                                                                          **over))
    assert r.status_code == 400
    assert errors_of(r) == [message]
    assert db_session.exec(select(CorrespondenceGame)).all() == []


def test_round_robin_fields_are_checked_in_french(
    app: Flask, console: FlaskClient, competition: Competition, db_session: Session,
    pair: tuple[Player, Player], tmp_path: Path,
) -> None:
    use_word_list(app, tmp_path, "ZA\nZAS\n")
    base = {"series_competition_id": str(competition.id),
            "player_ids": [str(p.id) for p in pair], "series_row": row_letters(),
            "series_lexicon": "za"}
    for over, message in (
        ({"series_competition_id": HUGE}, "Choisissez la série."),
        ({"series_competition_id": ABOVE_INT4}, "Choisissez la série."),
        ({"player_ids": [HUGE, ABOVE_INT4]}, "Choisissez au moins deux joueurs pour le tournoi "
                                             "toutes rondes."),
        ({"player_ids": [str(pair[0].id)] * 41}, "Tournoi toutes rondes : 41 joueurs choisis, "
                                                 "40 au plus."),
        ({"series_move_hours": HUGE}, f"Délai d'un coup (heures) : {HUGE} est hors des limites "
                                      "(de 1 à 1440)."),
        ({"series_row": "A" * 301}, "Rangée de lettres : 301 caractères, 300 au plus."),
    ):
        r = console.post("/console/correspondance/serie", data={**base, **over})
        assert r.status_code == 400, over
        assert errors_of(r) == [message]
    assert db_session.exec(select(CorrespondenceGame)).all() == []


def test_round_actions_are_bounded_in_french(
    app: Flask, console: FlaskClient, competition: Competition, db_session: Session,
    make_player: Callable[..., Player], tmp_path: Path, frozen_clock: Any,
) -> None:
    make_player("Ana", "ana@example.ro")
    za_game(app, db_session, competition, tmp_path)
    with app.app_context():
        frozen_clock.move_to(START)
        assert lifecycle.run_due(now=clock.now()) == ["draw:EX1:1"]
    for number in (HUGE, ABOVE_INT4, "0"):
        for action in ("top", "recorriger"):
            r = console.post(f"/console/duplicate/EX1/tours/{number}/{action}",
                             data={"ref": "H7", "word": "ZA", "reason": "motif"})
            assert r.status_code == 404, (number, action)
            assert "Page introuvable" in text(r)
    for over, message in (
        ({"ref": "H" * 101}, "Rien n'a été changé : Référence : 101 caractères, 100 au plus."),
        ({"word": "Z" * 100_000}, "Rien n'a été changé : Mot : 100000 caractères, 100 au "
                                  "plus."),
        ({"reason": "m" * 2001}, "Rien n'a été changé : Motif : 2001 caractères, 2000 au "
                                 "plus."),
        ({"reason": "ligne\nautre"}, "Rien n'a été changé : Motif : un retour à la ligne n'y "
                                     "est pas admis."),
        ({"digest": "d" * 129}, "Rien n'a été changé : Empreinte de l'aperçu : 129 caractères, "
                                "128 au plus."),
    ):
        data = {"ref": "H7", "word": "ZA", "reason": "motif", **over}
        r = console.post("/console/duplicate/EX1/tours/1/top", data=data,
                         follow_redirects=True)
        assert r.status_code == 200
        assert errors_of(r) == [message]
    # a well-formed request still reaches the service (round 1 is open: its answer)
    r = console.post("/console/duplicate/EX1/tours/1/recorriger", data={"reason": "motif"},
                     follow_redirects=True)
    assert errors_of(r) == ["Ce tour est encore ouvert : il sera corrigé à sa clôture."]


# --- fuzzers: any field values give a French page, never a 500 ---------------------------------

#: values a field may get: empty, huge and negative numbers, ids beyond PostgreSQL's integer,
#: years far off, NaN, paths, controls, line breaks, non-ASCII digits, very long text
NASTY = ["", " ", HUGE, "-" + HUGE, ABOVE_INT4, "-1", "0", "1e400", "nan", "inf", "٣", "²",
         "0001-01-01T00:00", "9999-12-31T23:59", "2026-05-12T20:00+14:00", "../../etc/passwd",
         "a/b", "😀", "x\r\ny", "\x00", "\x1b[31m", "T" * 5000, "99999999999999999999:00",
         "24:60", "live", "weekdays", "tactique", "superscrabble", "completif", "ro", "moteur"]

FIELD = st.one_of(st.sampled_from(NASTY), st.text(max_size=30),
                  st.integers(min_value=-2**70, max_value=2**70).map(str))

ENGLISH = re.compile(r"\b(invalid|literal|must|expected|object|cannot|error|None|Exceeds|"
                     r"digits|int|str|key|Traceback|overflow|out of range)\b", re.IGNORECASE)


def _french_answer(r: Any) -> None:
    assert r.status_code in (200, 302, 400, 404), r.status_code
    page = r.get_data(as_text=True)
    assert "Internal Server Error" not in page and "Erreur interne" not in page
    for error in errors_of(r):
        assert error and not ENGLISH.search(error), error


@st.composite
def _fuzzed(draw: Any, base: dict[str, Any], skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The valid form with one to four of its fields replaced by fuzzed values (so that the
    others let the request reach the deeper checks and the service), or dropped."""
    keys = sorted(k for k in base if k not in skip)
    chosen = draw(st.sets(st.sampled_from(keys), min_size=1, max_size=4))
    form = dict(base)
    for k in chosen:
        value = draw(st.one_of(FIELD, st.none()))
        if value is None:
            del form[k]
        else:
            form[k] = value
    return form


FUZZ = settings(max_examples=150, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


@FUZZ
@given(data=st.data())
def test_fuzz_the_duplicate_form(
    console: FlaskClient, competition: Competition, data: st.DataObject,
) -> None:
    base = {**duplicate_form(competition, code=""), "variant": "", "live_minutes": "",
            "days": "1", "time": "20:00", "tactique_order": "free", "free_joker_rule": "none",
            "tactique_refill": "per_group", "tactique_rejection": "group",
            "free_unused": "stock", "superscrabble_start": "", "superscrabble_racks": "",
            "live_mails": ""}
    # the seed too (issue 24 §1: empty → a secret seed, else 0..2**128 − 1 in French)
    form = data.draw(_fuzzed(base))
    _french_answer(console.post("/console/duplicate", data=form))


@FUZZ
@given(data=st.data())
def test_fuzz_the_correspondence_forms(
    app: Flask, console: FlaskClient, competition: Competition, pair: tuple[Player, Player],
    tmp_path_factory: Any, data: st.DataObject,
) -> None:
    # Hypothesis resets the global random to the same state for every example, and each
    # created game mails a Message-ID drawn from it (email.utils.make_msgid): seed it apart
    random.seed(os.urandom(16))
    use_word_list(app, tmp_path_factory.mktemp("za"), "ZA\nZAS\n")
    # the row's seed and the game's zone too (issue 22 §3: empty row → drawn from the seed or
    # a secret one; empty zone → the site's)
    form = data.draw(_fuzzed({**correspondence_form(competition, *pair, code=""), "seed": "",
                              "timezone": ""}))
    _french_answer(console.post("/console/correspondance", data=form))
    series = data.draw(_fuzzed({
        "series_competition_id": str(competition.id), "series_row": row_letters(),
        "code_prefix": "", "series_lexicon": "za", "series_move_hours": "72",
        "series_reminder_hours": "24", "series_grace_hours": "24", "series_seed": "",
        "series_timezone": ""}))
    ids = data.draw(st.lists(st.one_of(st.sampled_from([str(p.id) for p in pair]), FIELD),
                             max_size=4))
    _french_answer(console.post("/console/correspondance/serie",
                                data={**series, "player_ids": ids}))


@FUZZ
@given(data=st.data())
def test_fuzz_the_round_actions(
    app: Flask, console: FlaskClient, competition: Competition, db_session: Session,
    make_player: Callable[..., Player], tmp_path_factory: Any, frozen_clock: Any,
    data: st.DataObject,
) -> None:
    if db_session.exec(select(DuplicateGame)).first() is None:  # once per test
        make_player("Ana", "ana@example.ro")
        za_game(app, db_session, competition, tmp_path_factory.mktemp("za"))
        with app.app_context():
            frozen_clock.move_to(START)
            lifecycle.run_due(now=clock.now())
    number = data.draw(st.one_of(st.sampled_from(["1", "2", HUGE, ABOVE_INT4]),
                                 st.integers(min_value=0, max_value=2**70).map(str)))
    action = data.draw(st.sampled_from(["top", "recorriger"]))
    form = data.draw(_fuzzed({"ref": "H7", "word": "ZA", "reason": "motif", "digest": ""}))
    r = console.post(f"/console/duplicate/EX1/tours/{number}/{action}", data=form,
                     follow_redirects=True)
    _french_answer(r)


def test_a_time_zone_too_long_for_the_file_system_is_refused_in_french(
    console: FlaskClient, competition: Competition, db_session: Session,
) -> None:
    """``ZoneInfo("T" * 5000)`` raises ``OSError`` (« File name too long »), not the
    ``ValueError`` the forms caught: the Duplicate fuzzer found the 500, which the problem
    form (the same reader) and a problem file's deadline had too."""
    from puzzles.problem import ProblemError, parse_deadline
    from tests.web.test_hardening_console import problem_form

    zone = "T" * 5000
    message = f"Fuseau horaire inconnu : « {'T' * 40} »."
    r = console.post("/console/duplicate", data=duplicate_form(competition, timezone=zone))
    assert r.status_code == 400 and errors_of(r) == [message]
    r = console.post("/console/problemes/nouveau", data=problem_form(competition, timezone=zone))
    assert r.status_code == 400 and errors_of(r) == [message]
    with pytest.raises(ProblemError, match="Fuseau horaire inconnu"):
        parse_deadline(f"2000-05-12T19:00:00[{zone}]")
    assert db_session.exec(select(DuplicateGame)).all() == []
    assert db_session.exec(select(Problem)).all() == []
