"""The Duplicate's game state and draws (RULES §4.2–4.4): :class:`GameState` (grid, bag,
reliquat, tops; its text form for the server), :class:`Draw`, the bag (:func:`shuffled_bag`
from a given seed, :func:`secret_bag` from a secret 128-bit one), and the draws — from the
bag order (:func:`draw_round`, the minimum of vowels and consonants, rejections, the forced
draw and the end when no draw is valid) or from a record's list (:func:`draw_listed`).
Imports :mod:`puzzles.duplicate.settings` and :mod:`puzzles.seeds` (the secret seed) only."""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from puzzles.duplicate.settings import (
    RACK_SIZE,
    STATE_HEADER,
    DuplicateError,
    DuplicateSettings,
    Lang,
)
from puzzles.seeds import SECRET_SEED_BITS
from scoring import movegen
from scoring.board import Board
from scoring.config import GameConfig
from scoring.errors import EngineError
from scoring.tiles import JOKER, TileSet, tileset


@dataclass(frozen=True)
class Draw:
    """One round's draw: the ``reliquat`` kept, the ``new`` tiles, the whole ``rack``, and the
    racks ``rejected`` before it (RULES §4.2–4.3; ``""`` for a rejected rack a game record
    does not show). Jokers are ``?``."""

    reliquat: str
    new: str
    rack: str
    rejected: tuple[str, ...] = ()
    #: the vowel/consonant minimum this draw had to meet (0: none, the last tiles)
    minimum: int = 0

    @property
    def notation(self) -> str:
        """``RU+ZXTEU``; ``-BNISRAA`` after a rejection (E17)."""
        body = f"{self.reliquat}+{self.new}" if self.reliquat else self.new
        return ("-" if self.rejected else "") + body


@dataclass(frozen=True)
class GameState:
    """Where a game stands.

    ``board_cgp``: the master grid. ``bag``: the tiles not yet drawn, in drawing order (the
    front is drawn first; ``?`` for a joker). ``reliquat``: the tiles out of the bag — the
    ones kept from the last top, or, once :func:`draw_round` has drawn, the whole rack in play.
    ``round_no``: the round being played (1 at the start). ``end_reason``: French text once
    ``finished``. ``first_word``: the word of the first top (set by :func:`apply_top`; ""
    before it, and in a state stored before the field existed): a raccord of two letters is
    no fault when it had two letters (S1 5.2).
    """

    board_cgp: str
    bag: tuple[str, ...]
    reliquat: str = ""
    round_no: int = 1
    tops_total: int = 0
    finished: bool = False
    end_reason: str = ""
    first_word: str = ""

    @property
    def board(self) -> Board:
        return Board.from_cgp(self.board_cgp)

    @property
    def remaining(self) -> str:
        """Every tile not on the grid: reliquat then bag."""
        return self.reliquat + "".join(self.bag)

    @classmethod
    def initial(cls, settings: DuplicateSettings, bag_order: Sequence[str] | str) -> GameState:
        """An empty grid and ``bag_order`` (checked against the tile set of ``settings``: no
        unknown letter, no letter more often than the set holds)."""
        tiles = tuple(_tile(t) for t in bag_order)
        check_tiles(tiles, tileset(settings.lang))
        return cls(Board().to_cgp(), tiles)

    def to_text(self) -> str:
        """A few ``key: value`` lines; :meth:`from_text` reads them back exactly. The line
        ``premier:`` (the first top's word) is written once there is one, and optional when
        read: a state stored before it existed reads as before."""
        lines = [
            STATE_HEADER,
            f"coup: {self.round_no}",
            f"tops: {self.tops_total}",
            f"fini: {'oui' if self.finished else 'non'}",
            f"raison: {json.dumps(self.end_reason, ensure_ascii=False)}",
            f"reliquat: {self.reliquat}",
            f"sac: {''.join(self.bag)}",
            f"grille: {self.board_cgp}",
        ]
        if self.first_word:
            lines.append(f"premier: {self.first_word}")
        return "\n".join(lines) + "\n"

    @classmethod
    def from_text(cls, text: str) -> GameState:
        lines = text.split("\n")
        if not lines or lines[0].strip() != STATE_HEADER:
            raise DuplicateError(
                f"État de partie : la première ligne doit être « {STATE_HEADER} »."
            )
        values: dict[str, str] = {}
        for line in lines[1:]:
            if not line.strip():
                continue
            key, sep, value = line.partition(":")
            if not sep:
                raise DuplicateError(f"État de partie : ligne illisible « {line[:60]} ».")
            values[key.strip()] = value[1:] if value.startswith(" ") else value
        need = ("coup", "tops", "fini", "raison", "reliquat", "sac", "grille")
        missing = [k for k in need if k not in values]
        if missing:
            raise DuplicateError(f"État de partie : il manque {', '.join(missing)}.")
        try:
            round_no = int(values["coup"])
            tops = int(values["tops"])
            reason = json.loads(values["raison"])
        except ValueError:
            raise DuplicateError("État de partie : coup, tops ou raison illisible.") from None
        if values["fini"] not in ("oui", "non") or not isinstance(reason, str):
            raise DuplicateError("État de partie : « fini » vaut oui ou non.")
        try:
            board = Board.from_cgp(values["grille"])
        except EngineError as exc:
            raise DuplicateError(f"État de partie : {exc}") from None
        first_word = values.get("premier", "").strip()
        if first_word and not all("A" <= ch.upper() <= "Z" for ch in first_word):
            raise DuplicateError(
                f"État de partie : premier mot illisible « {first_word[:20]} »."
            )
        return cls(
            board.to_cgp(),
            tuple(_tile(t) for t in values["sac"]),
            "".join(_tile(t) for t in values["reliquat"]),
            round_no,
            tops,
            values["fini"] == "oui",
            reason,
            first_word,
        )


def _tile(ch: str) -> str:
    if ch == JOKER or (len(ch) == 1 and "A" <= ch <= "Z"):
        return ch
    if len(ch) == 1 and "a" <= ch <= "z":
        return ch.upper()
    raise DuplicateError(f"Jeton inconnu : « {ch} » (lettres A à Z, ? pour un joker).")


def check_tiles(tiles: Iterable[str], ts: TileSet) -> None:
    """Raise :class:`DuplicateError` when ``tiles`` is not part of the set ``ts``."""
    counts = Counter(tiles)
    for letter, n in sorted(counts.items()):
        have = ts.counts.get(letter, 0)
        if have == 0:
            raise DuplicateError(f"La lettre « {letter} » n'existe pas dans le jeu {ts.name}.")
        if n > have:
            raise DuplicateError(
                f"{n} fois « {letter} » alors que le jeu {ts.name} n'en compte que {have}."
            )


def shuffled_bag(lang: Lang, seed: int) -> tuple[str, ...]:
    """The full tile set of ``lang`` in a reproducible order from a *known* seed
    (``random.Random(seed).shuffle``): for replays, tests and a seed the arbitre gives. It is
    predictable by design — anyone who knows or guesses the seed knows every draw — so a
    game's default bag comes from :func:`secret_bag` instead."""
    ts = tileset(lang)
    tiles = sorted(ts.bag().elements())
    random.Random(seed).shuffle(tiles)
    return tuple(tiles)


_BAG_DOMAIN = b"arbitre-sac-v1\0"


def secret_bag(lang: Lang, seed: int, *, first: int | None = None) -> tuple[str, ...]:
    """The full tile set of ``lang`` in the order a secret ``seed`` (< 2**128) gives: a
    Fisher–Yates shuffle driven by SHAKE-256 of the seed, each index drawn without bias
    (rejection sampling). Reproducible from the seed (the stored bag can be re-derived and
    checked), unpredictable without it: the public racks reveal nothing of the rest of the
    order (docs/DUPLICATE.md « Le sac »). ``first``: only the first tiles of that order (the
    shuffle runs forwards, so they are fixed first and the rest need not be computed)."""
    if not 0 <= seed < 1 << SECRET_SEED_BITS:
        raise DuplicateError(f"Graine secrète hors limites (0 à 2^{SECRET_SEED_BITS} − 1).")
    tiles = sorted(tileset(lang).bag().elements())
    key = _BAG_DOMAIN + lang.encode() + b"\0" + seed.to_bytes(SECRET_SEED_BITS // 8, "big")
    length = 4 * len(tiles)
    stream = hashlib.shake_256(key).digest(length)
    pos = 0
    stop = len(tiles) - 1 if first is None else min(first, len(tiles) - 1)
    for i in range(stop):  # forward: position i takes one of the tiles i..n-1
        n = len(tiles) - i
        limit = 256 - 256 % n  # bytes at or above ``limit`` would bias the index: redrawn
        while True:
            if pos == len(stream):  # SHAKE's output extends: a longer digest keeps its prefix
                length *= 2
                stream = hashlib.shake_256(key).digest(length)
            byte = stream[pos]
            pos += 1
            if byte < limit:
                break
        j = i + byte % n
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tuple(tiles if first is None else tiles[:first])


def no_valid_draw(remaining: str, ts: TileSet) -> bool:
    """RULES §4.9 (b): the tiles left (jokers and Y aside) hold no vowel or no consonant."""
    v, c, _ = ts.kinds(remaining)
    return v == 0 or c == 0


def round_minimum(round_no: int, remaining: str, settings: DuplicateSettings) -> int:
    """The vowel/consonant minimum of a round (RULES §4.3): 2 up to ``min_split_rounds`` when
    the remaining tiles allow 2 + 2 (Y and jokers counted at will), otherwise 1."""
    ts = tileset(settings.lang)
    if round_no <= settings.min_split_rounds and ts.draw_meets_minimum(remaining, 2):
        return 2
    return 1


def _forced_draw(
    reliquat: str, bag: list[str], minimum: int, ts: TileSet, size: int = RACK_SIZE
) -> tuple[str, list[str]]:
    """After a full turn of the bag without a valid draw (INFERRED, docs/DUPLICATE.md): the
    first tiles from the front that keep the minimum reachable."""
    rack = reliquat
    rest: list[str] = []
    for i, t in enumerate(bag):
        slots = size - len(rack) - 1
        if len(rack) < size and ts.draw_meets_minimum(rack + t, minimum, slots=slots):
            rack += t
            if len(rack) == size:
                rest.extend(bag[i + 1 :])
                break
        else:
            rest.append(t)
    return rack, rest


def _has_move(board: Board, rack: str, config: GameConfig) -> bool:
    return movegen.count(board, rack, config).placements > 0


def round_config(
    config: GameConfig, board: Board, settings: DuplicateSettings | None = None
) -> GameConfig:
    """``config`` with the first word forced horizontal on an empty grid (RULES §4.5)."""
    horizontal = settings.first_move_horizontal if settings is not None else True
    if board.is_empty() and horizontal and not config.first_move_horizontal:
        return replace(config, first_move_horizontal=True)
    return config


def _finish(state: GameState, reason: str) -> tuple[None, GameState]:
    return None, replace(state, finished=True, end_reason=reason)


def draw_round(
    state: GameState,
    settings: DuplicateSettings,
    *,
    config: GameConfig | None = None,
    rack_size: int = RACK_SIZE,
) -> tuple[Draw | None, GameState]:
    """Draw the next round: the reliquat completed to 7 from the front of the bag, with the
    vowel/consonant minimum of the round; a rejected draw goes back to the end of the bag
    (all its tiles, or only the new ones, per ``rejection_returns``) and the next tiles are
    drawn (RULES §4.3).

    Returns ``(None, finished_state)`` when the game is over (RULES §4.9: bag and rack empty;
    no vowel or no consonant left; round limit reached). With ``config``, a draw on which no
    word can be played is rejected while more than 7 tiles remain, and ends the game
    otherwise (§4.9 (c)). The returned state holds the whole rack in ``reliquat``.

    ``rack_size``: the tiles drawn each round — 7, or another number for the variants
    (Complétif 6, Superjoker 5, Elliptique 8, :mod:`puzzles.variants`); the minimum applies
    to those tiles.
    """
    if state.finished:
        return None, state
    ts = tileset(settings.lang)
    if settings.rounds is not None and state.round_no > settings.rounds:
        return _finish(state, f"Les {settings.rounds} coups prévus ont été joués.")
    remaining = state.remaining
    if not remaining:
        return _finish(state, "Toutes les lettres ont été tirées et placées.")
    if no_valid_draw(remaining, ts):
        return _finish(
            state,
            "Il ne reste que des voyelles ou que des consonnes (jokers et Y mis à part) : "
            "aucun tirage valable n'est possible.",
        )
    board = state.board if config is not None else Board()
    cfg = round_config(config, board, settings) if config is not None else None
    if len(remaining) <= rack_size:
        draw = Draw(state.reliquat, "".join(state.bag), remaining, (), 0)
        if cfg is not None and not _has_move(board, remaining, cfg):
            return _finish(
                state, f"Aucun mot ne peut être joué avec les dernières lettres {remaining}."
            )
        return draw, replace(state, bag=(), reliquat=remaining)
    minimum = round_minimum(state.round_no, remaining, settings)
    reliquat = state.reliquat
    bag = list(state.bag)
    rejected: list[str] = []
    while True:
        need = rack_size - len(reliquat)
        new, rest = bag[:need], bag[need:]
        rack = reliquat + "".join(new)
        ok = ts.draw_meets_minimum(rack, minimum)
        if ok and cfg is not None and not _has_move(board, rack, cfg):
            ok = False
        if ok:
            draw = Draw(reliquat, "".join(new), rack, tuple(rejected), minimum)
            return draw, replace(state, bag=tuple(rest), reliquat=rack)
        rejected.append(rack)
        if settings.rejection_returns == "all" or not ts.draw_meets_minimum(
            reliquat, minimum, slots=rack_size - len(reliquat)
        ):
            bag, reliquat = rest + list(rack), ""
        else:
            bag = rest + new
        if len(rejected) > len(remaining):
            rack, rest = _forced_draw(reliquat, bag, minimum, ts, rack_size)
            draw = Draw(reliquat, rack[len(reliquat) :], rack, tuple(rejected), minimum)
            return draw, replace(state, bag=tuple(rest), reliquat=rack)


def minus_tiles(letters: str, used: str) -> str | None:
    """``letters`` without the tiles of ``used`` (order kept); None when one is missing."""
    out = list(letters)
    for ch in used:
        if ch not in out:
            return None
        out.remove(ch)
    return "".join(out)


def draw_listed(
    state: GameState, settings: DuplicateSettings, notation: str, *,
    rack_size: int = RACK_SIZE,
) -> tuple[Draw, GameState]:
    """Take a draw written as in a game record (``RU+ZXTEU``, ``-BNISRAA``, ``EAIRSTU``):
    the tiles must be the reliquat (or, after a rejection, any tiles) plus tiles still in the
    bag. The bag order does not matter here. ``rack_size``: the most tiles a draw holds (the
    variants' 6, 5, 8: :mod:`puzzles.variants`); a draw of the reliquat alone (``ABC+``) is
    read too (a Tactique group that placed nothing)."""
    text = notation.strip().replace(" ", "").upper()
    rejected = text.startswith("-")
    text = text.lstrip("-")
    if "+" in text:
        kept, _, new = text.partition("+")
    else:
        rest = minus_tiles(text, state.reliquat)
        if rest is not None and not rejected:
            kept, new = state.reliquat, rest
        else:
            kept, new = "", text
    try:
        kept = "".join(_tile(t) for t in kept)
        new = "".join(_tile(t) for t in new)
    except DuplicateError as exc:
        raise DuplicateError(f"Tirage « {notation} » : {exc}") from None
    rack = kept + new
    if not rack or len(rack) > rack_size:
        raise DuplicateError(
            f"Tirage « {notation} » : {len(rack)} lettres ({rack_size} au plus)."
        )
    pool = list(state.bag)
    back = minus_tiles(state.reliquat, kept)
    if back is None:
        raise DuplicateError(
            f"Tirage « {notation} » : le reliquat {kept} ne fait pas partie des lettres "
            f"restées en jeu ({state.reliquat or 'aucune'})."
        )
    if back and not rejected and settings.rejection_returns == "new_only":
        raise DuplicateError(
            f"Tirage « {notation} » : le reliquat {state.reliquat} n'est pas repris."
        )
    pool.extend(back)
    bag_rest = minus_tiles("".join(pool), new)
    if bag_rest is None:
        raise DuplicateError(
            f"Tirage « {notation} » : les lettres {new} ne sont pas toutes dans le sac."
        )
    remaining = state.remaining
    minimum = (
        0 if len(remaining) <= rack_size else round_minimum(state.round_no, remaining, settings)
    )
    draw = Draw(kept, new, rack, ("",) if rejected else (), minimum)
    return draw, replace(state, bag=tuple(bag_rest), reliquat=rack)


