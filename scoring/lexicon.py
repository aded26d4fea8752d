"""Lexicons: loading word lists, normalising them to A–Z, their identity, and membership.

(Placeholder implementation backed by a set; the compiled DAWG/GADDAG form replaces it.)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class LexiconIdentity:
    name: str
    sha256: str
    word_count: int


class Lexicon:
    def __init__(self, words: Iterable[str], name: str = "custom") -> None:
        self._words = frozenset(words)
        digest = hashlib.sha256("\n".join(sorted(self._words)).encode() + b"\n").hexdigest()
        self.identity = LexiconIdentity(name, digest, len(self._words))

    @classmethod
    def from_words(cls, words: Iterable[str], name: str = "custom") -> Lexicon:
        return cls(words, name)

    def __contains__(self, word: object) -> bool:
        return word in self._words

    def __len__(self) -> int:
        return len(self._words)


def default_lexicon() -> Lexicon:
    raise NotImplementedError
