"""Issue 13.1: what the pure packages write in French reaches a Romanian reader in
Romanian — the text report of a verification (line by line), the season chart's words,
the championship rule and the warning rule; a mail says its language (Content-Language)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import Session

from mailer.compose import translations
from puzzles.championship import describe
from webapp.services.people import season_svg
from webapp.services.phrasebook import report_text, translate

RO = translations("ro").gettext

REPORT = (
    "Problème P0 — Scrabble intégral\n"
    "Lexique : fr-comprehensive (405840 mots, sha256 ab12)\n"
    "\n"
    "Coup  Réf.  Mot              Annoncé  Exact  Compté  Cumul  Écrit  Verdict\n"
    "   1  H8    FICHERA               82     82      82     82     82  valide\n"
    "   2  15F   WUSS                  90      —       0     82    172  zéro\n"
    "      - Erreur de mot : WUSS n'est pas admis.\n"
    "      - avertissement : score écrit 90, score exact 84.\n"
    "\n"
    "Total : 82 points\n"
    "Avertissements : 1\n"
    "Pénalité : 0 points\n"
    "Score final : 82 points\n"
)


def test_the_text_report_in_romanian() -> None:
    lines = report_text(REPORT, RO).split("\n")
    assert lines[:2] == ["Problema P0 — Scrabble integral",
                         "Lexic: fr-comprehensive (405840 cuvinte, sha256 ab12)"]
    assert lines[3].startswith("Mut.  Ref.  Cuvânt")
    # the columns stay, the verdict is translated
    assert lines[4] == "   1  H8    FICHERA               82     82      82     82     82  valabil"
    assert lines[5].endswith("172  zero")
    assert lines[6].startswith("      - ") and "WUSS" in lines[6]
    assert "n'est pas admis" not in lines[6]
    assert lines[7].startswith("      - avertisment: ")
    assert lines[9:13] == ["Total: 82 puncte", "Avertismente: 1", "Penalizare: 0 puncte",
                           "Punctaj final: 82 puncte"]
    # French stays French
    assert report_text(REPORT, lambda s: s) == REPORT


def test_the_season_chart_and_the_rules_in_romanian() -> None:
    svg = season_svg([], RO)
    assert "Procentul din referință" in svg and "Locul (1 sus)" in svg
    assert "Deocamdată nicio probă clasată." in svg and "Pourcentage" not in svg
    assert "Pourcentage de la référence" in season_svg([])
    assert [translate(s, RO) for s in describe("sum_percent")] == [
        "Totalul procentelor obținute la fiecare problemă, referința problemei (soluția "
        "arbitrului, altfel cea mai bună foaie) valorând 100 %.",
        "O problemă nejucată contează 0.",
        "La total egal, trece înainte jucătorul care a jucat mai multe probleme, apoi cel cu "
        "cel mai bun rezultat (apoi al doilea etc.).",
    ]
    assert translate("5 points de pénalité par avertissement technique à partir du 4e.", RO) == (
        "5 puncte de penalizare pentru fiecare avertisment tehnic începând cu al 4-lea.")


@pytest.mark.db
def test_a_mail_says_its_language(db_session: Session, make_player: Any) -> None:
    from webapp.models import OutboxKind, Player
    from webapp.services import notify

    ana = make_player("Ana Popescu", "ana@example.ro")
    bob = make_player("Bob Martin", "bob@example.fr")
    row = db_session.get(Player, ana.id)
    assert row is not None
    row.locale = "ro"
    db_session.add(row)
    db_session.flush()
    ro = notify.enqueue(session=db_session, kind=OutboxKind.LOGIN, to_addr=ana.email,
                        template="login", context={"link": "http://x/l", "expires_minutes": 15},
                        player_id=ana.id)
    fr = notify.enqueue(session=db_session, kind=OutboxKind.LOGIN, to_addr=bob.email,
                        template="login", context={"link": "http://x/l", "expires_minutes": 15},
                        player_id=bob.id)
    assert (ro.headers["Content-Language"], fr.headers["Content-Language"]) == ("ro", "fr")


def test_what_players_are_told_about_bulletins_and_moves_in_romanian() -> None:
    """The Duplicate page's flashes and errors, the bulletin's reading errors (joined by
    « ; ») and the correspondence game's refusals, as they reach |tr_msg."""
    cases = {
        "Bulletin reçu mais illisible : Deux scores sur le bulletin : 70 et 72. ; Le mot joué "
        "manque. Renvoyez-le corrigé avant la clôture.":
        "Buletin primit, dar ilizibil: Două punctaje pe buletin: 70 și 72. ; Lipsește "
        "cuvântul jucat. Retrimiteți-l corectat înainte de închidere.",
        "Bulletin reçu. Un accusé de réception vous est aussi envoyé par courriel.":
        "Buletin primit. Vi se trimite și o confirmare de primire prin e-mail.",
        "Rouge : ZA en H8 refusé — Le mot ZA n'est pas admis.":
        "Roșu: ZA în H8 refuzat — Cuvântul ZA nu este admis.",
        "La partie n'a pas encore commencé : premier coup à partir du 12/05/2026 à 19:00 "
        "(Europe/Bucharest, UTC+03:00).":
        "Partida nu a început încă: prima mutare începând cu 12/05/2026, ora 19:00 "
        "(Europe/Bucharest, UTC+03:00).",
        "Coup joué : 22 points.": "Mutare jucată: 22 puncte.",
    }
    for french, romanian in cases.items():
        assert translate(french, RO) == romanian
        assert translate(french, lambda s: s) == french


def test_the_round_mails_name_the_variant_in_romanian() -> None:
    from mailer.compose import render
    from puzzles.duplicate.registry import round_game

    mail = render("duplicate_draw", locale="ro", player_name="Ana", game_title="Marți",
                  round_no=3, rack="AEIRST", deadline=None, game_url="http://x/d",
                  variant_label="Duplicate Tactique", variant_rule=round_game("tactique").rules_fr,
                  bulletin_example="H4 RESTAIT 70 + 8C MOTS 25 = 95", grid="(grille)")
    assert "(Duplicat Tactic)" in mail.text and "Duplicate Tactique" not in mail.text
    assert ("Tactic: două grupuri de litere; jucați câte un cuvânt cu fiecare, în ordinea "
            "aleasă") in mail.text
    final = render("duplicate_final", locale="ro", player_name="Ana", game_title="Marți",
                   total=12, total_label="Vos points de classement (tours topés)", ranking=[])
    assert "Punctele dumneavoastră de clasament (ture la top): 12" in final.text


def test_the_consoles_flash_messages_in_romanian() -> None:
    cases = {
        "Compétition « Cupa 2026 » créée.": "Competiția „Cupa 2026” a fost creată.",
        "Top du tour 3 : H4 RESTAIT (70).": "Topul turei 3: H4 RESTAIT (70).",
        "Import terminé : 2 créé(s), 1 mis à jour, 0 inchangé(s).":
        "Import încheiat: 2 creat(e), 1 actualizat(e), 0 neschimbat(e).",
        "Solution de référence enregistrée : 166 points.":
        "Soluția de referință a fost înregistrată: 166 puncte.",
        "Réponse enregistrée. Si l'appel change un résultat, enregistrez la décision puis "
        "relancez la vérification.":
        "Răspuns înregistrat. Dacă apelul schimbă un rezultat, înregistrați decizia, apoi "
        "relansați verificarea.",
        "Fiche du joueur enregistrée.": "Fișa jucătorului a fost înregistrată.",
    }
    for french, romanian in cases.items():
        assert translate(french, RO) == romanian


def test_a_duplicate_rhythm_in_romanian() -> None:
    from webapp.services.duplicate import describe_rhythm

    fixed = describe_rhythm({"kind": "weekdays", "days": [0, 3], "time": "20:00"})
    assert fixed == "clôture chaque lundi, jeudi à 20:00"
    assert translate(fixed, RO) == "închidere în fiecare luni, joi la ora 20:00"
    assert translate(describe_rhythm({"kind": "hours", "hours": 48}), RO) == (
        "o tură la fiecare 48 ore")


def test_the_services_refusals_in_romanian() -> None:
    cases = {
        "Expliquez en quelques mots ce que vous contestez.":
        "Explicați în câteva cuvinte ce contestați.",
        "Vous avez déjà fait appel 2 fois pour ce problème : 2 appels au plus par problème.":
        "Ați făcut deja apel de 2 ori pentru această problemă: cel mult 2 apeluri pe problemă.",
        # the field's label inside the message is translated too (issue 22 §5)
        "Meilleurs résultats retenus : au moins 1.":
        "Cele mai bune rezultate reținute: cel puțin 1.",
        "Le code « D1 » est déjà pris.": "Codul „D1” este deja folosit.",
        "La clôture doit suivre la publication.": "Închiderea trebuie să urmeze publicării.",
    }
    for french, romanian in cases.items():
        assert translate(french, RO) == romanian
