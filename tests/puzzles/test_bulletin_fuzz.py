"""The issue-9 fuzzers extended to the round games (issue 24, « Proof »): any text given to
the bulletin parser of the Duplicate and its variants (plain, Top, Elliptique:
``parse_bulletin``; Complétif, Superjoker, Métagramme: ``parse_free_bulletin``; Tactique:
``parse_tactique_billet``; Partie de Superscrabble: ``parse_scrabble_sheet``) and to the
two-player correspondence game's move (``play``) gives a bulletin (a move) or French
reasons — never an exception. Texts are drawn from two strategies: any Unicode (digits
such as « ² » and « ٣ », control characters) and sequences of the notation's own tokens,
so that the readable paths are exercised as much as the failing ones."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzles.correspondence import CorrespondenceError, new_game, play
from puzzles.duplicate import Bulletin, DuplicateError, parse_bulletin
from puzzles.variants import (
    FreeBulletin,
    ScrabbleSheet,
    TactiqueBillet,
    parse_free_bulletin,
    parse_scrabble_sheet,
    parse_tactique_billet,
)
from scoring.config import GameConfig
from scoring.tiles import french
from tests.puzzles.conftest import lex

TOKENS = ["H4", "4H", "H8", "8H", "A1", "O15", "P16", "H0", "Z9", "BENIE", "ZA", "ZAS",
          "ZZZQX", "RESTAIt", "(E)", "E0", "MEN", "20", "99", "0", "007", "12345", "²", "٣",
          "+T", "+?", "+1", "-N", "-", "+", "/", "=", ";", ",", "34", "groupe", "passe",
          "\x00", "\x1b[2J", "\t", "é", "É", "ß", "ﬁ", "Ⅻ", "𝟠", "\u200b", "\ufeff"]
notation = st.lists(st.sampled_from(TOKENS), max_size=14).map(" ".join)
anything = st.text(max_size=80)
texts = st.one_of(notation, anything, st.text(alphabet="ABEINZ?()0123456789 /+-=;,²", max_size=40))

PARSERS: dict[str, tuple[Callable[..., Any], type]] = {
    "duplicate": (parse_bulletin, Bulletin),
    "free": (parse_free_bulletin, FreeBulletin),
    "tactique": (parse_tactique_billet, TactiqueBillet),
    "superscrabble": (parse_scrabble_sheet, ScrabbleSheet),
}


def _french_reasons(got: Any) -> None:
    assert got and all(isinstance(e, str) and e.strip() for e in got), got
    assert not any("rreur interne" in e for e in got)


def _check(name: str, text: str) -> None:
    parse, kind = PARSERS[name]
    got = parse(text, player="p")
    if isinstance(got, list):
        _french_reasons(got)
    else:
        assert isinstance(got, kind), got


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts)
def test_duplicate_bulletin_never_raises(text: str) -> None:
    _check("duplicate", text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts)
def test_free_bulletin_never_raises(text: str) -> None:
    _check("free", text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts)
def test_tactique_billet_never_raises(text: str) -> None:
    _check("tactique", text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts)
def test_scrabble_sheet_never_raises(text: str) -> None:
    _check("superscrabble", text)


CFG = GameConfig(tileset=french(), lexicon=lex("ZA", "ZAS", "LA", "AS"))
ROW = "ZAEEEEE" + "LSEEEEE" + "ABC"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ref=st.one_of(st.none(), st.sampled_from(TOKENS), anything),
       word=st.one_of(st.none(), st.sampled_from(TOKENS), anything))
def test_correspondence_move_never_raises(ref: str | None, word: str | None) -> None:
    """The correspondence game's move (reference and word as the player wrote them, both
    None a pass): a new state or a French CorrespondenceError (the game's own error, no
    longer the Duplicate's), the state unchanged."""
    state = new_game(ROW)
    try:
        after = play(state, ref, word, CFG)
    except CorrespondenceError as exc:
        assert str(exc).strip()
        return
    assert len(after.moves) == 1
