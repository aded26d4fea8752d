"""Fixtures of the puzzles tests: tiny hand-written word lists, the bundled French list, and
problems whose groups are designed for a scenario and completed from the rest of the bag."""

from __future__ import annotations

from collections import Counter

import pytest

from puzzles.problem import GameType, Problem
from scoring.lexicon import Lexicon, default_lexicon
from scoring.tiles import tileset


def lex(*words: str) -> Lexicon:
    return Lexicon.from_words(words, name="mini")


def anticipation_problem(
    designed: dict[int, str], *, game: GameType = GameType.ANTICIPATION, lang: str = "fr"
) -> Problem:
    """An Anticipation whose groups ``designed`` (number → letters) are as given, the others
    filled with the rest of the bag, played in the order 2, 3, ..., 15."""
    bag = tileset(lang).bag()
    for letters in designed.values():
        bag -= Counter(letters)
    rest = sorted(bag.elements())
    groups: list[str] = []
    for n in range(1, 16):
        size = (2 if lang == "ro" else 4) if n == 1 else 7
        if n in designed:
            assert len(designed[n]) == size
            groups.append(designed[n])
        else:
            groups.append("".join(rest[:size]))
            rest = rest[size:]
    assert not rest
    return Problem(id="anticip-test", game=game, lang=lang, groups=tuple(groups),
                   order=tuple(range(2, 16)))


@pytest.fixture(scope="session")
def french() -> Lexicon:
    return default_lexicon()
