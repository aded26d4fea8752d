"""The JSON form of the feuille de route read with wrong types anywhere: line-numbered
French errors as in the text form, never an exception (hypothesis), and an empty
``letters`` read as an empty cell (the move is judged, not dropped)."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles.feuille import FeuilleMove, parse_feuille, parse_feuille_json
from puzzles.problem import GameType, Problem
from puzzles.verify import MoveStatus, verify_text
from tests.puzzles.conftest import lex

INTEGRAL = Problem(id="t-integral", game=GameType.INTEGRAL)
WORDS = lex("RAT", "RATS")

# Fragments of Python's own (English) exception messages that must never reach a player.
ENGLISH = re.compile(
    r"Expecting|invalid literal|object has no|NoneType|not subscriptable|unhashable|"
    r"argument must be|must be str|Traceback|KeyError|TypeError|ValueError|is not"
)


def messages(text: str) -> list[str]:
    return [str(e) for e in parse_feuille(text).errors]


def test_wrong_types_give_line_numbered_french_errors() -> None:
    text = (
        '{"player": 7,\n'
        ' "moves": [\n'
        '  [1, "ART", "H7"],\n'
        '  {"number": {"n": 1}, "letters": "ART", "ref": "H7", "word": "RAT", "score": [6]},\n'
        '  {"number": 2, "letters": 5, "ref": true, "word": "RATS", "score": "4",\n'
        '   "cumul": 10.5, "annul": "1", "passed": "non", "couleur": "bleu"}\n'
        ' ]}\n'
    )
    parsed = parse_feuille(text)
    assert [str(e) for e in parsed.errors] == [
        "Ligne 3 : moves[1] : un coup est un objet JSON ({\"number\": 1, …}), reçu une "
        "liste ; coup ignoré.",
        "Ligne 4 : moves[2], numéro : nombre entier attendu, reçu un objet.",
        "Ligne 4 : moves[2], score : nombre entier attendu, reçu une liste.",
        "Ligne 4 : moves[2] : numéro de coup manquant (lu comme le coup 1).",
        "Ligne 5 : moves[3] : champ inconnu « couleur » ignoré.",
        "Ligne 5 : moves[3], lettres : texte attendu, reçu le nombre 5.",
        "Ligne 5 : moves[3], référence : texte attendu, reçu vrai.",
        "Ligne 5 : moves[3], cumul : nombre entier attendu, reçu le nombre 10.5.",
        "Ligne 5 : moves[3], passe : vrai ou faux attendu, reçu le texte « non ».",
        "Ligne 5 : moves[3], annulation : liste de numéros de coups attendue, reçu le "
        "texte « 1 ».",
        "Ligne 1 : joueur : texte attendu, reçu le nombre 7.",
    ]
    # what was readable is kept: move 1 (number read as 1) whole but its score, move 2
    # with its word and score ("4" is read as 4) but no reference
    assert parsed.feuille.moves == (
        FeuilleMove(1, ref="H7", word="RAT", letters="ART"),
        FeuilleMove(2, word="RATS", score=4),
    )
    assert [m.line for m in parsed.feuille.moves] == [4, 5]


def test_moves_as_a_string_or_the_sheet_as_a_list() -> None:
    assert messages('{"moves": "1 ART H7 RAT 6"}') == [
        "Ligne 1 : « moves » : la liste des coups est attendue ([…]), reçu le texte "
        "« 1 ART H7 RAT 6 ».",
        "La feuille ne contient aucun coup lisible.",
    ]
    assert messages('[{"number": 1}]') == [
        "Ligne 1 : Une feuille JSON est un objet ({\"moves\": […]}), reçu une liste."
    ]
    assert messages('{"moves": [], "extra": {"a": 1}, "groups": 3}') == [
        "Ligne 1 : groupes : liste de textes attendue, reçu le nombre 3.",
        "Ligne 1 : extra : liste de paires attendue, reçu un objet.",
        "La feuille ne contient aucun coup lisible.",
    ]


def test_empty_letters_in_json_is_an_empty_cell_and_the_move_is_judged() -> None:
    """« Les solutions seront inscrites sur des feuilles de route décrivant: la succession
    des coups, les lettres utilisées à chaque coup, ... » (S2): a missing letters column is
    a minor omission (setting missing_letters_warning off), the move still counts.

    RAT at H7: R 1 + A (H8 DW) 1 + T 1 = 3 × 2 = 6; RATS at H7 adds S on H10: 1 + 1 + 1 + 1
    = 4. Total 10, no warning."""
    sheet = {"moves": [
        {"number": 1, "letters": "", "ref": "H7", "word": "RAT", "score": 6},
        {"number": 2, "letters": "  ", "ref": "H7", "word": "RATS", "score": 4, "cumul": 10},
    ]}
    text = json.dumps(sheet)
    parsed = parse_feuille_json(text)
    assert parsed.errors == ()
    assert [m.letters for m in parsed.feuille.moves] == [None, None]
    r = verify_text(INTEGRAL, text, WORDS)
    assert [m.status for m in r.moves] == [MoveStatus.VALID, MoveStatus.VALID]
    assert (r.final_score, r.warnings, r.errors) == (10, 0, ())
    # the stored form (Feuille.to_dict) reads an empty letters cell the same way
    assert FeuilleMove.from_dict({"number": 1, "letters": ""}).letters is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=20,
)
KEYS = ["number", "group", "letters", "ref", "word", "score", "cumul", "passed", "annul",
        "line"]
field_values = json_values | st.sampled_from(
    ["H7", "8G", "RAT", "RAt", "ART", "", "?", "12", "-3", "Z99"]
) | st.integers(-3, 20)
move_st = st.dictionaries(st.sampled_from(KEYS), field_values, max_size=8)
sheet_st = st.fixed_dictionaries(
    {},
    optional={
        "moves": st.lists(move_st | json_values, max_size=5) | json_values,
        "scrabbles": st.lists(move_st, max_size=2) | json_values,
        "player": json_values, "submitted_at": json_values, "row": json_values,
        "groups": json_values, "extra": json_values, "format": json_values,
        "problem": json_values,
    },
)


def _judged(value: Any) -> None:
    text = json.dumps(value, indent=1)
    for problem in (INTEGRAL, Problem(id="s", game=GameType.SUPERSCRABBLE,
                                      board="15/15/15/15/15/15/15/6RAT6/15/15/15/15/15/15/15",
                                      rack="AEELRV?")):
        report = verify_text(problem, text, WORDS)
        assert report.final_score >= -1000
        for e in report.errors:
            assert isinstance(e, str) and e and not ENGLISH.search(e), e
        for m in report.moves:
            for reason in m.reasons:
                assert not ENGLISH.search(reason), reason


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_json_value_gives_a_report_never_an_exception(value: Any) -> None:
    _judged(value)


@settings(max_examples=300, deadline=None)
@given(sheet_st)
def test_any_sheet_shaped_json_gives_a_report_never_an_exception(value: Any) -> None:
    _judged(value)
