"""The feuille de route: the historical FRSc e-mail layout, tolerant separators, jokers,
group numbers, passes, annulments, Superscrabble lists, line-numbered French errors, the
JSON form, and parse → format → parse stability (hypothesis)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles.feuille import (
    Feuille,
    FeuilleMove,
    format_feuille,
    parse_feuille,
    parse_feuille_json,
)

HISTORICAL = """Coup | Lettres | Réf. | Mot | Score | Cumul
1 ACEFHIR h8 FICHERA 82 82
2 SUW 15f WUS 84 166
"""


def test_historical_sheet_verbatim() -> None:
    parsed = parse_feuille(HISTORICAL)
    assert parsed.errors == ()
    assert parsed.feuille.moves == (
        FeuilleMove(1, "H8", "FICHERA", "ACEFHIR", 82, 82),
        FeuilleMove(2, "15F", "WUS", "SUW", 84, 166),
    )
    assert [m.line for m in parsed.feuille.moves] == [2, 3]


@pytest.mark.parametrize(
    "line",
    [
        "1 ACEFHIR h8 FICHERA 82 82",
        "1\tACEFHIR\th8\tFICHERA\t82\t82",
        "1 | ACEFHIR | H8 | FICHERA | 82 | 82",
        "| 1 | ACEFHIR | H8 | FICHERA | 82 | 82 |",
        "1; ACEFHIR; H-8; FICHERA; 82; 82",
        "1.   acefhir   H 8   fichera   82   82",
        "1 ACEFHIR FICHERA H8 82 82",
        "1 ACEFHIR H8: FICHERA = 82 p 82",
    ],
)
def test_any_spacing_and_separators(line: str) -> None:
    parsed = parse_feuille(line + "\n")
    assert parsed.errors == ()
    assert parsed.feuille.moves == (FeuilleMove(1, "H8", "FICHERA", "ACEFHIR", 82, 82),)


@pytest.mark.parametrize("word", ["ChACUNE", "C(H)ACUNE", "CH0ACUNE", "C(h)ACUNE"])
def test_joker_written_three_ways(word: str) -> None:
    parsed = parse_feuille(f"1 ?ACENU h4 {word} 76 76\n")
    assert parsed.errors == ()
    m = parsed.feuille.moves[0]
    assert (m.word, m.letters, m.ref) == ("ChACUNE", "?ACENU", "H4")


def test_header_fields() -> None:
    text = (
        "Problème: frsc-2000-05\n"
        "Joueur: Ion Popescu\n"
        "Envoyé: 2000-05-12T18:55:00+03:00\n"
        "Rangée: ar ts?no\n"
        "Club: Bucarest\n"
        "1 ART H7 RAT 6 6\n"
    )
    f = parse_feuille(text).feuille
    assert f.problem_id == "frsc-2000-05"
    assert f.player == "Ion Popescu"
    assert f.submitted_at == datetime(2000, 5, 12, 18, 55, tzinfo=timezone(timedelta(hours=3)))
    assert f.row == "ARTS?NO"
    assert f.extra == (("Club", "Bucarest"),)


def test_anticipation_groups_passes_and_annulments() -> None:
    text = (
        "Groupes: 1=AEST 2=RSBCDEL\n"
        "1 G1 AST H8 TAS 6\n"
        "1 G2 LE 10F LES 5 11\n"
        "2 Gr.7 Passe\n"
        "Annuler coups 1, 2\n"
        "3 G5 E H7 ETAS 5 16\n"
        "4 G9 A 8G AT 2 18 Annuler coup 3\n"
    )
    parsed = parse_feuille(text)
    assert parsed.errors == ()
    f = parsed.feuille
    assert f.groups == ("AEST", "RSBCDEL")
    assert [(m.number, m.group) for m in f.moves] == [(1, 1), (1, 2), (2, 7), (3, 5), (4, 9)]
    assert f.moves[2].passed
    assert f.moves[3].annul == (1, 2)
    assert f.moves[4].annul == (3,)


def test_g5_is_a_reference_unless_another_reference_follows() -> None:
    f = parse_feuille("1 G5 ABC G5 ABC 5\n2 ABC G5 ABC 5\n").feuille
    assert [(m.group, m.ref) for m in f.moves] == [(5, "G5"), (None, "G5")]


def test_a_word_that_contains_annul_is_not_an_annulment() -> None:
    f = parse_feuille("1 AELNNRU H8 ANNULER 20 20\n").feuille
    assert f.moves[0].word == "ANNULER"
    assert f.moves[0].annul == ()


def test_superscrabble_list_and_construction() -> None:
    text = "1 ART H7 RAT 6 6\nScrabbles:\n10G LEVERAi\n2. 10E LEVERA(I)\n"
    parsed = parse_feuille(text)
    assert parsed.errors == ()
    f = parsed.feuille
    assert len(f.moves) == 1
    assert [(m.number, m.ref, m.word) for m in f.scrabbles] == [
        (1, "10G", "LEVERAi"), (2, "10E", "LEVERAi"),
    ]


def test_errors_name_their_line_and_keep_the_rest() -> None:
    text = (
        "Joueur: X\n"
        "1 ART H7 RAT 6 6\n"
        "2 S RATS 4 10\n"          # no reference
        "3 ?? Z9 XX 4\n"           # Z9 is not a reference
        "Envoyé: hier soir\n"
        "4 E 9H TE 6 20\n"
    )
    parsed = parse_feuille(text)
    lines = sorted({e.line for e in parsed.errors})
    assert lines == [3, 4, 5]
    assert all(str(e).startswith(f"Ligne {e.line} : ") for e in parsed.errors)
    assert "référence" in str(parsed.errors[0])
    assert [m.number for m in parsed.feuille.moves] == [1, 2, 3, 4]
    assert parsed.feuille.moves[1].word == "RATS"


def test_empty_sheet_is_an_error_not_an_exception() -> None:
    parsed = parse_feuille("\n\n# rien\n")
    assert parsed.feuille.moves == ()
    assert [str(e) for e in parsed.errors] == ["La feuille ne contient aucun coup lisible."]


def test_json_form() -> None:
    f = parse_feuille("Joueur: X\n" + HISTORICAL).feuille
    again = parse_feuille(f.to_json())
    assert again.errors == ()
    assert again.feuille == f
    # an unreadable reference is an empty cell, as in the text form: the move is kept
    broken = parse_feuille_json('{"moves": [{"number": 1, "ref": "Z99", "word": "A"}]}')
    assert broken.feuille.moves == (FeuilleMove(1, word="A"),)
    assert [str(e) for e in broken.errors] == [
        "Ligne 1 : moves[1] : Référence illisible : « Z99 » (attendu par exemple H4 ou 4H)."
    ]
    assert [str(e) for e in parse_feuille('{"moves": [').errors] == [
        "Ligne 1 : JSON illisible (valeur attendue), colonne 12."
    ]


# --- parse -> format -> parse is stable ---------------------------------------------------

letters_st = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ?", min_size=1, max_size=7)
word_st = st.lists(
    st.tuples(st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), st.booleans()),
    min_size=2, max_size=15,
).map(lambda cs: "".join(c.lower() if j else c for c, j in cs))
ref_st = st.builds(
    lambda r, c, h: f"{'ABCDEFGHIJKLMNO'[r]}{c + 1}" if h else f"{c + 1}{'ABCDEFGHIJKLMNO'[r]}",
    st.integers(0, 14), st.integers(0, 14), st.booleans(),
)
num_st = st.one_of(st.none(), st.integers(0, 2000))


@st.composite
def move_st(draw: st.DrawFn, number: int) -> FeuilleMove:
    passed = draw(st.booleans()) and draw(st.booleans())
    group = draw(st.one_of(st.none(), st.integers(1, 15)))
    annul = tuple(draw(st.lists(st.integers(1, 14), max_size=3)))
    if passed:
        return FeuilleMove(number, group=group, passed=True, annul=annul,
                           score=draw(num_st), cumul=None)
    score = draw(num_st)
    return FeuilleMove(
        number,
        ref=draw(ref_st),
        word=draw(word_st),
        letters=draw(st.one_of(st.none(), letters_st)),
        score=score,
        cumul=draw(num_st),
        group=group,
        annul=annul,
    )


@st.composite
def feuille_st(draw: st.DrawFn) -> Feuille:
    n = draw(st.integers(1, 8))
    moves = tuple(draw(move_st(i)) for i in range(1, n + 1))
    scrabbles = tuple(
        FeuilleMove(i, ref=draw(ref_st), word=draw(word_st))
        for i in range(1, draw(st.integers(0, 3)) + 1)
    )
    name = st.text(alphabet="abcdefghijklmnopqrstuvwxyzéèçÂ -'", min_size=1, max_size=20).map(
        str.strip
    ).filter(bool)
    return Feuille(
        moves=moves,
        scrabbles=scrabbles,
        problem_id=draw(st.one_of(st.none(), st.from_regex(r"[a-z0-9-]{1,12}", fullmatch=True))),
        player=draw(st.one_of(st.none(), name)),
        submitted_at=draw(st.one_of(st.none(), st.datetimes(
            min_value=datetime(1990, 1, 1), max_value=datetime(2100, 1, 1),
            timezones=st.just(timezone(timedelta(hours=2))),
        ).map(lambda d: d.replace(microsecond=0)))),
        row=draw(st.one_of(st.none(), st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ?",
                                              min_size=31, max_size=45))),
        groups=tuple(draw(st.lists(letters_st, max_size=15))),
    )


@settings(max_examples=150, deadline=None)
@given(feuille_st())
def test_parse_format_parse_is_stable(f: Feuille) -> None:
    text = format_feuille(f)
    first = parse_feuille(text)
    assert first.errors == (), (text, first.errors)
    assert first.feuille == f
    assert parse_feuille(format_feuille(first.feuille)).feuille == first.feuille
    assert parse_feuille(f.to_json()).feuille == f


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_text_parses_without_raising(text: str) -> None:
    parsed = parse_feuille(text)
    for e in parsed.errors:
        assert e.line >= 0 and e.message


def test_other_documented_spellings() -> None:
    text = (
        "Groupe 1: ABCD\n"
        "Groupe 2 = EFGHIJK\n"
        "Construction:\n"
        "1) A*T H7 RaT 4 4\n"
        "2 #5 S H7 RATS 4 8\n"
        "4 Annuler coups 1 et 2\n"
        "4 G3 Passe\n"
        "Solutions:\n"
        "10G LEVERAi\n"
    )
    parsed = parse_feuille(text)
    assert parsed.errors == ()
    f = parsed.feuille
    assert f.groups == ("ABCD", "EFGHIJK")
    assert [(m.number, m.letters, m.group, m.annul, m.passed) for m in f.moves] == [
        (1, "A?T", None, (), False), (2, "S", 5, (), False), (4, None, 3, (1, 2), True),
    ]
    assert [m.word for m in f.scrabbles] == ["LEVERAi"]


@pytest.mark.parametrize(
    ("line", "score", "cumul"),
    [
        ("1 — ACEFHIR — H8 — FICHERA — 82 — 82", 82, 82),
        ("1 - ACEFHIR - H8 - FICHERA - 82 - 82", 82, 82),
        ("1 ACEFHIR H8 FICHERA - 82", None, 82),
        ("1 | ACEFHIR | H8 | FICHERA | - | 82", None, 82),
    ],
)
def test_dashes_separate_or_leave_the_score_blank(
    line: str, score: int | None, cumul: int | None
) -> None:
    parsed = parse_feuille(line)
    assert parsed.errors == ()
    m = parsed.feuille.moves[0]
    assert (m.ref, m.word, m.letters) == ("H8", "FICHERA", "ACEFHIR")
    assert (m.score, m.cumul) == (score, cumul)


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("2000-05-12T18:55:00+03:00", datetime(2000, 5, 12, 18, 55,
                                               tzinfo=timezone(timedelta(hours=3)))),
        ("2000-05-12 18:55", datetime(2000, 5, 12, 18, 55)),
        ("12/05/2000 18h55", datetime(2000, 5, 12, 18, 55)),
        ("12.05.2000 à 18:55:30", datetime(2000, 5, 12, 18, 55, 30)),
        ("12/05/2000", datetime(2000, 5, 12)),
    ],
)
def test_sent_dates(written: str, expected: datetime) -> None:
    parsed = parse_feuille(f"Envoyé le: {written}\n1 ART H7 RAT 6 6\n")
    assert parsed.errors == ()
    assert parsed.feuille.submitted_at == expected
    assert parse_feuille("Envoyé: 31/02/2000\n1 ART H7 RAT 6 6\n").errors[0].line == 1


def test_greetings_and_totals_around_the_moves() -> None:
    parsed = parse_feuille("Bonjour,\n1 ART H7 RAT 6 6\nTOTAL 6\nCumul final : 6 points\nMerci !\n")
    assert [m.word for m in parsed.feuille.moves] == ["RAT"]
    assert parsed.feuille.extra == (("TOTAL", "6"), ("Cumul final", "6 points"))
    assert [e.line for e in parsed.errors] == [1, 5]
    assert parsed.errors[0].message.startswith("ligne illisible « Bonjour, »")


def test_a_sheet_written_with_romanian_words() -> None:
    """Issue 13: « the e-mail intake understands a sheet written with Romanian words
    (Coup/Mutarea, Passe/Pas, Annuler/Anulez) ». The Romanian sheet below is the French
    sheet of test_anticipation_groups_passes_and_annulments word for word, and reads the same."""
    french = parse_feuille(
        "Problème: frsc-2000-05\n"
        "Joueur: Ion Popescu\n"
        "Coup | Groupe | Lettres | Réf. | Mot | Score | Cumul\n"
        "1 G1 AST H8 TAS 6 6\n"
        "2 G7 Passe\n"
        "Annuler coups 1, 2\n"
        "3 G5 E H7 ETAS 5 11\n"
        "4 G9 A 8G AT 2 13 Annuler coup 3\n"
        "5 G2 LE 10F LES 5 18\n"
        "Annuler coups 1 et 4\n"
    )
    romanian = parse_feuille(
        "Problema: frsc-2000-05\n"
        "Jucător: Ion Popescu\n"
        "Mutarea | Grup | Litere | Ref. | Cuvânt | Scor | Cumul\n"
        "1 G1 AST H8 TAS 6 6\n"
        "2 G7 Pas\n"
        "Anulez mutările 1, 2\n"
        "3 G5 E H7 ETAS 5 11\n"
        "4 G9 A 8G AT 2 13 Anulez mutarea 3\n"
        "5 G2 LE 10F LES 5 18\n"
        "Anulez mutările 1 și 4\n"
    )
    assert french.errors == ()
    assert romanian.errors == ()
    assert romanian.feuille == french.feuille
    f = romanian.feuille
    assert f.problem_id == "frsc-2000-05"
    assert f.player == "Ion Popescu"
    assert [(m.number, m.group) for m in f.moves] == [(1, 1), (2, 7), (3, 5), (4, 9), (5, 2)]
    assert f.moves[1].passed and f.moves[1].word is None
    assert f.moves[2].annul == (1, 2)
    assert f.moves[3].annul == (3,)
    assert f.moves[4].annul == (1, 4)
    # « PAS » with a reference is the word PAS placed at H8, not a pass
    played = parse_feuille("1 APS H8 PAS 10\n").feuille.moves[0]
    assert not played.passed and played.word == "PAS" and played.ref == "H8"
