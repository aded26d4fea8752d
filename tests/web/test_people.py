"""Players as people (issue 13.2): the player page with every ranked problem and Duplicate
round (rank, score, percentage of the reference) and the season chart drawn as inline SVG;
names in rankings link to it; rankings by série; the CSV import and the console take the
licence, the série and the country.

The season is tests/web/season.py's (as in tests/web/test_standings.py), with the worked
example of RULES §12 [E5] (FICHERA 82, then WUS 84, cumul 166), through the real schedule:
P1 (best sheet 166 = 100 %): Ana 166, Bob 82 (sent 1 min after Ana), Cid 82 (2 min after):
    Bob 82/166 = 49.40 %; with equal scores « la feuille reçue la première passe devant »,
    so Bob is 2nd and Cid 3rd.
P2 (the arbitre's reference 200 = 100 %): Bob 166 = 83.00 %, Ana 82, Dan 82 (41.00 %).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.web.season import play_season, table_cells, text
from tests.web.test_pages import login_arbitre
from webapp.models import (
    AuditLog,
    Channel,
    Competition,
    Player,
    Problem,
)
from webapp.services import lifecycle
from webapp.services.players import import_players_csv

pytestmark = pytest.mark.db


@pytest.fixture
def season(
    app: Flask, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], make_problem: Callable[..., Problem],
    frozen_start: Any, frozen_clock: Any,
) -> dict[str, Any]:
    ana = make_player("Ana Popescu", "ana@example.ro", club="CS București")
    bob = make_player("Bob Martin", "bob@example.fr", club="Scrabble Club Lyon")
    cid = make_player("Cid Dumas", "cid@example.fr")
    dan = make_player("Dan Ionescu", "dan@example.ro")
    for p, lic, cat, country in ((ana, "RO-0042", "A", "Roumanie"),
                                 (bob, "FR-12345", "B", "France"),
                                 (cid, "", "B", "France"), (dan, "", "A", "Roumanie")):
        p.licence, p.category, p.country = lic, cat, country
        db_session.add(p)
    return play_season(app, db_session, make_problem, frozen_start, frozen_clock,
                       {"ana": ana, "bob": bob, "cid": cid, "dan": dan})


def test_player_page_lists_each_ranked_problem_with_exact_numbers(
    client: FlaskClient, season: dict[str, Any]
) -> None:
    bob = season["bob"]
    resp = client.get(f"/joueurs/{bob.id}")
    assert resp.status_code == 200
    page = text(resp)
    assert "Bob Martin" in page
    fiche = page.split('id="fiche-joueur"', 1)[1].split("</dl>", 1)[0]
    assert re.sub(r"<[^>]+>", "|", fiche).split("|").count("FR-12345") == 1
    for value in ("Scrabble Club Lyon", ">B<", "France"):
        assert value in fiche
    # P1 (deadline 11/05): 2nd of 3, 82 = 82/166 = 49.40 %; P2 (12/05): 1st of 3, 166 =
    # 166/200 = 83.00 %. The date column is the deadline (UTC).
    assert table_cells(resp, "parcours") == [
        f"1|11/05/2026|{season['p1'].title}|Scrabble intégral|"
        "Championnat par correspondance 2026|2 / 3|82|49,40|provisoire rapport",
        f"2|12/05/2026|{season['p2'].title}|Scrabble intégral|"
        "Championnat par correspondance 2026|1 / 3|166|83,00|provisoire rapport",
    ]
    # the mean of the two percentages: (49.40 + 83.00) / 2 = 66.20
    words = " ".join(re.sub(r"<[^>]+>", "", page).split())
    assert "2 épreuve(s) classée(s) · moyenne 66,20 % de la référence · meilleur rang : 1." \
        in words
    # each problem's type links to its rules page
    assert 'href="/regles/integral"' in resp.get_data(as_text=True)


def test_season_chart_is_inline_svg_with_the_events(
    client: FlaskClient, season: dict[str, Any]
) -> None:
    body = client.get(f"/joueurs/{season['bob'].id}").get_data(as_text=True)
    svg = body.split('<figure class="chart" id="graphique-saison">', 1)[1].split("</svg>")[0]
    assert svg.startswith("<svg ")
    p1, p2 = season["p1"].title, season["p2"].title
    # two events over the plot width 720 - 52 - 16 = 652: slots of 326.
    # Percent panel (0..100, 150 high, bottom at 28 + 150 = 178): P1 49.40 % is a bar
    # 150 × 0.494 = 74.1 high from y = 178 - 74.1 = 103.9, at x = 52 + 0.2 × 326 = 117.2,
    # 0.6 × 326 = 195.6 wide; P2 83.00 %: 124.5 high from y = 53.5, x = 52 + 326 + 65.2.
    assert ('<rect class="bar" data-event="1" x="117.2" y="103.9" width="195.6" '
            f'height="74.1"><title>{p1} : 49,40 %</title></rect>') in svg
    assert ('<rect class="bar" data-event="2" x="443.2" y="53.5" width="195.6" '
            f'height="124.5"><title>{p2} : 83,00 %</title></rect>') in svg
    # Rank panel from y = 178 + 48 = 226 (rank 1) to 376 (worst rank, 2): P1 2nd, P2 1st,
    # points at the slot centres x = 52 + 163 = 215 and 52 + 326 + 163 = 541.
    assert '<polyline class="rank" points="215.0,376.0 541.0,226.0"/>' in svg
    assert f"<title>{p1} : 2e sur 3</title>" in svg


def test_ranking_names_link_to_player_pages_and_filter_by_serie(
    client: FlaskClient, season: dict[str, Any]
) -> None:
    resp = client.get("/problemes/P1/classement")
    body = resp.get_data(as_text=True)
    for key in ("ana", "bob", "cid"):
        p = season[key]
        assert f'<a href="/joueurs/{p.id}">{html.escape(p.name)}</a>' in body
    assert [r.split("|")[:2] for r in table_cells(resp, "classement")] == [
        ["1", "Ana Popescu"], ["2", "Bob Martin"], ["3", "Cid Dumas"]]
    # the filter offers the séries of the players who sent a sheet: A and B
    assert re.findall(r'<option value="([AB])"', body) == ["A", "B"]
    # série B: Bob (2nd overall) and Cid (3rd) are 1st and 2nd of their série
    b = client.get("/problemes/P1/classement?serie=B")
    assert [r.split("|")[:5] for r in table_cells(b, "classement")] == [
        ["1", "Bob Martin", "Scrabble Club Lyon", "82", "49,40"],
        ["2", "Cid Dumas", "", "82", "49,40"]]
    assert "2 joueur(s) classé(s) en série B" in text(b)
    # série A in P2: Ana and Dan, both 82 = 41.00 %, 2nd and 3rd overall -> 1st and 2nd
    a = client.get("/problemes/P2/classement?serie=A")
    assert [r.split("|")[:5] for r in table_cells(a, "classement")] == [
        ["1", "Ana Popescu", "CS București", "82", "41,00"],
        ["2", "Dan Ionescu", "", "82", "41,00"]]
    # a série nobody is in: an empty table, not an error
    none = client.get("/problemes/P2/classement?serie=Z")
    assert none.status_code == 200 and table_cells(none, "classement") == []


def test_player_page_of_unknown_player_is_a_french_404(client: FlaskClient) -> None:
    resp = client.get("/joueurs/999")
    assert resp.status_code == 404
    assert "Page introuvable" in text(resp)


def test_csv_import_takes_licence_serie_and_country(ctx: Flask, db_session: Session) -> None:
    csv_text = ("nom;club;courriel;licence;série;pays\n"
                "Ana Popescu;CS București;ana@example.ro;RO-0042;A;Roumanie\n"
                "Bob Martin;;bob@example.fr;FR-12345;B;France\n")
    report = import_players_csv(session=db_session, text=csv_text, actor="juge")
    assert report.ok and report.created == ["ana@example.ro", "bob@example.fr"]
    db_session.commit()
    got = [(p.name, p.licence, p.category, p.country) for p in
           db_session.exec(select(Player).order_by(Player.name)).all()]
    assert got == [("Ana Popescu", "RO-0042", "A", "Roumanie"),
                   ("Bob Martin", "FR-12345", "B", "France")]
    # a second file with a new série updates it; a file without the columns leaves them
    again = import_players_csv(session=db_session, actor="juge", text=(
        "nom,courriel,serie\nAna Popescu,ana@example.ro,Excellence\n"))
    assert again.updated == ["ana@example.ro"]
    plain = import_players_csv(session=db_session, actor="juge", text=(
        "nom,club,courriel\nBob Martin,,bob@example.fr\n"))
    assert plain.unchanged == ["bob@example.fr"]
    db_session.commit()
    ana = db_session.exec(select(Player).where(Player.email == "ana@example.ro")).one()
    bob = db_session.exec(select(Player).where(Player.email == "bob@example.fr")).one()
    assert (ana.licence, ana.category, ana.country) == ("RO-0042", "Excellence", "Roumanie")
    assert (bob.licence, bob.category, bob.country) == ("FR-12345", "B", "France")


def test_csv_import_refuses_an_overlong_licence_in_french(ctx: Flask,
                                                          db_session: Session) -> None:
    report = import_players_csv(session=db_session, actor="juge", text=(
        "nom,courriel,licence\nAna,ana@example.ro," + "9" * 41 + "\n"))
    assert report.messages() == [
        "Ligne 2 : numéro de licence trop long (40 caractères au plus)."]
    assert db_session.exec(select(Player)).all() == []


def test_console_edits_club_licence_serie_country(
    app: Flask, client: FlaskClient, db_session: Session, make_player: Callable[..., Player],
) -> None:
    ana = make_player("Ana Popescu", "ana@example.ro")
    url = f"/console/joueurs/{ana.id}/fiche"
    data = {"club": "CS București", "licence": "RO-0042", "category": "A",
            "country": "Roumanie"}
    # not signed in as arbitre: sent to the sign-in page, nothing saved
    for resp in (client.get(url), client.post(url, data=data)):
        assert resp.status_code == 302
        assert resp.headers["Location"].startswith("/arbitre/connexion")
    db_session.expire_all()
    assert db_session.get(Player, ana.id).licence == ""
    login_arbitre(client, db_session)
    # too long a série: a French error, the typed values kept in the form, nothing saved
    bad = client.post(url, data={**data, "category": "S" * 21})
    assert bad.status_code == 400
    assert "La série est trop long : 20 caractères au plus (21 saisis)." in text(bad)
    assert 'value="RO-0042"' in bad.get_data(as_text=True)
    db_session.expire_all()
    assert db_session.get(Player, ana.id).category == ""
    ok = client.post(url, data=data)
    assert ok.status_code == 302 and ok.headers["Location"] == f"/joueurs/{ana.id}"
    db_session.expire_all()
    got = db_session.get(Player, ana.id)
    assert (got.club, got.licence, got.category, got.country) == (
        "CS București", "RO-0042", "A", "Roumanie")
    entry = db_session.exec(select(AuditLog).where(AuditLog.action == "player.profile")).one()
    assert entry.actor == "juge" and entry.details["after"]["licence"] == "RO-0042"
    page = text(client.get(f"/joueurs/{ana.id}"))
    assert "RO-0042" in page and "Roumanie" in page
    # the console's list of players shows the three fields and links to his console page
    listing = client.get("/console/joueurs").get_data(as_text=True)
    assert (f'<td data-label="Nom"><a href="/console/joueurs/{ana.id}">Ana Popescu</a></td>'
            '<td data-label="Club">CS București</td><td data-label="Licence">RO-0042</td>'
            '<td data-label="Série">A</td><td data-label="Pays">Roumanie</td>') in listing


def test_player_page_lists_a_published_duplicate_round(
    app: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], tmp_path: Any, frozen_clock: Any,
) -> None:
    """A Duplicate game played by correspondence (word list {ZA, ZAS}; round 1 draws
    ZAEIBCD, top ZA at H7 = (10 + 1) × 2 = 22, tests/web/test_duplicate.py), one round
    published: one line for the game, provisional while it runs (issue 22 §2)."""
    from tests.web.za_game import START, za_game
    from webapp.services import clock, duplicate

    ana = make_player("Ana Popescu", "ana@example.ro")
    bob = make_player("Bob Martin", "bob@example.fr")
    game = za_game(app, db_session, competition, tmp_path)
    with app.app_context():
        frozen_clock.move_to(START)
        assert lifecycle.run_due(now=clock.now()) == ["draw:EX1:1"]
        frozen_clock.move_to(START + timedelta(hours=1))
        for pl, line in ((ana, "H7 ZA 22"), (bob, "H7 AZ 22")):  # AZ is not in the list
            duplicate.submit_bulletin(session=db_session, player=pl, game=game, text=line,
                                      channel=Channel.WEB, received_at=clock.now())
        db_session.commit()
        assert lifecycle.run_due(now=clock.now())[:3] == [
            "close:EX1:1", "correct:EX1:1", "publish:EX1:1"]
    # Ana found the top: 22 = 22/22 = 100.00 %, 1st of 2; Bob's AZ is not a word: 0 points,
    # 0/22 = 0.00 %, 2nd. The round closed when both had answered, on 10/05.
    assert table_cells(client.get(f"/joueurs/{ana.id}"), "parcours") == [
        "1|10/05/2026|Express|Duplicate (1 tour(s))|Championnat par correspondance 2026|"
        "1 / 2|22|100,00|provisoire"]
    bob_page = client.get(f"/joueurs/{bob.id}")
    assert table_cells(bob_page, "parcours") == [
        "1|10/05/2026|Express|Duplicate (1 tour(s))|Championnat par correspondance 2026|"
        "2 / 2|0|0,00|provisoire"]
    assert 'href="/duplicate/EX1"' in bob_page.get_data(as_text=True)


def test_player_page_one_line_per_duplicate_game_with_its_final_rank(
    app: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], tmp_path: Any, frozen_clock: Any,
) -> None:
    """Issue 22 §2: « one line per Duplicate game with the final rank, total, percentage of
    the tops and the field size (today each round is its own « épreuve », and « meilleur
    rang : 1 » is shown for a player who finished last of 3) ».

    The two-round ZA game (tests/web/za_game.py), three players, every round closing as
    soon as all have answered:
    - round 1 (ZAEIBCD, empty grid): top ZA at H7 = (Z 10 + A 1) × 2 = 22; Ana H7 ZA 22 and
      Bob H8 ZA 22 (Z on the star, A on H9: 22 too), Cid H7 AZ 22 (AZ is no word: 0);
    - round 2 (reliquat EIBCD + SE): the only move ZAS at H7 = Z 10 + A 1 + S 1 = 12; all
      three find it: 12.
    Totals: Ana 34, Bob 34, Cid 12; the tops 22 + 12 = 34: Ana and Bob 100.00 % and 1st
    ex æquo, Cid 12/34 = 35.29 % and 3rd of 3 — though he was 1st (with the others) in
    round 2, his best rank is 3. No solo: under 16 players the bonus is n − 6 < 0."""
    from tests.web.za_game import START, za_game
    from webapp.services import clock, duplicate

    ana = make_player("Ana Popescu", "ana@example.ro")
    bob = make_player("Bob Martin", "bob@example.fr")
    cid = make_player("Cid Dumas", "cid@example.fr")
    game = za_game(app, db_session, competition, tmp_path)
    with app.app_context():
        frozen_clock.move_to(START)
        assert lifecycle.run_due(now=clock.now()) == ["draw:EX1:1"]
        for rnd, lines in ((1, ((ana, "H7 ZA 22"), (bob, "H8 ZA 22"), (cid, "H7 AZ 22"))),
                           (2, ((ana, "H7 ZAS 12"), (bob, "H7 ZAS 12"), (cid, "H7 ZAS 12")))):
            frozen_clock.move_to(START + timedelta(hours=rnd))
            for pl, line in lines:
                duplicate.submit_bulletin(session=db_session, player=pl, game=game,
                                          text=line, channel=Channel.WEB,
                                          received_at=clock.now())
            db_session.commit()
            lifecycle.run_due(now=clock.now())
        db_session.refresh(game)
        assert game.status == "finished"
    cells = {p.name: table_cells(client.get(f"/joueurs/{p.id}"), "parcours")
             for p in (ana, bob, cid)}
    line = "1|10/05/2026|Express|Duplicate (2 tour(s))|Championnat par correspondance 2026|"
    assert cells == {
        "Ana Popescu": [line + "1 ex æquo / 3|34|100,00|"],
        "Bob Martin": [line + "1 ex æquo / 3|34|100,00|"],
        "Cid Dumas": [line + "3 / 3|12|35,29|"],
    }
    words = " ".join(re.sub(r"<[^>]+>", "", text(client.get(f"/joueurs/{cid.id}"))).split())
    assert ("1 épreuve(s) classée(s) · moyenne 35,29 % de la référence · meilleur rang : 3."
            in words)


def test_category_ranks_share_ties(ctx: Flask, db_session: Session,
                                   make_player: Callable[..., Player]) -> None:
    """Série ranks are one more than the number of the série's players ranked strictly
    ahead: overall ranks 1 (A), 2 (B), 2 (B), 4 (A), 5 (B) give série B the ranks 1, 1, 3."""
    from webapp.models import Ranking
    from webapp.services.people import category_rows

    players = [make_player(f"J{i}", f"j{i}@example.fr") for i in range(5)]
    for p, cat in zip(players, "ABBAB", strict=True):
        p.category = cat
        db_session.add(p)
    ranking = Ranking(problem_id=0, kind="provisional", rows=[
        {"rank": rank, "player_id": p.id, "name": p.name, "score": 100 - rank}
        for rank, p in zip((1, 2, 2, 4, 5), players, strict=True)])
    db_session.commit()
    rows, ranks = category_rows(db_session, ranking, "B")
    assert [r["name"] for r in rows] == ["J1", "J2", "J4"]
    assert ranks == [1, 1, 3]
