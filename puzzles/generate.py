"""Drawing problems: a legal :class:`~puzzles.problem.Problem` of any game type from a seeded
:class:`random.Random`, as the arbiter would draw it by lot.

The same (game, seed, lang, options, lexicon) always gives the same problem. Conditions
that need a word list — the rangée opening condition (G9), Scrabble exclusif groups that
must each allow a *scrabble sec*, the Superscrabble board — are checked with an
:class:`AnagramIndex` built from the lexicon, and the draw is repeated until they hold.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from itertools import combinations, combinations_with_replacement
from typing import Protocol

from puzzles.families import GeneratorKind
from puzzles.problem import (
    GAME_LABELS,
    GameType,
    LexiconRef,
    Problem,
    first_group_size,
    partiel_minutes,
    rangee_minutes,
)
from puzzles.settings import Settings
from scoring import movegen
from scoring.board import Board
from scoring.config import GameConfig
from scoring.lexicon import Lexicon
from scoring.move import Placement
from scoring.notation import Ref
from scoring.tiles import JOKER, TileSet, tileset
from scoring.validate import validate_placement

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MAX_REDRAWS = 10_000
#: Whole Scrabble-exclusif draws tried before giving up (a few are enough with a real list).
EXCLUSIF_TRIES = 50


class WordSource(Protocol):
    """A lexicon that can be searched and listed (``scoring.lexicon.Lexicon`` is one)."""

    def __contains__(self, word: object, /) -> bool: ...

    def __iter__(self) -> Iterator[str]: ...


class AnagramIndex:
    """The sorted-letter keys of every word of 2–8 letters: answers "do these letters (``?``
    a joker) rearrange into a word?" without trying permutations."""

    def __init__(self, words: Iterable[str], max_length: int = 8) -> None:
        self._keys: set[str] = set()
        self._by_letter: dict[str, list[str]] | None = None
        self.words_by_length: dict[int, list[str]] = {}
        for w in words:
            if 2 <= len(w) <= max_length and w.isalpha() and w.isupper():
                self._keys.add("".join(sorted(w)))
                self.words_by_length.setdefault(len(w), []).append(w)

    def sevens_by_letter(self) -> dict[str, list[str]]:
        """7-letter words listed under each letter they contain (built once)."""
        if self._by_letter is None:
            self._by_letter = {}
            for w in self.words_by_length.get(7, ()):
                for c in set(w):
                    self._by_letter.setdefault(c, []).append(w)
        return self._by_letter

    def has_anagram(self, letters: str) -> bool:
        fixed = [c for c in letters if c != JOKER]
        jokers = len(letters) - len(fixed)
        if jokers == 0:
            return "".join(sorted(fixed)) in self._keys
        for combo in combinations_with_replacement(ALPHABET, jokers):
            if "".join(sorted(fixed + list(combo))) in self._keys:
                return True
        return False


_INDEX_CACHE: dict[int, AnagramIndex] = {}


def anagram_index(lexicon: WordSource) -> AnagramIndex:
    """The index of ``lexicon``, built once per lexicon object."""
    key = id(lexicon)
    idx = _INDEX_CACHE.get(key)
    if idx is None:
        idx = AnagramIndex(iter(lexicon))
        _INDEX_CACHE.clear()
        _INDEX_CACHE[key] = idx
    return idx


def rangee_opening_predicate(lexicon: WordSource) -> Callable[[str], bool]:
    """G9 (INFERRED): a row is acceptable when some prefix of k ∈ 2..7 letters can be
    rearranged, jokers included, into a word of the lexicon."""
    idx = anagram_index(lexicon)

    def ok(row: str) -> bool:
        return any(idx.has_anagram(row[:k]) for k in range(2, min(7, len(row)) + 1))

    return ok


def _shuffled_bag(ts: TileSet, rng: random.Random) -> list[str]:
    bag = sorted(ts.bag().elements())
    rng.shuffle(bag)
    return bag


def _sorted_letters(letters: Iterable[str]) -> str:
    return "".join(sorted(letters, key=lambda c: (c == JOKER, c)))


def _announced(ts: TileSet, letters: str) -> str:
    """The consonants announced in a consonant variant: vowels, ambiguous letters (Y) and
    jokers go to the pool (RULES §6.2, INFERRED)."""
    return "".join(
        c for c in letters if c != JOKER and not ts.is_vowel(c) and c not in ts.ambiguous
    )


def _group1_ok(
    ts: TileSet, lang: str, group: str, settings: Settings, avocalique: bool,
    idx: AnagramIndex | None,
) -> bool:
    vowels = [c for c in group if c != JOKER and ts.is_vowel(c)]
    consonants = [c for c in group if c != JOKER and not ts.is_vowel(c) and c not in ts.ambiguous]
    if lang == "ro":
        # RULES §6.1 footnote: one vowel and one consonant; §10: avocalic, not G or J.
        if len(vowels) != 1 or len(consonants) != 1:
            return False
        return not (avocalique and consonants[0] in "GJ")
    if avocalique:
        # RULES §6.2: two consonants, one of which makes a consonant+vowel and a vowel+consonant
        # two-letter word.
        if len(consonants) != 2:
            return False
        if idx is None:
            return True
        two = set(idx.words_by_length.get(2, ()))
        return any(
            any(c + v in two for v in "AEIOU") and any(v + c in two for v in "AEIOU")
            for c in consonants
        )
    if settings.anticipation_group1_vowel_and_consonant:
        return ts.draw_meets_minimum(group, 1)
    return True


def _anticipation_groups(
    game: GameType, ts: TileSet, lang: str, rng: random.Random, settings: Settings,
    idx: AnagramIndex | None,
) -> list[str]:
    small = first_group_size(lang)
    avocalique = game.family.consonants_announced
    exclusif = game.family.exclusif is not None
    exclusif_tries = 0
    for _ in range(MAX_REDRAWS):
        bag = _shuffled_bag(ts, rng)
        first = "".join(bag[:small])
        if not _group1_ok(ts, lang, first, settings, avocalique, idx):
            continue
        rest = bag[small:]
        if not exclusif:
            return [first] + ["".join(rest[i : i + 7]) for i in range(0, len(rest), 7)]
        assert idx is not None
        groups = _scrabble_groups(rest, rng, idx)
        if groups is not None:
            return [first] + groups
        exclusif_tries += 1
        if exclusif_tries >= EXCLUSIF_TRIES:
            break
    raise ValueError(
        "Tirage impossible : le lexique ne permet pas de former les groupes demandés "
        "(trop de tentatives)."
    )


def _scrabble_groups(rest: list[str], rng: random.Random, idx: AnagramIndex) -> list[str] | None:
    """14 groups of 7 that each allow a scrabble sec (RULES §6.3). Drawing blind and
    rejecting almost never succeeds for all 14 groups, so each group is taken as the tiles of
    a random 7-letter word still available in the stock (a joker standing in for a missing
    letter); the last 14 letters are split by trying every way."""
    remaining = Counter(rest)
    by_letter = idx.sevens_by_letter()
    if not by_letter:
        return None
    groups: list[str] = []
    while sum(remaining.values()) > 14:
        # The hardest letter left (fewest 7-letter words) goes first, or the last groups
        # end up holding K, W, X, Z together.
        letters = [c for c in remaining if c != JOKER and remaining[c] > 0]
        target = min(letters, key=lambda c: (len(by_letter.get(c, ())), c))
        candidates = by_letter.get(target, [])
        if not candidates:
            return None
        for _ in range(3000):
            word = rng.choice(candidates)
            missing = Counter(word) - remaining
            short = sum(missing.values())
            if short <= remaining[JOKER]:
                tiles = Counter(word) - missing
                tiles[JOKER] += short
                remaining -= tiles
                groups.append("".join(rng.sample(sorted(tiles.elements()), 7)))
                break
        else:
            return None
    last = sorted(remaining.elements())
    splits = [c for c in combinations(range(1, 14), 6)]
    rng.shuffle(splits)
    for c in splits:
        first = {0, *c}
        a = "".join(last[i] for i in sorted(first))
        b = "".join(last[i] for i in range(14) if i not in first)
        if idx.has_anagram(a) and idx.has_anagram(b):
            return groups + [a, b]
    return None


def _random_board(
    ts: TileSet, rng: random.Random, lexicon: WordSource, idx: AnagramIndex, bag: Counter[str],
    moves: int,
) -> Board:
    """A position built from ``moves`` legal words, each checked by the engine."""
    config = GameConfig(tileset=ts, lexicon=lexicon)
    board = Board()
    pool = [w for n in range(3, 9) for w in idx.words_by_length.get(n, ())]
    placed = 0
    for _ in range(MAX_REDRAWS):
        if placed >= moves:
            break
        word = rng.choice(pool)
        if board.is_empty():
            start = rng.randint(max(0, 7 - len(word) + 1), 7)
            ref = Ref(7, start, True)
        else:
            occupied = list(board.occupied())
            sq = rng.choice(occupied)
            positions = [i for i, c in enumerate(word) if c == board[sq].upper()]
            if not positions:
                continue
            i = rng.choice(positions)
            horizontal = rng.random() < 0.5
            row, col = divmod(sq, 15)
            row, col = (row, col - i) if horizontal else (row - i, col)
            if row < 0 or col < 0:
                continue
            ref = Ref(row, col, horizontal)
        try:
            placement = Placement.from_notation(board, ref, word)
        except ValueError:
            continue
        if not placement.tiles or len(placement) > 7:
            continue
        need = Counter(t.letter for t in placement.tiles)
        if need - bag:
            continue
        verdict = validate_placement(board, placement, config, horizontal=ref.horizontal)
        if not verdict.ok or verdict.ref != ref or verdict.word != word:
            continue
        placement.apply(board)
        bag.subtract(need)
        placed += 1
    return board


def _has_scrabble(
    board: Board, rack: str, ts: TileSet, lexicon: WordSource, idx: AnagramIndex
) -> bool:
    if isinstance(lexicon, Lexicon):
        config = GameConfig(tileset=ts, lexicon=lexicon)
        return movegen.count(board, rack, config).scrabbles > 0
    return idx.has_anagram(rack)


def new_problem(
    game: GameType | str,
    *,
    seed: int,
    lang: str = "fr",
    lexicon: WordSource | None = None,
    settings: Settings | None = None,
    n_groups: int = 4,
    imposed_order: bool = False,
    opening_predicate: Callable[[str], bool] | None = None,
) -> Problem:
    """Draw a problem of type ``game``.

    ``lexicon`` is needed for the rangée (unless ``opening_predicate`` is given), Scrabble
    exclusif and Superscrabble; it is recorded in the problem (name, sha256, count) when it
    has an ``identity``. ``n_groups`` and ``imposed_order`` are for N-Scrabble.
    """
    g = GameType(game)
    settings = settings or Settings()
    rng = random.Random(seed)
    ts = tileset(lang)
    lex_ref: LexiconRef | None = None
    identity = getattr(lexicon, "identity", None)
    if identity is not None:
        lex_ref = LexiconRef(identity.name, identity.sha256, identity.word_count)
    fam = g.family
    kind = fam.generator
    # the rangée needs the list only to check its opening
    needs_lexicon = fam.generator_needs_lexicon and not (
        kind is GeneratorKind.ROW and opening_predicate is not None
    )
    if needs_lexicon and lexicon is None:
        raise ValueError(f"Le tirage d'un problème « {g.label} » a besoin d'un lexique.")
    idx = anagram_index(lexicon) if lexicon is not None else None
    base = Problem(
        id=f"{g.value}-{lang}-{seed}",
        game=g,
        lang=lang,
        title=f"{GAME_LABELS[g]} n° {seed}",
        lexicon=lex_ref,
        seed=seed,
    )
    if kind is GeneratorKind.BAG:
        return replace(base, stock=_sorted_letters(ts.bag().elements()))
    if kind is GeneratorKind.PARTIEL:
        assert fam.letters_range is not None
        n = rng.randint(*fam.letters_range)
        letters = _shuffled_bag(ts, rng)[:n]
        return replace(base, stock=_sorted_letters(letters), time_limit_minutes=partiel_minutes(n))
    if kind is GeneratorKind.ROW:
        assert fam.letters_range is not None
        n = rng.randint(*fam.letters_range)
        assert lexicon is not None or opening_predicate is not None
        ok = opening_predicate or rangee_opening_predicate(lexicon)  # type: ignore[arg-type]
        for _ in range(MAX_REDRAWS):
            row = "".join(_shuffled_bag(ts, rng)[:n])
            if ok(row):
                return replace(base, row=row, time_limit_minutes=rangee_minutes(n))
        raise RuntimeError("Aucune rangée conforme trouvée.")
    if kind is GeneratorKind.ANTICIPATION:
        order = tuple(rng.sample(range(2, 16), 14))
        if fam.blind:
            return replace(base, order=order, time_limit_minutes=60)
        groups = _anticipation_groups(g, ts, lang, rng, settings, idx)
        if fam.consonants_announced:
            announced = tuple(_announced(ts, x) for x in groups)
            pool = Counter("".join(groups))
            pool.subtract(Counter("".join(announced)))
            return replace(
                base,
                groups=announced,
                group_sizes=tuple(len(x) for x in groups),
                pool=_sorted_letters((+pool).elements()),
                order=order,
                time_limit_minutes=60,
            )
        return replace(base, groups=tuple(groups), order=order, time_limit_minutes=60)
    if kind is GeneratorKind.GROUPS:
        # the Série de maximaux has 7 groups and no order; N-Scrabble n, maybe ordered
        count = n_groups if fam.ordered_groups else 7
        bag = _shuffled_bag(ts, rng)
        groups = ["".join(bag[i * 7 : i * 7 + 7]) for i in range(count)]
        order = tuple(rng.sample(range(1, count + 1), count)) if (
            imposed_order and fam.ordered_groups
        ) else ()
        if fam.consonants_announced:
            announced = tuple(_announced(ts, x) for x in groups)
            stock = ts.bag()
            stock.subtract(Counter("".join(announced)))
            return replace(
                base,
                groups=announced,
                group_sizes=(7,) * count,
                pool=_sorted_letters((+stock).elements()),
                order=order,
                time_limit_minutes=60,
            )
        return replace(base, groups=tuple(groups), order=order, time_limit_minutes=60)
    if kind is GeneratorKind.INCOMPLET:
        for _ in range(MAX_REDRAWS):
            rack = _shuffled_bag(ts, rng)[:7]
            if ts.draw_meets_minimum("".join(rack), 1):
                return replace(base, rack=_sorted_letters(rack), time_limit_minutes=120)
        raise RuntimeError("Tirage impossible.")
    if kind is GeneratorKind.SUPERSCRABBLE:
        assert lexicon is not None and idx is not None
        for _ in range(MAX_REDRAWS):
            left = ts.bag()
            board = _random_board(ts, rng, lexicon, idx, left, rng.randint(4, 7))
            rest = sorted((+left).elements())
            rng.shuffle(rest)
            drawn = "".join(rest[:7])
            # INFERRED: the problem must have at least one answer. With a compiled list the
            # move generator counts the scrabbles; otherwise a scrabble sec must exist.
            if len(drawn) == 7 and _has_scrabble(board, drawn, ts, lexicon, idx):
                return replace(
                    base, board=board.to_cgp(), rack=_sorted_letters(drawn), time_limit_minutes=90
                )
        raise RuntimeError("Aucune position de Superscrabble trouvée.")
    raise ValueError(f"Type de partie non pris en charge : {g}.")
