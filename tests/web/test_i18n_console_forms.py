"""Issue 22 §5 on the console: the round-game forms' refusals (the Duplicate and
correspondence creation forms, the round-robin series, the round actions) in the arbitre's
language — the French messages of tests/web/test_hardening_round_games.py in Romanian, the
field's label translated inside them, no French word left."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.web.test_hardening_round_games import (  # noqa: F401 - fixtures
    ABOVE_INT4,
    HUGE,
    console,
    correspondence_form,
    duplicate_form,
    errors_of,
    pair,
    row_letters,
)
from tests.web.za_game import START, use_word_list, za_game
from webapp.models import Competition, Player
from webapp.services import clock, lifecycle

pytestmark = pytest.mark.db

RO = {"Accept-Language": "ro"}

OUT = "este în afara limitelor"
SLUG = ("refuzat: de la 1 la 32 de litere fără diacritice, cifre, - și _, începând cu o literă "
        "sau o cifră.")

DUPLICATE = [
    ({"review_minutes": HUGE}, f"Revizuirea topului după închidere (minute): {HUGE} {OUT} (de "
                               "la 0 la 10080)."),
    ({"review_minutes": "1e9"}, "Revizuirea topului după închidere (minute): „1e9” nu este un "
                                "număr întreg."),
    ({"competition_id": HUGE}, "Alegeți competiția ai cărei înscriși vor juca partida."),
    ({"starts_at": "0001-01-01T00:00"}, "Dată în afara limitelor: „0001-01-01T00:00” (anul "
                                        "trebuie să fie între 2000 și 2100)."),
    ({"starts_at": "mardi"}, "Dată ilizibilă: „mardi” (se așteaptă AAAA-LL-ZZTHH:MM)."),
    ({"timezone": "Europe/Nulle_part"}, "Fus orar necunoscut: „Europe/Nulle_part”."),
    ({"title": "T" * 300}, "Titlu: 300 caractere, cel mult 200."),
    ({"title": "ligne\nautre"}, "Titlu: un rând nou nu este admis aici."),
    ({"title": "un\x1bdeux"}, "Titlu: caracterul de control U+001B nu este admis aici."),
    ({"title": ""}, "Dați un titlu partidei."),
    ({"code": "P 1"}, f"Codul partidei „P 1” {SLUG}"),
    ({"rounds": HUGE}, f"Numărul de runde: {HUGE} {OUT} (de la 1 la 200)."),
    ({"solo_points": "dix"}, "Primă de solo: „dix” nu este un număr întreg."),
    ({"warning_conversion_from": HUGE}, "Conversia avertismentelor se face la al 4-lea sau la "
                                        "al 6-lea."),
    ({"lang": "xx"}, "Set de litere necunoscut: francez (102) sau românesc (100)."),
    ({"solo_rule": "x" * 1000}, "Regulă a solo-ului necunoscută."),
    ({"lexicon": "L" * 101}, "Listă de cuvinte: 101 caractere, cel mult 100."),
    ({"seed": "graine"}, "Sămânța sacului: „graine” nu este un număr întreg."),
    ({"hours": HUGE}, f"Termenul unei runde (ore): {HUGE} {OUT} (de la 1 la 1440)."),
    ({"hours": ""}, "Termenul unei runde (ore): valoare obligatorie."),
    ({"rhythm": "live", "review_minutes": "0", "live_minutes": HUGE},
     f"Timpul unei runde în direct (minute): {HUGE} {OUT} (de la 1 la 180)."),
    ({"rhythm": "weekdays", "days": "9"}, "Alegeți cel puțin o zi a săptămânii pentru "
                                          "închiderea turelor."),
    ({"rhythm": "weekdays", "days": "1", "time": "25:00"},
     "Ora de închidere ilizibilă: „25:00” (se așteaptă HH:MM)."),
    ({"variant": "inconnue"}, "Varianta „inconnue” nu este cunoscută de acest server "
                              "(jucabile: Duplicat Top, Duplicat Completiv, Duplicat "
                              "Superjoker, Duplicat Metagramă, Duplicat Eliptic, Duplicat "
                              "Tactic, Partidă de Superscrabble)."),
    ({"variant": "tactique", "tactique_order": "x" * 41},
     "Tactică: ordinea grupurilor: 41 caractere, cel mult 40."),
    ({"variant": "superscrabble", "superscrabble_start": "H7 " + "L" * 30},
     "Partidă de Superscrabble, cuvânt de pornire: 33 caractere, cel mult 20."),
    ({"variant": "superscrabble", "superscrabble_start": "H7 LA",
      "superscrabble_racks": " ".join(["RETAINS"] * 201)},
     "Partidă de Superscrabble: 201 trageri, cel mult 200."),
]

CORRESPONDENCE = [
    ({"red_id": HUGE}, "Alegeți seria, jucătorul ROȘU și jucătorul ALBASTRU."),
    ({"move_hours": HUGE}, f"Termenul unei mutări (ore): {HUGE} {OUT} (de la 1 la 1440)."),
    ({"reminder_hours": ABOVE_INT4}, f"Memento înainte de termen (ore): {ABOVE_INT4} {OUT} (de "
                                     "la 0 la 1440)."),
    ({"grace_hours": "x"}, "Toleranță (ore): „x” nu este un număr întreg."),
    ({"title": "T" * 300}, "Titlu: 300 caractere, cel mult 200."),
    ({"row": "A" * 301}, "Rândul de litere: 301 caractere, cel mult 300."),
    ({"code": "CO 1"}, f"Codul partidei „CO 1” {SLUG}"),
]


@pytest.mark.parametrize(("over", "message"), DUPLICATE)
def test_duplicate_form_refusals_in_romanian(
    console: FlaskClient, competition: Competition, over: dict[str, str],  # noqa: F811
    message: str,
) -> None:
    r = console.post("/console/duplicate", data=duplicate_form(competition, **over), headers=RO)
    assert r.status_code == 400
    assert errors_of(r) == [message]


@pytest.mark.parametrize(("over", "message"), CORRESPONDENCE)
def test_correspondence_form_refusals_in_romanian(
    app: Flask, console: FlaskClient, competition: Competition,  # noqa: F811
    pair: tuple[Player, Player], tmp_path: Path, over: dict[str, str], message: str,  # noqa: F811
) -> None:
    use_word_list(app, tmp_path, "ZA\nZAS\n")
    r = console.post("/console/correspondance",
                     data=correspondence_form(competition, *pair, **over), headers=RO)
    assert r.status_code == 400
    assert errors_of(r) == [message]


def test_round_robin_refusals_in_romanian(
    app: Flask, console: FlaskClient, competition: Competition,  # noqa: F811
    pair: tuple[Player, Player], tmp_path: Path,  # noqa: F811
) -> None:
    use_word_list(app, tmp_path, "ZA\nZAS\n")
    base = {"series_competition_id": str(competition.id),
            "player_ids": [str(p.id) for p in pair], "series_row": row_letters(),
            "series_lexicon": "za"}
    for over, message in (
        ({"series_competition_id": HUGE}, "Alegeți seria."),
        ({"player_ids": [str(pair[0].id)] * 41}, "Turneu fiecare cu fiecare: 41 jucători "
                                                 "aleși, cel mult 40."),
        ({"series_move_hours": HUGE}, f"Termenul unei mutări (ore): {HUGE} {OUT} (de la 1 la "
                                      "1440)."),
        ({"code_prefix": "a b"}, "Prefixul codurilor „a b” " + SLUG),
    ):
        r = console.post("/console/correspondance/serie", data={**base, **over}, headers=RO)
        assert r.status_code == 400, over
        assert errors_of(r) == [message], over


def test_round_action_refusals_in_romanian(
    app: Flask, console: FlaskClient, competition: Competition,  # noqa: F811
    db_session: Any, make_player: Any, tmp_path: Path, frozen_clock: Any,
) -> None:
    make_player("Ana", "ana@example.ro")
    za_game(app, db_session, competition, tmp_path)
    with app.app_context():
        frozen_clock.move_to(START)
        assert lifecycle.run_due(now=clock.now()) == ["draw:EX1:1"]
    for over, message in (
        ({"ref": "H" * 101}, "Nu s-a schimbat nimic: Referință: 101 caractere, cel mult 100."),
        ({"reason": "ligne\nautre"}, "Nu s-a schimbat nimic: Motiv: un rând nou nu este admis "
                                     "aici."),
        ({"digest": "d" * 129}, "Nu s-a schimbat nimic: Amprenta previzualizării: 129 "
                                "caractere, cel mult 128."),
    ):
        data = {"ref": "H7", "word": "ZA", "reason": "motif", **over}
        r = console.post("/console/duplicate/EX1/tours/1/top", data=data,
                         follow_redirects=True, headers=RO)
        assert r.status_code == 200
        assert errors_of(r) == [message], over
    # the « Clore le tour maintenant » page: a reason is required
    r = console.post("/console/duplicate/EX1/clore", data={"confirm": "1", "reason": ""},
                     headers=RO)
    assert ('<div class="flash error" role="alert">Indicați motivul închiderii anticipate '
            '(apare în jurnal).</div>') in r.get_data(as_text=True)
