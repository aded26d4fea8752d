"""Shared ranks (standard competition ranking, « 1224 »): rows with equal results share the
rank of the first of them and the next row's rank skips. Owns :func:`shared_ranks`, used by
the Duplicate, Duplicate Top, Superscrabble and correspondence-series standings."""

from __future__ import annotations

from collections.abc import Sequence


def shared_ranks(results: Sequence[object]) -> list[int]:
    """The ranks of rows already sorted best first, given each row's result (the values that
    decide a tie): 1-based; an equal result takes the rank of the row before it."""
    ranks: list[int] = []
    for i, result in enumerate(results):
        ranks.append(ranks[-1] if i and results[i - 1] == result else i + 1)
    return ranks
