"""The fast paths of ``scoring.notation`` against the code they replaced: ``fold_letter``
returning ASCII as it is, ``is_ref`` remembered, and ``puzzles.feuille.text._fold``."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles.feuille import text as feuille_text
from scoring.errors import NotationError, OffBoardError
from scoring.notation import fold_letter, is_ref, parse_ref


def fold_letter_reference(ch: str) -> str:
    """``fold_letter`` as it was."""
    if "A" <= ch.upper() <= "Z" and ch.isascii():
        return ch
    special = {"Œ": "OE", "œ": "oe", "Æ": "AE", "æ": "ae", "ß": "ss"}
    if ch in special:
        return special[ch]
    decomposed = unicodedata.normalize("NFD", ch)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def is_ref_reference(text: str) -> bool:
    try:
        parse_ref(text)
    except (NotationError, OffBoardError):
        return False
    return True


_CELLS = st.one_of(
    st.text(max_size=6),
    st.text(alphabet="AaHhOoPpZz0123456789 -.:\t\u00a0éÉœŒßæ", max_size=6),
    st.sampled_from(["H8", "h8", "15f", "8 H", "H-4", "4-H", "H7:", "P1", "H16", "0A",
                     "A0", "G5", "", " ", "Œ", "É", "ß"]),
)


@settings(max_examples=2000, deadline=None)
@given(_CELLS)
def test_fold_and_is_ref_equal_to_the_reference(cell: str) -> None:
    for ch in [cell, *cell]:
        assert fold_letter(ch) == fold_letter_reference(ch)
    assert feuille_text._fold(cell) == "".join(fold_letter_reference(c) for c in cell).lower()
    assert is_ref(cell) == is_ref_reference(cell)
    assert is_ref(cell) == is_ref_reference(cell)  # remembered


def test_every_single_character_folds_as_before() -> None:
    for code in range(0x3000):
        ch = chr(code)
        assert fold_letter(ch) == fold_letter_reference(ch)
