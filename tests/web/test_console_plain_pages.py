"""The console in plain French (issue 13, point 6), page by page: no raw kind or id on any
console page of a populated app, the re-run preview counting rank changes only, « Clore
maintenant » with its confirmation, a player's page, the final ranking previewed with a
warning while appeals are open, the ranking rule in words and the empty ranking explained.
"""

from __future__ import annotations

import html
import re
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, col, select

from webapp.auth import create_arbitre
from webapp.models import (
    Channel,
    OutboxKind,
    Problem,
    ProblemStatus,
    RulingKind,
    Submission,
    Verification,
)
from webapp.services import appeals, audit, clock, lifecycle, verification
from webapp.services.submissions import submit_sheet

pytestmark = pytest.mark.db

FULL = "1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 166\n"
FIRST_ONLY = "1 ACEFHIR h8 FICHERA 82 82\n"


@pytest.fixture
def judge(db_session: Session) -> Any:
    a = create_arbitre(session=db_session, username="juge", password="motdepasse1",
                       name="Juge Arbitre")
    db_session.commit()
    return a


@pytest.fixture
def arbitre_client(client: FlaskClient, judge: Any) -> FlaskClient:
    with client.session_transaction() as sess:
        sess.clear()
        sess["arbitre_id"] = judge.id
    return client


def _submit(session: Session, player: Any, problem: Problem, text: str, at: Any) -> Submission:
    return submit_sheet(session=session, player=player, problem=problem, text=text,
                        channel=Channel.WEB, received_at=at).submission


def _text(page: str) -> str:
    """What a reader sees: no tags, scripts, styles or attribute values."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S | re.I)
    page = re.sub(r"<[^>]+>", " ", page)
    return " ".join(html.unescape(page).split())


# --- a. no raw token on any console page --------------------------------------------------

#: English codes the code gives kinds and statuses (French words such as « publication »
#: and « final » left out: they are French too)
RAW_WORDS = {
    "receipt", "reminder", "results", "ambiguity", "parse_errors", "refused_too_large",
    "login", "announcement", "duplicate_draw", "duplicate_results", "duplicate_corrected",
    "duplicate_final", "corr_turn", "corr_reminder", "corr_final", "appeal_answer",
    "scheduled", "verified", "provisional", "draft", "pending", "sending", "quarantined",
    "processed", "discarded", "accept_word", "reject_word", "exclude_sheet", "accepted",
    "rejected",
}


def raw_tokens(text: str) -> list[str]:
    """The raw kinds and ids in ``text``: audit actions (``submission.received``), actor
    ids (``player:1``), kind and status codes, kinds joined by a slash. Web addresses
    (a mail's links) are not text, nor a mail's own headers (``text/plain``)."""
    text = re.sub(r"https?://\S+", " ", text)
    found = [k for k in audit.ACTIONS if re.search(rf"(?<![\w.]){re.escape(k)}(?![\w.])", text)]
    found += re.findall(r"\b(?:player|appeal|submission|problem|arbitre):\d+\b", text)
    found += [w for w in RAW_WORDS if re.search(rf"(?<![\w/.@-]){w}(?![\w/.@-])", text)]
    codes = RAW_WORDS | {k.value for k in OutboxKind}
    found += [f"{a}/{b}" for a, b in re.findall(r"\b([a-z_]+)/([a-z_]+)\b", text)
              if a in codes and b in codes]
    return sorted(set(found))


def test_raw_tokens_are_caught() -> None:
    # the check itself finds what it must, and spares French text and addresses
    assert raw_tokens("Ana (player:1) submission.received receipt/reminder provisional") == [
        "player:1", "provisional", "receipt/reminder", "submission.received"]
    assert raw_tokens("Feuille reçue · accusé de réception · feuilles+ab12@arbitre.test · "
                      "classement final · 10/05/2026 à 13:00 · Content-Type text/plain · "
                      "http://arbitre.test/problemes/P1") == []


def _populate(app: Flask, db_session: Session, make_player: Any, make_problem: Any,
              frozen_clock: Any, judge: Any) -> dict[str, int]:
    """Every console page has something to show: problems in every state, sheets, a
    ruling, an answered appeal, an early close, an empty ranking, mails sent to the local
    mailbox."""
    from mailer import pipeline
    from mailer.outbox import send_pending
    from tests.mail.helpers import make_mail
    from webapp.models import InboundChannel

    ana = make_player("Ana Popescu", "ana@example.ro")
    bob = make_player("Bob Martin", "bob@example.fr")
    done = make_problem(code="P1", deadline=timedelta(hours=1), appeal_days=7)
    empty = make_problem(code="P2", deadline=timedelta(hours=1))
    early = make_problem(code="P3", deadline=timedelta(days=5))
    make_problem(code="P4", publish=timedelta(days=1), deadline=timedelta(days=6),
                 status=ProblemStatus.SCHEDULED)
    make_problem(code="P5", deadline=timedelta(days=6))
    _submit(db_session, ana, done, FULL, clock.now())
    _submit(db_session, bob, done, FIRST_ONLY, clock.now() + timedelta(minutes=1))
    _submit(db_session, ana, early, FULL, clock.now())
    db_session.commit()
    lifecycle.close_now(session=db_session, problem=early, actor="juge",
                        reason="énoncé divulgué", now=clock.now() + timedelta(minutes=5))
    db_session.commit()
    frozen_clock.shift(timedelta(hours=1))
    lifecycle.run_due(now=clock.now())
    db_session.expire_all()
    bob_v = db_session.exec(select(Verification).join(
        Submission, col(Submission.id) == col(Verification.submission_id)).where(
        Submission.player_id == bob.id, Submission.problem_id == done.id)).one()
    appeal = appeals.file_appeal(session=db_session, player=bob, verification=bob_v,
                                 text="Mon second coup manque.")
    appeals.answer_appeal(session=db_session, appeal=appeal, arbitre=judge, accepted=False,
                          answer="Le coup n'est pas sur la feuille.")
    verification.add_ruling(session=db_session, problem=done, kind=RulingKind.ACCEPT_WORD,
                            word="ZZZ", actor="juge", comment="admis pour ce problème")
    db_session.commit()
    # mail in: Ana's sheet for P5 to her personal address, and a stranger's message
    for frm, to, body in ((ana.email, f"feuilles+{ana.token}@arbitre.test", FULL),
                          ("inconnu@example.com", "feuilles@arbitre.test", "Bonjour")):
        raw = make_mail(frm=frm, to=to, subject="Problème : P5", body=body)
        stored = pipeline.store_raw(app, raw, channel=InboundChannel.SMTP, envelope_from=frm,
                                    envelope_to=[to])
        pipeline.process(app, stored.id)
    # a Duplicate game with its first round drawn, and a two-player correspondence game
    from puzzles.duplicate import DuplicateSettings
    from scoring.tiles import tileset
    from webapp.models import Competition
    from webapp.services import correspondence, duplicate

    comp = db_session.get(Competition, done.competition_id)
    assert comp is not None
    duplicate.create_game(session=db_session, competition=comp, title="Duplicate du lundi",
                          code="D1", settings=DuplicateSettings(lang="fr", rounds=2),
                          rhythm={"kind": "hours", "hours": 24}, starts_at=clock.now(),
                          seed=7, actor="juge")
    row = "".join(sorted(tileset("fr").bag().elements()))[:40]
    correspondence.create_game(session=db_session, competition=comp, red=ana, blue=bob,
                               row=row, starts_at=clock.now(), code="CO1", actor="juge")
    db_session.commit()
    lifecycle.run_due(now=clock.now())  # round 1 drawn
    send_pending(app)  # no relay configured: to the local mailbox
    return {"done": done.id or 0, "empty": empty.id or 0, "early": early.id or 0,
            "ana": ana.id or 0}


def _crawl(client: FlaskClient, start: list[str], limit: int = 300) -> dict[str, str]:
    """Every console page reachable from ``start`` by links (GET), with its visible text."""
    seen: dict[str, str] = {}
    todo = list(start)
    while todo and len(seen) < limit:
        url = todo.pop()
        if url in seen:
            continue
        resp = client.get(url)
        assert resp.status_code == 200, (url, resp.status_code)
        if not resp.mimetype.startswith("text/html"):
            seen[url] = ""
            continue
        page = resp.get_data(as_text=True)
        seen[url] = _text(page)
        for href in re.findall(r'href="([^"#]+)', page):
            parts = urlsplit(html.unescape(href))
            path = parts.path + (f"?{parts.query}" if parts.query else "")
            if parts.path.startswith("/console") and not parts.path.endswith("/brut") \
                    and path not in seen:
                todo.append(path)
    return seen


def test_no_raw_kind_or_id_on_any_console_page(
    app: Flask, db_session: Session, make_player: Any, make_problem: Any, frozen_clock: Any,
    judge: Any, arbitre_client: FlaskClient,
) -> None:
    ids = _populate(app, db_session, make_player, make_problem, frozen_clock, judge)
    pages = _crawl(arbitre_client, ["/console/"] + [
        f"/console/problemes/{ids[k]}/{p}" for k, p in
        (("done", "reverifier"), ("done", "finaliser"))])
    # a preview of the re-run too
    preview = arbitre_client.post(f"/console/problemes/{ids['done']}/reverifier",
                                  data={"reason": "mot admis", "action": "preview"})
    assert preview.status_code == 200
    pages["re-run preview"] = _text(preview.get_data(as_text=True))
    # the crawl went everywhere: the dashboard, the problems, the players, the mail, the log
    for must in ("/console/", f"/console/problemes/{ids['done']}", "/console/joueurs",
                 f"/console/joueurs/{ids['ana']}", "/console/journal", "/console/courrier",
                 "/console/courrier/sortant", "/console/appels", "/console/courrier/recu/1",
                 "/console/courrier/recu/2", "/console/problemes/5/clore",
                 "/console/duplicate/D1", "/console/correspondance"):
        assert must in pages, must
    bad = {url: raw_tokens(text) for url, text in pages.items() if raw_tokens(text)}
    assert bad == {}


# --- b. the re-run page counts rank changes only ------------------------------------------


def test_rerun_page_counts_rank_changes_apart_from_scores(
    db_session: Session, make_player: Any, make_problem: Any, frozen_clock: Any,
    arbitre_client: FlaskClient,
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    cid = make_player("Cid", "cid@example.es")
    prob = make_problem(code="P1", deadline=timedelta(hours=1))
    _submit(db_session, ana, prob, FULL, clock.now())
    _submit(db_session, bob, prob, FIRST_ONLY, clock.now() + timedelta(minutes=1))
    _submit(db_session, cid, prob, FULL, clock.now() + timedelta(minutes=2))
    db_session.commit()
    frozen_clock.shift(timedelta(hours=1))
    lifecycle.run_due(now=clock.now())
    # WUS refused: every sheet is 82; Ana stays 1st (score only), Bob 3rd → 2nd, Cid 2nd → 3rd
    verification.add_ruling(session=db_session, problem=prob, kind=RulingKind.REJECT_WORD,
                            word="WUS", actor="juge", comment="mot refusé")
    db_session.commit()
    url = f"/console/problemes/{prob.id}/reverifier"
    page = _text(arbitre_client.post(url, data={"reason": "WUS refusé", "action": "preview"})
                 .get_data(as_text=True))
    assert "Liste de mots : fr-comprehensive avec vos décisions sur les mots" in page
    assert ("Changements de classement : 2 Joueur Place avant Place après Score avant "
            "Score après Bob 3 2 82 82 Cid 2 3 166 82") in page
    assert ("Scores modifiés sans changement de place : 1 Joueur Place Score avant "
            "Score après Ana 1 166 82") in page
    digest = re.search(r'name="digest" value="([0-9a-f]+)"',
                       arbitre_client.post(url, data={"reason": "WUS refusé",
                                                      "action": "preview"})
                       .get_data(as_text=True))
    assert digest is not None
    done = arbitre_client.post(url, data={"reason": "WUS refusé", "action": "apply",
                                          "digest": digest.group(1)}, follow_redirects=True)
    assert ("Nouvelle vérification appliquée : 2 changement(s) de classement, 1 score(s) "
            "modifié(s) sans changement de place.") in _text(done.get_data(as_text=True))


# --- d. « Clore maintenant » ----------------------------------------------------------------


def test_close_now_asks_for_confirmation_then_closes(
    db_session: Session, make_player: Any, make_problem: Any, frozen_clock: Any,
    arbitre_client: FlaskClient,
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    make_player("Bob", "bob@example.fr")
    prob = make_problem(code="P1", deadline=timedelta(days=5))
    _submit(db_session, ana, prob, FULL, clock.now())
    db_session.commit()
    show = _text(arbitre_client.get(f"/console/problemes/{prob.id}").get_data(as_text=True))
    assert "Clore maintenant…" in show
    url = f"/console/problemes/{prob.id}/clore"
    confirm = _text(arbitre_client.get(url).get_data(as_text=True))
    # FROZEN_START + 5 days = 15/05/2026 10:00 UTC = 13:00 in Bucharest
    assert ("La clôture annoncée aux joueurs est le 15/05/2026 à 13:00 (Europe/Bucharest, "
            "UTC+03:00). Clore maintenant avance la clôture à cet instant") in confirm
    assert ("2 joueur(s) inscrit(s) 1 joueur(s) ont envoyé une feuille 1 joueur(s) inscrit(s) "
            "n'ont pas encore envoyé de feuille") in confirm
    # the GET changed nothing; a confirmation without a reason is refused
    refused = arbitre_client.post(url, data={"confirm": "1", "reason": ""})
    assert refused.status_code == 400
    assert "Indiquez le motif de la clôture anticipée" in refused.get_data(as_text=True)
    db_session.expire_all()
    assert db_session.get(Problem, prob.id).status == ProblemStatus.OPEN  # type: ignore[union-attr]
    done = arbitre_client.post(url, data={"confirm": "1", "reason": "énoncé divulgué"},
                               follow_redirects=True)
    text = _text(done.get_data(as_text=True))
    assert ("Problème clos maintenant : les feuilles reçues désormais sont hors délai."
            in text)
    assert "Clos avant l'échéance" in text and "motif : énoncé divulgué" in text
    db_session.expire_all()
    closed = db_session.get(Problem, prob.id)
    assert closed is not None and closed.status == ProblemStatus.CLOSED
    assert closed.deadline_at == clock.now()


# --- e. a player's page ----------------------------------------------------------------------


def test_player_page_edits_and_shows_competitions_and_address(
    db_session: Session, make_player: Any, make_problem: Any, frozen_clock: Any,
    arbitre_client: FlaskClient,
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    make_player("Bob", "bob@example.fr")
    prob = make_problem(code="P1")
    _submit(db_session, ana, prob, FULL, clock.now())
    db_session.commit()
    players_page = arbitre_client.get("/console/joueurs").get_data(as_text=True)
    assert f'href="/console/joueurs/{ana.id}"' in players_page
    url = f"/console/joueurs/{ana.id}"
    text = _text(arbitre_client.get(url).get_data(as_text=True))
    assert f"Adresse personnelle de dépôt feuilles+{ana.token}@arbitre.test" in text
    assert ("Compétitions Championnat par correspondance 2026 — inscrit, 1 problème(s) avec "
            "une feuille") in text
    form = {"name": "Ana Popescu", "email": "bob@example.fr", "licence": "RO-7", "club": "Iași",
            "category": "A", "country": "Roumanie", "locale": "ro"}
    refused = arbitre_client.post(url, data=form)
    assert refused.status_code == 400
    assert ("Rien n'a été enregistré : L'adresse « bob@example.fr » est déjà celle de Bob."
            in _text(refused.get_data(as_text=True)))
    done = arbitre_client.post(url, data={**form, "email": "ana.popescu@example.ro"},
                               follow_redirects=True)
    assert "Fiche enregistrée : 7 champ(s) modifié(s)." in _text(done.get_data(as_text=True))
    db_session.expire_all()
    row = db_session.get(type(ana), ana.id)
    assert row is not None
    assert (row.name, row.email, row.licence, row.club, row.category, row.country,
            row.locale) == ("Ana Popescu", "ana.popescu@example.ro", "RO-7", "Iași", "A",
                            "Roumanie", "ro")


# --- f. the final ranking: warning and preview ------------------------------------------------


def test_finalise_warns_and_previews_while_the_appeal_window_is_open(
    db_session: Session, make_player: Any, make_problem: Any, frozen_clock: Any, judge: Any,
    arbitre_client: FlaskClient,
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    prob = make_problem(code="P1", deadline=timedelta(hours=1), appeal_days=7)
    _submit(db_session, ana, prob, FULL, clock.now())
    _submit(db_session, bob, prob, FIRST_ONLY, clock.now() + timedelta(minutes=1))
    db_session.commit()
    frozen_clock.shift(timedelta(hours=1))
    lifecycle.run_due(now=clock.now())
    url = f"/console/problemes/{prob.id}/finaliser"
    page = arbitre_client.get(url).get_data(as_text=True)
    text = _text(page)
    # provisional at 11:00 UTC + 7 days = 17/05/2026 11:00 UTC = 14:00 in Bucharest
    assert ("Attention : le délai d'appel court jusqu'au 17/05/2026 à 14:00 "
            "(Europe/Bucharest, UTC+03:00). Publié maintenant, le classement définitif ferme "
            "les appels") in text
    assert ("Aperçu du classement définitif Place Joueur Score % 1 Ana 166 100.0 "
            "2 Bob 82 49.4 Identique au classement provisoire.") in text
    digest = re.search(r'name="digest" value="([0-9a-f]+)"', page)
    assert digest is not None
    # without ticking the box: refused, nothing published
    refused = arbitre_client.post(url, data={"comment": "Merci à tous.",
                                             "digest": digest.group(1)}, follow_redirects=True)
    assert ("Le délai d'appel n'est pas écoulé : cochez la case pour publier quand même le "
            "classement définitif.") in _text(refused.get_data(as_text=True))
    db_session.expire_all()
    assert db_session.get(Problem, prob.id).status == ProblemStatus.PROVISIONAL  # type: ignore[union-attr]
    # a stale preview is refused too
    stale = arbitre_client.post(url, data={"comment": "Merci.", "digest": "0" * 64,
                                           "early": "1"}, follow_redirects=True)
    assert "Le classement a changé depuis l'aperçu" in _text(stale.get_data(as_text=True))
    done = arbitre_client.post(url, data={"comment": "Merci à tous.", "early": "1",
                                          "digest": digest.group(1)}, follow_redirects=True)
    assert "Classement définitif publié." in _text(done.get_data(as_text=True))
    db_session.expire_all()
    assert db_session.get(Problem, prob.id).status == ProblemStatus.FINAL  # type: ignore[union-attr]


# --- c, i. the ranking rule in words, the empty ranking explained -----------------------------


def test_problem_page_describes_the_ranking_and_why_none_is_published(
    db_session: Session, make_player: Any, make_problem: Any, frozen_clock: Any,
    arbitre_client: FlaskClient,
) -> None:
    make_player("Ana", "ana@example.ro")
    prob = make_problem(code="P1", deadline=timedelta(hours=1))
    frozen_clock.shift(timedelta(hours=1))
    lifecycle.run_due(now=clock.now())
    text = _text(arbitre_client.get(f"/console/problemes/{prob.id}").get_data(as_text=True))
    assert ("Classement Classement par total corrigé ; à égalité, la feuille reçue la première "
            "passe devant. Les pourcentages se calculent sur le meilleur résultat reçu. "
            "Pas de classement publié. Aucune feuille n'a été reçue : il n'y a pas de "
            "classement à publier.") in text
    assert "Classement vide non publié" in text  # the step, in « Étapes effectuées »
    # and in Romanian: the rule, the reason and the steps
    ro = _text(arbitre_client.get(f"/console/problemes/{prob.id}",
                                  headers={"Accept-Language": "ro"}).get_data(as_text=True))
    assert ("Clasament după totalul corectat; la egalitate, foaia primită prima trece "
            "înainte.") in ro
    assert "Nu a fost primită nicio foaie: nu există clasament de publicat." in ro
    assert "Clasament gol nepublicat" in ro and "Închisă" in ro and "automat (" in ro
    assert "Classement vide" not in ro


def test_competition_page_describes_the_season_ranking(
    db_session: Session, competition: Any, arbitre_client: FlaskClient
) -> None:
    text = _text(arbitre_client.get("/console/competitions/cn2026").get_data(as_text=True))
    # the default rule (sum_percent) and settings, as puzzles.championship.describe says them
    assert ("En vigueur : Total des pourcentages obtenus à chaque problème, la référence du "
            "problème (solution de l'arbitre, sinon la meilleure feuille) valant 100 %. "
            "Un problème non joué compte 0. À total égal, passe devant le joueur qui a joué "
            "le plus de problèmes, puis celui qui a le meilleur résultat (puis le deuxième, "
            "etc.).") in text


def test_audit_log_filters_by_kind_named_in_french(
    frozen_clock: Any, db_session: Session, arbitre_client: FlaskClient
) -> None:
    audit.record(session=db_session, actor="juge", action="problem.close", target="P1")
    audit.record(session=db_session, actor="juge", action="ruling.add", target="P1",
                 kind="accept_word", word="ZA", comment="admis")
    db_session.commit()
    page = arbitre_client.get("/console/journal?action=ruling.").get_data(as_text=True)
    assert '<option value="ruling." selected>Décisions</option>' in page
    text = _text(page)
    # one entry, its details in words (« accept_word » is « mot admis »)
    assert "1 entrée(s)." in text
    assert "Décision d'arbitrage P1 type : mot admis · mot : ZA · commentaire : admis" in text
    assert "Problème clos" not in text and raw_tokens(text) == []
