"""Issue 13.2, rankings by category: the championship standings filtered to one série
(« ?serie=S »), ranked among that série's players. The season is tests/web/test_standings.py's:
Ana 100 + 41.00 = 141.00, Bob 49.40 + 83.00 = 132.40, Cid 49.40, Dan 41.00 (sum of
percentages). Bob and Dan are série « S2 », Cid « S1 », Ana has none."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlmodel import Session

from tests.web.test_standings import (  # noqa: F401 (season: the fixture)
    finalise,
    season,
    table_rows,
    text,
)
from webapp.models import Player

pytestmark = pytest.mark.db


def test_standings_of_one_serie(app: Any, client: FlaskClient, db_session: Session,
                                season: dict[str, Any]) -> None:  # noqa: F811
    for key, serie in (("bob", "S2"), ("dan", "S2"), ("cid", "S1")):
        player = db_session.get(Player, season[key].id)
        assert player is not None
        player.category = serie
        db_session.add(player)
    db_session.commit()
    whole = client.get("/competitions/cn2026/classement")
    body = whole.get_data(as_text=True)
    # the filter offers the séries of the ranked players (Ana has none)
    form = body.split('id="filtre-serie"', 1)[1].split("</form>", 1)[0]
    assert '<option value="S1">S1</option><option value="S2">S2</option>' in form
    assert len(table_rows(whole)) == 4
    # série S2: Bob (2nd of the field) and Dan (4th) are 1st and 2nd of their série; the
    # values stay those of the whole field
    resp = client.get("/competitions/cn2026/classement?serie=S2")
    assert table_rows(resp) == [
        "1|Bob Martin||49,40|83,00|132,40|2",
        "2|Dan Ionescu||—|41,00|41,00|1",
    ]
    page = text(resp)
    assert "Classement de la série <strong>S2</strong> : rang parmi les joueurs de la série" in page
    assert '<option value="S2" selected>S2</option>' in resp.get_data(as_text=True)
    assert table_rows(client.get("/competitions/cn2026/classement?serie=S1")) == [
        "1|Cid Dumas||49,40|—|49,40|1"]
    # only final rankings, kept with the série: P1 final alone, where only Bob of S2 played
    finalise(app, db_session, season["p1"], season["after"])
    resp = client.get("/competitions/cn2026/classement?serie=S2&definitif=1")
    assert table_rows(resp) == ["1|Bob Martin||49,40|49,40|1"]
    assert 'name="definitif" value="1"' in resp.get_data(as_text=True)
    # an unknown série: nobody
    resp = client.get("/competitions/cn2026/classement?serie=S9")
    assert table_rows(resp) == []
    # in Romanian
    ro = client.get("/competitions/cn2026/classement?serie=S2",
                    headers={"Accept-Language": "ro"})
    assert "Clasamentul seriei" in text(ro)


def test_the_ranking_cells_in_each_language(client: FlaskClient, db_session: Session,
                                            season: dict[str, Any]) -> None:  # noqa: F811
    """The cached rows of a published ranking (views.public._ranking_table) are kept per
    language: the report link and the date of each sheet read Romanian on a Romanian page,
    French on a French one, in either order."""
    ro = client.get("/problemes/P1/classement", headers={"Accept-Language": "ro"})
    fr = client.get("/problemes/P1/classement", headers={"Accept-Language": "fr"})
    ro_body, fr_body = ro.get_data(as_text=True), fr.get_data(as_text=True)
    # Ana's sheet was received at 10:00 UTC, 13:00 in Bucharest, on 10/05/2026
    assert '<td class="small">10/05/2026, ora 13:00</td>' in ro_body
    assert '">vezi</a>' in ro_body and '">voir</a>' not in ro_body
    assert '<td class="small">10/05/2026 à 13:00</td>' in fr_body
    assert '">voir</a>' in fr_body and '">vezi</a>' not in fr_body
    # a série's rows too (Ana alone in « S1 »)
    ana = db_session.get(Player, season["ana"].id)
    assert ana is not None
    ana.category = "S1"
    db_session.add(ana)
    db_session.commit()
    ro_body = client.get("/problemes/P1/classement?serie=S1",
                         headers={"Accept-Language": "ro"}).get_data(as_text=True)
    assert '<td class="small">10/05/2026, ora 13:00</td>' in ro_body and '">vezi</a>' in ro_body


def test_the_csv_of_one_serie(client: FlaskClient, db_session: Session,
                              season: dict[str, Any]) -> None:  # noqa: F811
    for key in ("bob", "dan"):
        player = db_session.get(Player, season[key].id)
        assert player is not None
        player.category = "S2"
        db_session.add(player)
    db_session.commit()
    page = client.get("/competitions/cn2026/classement?serie=S2").get_data(as_text=True)
    assert 'href="/competitions/cn2026/classement.csv?serie=S2"' in page
    resp = client.get("/competitions/cn2026/classement.csv?serie=S2")
    assert resp.headers["Content-Disposition"] == (
        'attachment; filename="classement-general-cn2026-serie-S2-provisoire.csv"')
    # Bob 2nd and Dan 4th of the field: 1st and 2nd of the série
    assert resp.get_data(as_text=True) == (
        "\ufeffrang;joueur;club;P1 (provisoire);P2 (provisoire);total;épreuves_jouées\r\n"
        "1;Bob Martin;;49,40;83,00;132,40;2\r\n"
        "2;Dan Ionescu;;;41,00;41,00;1\r\n"
    )
