"""The championship standings page and CSV, from two problems taken through the real
schedule (sheets submitted, deadline batch verifies them, provisional rankings published),
then finalised one after the other; a P3 still open is not counted.

The season is tests/web/season.py's (the worked example of RULES §12 [E5]: FICHERA 82, then
WUS 84, cumul 166).
P1 (best sheet 166 = 100 %): Ana 166, Bob 82, Cid 82 -> 100 %, 82/166 = 49.40 %, 49.40 %.
P2 (the arbitre's reference 200 = 100 %): Bob 166, Ana 82, Dan 82 -> 83.00 %, 41.00 %, 41.00 %.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlmodel import Session

from tests.web.season import play_season, table_cells, text
from webapp.models import Competition, Player, Problem, ProblemStatus
from webapp.services import lifecycle
from webapp.services.standings import championship_standings

pytestmark = pytest.mark.db


def table_rows(resp: Any) -> list[str]:
    """Each body row of the standings table as its cells' text joined by ``|``."""
    return table_cells(resp, "classement-general")


@pytest.fixture
def season(
    app: Any, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], make_problem: Callable[..., Problem],
    frozen_start: Any, frozen_clock: Any,
) -> dict[str, Any]:
    players = {
        "ana": make_player("Ana Popescu", "ana@example.ro", club="CS București"),
        "bob": make_player("Bob Martin", "bob@example.fr"),
        "cid": make_player("Cid Dumas", "cid@example.fr"),
        "dan": make_player("Dan Ionescu", "dan@example.ro"),
    }
    return play_season(app, db_session, make_problem, frozen_start, frozen_clock, players,
                       open_p3=True)


def finalise(app: Any, db_session: Session, prob: Problem, now: Any) -> None:
    with app.app_context():
        p = db_session.get(Problem, prob.id)
        assert p is not None
        lifecycle.finalise(db_session, p, now)
        db_session.commit()


def test_provisional_standings_page_and_csv(
    client: FlaskClient, season: dict[str, Any]
) -> None:
    resp = client.get("/competitions/cn2026/classement")
    assert resp.status_code == 200
    page = text(resp)
    assert "Classement général provisoire" in page
    assert "Total des pourcentages obtenus à chaque problème" in page
    assert "Un problème non joué compte 0." in page
    assert "4 joueurs · 2 épreuves comptées" in page
    assert 'href="/problemes/P1/classement"' in resp.get_data(as_text=True)
    assert "P3" not in page.split('id="classement-general"', 1)[1]
    # Ana 100 + 41.00 = 141.00; Bob 49.40 + 83.00 = 132.40; Cid 49.40 + 0; Dan 0 + 41.00
    assert table_rows(resp) == [
        "1|Ana Popescu|CS București|100,00|41,00|141,00|2",
        "2|Bob Martin||49,40|83,00|132,40|2",
        "3|Cid Dumas||49,40|—|49,40|1",
        "4|Dan Ionescu||—|41,00|41,00|1",
    ]
    csv_resp = client.get("/competitions/cn2026/classement.csv")
    assert csv_resp.mimetype == "text/csv"
    assert csv_resp.headers["Content-Disposition"] == (
        'attachment; filename="classement-general-cn2026-provisoire.csv"')
    assert csv_resp.get_data(as_text=True) == (
        "\ufeffrang;joueur;club;P1 (provisoire);P2 (provisoire);total;épreuves_jouées\r\n"
        "1;Ana Popescu;CS București;100,00;41,00;141,00;2\r\n"
        "2;Bob Martin;;49,40;83,00;132,40;2\r\n"
        "3;Cid Dumas;;49,40;;49,40;1\r\n"
        "4;Dan Ionescu;;;41,00;41,00;1\r\n"
    )


def test_final_only_then_everything_final(
    app: Any, client: FlaskClient, db_session: Session, season: dict[str, Any]
) -> None:
    finalise(app, db_session, season["p1"], season["after"])
    # P2 is still provisional: counted, and marked so
    resp = client.get("/competitions/cn2026/classement")
    assert "Classement général provisoire" in text(resp)
    head = resp.get_data(as_text=True).split("<thead>", 1)[1].split("</thead>", 1)[0]
    assert re.search(r">P1</a></th>", head)
    assert re.search(r">P2</a><br><span class=\"badge provisional\">provisoire</span></th>", head)
    # only final rankings: P1 alone; Bob and Cid both 49.40 from one problem -> share 2nd
    resp = client.get("/competitions/cn2026/classement?definitif=1")
    assert "Classement général définitif" in text(resp)
    assert table_rows(resp) == [
        "1|Ana Popescu|CS București|100,00|100,00|1",
        "2 ex æquo|Bob Martin||49,40|49,40|1",
        "2 ex æquo|Cid Dumas||49,40|49,40|1",
    ]
    csv_resp = client.get("/competitions/cn2026/classement.csv?definitif=1")
    assert csv_resp.headers["Content-Disposition"] == (
        'attachment; filename="classement-general-cn2026-definitif.csv"')
    assert csv_resp.get_data(as_text=True) == (
        "\ufeffrang;joueur;club;P1;total;épreuves_jouées\r\n"
        "1;Ana Popescu;CS București;100,00;100,00;1\r\n"
        "2;Bob Martin;;49,40;49,40;1\r\n"
        "2;Cid Dumas;;49,40;49,40;1\r\n"
    )
    finalise(app, db_session, season["p2"], season["after"])
    resp = client.get("/competitions/cn2026/classement")
    assert "Classement général définitif" in text(resp)
    assert "badge provisional" not in resp.get_data(as_text=True)
    assert client.get("/competitions/cn2026/classement.csv").headers[
        "Content-Disposition"] == 'attachment; filename="classement-general-cn2026-definitif.csv"'


@pytest.mark.parametrize(
    ("rule", "settings", "expected"),
    [
        # Ana 166 + 82 = 248; Bob 82 + 166 = 248: both played two, best 166 each, then 82
        # each -> they share 1st; Cid 82 and Dan 82 (one problem each) share 3rd
        ("sum_scores", None, [(1, "Ana Popescu", "248"), (1, "Bob Martin", "248"),
                              (3, "Cid Dumas", "82"), (3, "Dan Ionescu", "82")]),
        # P1: Ana 1st 1000; Bob and Cid tied at 82 share (859 + 801) / 2 = 830.
        # P2 of value 50: Bob 1000 × 0.5 = 500; Ana and Dan share (859 + 801) / 2 × 0.5 = 415.
        # Ana 1000 + 415 = 1415; Bob 830 + 500 = 1330; Cid 830; Dan 415
        ("frsc_points", None, [(1, "Ana Popescu", "1415"), (2, "Bob Martin", "1330"),
                               (3, "Cid Dumas", "830"), (4, "Dan Ionescu", "415")]),
        # the same by published place: P1 Bob 859, Cid 801; P2 Ana 429.50, Dan 400.50
        # Ana 1429.50; Bob 859 + 500 = 1359; Cid 801; Dan 400.50
        ("frsc_points", {"frsc_ex_aequo": "by_place"},
         [(1, "Ana Popescu", "1429,50"), (2, "Bob Martin", "1359"), (3, "Cid Dumas", "801"),
          (4, "Dan Ionescu", "400,50")]),
        # best 1 of 2 (percent): Ana 100, Bob 83.00, Cid 49.40, Dan 41.00
        ("sum_percent", {"best_of": 1}, [(1, "Ana Popescu", "100"), (2, "Bob Martin", "83"),
                                         (3, "Cid Dumas", "49,40"), (4, "Dan Ionescu", "41")]),
    ],
)
def test_each_rule_on_the_database(
    db_session: Session, competition: Competition, season: dict[str, Any],
    rule: str, settings: dict[str, Any] | None, expected: list[tuple[int, str, str]],
) -> None:
    from puzzles.championship import format_value

    competition.ranking_rule = rule
    competition.standings_settings = settings
    p2 = db_session.get(Problem, season["p2"].id)
    assert p2 is not None
    p2.event_value = 50
    db_session.add_all([competition, p2])
    db_session.commit()
    table = championship_standings(db_session, competition)
    assert table.provisional and [c.code for c in table.columns] == ["P1", "P2"]
    assert [(ln.row.place, ln.name, format_value(ln.row.total)) for ln in table.lines] == \
        expected


def test_dropped_results_are_shown_in_parentheses(
    client: FlaskClient, db_session: Session, competition: Competition,
    season: dict[str, Any],
) -> None:
    competition.standings_settings = {"best_of": 1}
    db_session.add(competition)
    db_session.commit()
    resp = client.get("/competitions/cn2026/classement")
    assert "Seuls les 1 meilleurs résultats" in text(resp)
    assert table_rows(resp)[1] == "2|Bob Martin||(49,40)|83,00|83,00|2"
    assert client.get("/competitions/cn2026/classement.csv").get_data(
        as_text=True).splitlines()[2] == "2;Bob Martin;;49,40 (non retenu);83,00;83,00;2"


def test_competition_page_links_and_unknown_slug(
    client: FlaskClient, competition: Competition, db_session: Session,
    make_problem: Callable[..., Problem],
) -> None:
    assert 'href="/competitions/cn2026/classement"' in client.get(
        "/competitions/cn2026").get_data(as_text=True)
    assert client.get("/competitions/inconnue/classement").status_code == 404
    assert client.get("/competitions/inconnue/classement.csv").status_code == 404
    # nothing published yet: an empty standings page, not an error
    make_problem(code="P1", status=ProblemStatus.OPEN)
    page = text(client.get("/competitions/cn2026/classement"))
    assert "Aucun problème n'a encore de classement publié." in page


def test_console_sets_the_rule_settings_and_event_values(
    client: FlaskClient, db_session: Session, competition: Competition,
    season: dict[str, Any],
) -> None:
    from webapp.auth import create_arbitre

    a = create_arbitre(session=db_session, username="juge", password="motdepasse1")
    db_session.commit()
    with client.session_transaction() as sess:
        sess["arbitre_id"] = a.id
    p1, p2 = season["p1"], season["p2"]
    page = text(client.get("/console/competitions/cn2026"))
    assert "Enregistrer les règles du classement" in page
    form = {"action": "standings", "ranking_rule": "frsc_points", "best_of": "abc",
            "tie_break": "shared", "frsc_beyond_table": "last_step",
            "frsc_ex_aequo": "share", f"event_value_{p1.id}": "100",
            f"event_value_{p2.id}": "50"}
    resp = client.post("/console/competitions/cn2026", data=form, follow_redirects=True)
    assert ("Rien n'a été changé : Meilleurs résultats retenus : « abc » n'est pas un "
            "nombre entier.") in text(resp)
    db_session.expire_all()
    assert db_session.get(Competition, competition.id).ranking_rule == "sum_percent"
    assert db_session.get(Problem, p2.id).event_value == 100
    form["best_of"] = ""
    resp = client.post("/console/competitions/cn2026", data=form, follow_redirects=True)
    assert "Règles du classement général enregistrées." in text(resp)
    db_session.expire_all()
    comp = db_session.get(Competition, competition.id)
    assert comp.ranking_rule == "frsc_points"
    # only what differs from the defaults is stored
    assert comp.standings_settings == {"tie_break": "shared", "frsc_beyond_table": "last_step"}
    assert db_session.get(Problem, p2.id).event_value == 50
    # P1: Ana 1000, Bob and Cid share 830; P2 (value 50): Bob 500, Ana and Dan 415
    resp = client.get("/competitions/cn2026/classement")
    assert table_rows(resp) == [
        "1|Ana Popescu|CS București|1000|415|1415|2",
        "2|Bob Martin||830|500|1330|2",
        "3|Cid Dumas||830|—|830|1",
        "4|Dan Ionescu||—|415|415|1",
    ]
    assert "valeur 50" in text(resp)
    assert "Au-delà de la 10e place, 23 points de moins par place" in text(resp)


def test_names_are_escaped_on_the_page_and_defused_in_the_csv(
    client: FlaskClient, db_session: Session, season: dict[str, Any]
) -> None:
    dan = db_session.get(Player, season["dan"].id)
    assert dan is not None
    dan.name, dan.club = "<script>alert('x')</script>", '=HYPERLINK("x")'
    db_session.add(dan)
    db_session.commit()
    body = client.get("/competitions/cn2026/classement").get_data(as_text=True)
    assert "<script>alert" not in body
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in body
    assert client.get("/competitions/cn2026/classement.csv").get_data(
        as_text=True).splitlines()[4] == (
        "4;<script>alert('x')</script>;\"'=HYPERLINK(\"\"x\"\")\";;41,00;41,00;1")
