"""The compiled fast path of move checking (``scoring.validate.quick_check``, C) against the
pure-Python reference (``check_move``): on every board of greedy games over the French list,
every legal placement of a rack and many broken variants of them (shifted, cut, extended,
misspelt, jokers, the other direction), and on random boards with a tiny list (the words
looked up in Python, not in the DAWG).

The property: when the fast path answers, its answer is the reference's verdict exactly
(``verdict_of(...) == check_move(...)``, every field); it declines exactly when the
reference finds any reason (so the verifier's fast path is taken for every legal move)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import movegen
from scoring.board import Board
from scoring.config import GameConfig
from scoring.errors import UnknownLetterError
from scoring.layout import SIZE
from scoring.lexicon import Lexicon, default_lexicon
from scoring.notation import Ref
from scoring.tiles import french, romanian
from scoring.validate import (
    check_move,
    quick_available,
    quick_check,
    quick_checker,
    verdict_of,
)

pytestmark = pytest.mark.skipif(
    not quick_available(), reason="compiled core not built or turned off"
)


def _agree(board: Board, ref: Ref, word: str, config: GameConfig) -> bool:
    """Assert the property for one move; True when the fast path answered."""
    fast = quick_check(board, ref, word, config)
    lean = quick_checker(config, detail=False)(board, ref, word)  # the verifier's checker
    assert lean == (None if fast is None else fast[:5] + (None,) + fast[6:])
    try:
        reference = check_move(board, ref, word, config)
    except UnknownLetterError:  # the reference raises (a letter outside the set): declined
        assert fast is None
        return False
    if fast is None:
        assert not reference.ok, (board.to_cgp(), ref, word, reference)
        return False
    assert reference.ok, (board.to_cgp(), ref, word, reference)
    assert verdict_of(fast, ref, word) == reference
    score, bonus, squares, cells, letters, words, old, labels, rack = fast
    assert labels == tuple(f"{w.text} {w.points}" for w in reference.words)
    assert rack == "".join(sorted(letters, key=lambda c: (c == "?", c)))
    assert letters == reference.placement.letters if reference.placement else False
    assert list(squares) == [t.square for t in reference.placement.tiles]
    assert sorted(set(old)) == sorted(
        {sq for w in reference.words for sq in w.ref.squares(len(w.text))}
        - set(squares)
    )
    return True


def _variants(ref: Ref, word: str, rng: random.Random) -> list[tuple[Ref, str]]:
    """A legal move and broken neighbours of it."""
    out = [(ref, word), (Ref(ref.row, ref.col, not ref.horizontal), word)]
    for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
        r, c = ref.row + dr, ref.col + dc
        if 0 <= r < SIZE and 0 <= c < SIZE:
            out.append((Ref(r, c, ref.horizontal), word))
    if len(word) > 2:
        out += [(ref, word[:-1]), (ref, word[1:])]
    out.append((ref, word + rng.choice("AEISTZ")))
    i = rng.randrange(len(word))
    out.append((ref, word[:i] + rng.choice("ABEKSWXZ") + word[i + 1:]))
    out.append((ref, word[:i] + word[i].swapcase() + word[i + 1:]))
    out.append((ref, word.lower()))
    return out


def test_greedy_games_french_list() -> None:
    lexicon = default_lexicon()
    config = GameConfig(tileset=french(), lexicon=lexicon)
    assert lexicon.membership_edges is not None  # the words are looked up in C here
    rng = random.Random(23)
    answered = checked = 0
    for game in range(12):
        board = Board()
        stock = french().bag()
        for _ in range(18):
            letters = sorted(stock.elements())
            rng.shuffle(letters)
            rack = "".join(letters[:7])
            if not rack:
                break
            moves = movegen.generate(board, rack, config)
            if not moves:
                continue
            sample = rng.sample(moves, min(len(moves), 25))
            for m in sample:
                for ref, word in _variants(m.ref, m.word, rng):
                    answered += _agree(board, ref, word, config)
                    checked += 1
            top = max(moves, key=lambda m: m.score)
            top.placement.apply(board)
            stock -= Counter(top.letters)
        assert board.tile_count > 40, game
    # every legal move took the fast path, and the broken ones did not
    assert answered >= 12 * 18 * 20 and checked > 3 * answered


def test_first_move_settings_and_romanian() -> None:
    lexicon = default_lexicon()
    for config in (
        GameConfig(tileset=french(), lexicon=lexicon, first_move_horizontal=True),
        GameConfig(tileset=french(), lexicon=lexicon, first_move_min_tiles=3),
        GameConfig(tileset=romanian(), lexicon=lexicon),
        GameConfig(tileset=french(), lexicon=None),
    ):
        for ref, word in ((Ref(7, 6, True), "ET"), (Ref(6, 7, False), "ET"),
                          (Ref(7, 7, True), "KA"), (Ref(7, 5, True), "ZEbRE"),
                          (Ref(5, 7, False), "WAX"), (Ref(7, 3, True), "ZEBRES")):
            _agree(Board(), ref, word, config)


MINI = Lexicon.from_words(["RAT", "RATS", "TA", "AS", "ZA", "OZA", "ON", "EN", "TE", "SE",
                           "OR", "ET", "TES", "SET", "ARE", "ERE", "TRES", "SERA", "RASE"])
MINI_CONFIG = GameConfig(tileset=french(), lexicon=MINI)
SHORT = ["RAT", "RATS", "TA", "AS", "ZA", "OZA", "ON", "EN", "TE", "SE", "Ta", "rAT", "XX",
         "SET", "TES", "ERE", "SERA", "RASE", "A", "TRES", "aS"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(4, 10), st.integers(4, 10), st.booleans(),
                       st.sampled_from(SHORT)), min_size=1, max_size=14),
)
def test_random_boards_tiny_list(moves: list[tuple[int, int, bool, str]]) -> None:
    """Moves played when legal (by the reference), every one compared on the way; the tiny
    list has no DAWG built, so the fast path looks the words up through ``in``."""
    assert MINI.membership_edges is None
    board = Board()
    for r, c, h, word in moves:
        ref = Ref(r, c, h)
        if _agree(board, ref, word, MINI_CONFIG):
            v = check_move(board, ref, word, MINI_CONFIG)
            assert v.placement is not None
            v.placement.apply(board)
