"""The round games in one language at a time (issue 22 §5): a Duplicate played through
(verdicts of every kind: valid, warning, word not admitted, unreadable bulletin, 5-point
penalty, absent, late), a Complétif (a chosen letter no longer in the stock), a correspondence
game with moves and one lost on time, then every page of those games and every mail a
Romanian player received, read in Romanian: no French may be left.

French is found three ways (:func:`french_left`): the literal pieces of 12 characters or
more of every translated catalogue message (as ``test_i18n`` does), the letters French has
and Romanian has not (« é », « è », « à », « ç »…) and « n° », and the words of the French
catalogue that no Romanian message uses (« coup », « points », « tour », « valide »,
« ROUGE »…; the game's data — players' names, words of the word list — are chosen so as not
to be French words).

The games (word list {ZA, ZAS}, tests.web.za_game):
- D1, two rounds of 24 hours. Round 1 draws ZAEIBCD, top H7 ZA 22: Ana « H7 ZA 22 » valid,
  Bogdan « H8 ZA 20 » a warning (score 20 written, 22 exact), Cristi « H8 ZAZ 30 » zero (ZAZ
  is not admitted), Dan absent. Round 2 draws EIBCD+SE, top H7 ZAS 12: Ana valid, Bogdan
  « ZAS 12 13 » unreadable (two scores), Cristi « ZAS 12 » the 5-point penalty (no
  reference, the score fits the only place), Dan one second late.
- C1, a Complétif of two rounds (tests.web.test_duplicate_variants): Cristi chooses the Z,
  no longer in the stock: zero.
- R1, a Duplicate whose round 1 is open at the end (the bulletin form), D3 one to come.
- CO1, Ana (RED) against Bogdan: H8 ZA (22, recorded 10 in round I), H8 ZAS (12); Ana to
  play. CO2, Cristi against Dan: Cristi plays H8 ZA, Dan loses on time.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, col, select

from puzzles.duplicate import DuplicateSettings
from scoring.tiles import tileset
from tests.web.test_i18n import (  # world: the fixture of a verified problem
    _french_pieces,
    _translated,
    _visible,
    world,  # noqa: F401
)
from tests.web.za_game import START, full_bag, use_word_list
from webapp.auth import create_arbitre
from webapp.models import (
    Channel,
    Competition,
    CorrespondenceGame,
    DuplicateGame,
    OutboxMessage,
    Player,
)
from webapp.services import clock, correspondence, duplicate, lifecycle

pytestmark = pytest.mark.db

DAY = timedelta(days=1)
HOUR = timedelta(hours=1)


def _bag(first: str) -> str:
    rest = tileset("fr").bag() - Counter(first)
    return first + "".join(sorted(rest.elements()))


def _row(head: str) -> str:
    rest = tileset("fr").bag() - Counter(head)
    return head + "".join(sorted(rest.elements()))[:30]


def _bulletin(s: Session, player: Player, game: DuplicateGame, text: str) -> None:
    duplicate.submit_bulletin(session=s, player=player, game=game, text=text,
                              channel=Channel.WEB, received_at=clock.now())
    s.commit()


def _run() -> list[str]:
    return lifecycle.run_due(now=clock.now())


@pytest.fixture
def rounds_world(app: Flask, ctx: Flask, db_session: Session, competition: Competition,
                 make_player: Callable[..., Player], frozen_clock: Any,
                 tmp_path: Path) -> Iterator[dict[str, Any]]:
    use_word_list(app, tmp_path, "ZA\nZAS\n")
    ana = make_player("Ana Popescu", "ana@example.ro")
    bogdan = make_player("Bogdan Ionescu", "bogdan@example.ro")
    cristi = make_player("Cristi Stan", "cristi@example.ro")
    dan = make_player("Dan Radu", "dan@example.ro")
    for p in (ana, bogdan, cristi, dan):
        p.locale = "ro"
        db_session.add(p)
    competition.name = "Campionatul 2026"
    db_session.add(competition)
    db_session.commit()
    d1 = duplicate.create_game(
        session=db_session, competition=competition, title="Duplicat D1", code="D1",
        settings=DuplicateSettings(lang="fr", rounds=2), rhythm={"kind": "hours", "hours": 24},
        starts_at=START, lexicon_name="za", bag_order=full_bag(), timezone="Europe/Bucharest")
    c1 = duplicate.create_game(
        session=db_session, competition=competition, title="Completiv C1", code="C1",
        settings=DuplicateSettings(lang="fr", rounds=2), rhythm={"kind": "hours", "hours": 24},
        starts_at=START, lexicon_name="za", bag_order=_bag("ZEIBCDS"), variant="completif",
        timezone="Europe/Bucharest")
    # R1 starts as the others end (its round 1 open at the last step), D3 a week later
    for code, starts in (("R1", START + 2 * DAY), ("D3", START + 10 * DAY)):
        duplicate.create_game(
            session=db_session, competition=competition, title=f"Duplicat {code}", code=code,
            settings=DuplicateSettings(lang="fr", rounds=2),
            rhythm={"kind": "all_answered", "hours": 1}, starts_at=starts, lexicon_name="za",
            bag_order=full_bag(), timezone="Europe/Bucharest")
    db_session.commit()
    frozen_clock.move_to(START)
    assert _run() == ["draw:D1:1", "draw:C1:1"]
    co1 = correspondence.create_game(
        session=db_session, competition=competition, red=ana, blue=bogdan,
        row=_row("ZAEIBCDSEOUFGHAE"), code="CO1", lexicon_name="za", starts_at=START)
    co2 = correspondence.create_game(
        session=db_session, competition=competition, red=cristi, blue=dan,
        row=_row("ZAEIBCDSEOUFGHAE"), code="CO2", lexicon_name="za", starts_at=START,
        move_hours=24, reminder_hours=12, grace_hours=0)
    db_session.commit()

    # round 1 of D1 and C1
    _bulletin(db_session, ana, d1, "H7 ZA 22")
    _bulletin(db_session, bogdan, d1, "H8 ZA 20")
    _bulletin(db_session, cristi, d1, "H8 ZAZ 30")
    _bulletin(db_session, ana, c1, "H7 ZA 22 +A")
    _bulletin(db_session, cristi, c1, "H7 ZA 22 +Z")
    # the correspondence games: two moves in CO1, one in CO2
    frozen_clock.move_to(START + HOUR)
    for player, game, move in ((ana, co1, "H8 ZA"), (bogdan, co1, "H8 ZAS"),
                               (cristi, co2, "H8 ZA")):
        db_session.refresh(game)
        correspondence.submit_move(session=db_session, player=player, game=game, text=move,
                                   channel=Channel.WEB, received_at=clock.now())
        db_session.commit()
    frozen_clock.move_to(START + DAY)
    assert _run() == ["close:D1:1", "correct:D1:1", "publish:D1:1", "draw:D1:2",
                      "close:C1:1", "correct:C1:1", "publish:C1:1", "draw:C1:2",
                      "remind:CO2:2"]
    # round 2
    frozen_clock.move_to(START + DAY + HOUR)
    _bulletin(db_session, ana, d1, "H7 ZAS 12")
    _bulletin(db_session, bogdan, d1, "ZAS 12 13")
    _bulletin(db_session, cristi, d1, "ZAS 12")
    _bulletin(db_session, ana, c1, "7H ZAS 13 +A")
    frozen_clock.move_to(START + 2 * DAY + timedelta(seconds=1))
    _bulletin(db_session, dan, d1, "H7 ZAS 12")
    assert "draw:R1:1" in _run()
    db_session.expire_all()
    games = {g.code: g for g in db_session.exec(select(DuplicateGame)).all()}
    corr = {g.code: g for g in db_session.exec(select(CorrespondenceGame)).all()}
    arbitre = create_arbitre(session=db_session, username="juge", password="motdepasse1",
                             name="Juge Arbitre")
    db_session.commit()
    yield {"players": (ana, bogdan, cristi, dan), "games": games, "corr": corr,
           "arbitre": arbitre, "competition": competition}


def _sign(client: FlaskClient, **who: int) -> None:
    with client.session_transaction() as sess:
        sess.clear()
        sess.update(who)


def _pages(w: dict[str, Any]) -> list[tuple[str, dict[str, int]]]:
    ana = w["players"][0]
    comp = w["competition"]
    public = ["/duplicate", "/duplicate/D1", "/duplicate/D1?tour=1", "/duplicate/C1",
              "/correspondance", "/correspondance/CO1", "/correspondance/CO2",
              f"/correspondance/serie/{comp.id}", f"/joueurs/{ana.id}",
              f"/competitions/{comp.slug}", "/regles/duplicate", "/regles/duplicate_completif",
              "/regles/correspondance", "/duplicate/NOPE", "/archives", "/duplicate/R1",
              "/duplicate/D3"]
    player = ["/joueur/", "/duplicate/D1", "/duplicate/C1", "/correspondance/CO1",
              "/duplicate/R1", "/duplicate/D3"]
    console = ["/console/duplicate", "/console/duplicate/D1", "/console/duplicate/C1",
               "/console/duplicate/R1", "/console/duplicate/D3", "/console/correspondance",
               "/console/"]
    return ([(u, {}) for u in public] + [(u, {"player_id": ana.id}) for u in player]
            + [(u, {"arbitre_id": w["arbitre"].id}) for u in console])


#: letters French writes and Romanian does not (Romanian has « â », « î », « ă », « ș », « ț »)
_FRENCH_LETTERS = re.compile(r"\w*[éèêëàçùûôœÉÈÊÀÇ]\w*|\b[nN]°")
_ADDRESS = re.compile(r"https?://\S+|\S+@\S+")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


@pytest.fixture(scope="module")
def french_only_words() -> frozenset[str]:
    """The words of the French catalogue that no Romanian message uses: « coup », « tour »,
    « points », « valide », « rouge », « bleu », « heures »… (three letters or more; the
    examples the messages quote, « RESTAIt », « PROMENERAI », are in both)."""
    from tests.web.test_i18n import _catalogue, _forms

    french: set[str] = set()
    romanian: set[str] = set()
    for m in _catalogue():
        if m.id:
            for form in _forms(m.id):
                french |= _words(re.sub(r"%\(\w+\)s", " ", form))
            for form in _forms(m.string):
                romanian |= _words(re.sub(r"%\(\w+\)s", " ", form))
    assert french >= _BOTH_BUT_FRENCH_HERE
    return frozenset(w for w in french - romanian if len(w) >= 3) | _BOTH_BUT_FRENCH_HERE


#: French words the Romanian catalogue writes too, but never on the round games' pages:
#: « valide » (Romanian « scrabble-uri valide », the Superscrabble incomplet's rules) and
#: « coup » (quoted in the Anticipation's rules, « Annuler coup »)
_BOTH_BUT_FRENCH_HERE = frozenset({"valide", "coup"})


def french_left(text: str, vocabulary: frozenset[str], pieces: list[str]) -> list[str]:
    """The French in ``text`` (a Romanian page's visible text or a Romanian mail): the long
    pieces of translated messages, the words with French letters, the French-only words
    (addresses are no language: « /correspondance/CO1 », « feuilles+…@… » left out)."""
    text = _ADDRESS.sub(" ", text)
    found = [p for p in pieces if p in text]
    found += _FRENCH_LETTERS.findall(text)
    found += sorted(w for w in _words(text) if w in vocabulary)
    return sorted(set(found))


#: the correspondence game's raw record (``arbitre-fisa-de-concurs``, RULES §8.1) is a file
#: format whose keywords are the format's own (« épreuve: », « rouge: »); it is quoted on
#: the page as the downloadable record, not written in the reader's language
_RAW_RECORD = re.compile(r"<pre[^>]*id=\"fiche\"[^>]*>.*?</pre>", re.S)


def _page_text(body: str) -> str:
    return _visible(_RAW_RECORD.sub("", body))


def test_the_french_detector_finds_what_the_issue_saw(french_only_words: frozenset[str]) -> None:
    """The texts of issue 22 §5 are all found (so that an empty result means something), and
    none of the Romanian the pages now show is."""
    pieces = _french_pieces(_translated())
    for text in ("Valide.", "Nul : le mot ZAZ n'est pas admis.", "terminée", "programmée",
                 "en cours", "Este rândul lui BLEU", "(25 points)", "ROUGE 35 – BLEU 47",
                 "12/05/2026 à 20:18", "Duplicat D1 — coup 1", "n° 4", "475 points",
                 "vérification initiale", "valide", "1 heures"):
        assert french_left(text, french_only_words, pieces) != [], text
    for text in ("Valabil.", "Nul: cuvântul ZAZ nu este admis.", "încheiată", "programată",
                 "în desfășurare", "Este rândul lui ALBASTRU", "(25 de puncte)",
                 "ROȘU 35 – ALBASTRU 47", "12/05/2026, ora 20:18", "Duplicat D1 — runda 1",
                 "nr. 4", "475 de puncte", "o tură la fiecare 24 de ore"):
        assert french_left(text, french_only_words, pieces) == [], text


def test_round_games_pages_in_romanian(app: Flask, client: FlaskClient,
                                       rounds_world: dict[str, Any],
                                       french_only_words: frozenset[str]) -> None:
    pieces = _french_pieces(_translated())
    found: dict[str, set[str]] = {}
    pages = _pages(rounds_world)
    for url, who in pages:
        _sign(client, **who)
        fr = client.get(url, headers={"Accept-Language": "fr"})
        ro = client.get(url, headers={"Accept-Language": "ro-RO,ro;q=0.9,fr;q=0.5"})
        expected = 404 if url == "/duplicate/NOPE" else 200
        assert (fr.status_code, ro.status_code) == (expected, expected), url
        body = ro.get_data(as_text=True)
        assert '<html lang="ro">' in body, url
        fr_text, ro_text = _page_text(fr.get_data(as_text=True)), _page_text(body)
        # (a signed-in player's stored choice, Romanian, wins over his browser's language)
        assert (fr_text == ro_text) == ("player_id" in who), url
        for piece in french_left(ro_text, french_only_words, pieces):
            found.setdefault(piece, set()).add(url)
    assert len(pages) == 30  # 17 public, 6 of a player, 7 of the console
    assert found == {}, "\n".join(f"{p!r}: {sorted(u)}" for p, u in sorted(found.items()))


def _get(client: FlaskClient, url: str, lang: str) -> str:
    return html.unescape(_page_text(client.get(url, headers={"Accept-Language": lang})
                                    .get_data(as_text=True)))


def test_the_verdicts_in_both_languages(client: FlaskClient,
                                        rounds_world: dict[str, Any]) -> None:
    """Every kind of verdict of the games played, on the console (reasons and kinds) and on
    the player's own results, French and Romanian."""
    _sign(client, arbitre_id=rounds_world["arbitre"].id)
    fr, ro = _get(client, "/console/duplicate/D1", "fr"), _get(client, "/console/duplicate/D1",
                                                                  "ro")
    for french, romanian in (
        ("Valide.", "Valabil."),
        ("Avertissement : score 20 faux, score exact 22.",
         "Avertisment: scorul 20 greșit, scorul exact 22."),
        ("Nul : le mot ZAZ n'est pas admis.", "Nul: cuvântul ZAZ nu este admis."),
        ("Nul : bulletin illisible — Deux scores sur le bulletin : 12 et 13.",
         "Nul: buletin ilizibil — Două punctaje pe buletin: 12 și 13."),
        ("Pénalité de 5 points : référence absente ou illisible, le score 12 correspond à un "
         "emplacement valable.",
         "Penalizare de 5 puncte: referință lipsă sau ilizibilă, scorul 12 corespunde unei "
         "poziții valabile."),
        ("Pas de bulletin : zéro.", "Niciun buletin: zero."),
        ("Seul coup à 12 points.", "Singura mutare de 12 puncte."),
        ("2 coups à 22 points ; retenu : la plus petite référence (rangée, puis colonne).",
         "2 mutări de 22 puncte; reținută: cea mai mică referință (rândul, apoi coloana)."),
        ("Tour 2 — résultats publiés", "Runda 2 — rezultate publicate"),
        ("un tour toutes les 24 heures", "o tură la fiecare 24 de ore"),
    ):
        assert french in fr and french not in ro, french
        assert romanian in ro, romanian
    # the verdicts' kinds, one cell each
    for kinds, text in ((("valide", "avertissement", "nul", "pénalité", "absent"), fr),
                        (("valabil", "avertisment", "nul", "penalizare", "absent"), ro)):
        for kind in kinds:
            assert f"\n{kind}\n" in text, kind
    # the preview of a new correction names the kinds in words too (old and new)
    preview = client.post("/console/duplicate/D1/tours/2/recorriger", data={"reason": "control"},
                          headers={"Accept-Language": "ro"})
    assert preview.status_code == 200
    shown = html.unescape(_page_text(preview.get_data(as_text=True)))
    assert shown.count("\npenalizare\n") == 2 and "penalite5" not in shown
    console_c1 = _get(client, "/console/duplicate/C1", "ro")
    assert "Nul: litera aleasă Z nu mai este în stoc." in console_c1
    assert "Literă(e) aleasă(e): A." in console_c1
    # the player's own results (his stored language, Romanian, whatever his browser's)
    _sign(client, player_id=rounds_world["players"][0].id)
    mine = _get(client, "/duplicate/D1", "fr")
    assert mine.count("\nValabil.\n") == 2 and "Valide." not in mine


def test_statuses_colours_and_plurals(client: FlaskClient, rounds_world: dict[str, Any]) -> None:
    listing = _get(client, "/duplicate", "ro")
    assert "\nîncheiată\n" in listing and "terminée" not in listing
    assert "\nîn desfășurare\n" in listing and "\nprogramată\n" in listing
    french = _get(client, "/duplicate", "fr")
    assert "\nterminée\n" in french and "\nen cours\n" in french
    assert "\nprogrammée\n" in french
    # the plural of the hours: « au plus tard 1 heure », « cel târziu la 1 oră »
    assert "au plus tard 1 heure après le tirage" in _get(client, "/duplicate/R1", "fr")
    assert "cel târziu la 1 oră după tragere" in _get(client, "/duplicate/R1", "ro")
    co1 = _get(client, "/correspondance/CO1", "ro")
    assert "Este rândul lui ROȘU (mutarea 3)." in co1
    assert "o mutare în 72 de ore (toleranță 24 de ore)" in co1
    assert "Au tour de ROUGE (coup 3)." in _get(client, "/correspondance/CO1", "fr")
    assert "un coup en 72 heures (tolérance 24 heures)" in _get(client, "/correspondance/CO1",
                                                                 "fr")
    co2 = _get(client, "/correspondance/CO2", "ro")
    assert "ALBASTRU pierde la timp (nicio mutare primită înainte de" in co2
    assert "BLEU perd au temps (aucun coup reçu avant le" in _get(client, "/correspondance/CO2",
                                                                   "fr")
    # the 404 page
    missing = _get(client, "/duplicate/NOPE", "ro")
    assert "Pagină negăsită" in missing and "Această pagină nu există, sau nu încă." in missing


def test_plural_forms_of_the_rhythm(app: Flask) -> None:
    """« 1 heures » / « 1 ore » no more: the catalogue's plural forms (French: one, other;
    Romanian: one, few — 2 to 19 —, many — 20 and more, « de ore »)."""
    from webapp.views.duplicate import rhythm_text

    def text(hours: int, lang: str) -> str:
        with app.test_request_context("/", headers={"Accept-Language": lang}):
            return rhythm_text({"kind": "hours", "hours": hours})

    assert [text(h, "fr") for h in (1, 2, 24)] == [
        "un tour toutes les heures", "un tour toutes les 2 heures",
        "un tour toutes les 24 heures"]
    assert [text(h, "ro") for h in (1, 2, 19, 20, 24, 101)] == [
        "o tură în fiecare oră", "o tură la fiecare 2 ore", "o tură la fiecare 19 ore",
        "o tură la fiecare 20 de ore", "o tură la fiecare 24 de ore",
        "o tură la fiecare 101 ore"]
    assert duplicate.describe_rhythm({"kind": "hours", "hours": 1}) == (
        "un tour toutes les heures")


def test_every_mail_of_the_games_in_romanian(rounds_world: dict[str, Any], db_session: Session,
                                             french_only_words: frozenset[str]) -> None:
    """Every mail the four Romanian players received: draws, receipts (an unreadable one, a
    late one), results (a warning, a zero, a penalty), final rankings, turns, a reminder, the
    end of a game lost on time — no French, the dates « , ora 13:00 »."""
    pieces = _french_pieces(_translated())
    mails = db_session.exec(select(OutboxMessage).order_by(col(OutboxMessage.id))).all()
    kinds = Counter(m.kind for m in mails)
    assert {k for k, n in kinds.items() if n} >= {
        "duplicate_draw", "receipt", "duplicate_results", "duplicate_final", "corr_turn",
        "corr_reminder", "corr_final"}
    found: dict[str, set[str]] = {}
    for m in mails:
        body = m.body_text.split("Textul primit:")[0]  # the text received is quoted as sent
        for part in (m.subject, body, html.unescape(_visible(m.body_html or ""))
                     .split("Textul primit:")[0]):
            for piece in french_left(part, french_only_words, pieces):
                found.setdefault(piece, set()).add(f"{m.kind}: {m.subject}")
    assert found == {}, "\n".join(f"{p!r}: {sorted(u)}" for p, u in sorted(found.items()))
    by_subject = {m.subject: m.body_text for m in mails if m.to_addr == "ana@example.ro"}
    receipt = by_subject["Buletin primit — Duplicat D1 (D1), runda 1"]
    assert "la 10/05/2026, ora 13:00:00 (Europe/Bucharest, UTC+03:00)." in receipt
    assert "Referința trimiterii: nr. 1, versiunea 1" in receipt
    turn = by_subject["Ana Popescu – Bogdan Ionescu (CO1) — este rândul dumneavoastră "
                      "(mutarea 3)"]
    assert "Mutarea adversarului: H8 ZAS (12 puncte)." in turn
    assert "Scoruri: ROȘU 10 – ALBASTRU 12." in turn
    results = by_subject["Duplicat D1 (D1) — rezultatele rundei 1: 22 din 22"]
    assert "Scorul dumneavoastră: 22 — Valabil." in results
    assert "Totalul dumneavoastră: 22 — locul 1 la egalitate din 4." in results
    finals = [m for m in mails if m.kind == "corr_final"]
    assert {m.to_addr: m.subject for m in finals} == {
        "cristi@example.ro": "Cristi Stan – Dan Radu (CO2) — partidă câștigată",
        "dan@example.ro": "Cristi Stan – Dan Radu (CO2) — partidă pierdută"}


# --- raw values on the French pages (issue 22 §5) ------------------------------------------


def test_french_pages_say_values_in_words(client: FlaskClient, rounds_world: dict[str, Any],
                                          db_session: Session) -> None:
    """No setting's code on a French page: the solo rule, the built-in word list, the
    problem JSON's hint; the draw notation comes with its legend; the footer's switch says
    it changes a signed-in player's mails too."""
    _sign(client, arbitre_id=rounds_world["arbitre"].id)
    form = _get(client, "/console/duplicate", "fr")
    assert "n − 6 points sous 16 joueurs (règlement FISF)" in form
    assert "RULES (n − 6" not in form and "\n4e\n" in form
    new_problem = _get(client, "/console/problemes/nouveau", "fr")
    assert "docs/PUZZLES.md" not in new_problem
    assert "l'énoncé complet, un objet JSON : format, type de partie" in new_problem
    # the draws' notation (« EIBCD+SE »: the reliquat kept, then the new letters) explained
    page = client.get("/duplicate/D1", headers={"Accept-Language": "fr"}).get_data(
        as_text=True)
    assert "Notation des tirages : « + » sépare les lettres gardées du tour précédent" in (
        html.unescape(page))
    assert re.search(r'<td class="draw-cell"[^>]*><span class="letters compact draw-tiles" '
                     r'role="img" aria-label="EIBCD\+SE" title="« \+ » sépare le reliquat des '
                     r'lettres nouvelles ; « - » en tête : tirage précédent rejeté">',
                     html.unescape(page))
    ro = _get(client, "/duplicate/D1", "ro")
    assert "Notația tragerilor: „+” desparte literele păstrate" in ro
    # the footer's note: for a signed-in player only, in his language
    assert "(aussi la langue de vos courriels)" not in page
    _sign(client, player_id=rounds_world["players"][0].id)
    assert "(și limba e-mailurilor dumneavoastră)" in _get(client, "/duplicate", "fr")
    from webapp.models import Player

    ana = db_session.get(Player, rounds_world["players"][0].id)
    assert ana is not None
    ana.locale = "fr"
    db_session.add(ana)
    db_session.commit()
    mine = client.get("/duplicate", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert re.search(r'<form class="lang-switch".*<span class="small lang-note" '
                     r'id="lang-note">\(aussi la langue de vos courriels\)</span>\s*</form>',
                     mine, re.S)


def test_word_list_names_in_words(app: Flask) -> None:
    from webapp.i18n import lexicon_label

    with app.test_request_context("/", headers={"Accept-Language": "fr"}):
        assert lexicon_label("default") == "la liste intégrée"
        assert lexicon_label("default+ab12") == (
            "la liste intégrée (avec les décisions de l'arbitre sur les mots)")
        assert lexicon_label("fr-comprehensive") == "fr-comprehensive"
    with app.test_request_context("/", headers={"Accept-Language": "ro"}):
        assert lexicon_label("default") == "lista inclusă"


def test_a_report_and_a_problem_page_say_their_values(client: FlaskClient,
                                                      world: dict[str, Any],  # noqa: F811
                                                      ) -> None:
    """A verification report: its score's unit and the run's origin (« vérification
    initiale », written by the server) in the page's language; the problem page names the
    built-in word list in words."""
    _sign(client, arbitre_id=world["arbitre"].id)
    url = f"/rapports/{world['verification'].id}"
    fr, ro = _get(client, url, "fr"), _get(client, url, "ro")
    assert re.search(r"\n166\npoints\n", fr) and re.search(r"\n166\npuncte\n", ro)
    assert "— vérification initiale" in fr and "— verificare inițială" in ro
    assert "vérification initiale" not in ro
    # each move's verdict badge: « valide » / « valabil »
    assert re.search(r'<span class="badge[^"]*">valabil</span>', client.get(
        url, headers={"Accept-Language": "ro"}).get_data(as_text=True))
    assert re.search(r'<span class="badge[^"]*">valide</span>', client.get(
        url, headers={"Accept-Language": "fr"}).get_data(as_text=True))
    problem = _get(client, f"/problemes/{world['done'].code}", "fr")
    assert "\nla liste intégrée" in problem and "\ndefault" not in problem
    assert "\nlista inclusă" in _get(client, f"/problemes/{world['done'].code}", "ro")


def test_the_corrections_reasons_through_the_phrasebook() -> None:
    """The reasons puzzles.duplicate and puzzles.variants write, as they write them (several
    solutions, a list of warnings ending the sentence, a penalty brought to 0, a Superscrabble
    sheet's list, a Tactique's two words), in Romanian and whole: a value never swallows the
    next sentence."""
    from mailer.compose import translations
    from webapp.services.phrasebook import translate

    ro = translations("ro").gettext
    cases = {
        "2 solutions sur le bulletin ; retenue : H7 ZA. Avertissement : joker mal entouré ou "
        "non entouré ; score 20 faux, score exact 22.":
            "2 soluții pe buletin; reținută: H7 ZA. Avertisment: joker marcat greșit sau "
            "nemarcat ; scorul 20 greșit, scorul exact 22.",
        "2 solutions sur le bulletin, aucune n'est valable. Nul : le mot ZZZQX n'est pas "
        "admis.":
            "2 soluții pe buletin, niciuna nu este valabilă. Nul: cuvântul ZZZQX nu este admis.",
        "Nul : référence erronée et le score 30 ne correspond à aucun emplacement du mot écrit "
        "horizontalement.":
            "Nul: referință greșită, iar scorul 30 nu corespunde niciunei poziții a cuvântului "
            "scris orizontal.",
        "Pénalité de 5 points : dernière lettre du mot ZAS absente ou modifiée alors qu'elle "
        "est déjà sur la grille ; 3 − 5 ramené à 0.":
            "Penalizare de 5 puncte: ultima literă a cuvântului ZAS lipsește sau este "
            "schimbată, deși se află deja pe grilă; 3 − 5 adus la 0.",
        "2 scrabble(s) valable(s) ; 1 non valable(s) ; avertissement : nombre de scrabbles "
        "absent.":
            "2 scrabble-uri valabile; 1 nevalabile; avertisment: numărul de scrabble-uri "
            "lipsește.",
        "Mot 1 : Valide. Mot 2 : Pas de bulletin : zéro. Avertissement : cumul absent.":
            "Cuvântul 1: Valabil. Cuvântul 2: Niciun buletin: zero. Avertisment: cumul lipsă.",
        "2 coups à 22 points ; retenu : le moins de jokers.":
            "2 mutări de 22 puncte; reținută: cei mai puțini jokeri.",
        "Nul : la lettre choisie Z n'est plus dans le stock.":
            "Nul: litera aleasă Z nu mai este în stoc.",
        "BLEU perd au temps (aucun coup reçu avant le 14/05/2026 à 13:00 (Europe/Bucharest, "
        "UTC+03:00)).":
            "ALBASTRU pierde la timp (nicio mutare primită înainte de 14/05/2026, ora 13:00 "
            "(Europe/Bucharest, UTC+03:00)).",
        "Top choisi par l'arbitre (juge) : le mot est plus beau":
            "Top ales de arbitru (juge): le mot est plus beau",
    }
    assert {fr: translate(fr, ro) for fr in cases} == cases
