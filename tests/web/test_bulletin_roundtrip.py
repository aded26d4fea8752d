"""The stored form of a bulletin, for every round game the server plays (issue 24 §2 and
« Proof »): any text read by the variant's parser (``parse_line``, which must never raise:
no « erreur interne » net is needed) gives French reasons or a bulletin whose JSON
(``parse_text``) survives a round trip through the database's JSON and gives back, read by
the correction (``bulletin_of``, ``free_of``, the Tactique and Superscrabble forms), the very
bulletin parsed — every solution with its letters. Also the correspondence game's move
text (``parse_move``). No database: pure functions of the services."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzles.duplicate import Bulletin, parse_bulletin
from puzzles.duplicate.codecs import billet_of, bulletin_dict, bulletin_of, free_of, sheet_of
from puzzles.duplicate.registry import round_game
from puzzles.variants import (
    FreeBulletin,
    TactiqueBillet,
    parse_free_bulletin,
    parse_scrabble_sheet,
    parse_tactique_billet,
)
from tests.puzzles.test_bulletin_fuzz import TOKENS, texts
from webapp.services.correspondence import CorrespondenceError, parse_move
from webapp.services.duplicate.game import SERVER_VARIANTS, first_line, parse_text

VARIANTS = ["", *SERVER_VARIANTS]
#: the letter-choice games (their bulletins name the letters taken)
FREE_VARIANTS = {"completif", "superjoker", "metagramme", "elliptique"}


def parse_line(variant: str, line: str) -> Any:
    """The pure parser of each game's bulletin, its object (what the correction reads)."""
    if variant in FREE_VARIANTS:
        return parse_free_bulletin(line)
    if variant == "tactique":
        return parse_tactique_billet(line)
    if variant == "superscrabble":
        return parse_scrabble_sheet(line)
    return parse_bulletin(line)


def rebuilt(variant: str, d: Any) -> Any:
    """The bulletin the correction reads from the stored mapping ``d`` (the codecs')."""
    if variant in FREE_VARIANTS:
        return free_of(d, "", None)
    if variant == "tactique":
        return billet_of(d, "", None)
    if variant == "superscrabble":
        return sheet_of(d, "")
    return bulletin_of(d, "", None)


def bulletin_line(variant: str, stored: Any) -> str | None:
    return round_game(variant).bulletin_line(stored)


def test_every_server_variant_is_covered() -> None:
    assert VARIANTS == ["", "top", "completif", "superjoker", "metagramme", "elliptique",
                        "tactique", "superscrabble"]


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts)
def test_any_text_reads_and_its_stored_form_round_trips(variant: str, text: str) -> None:
    first = first_line(text)  # the bulletin is the text's first non-empty line
    parsed = parse_line(variant, first) if first else None
    errors, stored = parse_text(text, variant)
    if parsed is None or isinstance(parsed, list):
        assert stored is None and errors
        assert all(isinstance(e, str) and e.strip() for e in errors)
        assert not any("rreur interne" in e or "illisible : il est conservé" in e
                       for e in errors)
        return
    assert errors == [] and stored is not None
    assert parse_line(variant, first) == rebuilt(variant, json.loads(json.dumps(stored)))
    line = bulletin_line(variant, stored)
    assert isinstance(line, str) and (line or variant == "superscrabble")


@pytest.mark.parametrize(("variant", "text", "kind"), [
    ("", "H8 ZZZQX 99 / H4 BENIE 20", Bulletin),
    ("top", "H8 ZZZQX 99 / H4 BENIE 20 / MEN PROMENERAI 72", Bulletin),
    ("elliptique", "H8 ZZZQX 99 / H4 BENIE 20", FreeBulletin),
    ("completif", "H8 ZZZQX 99 +T / H4 BENIE 20 +S", FreeBulletin),
    ("metagramme", "H8 ZZZQX 99 -A +T / H4 BENIE 20", FreeBulletin),
    ("tactique", "H8 ZZZQX 99 / H4 BENIE 20 + 8C MOTS 25 / 8C MOT 6 = 45", TactiqueBillet),
])
def test_every_solution_is_stored(variant: str, text: str, kind: type) -> None:
    """Each variant that takes « / » keeps every solution in its stored form."""
    errors, stored = parse_text(text, variant)
    assert errors == [] and stored is not None
    got = rebuilt(variant, json.loads(json.dumps(stored)))
    assert isinstance(got, kind) and got == parse_line(variant, text)
    assert bulletin_line(variant, stored) == {
        "": "H8 ZZZQX 99 / H4 BENIE 20",
        "top": "H8 ZZZQX 99 / H4 BENIE 20 / MEN PROMENERAI 72",  # the raccord as typed
        "elliptique": "H8 ZZZQX 99 / H4 BENIE 20",
        "completif": "H8 ZZZQX 99 +T / H4 BENIE 20 +S",
        "metagramme": "H8 ZZZQX 99 -A +T / H4 BENIE 20",
        "tactique": "H8 ZZZQX 99 / H4 BENIE 20 + 8C MOTS 25 / 8C MOT 6 = 45",
    }[variant]


def test_old_stored_bulletins_still_read() -> None:
    """A bulletin stored before « alternatives » existed reads as one solution."""
    old = {"word": "BENIE", "ref": "H4", "raccord": None, "claimed": 20}
    assert bulletin_of(old, "7", None) == Bulletin("7", "BENIE", "H4", None, 20)
    assert bulletin_dict(bulletin_of(old, "7", None)) == old
    assert free_of({**old, "chosen": "T", "swapped": ""}, "7", None) == FreeBulletin(
        Bulletin("7", "BENIE", "H4", None, 20), "T", "")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(texts, st.lists(st.sampled_from(TOKENS), max_size=3).map("\n".join)))
def test_correspondence_move_text_never_raises(text: str) -> None:
    """The correspondence game's move as written (« H8 MOT », « MOT H8 », « passe »): a
    reference and a word, a pass, or a French CorrespondenceError."""
    try:
        ref, word = parse_move(text)
    except CorrespondenceError as exc:
        assert str(exc).strip()
        return
    assert (ref is None) == (word is None)


def test_the_new_reasons_in_romanian() -> None:
    """The parsers' and the bounds' new French reasons have their Romanian (the receipts and
    refusal mails translate them through the phrasebook)."""
    from mailer.compose import render, translations
    from webapp.services.phrasebook import translate

    ro = translations("ro").gettext
    cases = {
        "Score « 12345 » : au plus 4 chiffres.": "Punctajul „12345”: cel mult 4 cifre.",
        "Solution n° 2 : Lettres choisies « +1 » illisibles.":
        "Soluția nr. 2: Lettres choisies « +1 » illisibles.",
        "Trop de solutions sur le bulletin : 6, au plus 5. Il n'a pas été enregistré.":
        "Prea multe soluții pe buletin: 6, cel mult 5. Nu a fost înregistrat.",
        "Vous avez déjà envoyé 4 bulletins pour le tour 1 : au plus 4 par tour. Celui-ci "
        "n'a pas été enregistré ; le dernier reçu compte.":
        "Ați trimis deja 4 buletine pentru runda 1: cel mult 4 pe rundă. Acesta nu a fost "
        "înregistrat; contează ultimul primit.",
        "Ligne 2 : « ² » n'est ni une référence (H4, 4H), ni un mot, ni un score.":
        "Rândul 2: „²” nu este nici referință (H4, 4H), nici cuvânt, nici punctaj.",
        # the sheets' flash message is not taken for a « Solution n° … » one
        "Solution de référence enregistrée : 166 points.":
        "Soluția de referință a fost înregistrată: 166 puncte.",
    }
    for french, romanian in cases.items():
        assert translate(french, ro) == romanian
    mail = render("duplicate_refused", locale="ro", player_name="Ana", game_title="D1",
                  reason="Trop de solutions sur le bulletin : 6, au plus 5. Il n'a pas été "
                  "enregistré.")
    assert mail.subject == "Buletin neînregistrat: D1"
    assert "Prea multe soluții pe buletin: 6, cel mult 5." in mail.text


def test_reasons_name_the_line_when_the_text_has_several() -> None:
    """A mail's bulletin is the first non-empty line; when the text has several, its
    reasons say which line was read (« Ligne 2 : … »); a one-line bulletin's do not."""
    assert parse_text("\nH8 ZA ²\n-- \nAna") == (
        ["Ligne 2 : « ² » n'est ni une référence (H4, 4H), ni un mot, ni un score."], None)
    assert parse_text("H8 ZA ²") == (
        ["« ² » n'est ni une référence (H4, 4H), ni un mot, ni un score."], None)
    assert parse_text("Bonjour,\nH4 BENIE 20", "tactique")[0] == [
        "Ligne 1 : « Bonjour, » n'est ni une référence (H4, 4H), ni un mot, ni un score."]
    assert parse_text("H4 BENIE 20\nAna")[0] == []
