"""References, written words, CGP boards and the input errors of the engine."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import (
    Board,
    CGPError,
    NotationError,
    OffBoardError,
    OverlapError,
    Placement,
    Ref,
    UnknownLetterError,
    format_ref,
    format_word,
    parse_ref,
    parse_word,
)
from scoring.tiles import french, romanian


@pytest.mark.parametrize(
    ("text", "row", "col", "horizontal"),
    [
        ("H4", 7, 3, True),
        ("h4", 7, 3, True),
        ("H 4", 7, 3, True),
        ("H-4", 7, 3, True),
        ("A-7", 0, 6, True),
        ("H7:", 7, 6, True),
        ("4H", 7, 3, False),
        ("15f", 5, 14, False),
        ("4-H", 7, 3, False),
        ("8-J", 9, 7, False),
        (" o15 ", 14, 14, True),
    ],
)
def test_parse_ref(text: str, row: int, col: int, horizontal: bool) -> None:
    assert parse_ref(text) == Ref(row, col, horizontal)


@pytest.mark.parametrize("text", ["", "H", "4", "P4", "H0", "H16", "16H", "4HH", "HH4", "4 4"])
def test_bad_ref(text: str) -> None:
    with pytest.raises((NotationError, OffBoardError)):
        parse_ref(text)


def test_is_ref_is_parse_ref_succeeding() -> None:
    """``is_ref`` (the feuille parser's test of a cell) accepts exactly what ``parse_ref``
    reads: every reference written above, none of the bad ones."""
    from scoring.notation import is_ref

    good = ["H4", "h4", "H 4", "H-4", "A-7", "H7:", "4H", "15f", "4-H", "8-J", " o15 "]
    bad = ["", "H", "4", "P4", "H0", "H16", "16H", "4HH", "HH4", "4 4", "MOT", "12"]
    assert [is_ref(t) for t in good] == [True] * 11
    assert [is_ref(t) for t in bad] == [False] * 12


def test_format_ref() -> None:
    assert format_ref(Ref(7, 3, True)) == "H4"
    assert format_ref(Ref(7, 3, False)) == "4H"
    assert format_ref(Ref(5, 14, False)) == "15F"


@given(st.integers(0, 14), st.integers(0, 14), st.booleans())
def test_ref_round_trip(row: int, col: int, horizontal: bool) -> None:
    ref = Ref(row, col, horizontal)
    assert parse_ref(format_ref(ref)) == ref
    assert parse_ref(format_ref(ref).lower()) == ref
    text = format_ref(ref)
    dashed = text[0] + "-" + text[1:] if horizontal else text[:-1] + "-" + text[-1]
    assert parse_ref(dashed) == ref


@pytest.mark.parametrize(
    "text", ["RESTAIt", "RESTAI(T)", "RESTAI(t)", "RESTAIT0", "RestaiT0".upper()]
)
def test_joker_spellings(text: str) -> None:
    assert parse_word(text) == "RESTAIt"


def test_word_accents_and_ligatures() -> None:
    assert parse_word("ÉCŒURÉ") == "ECOEURE"
    assert parse_word("C0OMANDA") == "cOMANDA"
    assert parse_word("C(H)ACUNE") == "ChACUNE"


@pytest.mark.parametrize("text", ["", "MO T", "MOT1", "MO?T", "MOT(", "M()T", "MO-T"])
def test_bad_words(text: str) -> None:
    with pytest.raises(NotationError):
        parse_word(text)


word_chars = st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


@given(st.text(word_chars, min_size=1, max_size=15), st.sampled_from(["lower", "paren", "zero"]))
def test_word_round_trip(word: str, style: str) -> None:
    assert parse_word(format_word(word, style)) == word


def test_cgp_round_trip_and_errors() -> None:
    text = "15/15/15/15/15/15/15/4ChACUNE4/15/15/15/15/15/15/15"
    board = Board.from_cgp(text)
    assert board.at(7, 5) == "h"
    assert board.tile_count == 7
    assert board.to_cgp() == text
    assert Board.from_cgp(text + " ABC?/ 0/0 0 lex FRA;").to_cgp() == text
    with pytest.raises(CGPError):
        Board.from_cgp("15/15")
    with pytest.raises(CGPError):
        Board.from_cgp("14/15/15/15/15/15/15/15/15/15/15/15/15/15/15")
    with pytest.raises(CGPError):
        Board.from_cgp("15/15/15/15/15/15/15/7A?6/15/15/15/15/15/15/15")


cells = st.lists(st.sampled_from(["", "", "", "A", "E", "s", "Z"]), min_size=225, max_size=225)


@given(cells)
def test_cgp_property(c: list[str]) -> None:
    board = Board(c)
    assert Board.from_cgp(board.to_cgp()) == board
    assert board.transpose().transpose() == board


def test_ascii_board() -> None:
    board = Board.from_cgp("15/15/15/15/15/15/15/7FICHERA1/15/15/15/15/15/15/15")
    lines = board.to_ascii().splitlines()
    assert lines[0].split() == [str(i) for i in range(1, 16)]
    assert lines[8].split() == ["H", *"......."] + list("FICHERA") + ["."]


def test_placement_errors() -> None:
    board = Board.from_cgp("15/15/15/15/15/15/15/7FICHERA1/15/15/15/15/15/15/15")
    with pytest.raises(OverlapError, match="H8"):
        Placement.from_notation(board, "8G", "AB")
    with pytest.raises(OffBoardError):
        Placement.from_notation(board, "H12", "MAISON")
    p = Placement.from_notation(board, "15F", "WUS")
    assert [(t.square, t.letter) for t in p.tiles] == [(89, "W"), (104, "U"), (119, "S")]
    assert p.to_text(board) == "15F WUS"


def test_unknown_letters() -> None:
    with pytest.raises(UnknownLetterError):
        romanian().check_letters("KAYAK")
    french().check_letters("KAYAK?")
    with pytest.raises(UnknownLetterError):
        french().value("1")


@pytest.mark.parametrize(
    ("letters", "move_min", "ok"),
    [("BCDFGHA", 2, False), ("Y?BCDFG", 2, True), ("AEIOUYB", 1, True), ("AEIOUEA", 1, False)],
)
def test_draw_minimums(letters: str, move_min: int, ok: bool) -> None:
    """RULES §12 draw checks; Y and jokers count as vowel or consonant at will."""
    assert french().draw_meets_minimum(letters, move_min) is ok


def test_tile_sets() -> None:
    assert french().total == 102 and french().jokers == 2
    assert romanian().total == 100 and romanian().jokers == 2
    assert sum(french().counts[v] for v in "AEIOU") == 44
    assert "K" not in romanian().counts
    assert romanian().value("H") == 10 and french().value("H") == 4
