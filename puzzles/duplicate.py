"""The FISF Duplicate (2016) played by correspondence: draws, the top, bulletin correction,
solos and the final ranking (docs/RULES.md §4, §10, §11; docs/DUPLICATE.md).

Pure and deterministic: the bag order is given (draws take from the front, rejected tiles go
back to the end), every rule the sources leave open is a named field of
:class:`DuplicateSettings`. The server drives a game round by round:

1. :func:`draw_round` (or :func:`draw_listed`) → the :class:`Draw` and the state *in play*
   (its ``reliquat`` holds the whole rack until the top is placed);
2. :func:`find_top` on that state; :func:`prepare_round` once, then :func:`correct` per
   bulletin; :func:`apply_solos`;
3. :func:`apply_top` → the state of the next round; at the end :func:`rank_game`.

:func:`replay` runs a whole game that way for ``arbitre duplicate replay``.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import secrets
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import datetime
from typing import Any, Literal, NamedTuple, cast, get_args

from puzzles.ties import shared_ranks
from scoring import movegen
from scoring.board import Board
from scoring.config import GameConfig
from scoring.errors import EngineError
from scoring.layout import SIZE
from scoring.movegen import GeneratedMove
from scoring.notation import Ref, format_ref, parse_ref, parse_word
from scoring.tiles import JOKER, TileSet, tileset
from scoring.validate import check_move

Lang = Literal["fr", "ro"]
SoloRule = Literal["auto", "n_minus_6", "none"]
RejectionReturns = Literal["all", "new_only"]
Openness = Literal["adjacent_empty", "none"]
VerdictKind = Literal["valide", "avertissement", "penalite5", "nul", "absent"]
AmbiguousReference = Literal["penalty", "warning"]

RACK_SIZE = 7
STATE_HEADER = "arbitre-duplicate-etat 1"


class DuplicateError(ValueError):
    """A game file, draw list or state that cannot be used (French message)."""


def check_choice(key: str, value: object, allowed: Sequence[object]) -> None:
    """A setting that takes one of ``allowed``: anything else raises :class:`DuplicateError`
    naming the setting and the values it takes."""
    if value not in allowed:
        listed = ", ".join(str(c) for c in allowed)
        raise DuplicateError(f"Réglage {key} : valeur {value!r} refusée (attendu : {listed}).")


def read_object(
    source: str | Mapping[str, Any], label: str, *, blank_is_empty: bool = False,
    with_line: bool = False,
) -> dict[str, Any]:
    """A JSON object from text or a mapping (settings, a GAME.json); French errors named by
    ``label`` (« Réglages », « Partie ») raise :class:`DuplicateError`. ``blank_is_empty``:
    blank text reads as ``{}``; ``with_line``: the error names the line."""
    if isinstance(source, str):
        try:
            data = json.loads(source) if source.strip() or not blank_is_empty else {}
        except json.JSONDecodeError as exc:
            where = f", ligne {exc.lineno}" if with_line else ""
            raise DuplicateError(f"{label} : JSON illisible ({exc.msg}{where}).") from None
    else:
        data = dict(source)
    if not isinstance(data, dict):
        raise DuplicateError(f"{label} : un objet JSON est attendu.")
    return data


# --- settings -----------------------------------------------------------------------------
@dataclass(frozen=True)
class DuplicateSettings:
    """Every Duplicate rule the sources leave open, with the docs/RULES.md default."""

    #: tile set: ``fr`` (102 tiles) or ``ro`` (100 tiles) (RULES §2, §10)
    lang: Lang = "fr"
    #: number of rounds; None plays to the end of the bag (RULES §4.9)
    rounds: int | None = None
    #: solo bonus for fields under ``solo_min_players`` (G2): ``auto`` = the RULES default
    #: (n − 6), ``n_minus_6`` (RECALLED FFSc), ``none`` (Eliot: no solo below 16)
    solo_rule: SoloRule = "auto"
    #: solo bonus for a field of ``solo_min_players`` or more (RULES §4.8)
    solo_points: int = 10
    solo_min_players: int = 16
    #: warnings cost ``warning_penalty_points`` each from this one on: 4 (FISF), 6 (blitz and
    #: original games) (RULES §4.7.7)
    warning_conversion_from: int = 4
    warning_penalty_points: int = 5
    #: points taken by a 5-point penalty (RULES §4.7.3)
    penalty_points: int = 5
    #: on a rejection, ``all`` the tiles go back (FISF) or only the ``new_only`` ones (an FRSc
    #: online rule set, RULES §10)
    rejection_returns: RejectionReturns = "all"
    #: ≥2 vowels and ≥2 consonants up to this round inclusive, then ≥1 + ≥1 (RULES §4.3, E13)
    min_split_rounds: int = 15
    #: the first top (and the players' first words) must be horizontal (RULES §4.5, S1 3.4)
    first_move_horizontal: bool = True
    #: the arbiter's free choice among equal tops (G1): more empty squares next to the move
    #: first (``adjacent_empty``), or skip that step (``none``)
    top_openness: Openness = "adjacent_empty"
    #: seconds per move (RULES §4.4): 180, 150, 120 or 60
    time_per_move: int = 180
    #: an interrupted game stands when at least this many rounds were played (G4)
    interruption_min_rounds: int = 15
    #: S1 5.3.2 (text incomplete, G5): a reference that is a legal place of the word for
    #: another score while the claimed score matches another legal place in the direction
    #: written — ``penalty``: the claimed score − ``penalty_points`` (RULES §4.7.3);
    #: ``warning``: the score at the reference, with a warning (S1 5.2)
    ambiguous_reference: AmbiguousReference = "penalty"

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | Mapping[str, Any]) -> DuplicateSettings:
        """Read settings from JSON text or a mapping (missing keys take their default);
        unknown keys or bad values raise :class:`DuplicateError` with a French message."""
        data = read_object(text, "Réglages", blank_is_empty=True)
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise DuplicateError(f"Réglages inconnus : {', '.join(unknown)}.")
        choices: dict[str, tuple[object, ...]] = {
            "lang": get_args(Lang),
            "solo_rule": get_args(SoloRule),
            "rejection_returns": get_args(RejectionReturns),
            "top_openness": get_args(Openness),
            "warning_conversion_from": (4, 6),
            "time_per_move": (180, 150, 120, 60),
            "ambiguous_reference": get_args(AmbiguousReference),
        }
        for key, value in data.items():
            if key in choices:
                check_choice(key, value, choices[key])
            elif key == "first_move_horizontal":
                if not isinstance(value, bool):
                    raise DuplicateError("Réglage first_move_horizontal : vrai ou faux attendu.")
            elif key == "rounds" and value is None:
                continue
            elif not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise DuplicateError(f"Réglage {key} : un entier positif est attendu.")
        if data.get("rounds") == 0:
            raise DuplicateError("Réglage rounds : au moins un coup.")
        return cls(**data)


# --- draws and state ---------------------------------------------------------------------
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


#: bits of a default game's secret seed (:func:`new_secret_seed`)
SECRET_SEED_BITS = 128
_BAG_DOMAIN = b"arbitre-sac-v1\0"


def new_secret_seed() -> int:
    """A fresh secret seed of :data:`SECRET_SEED_BITS` bits from the operating system's
    cryptographic generator (``secrets``): no clock, no counter, no game id in it."""
    return secrets.randbits(SECRET_SEED_BITS)


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


# --- the top -------------------------------------------------------------------------------
@dataclass(frozen=True)
class TopChoice:
    """The retained top and the other equal-best moves it was chosen among."""

    move: GeneratedMove
    ref: str
    word: str
    score: int
    ties: tuple[GeneratedMove, ...] = ()
    reason_fr: str = ""


def word_squares(move: GeneratedMove) -> list[int]:
    step = 1 if move.horizontal else SIZE
    return [move.start + i * step for i in range(len(move.word))]


def openness(board: Board, move: GeneratedMove) -> int:
    """Empty squares side-adjacent to the main word once placed (G1's "openness", INFERRED):
    more means the move opens the grid more."""
    squares = set(word_squares(move))
    seen: set[int] = set()
    for sq in squares:
        r, c = divmod(sq, SIZE)
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < SIZE and 0 <= cc < SIZE:
                n = rr * SIZE + cc
                if n not in squares and not board[n]:
                    seen.add(n)
    return len(seen)


def ends_game(move: GeneratedMove, remaining_after_rack: str, rack: str, ts: TileSet) -> bool:
    """True when playing ``move`` ends the game (RULES §4.9 (a)/(b)): nothing left, or only
    vowels or only consonants left (jokers and Y aside)."""
    left = minus_tiles(rack, move.letters)
    pool = (left or "") + remaining_after_rack
    return not pool or no_valid_draw(pool, ts)


_TIE_REASONS = (
    "le meilleur score",
    "le moins de jokers",
    "le coup qui termine la partie",
    "le coup le plus ouvert",
    "le mot horizontal",
    "la plus petite référence (rangée, puis colonne)",
    "la plus petite référence (rangée, puis colonne)",
    "le plus petit mot",
    "le plus petit mot",
)


def top_key(
    move: GeneratedMove,
    board: Board,
    rack: str,
    after: str,
    ts: TileSet,
    settings: DuplicateSettings,
) -> tuple[object, ...]:
    """Sort key of the FISF top order (RULES §4.5, G1): higher score; fewer rack jokers; a
    move that ends the game (``after``: the bag once the rack is drawn); more openness
    (:func:`openness`, unless ``top_openness`` is ``none``); horizontal; smaller row, then
    column, of the reference; smaller word (alphabetical; a joker after the same letter as a
    tile: at the first letter where two equal words differ, the one with the tile there
    comes first — MYOToME before MYoTOME, LABARuMS before LaBARUMS)."""
    return (
        -move.score,
        move.jokers,
        not ends_game(move, after, rack, ts),
        -openness(board, move) if settings.top_openness == "adjacent_empty" else 0,
        not move.horizontal,
        move.start // SIZE,
        move.start % SIZE,
        move.word.upper(),
        move.word,  # same letters: uppercase (a tile) sorts before lowercase (a joker)
    )


def rank_moves(
    moves: Iterable[GeneratedMove],
    board: Board,
    rack: str,
    after: str,
    ts: TileSet,
    settings: DuplicateSettings,
) -> tuple[list[GeneratedMove], str]:
    """``moves`` in top order, and the French reason the first one wins."""
    keyed = sorted(
        ((top_key(m, board, rack, after, ts, settings), m) for m in moves), key=lambda km: km[0]
    )
    ranked = [m for _, m in keyed]
    if not ranked:
        return [], ""
    if len(ranked) == 1:
        return ranked, f"Seul coup à {ranked[0].score} points."
    k0, k1 = keyed[0][0], keyed[1][0]
    step = next((i for i in range(len(k0)) if k0[i] != k1[i]), len(k0) - 1)
    ties = sum(1 for m in ranked if m.score == ranked[0].score)
    if ties == 1:
        return ranked, f"Seul coup à {ranked[0].score} points."
    return ranked, f"{ties} coups à {ranked[0].score} points ; retenu : {_TIE_REASONS[step]}."


def find_top(
    state: GameState,
    rack: str,
    config: GameConfig,
    *,
    round_no: int,
    settings: DuplicateSettings | None = None,
) -> TopChoice | None:
    """The top (RULES §4.5): every move of the best score (:func:`scoring.movegen.tops`),
    ordered by :func:`top_key`. Round 1's top is horizontal. None: nothing can be played.

    ``state`` is the state in play (after :func:`draw_round`): its bag decides whether a
    move ends the game."""
    s = settings or DuplicateSettings()
    board = state.board
    cfg = round_config(config, board, s) if round_no == 1 or board.is_empty() else config
    moves = movegen.tops(board, rack, cfg)
    if not moves:
        return None
    ranked, reason = rank_moves(moves, board, rack, "".join(state.bag), config.tileset, s)
    best = ranked[0]
    return TopChoice(best, format_ref(best.ref), best.word, best.score, tuple(ranked[1:]), reason)


def apply_top(state: GameState, draw: Draw, top: TopChoice) -> GameState:
    """The top put on the master grid; the reliquat is the rack minus the tiles played; the
    round number moves on; the first top's word is kept (``GameState.first_word``)."""
    left = minus_tiles(draw.rack, top.move.letters)
    if left is None:
        raise DuplicateError(
            f"Le top {top.ref} {top.word} utilise des lettres absentes du tirage {draw.rack}."
        )
    board = state.board
    first_word = state.first_word or (top.word if board.is_empty() else "")
    top.move.placement.apply(board)
    return replace(
        state,
        board_cgp=board.to_cgp(),
        reliquat=left,
        round_no=state.round_no + 1,
        tops_total=state.tops_total + top.score,
        first_word=first_word,
    )


# --- bulletins ------------------------------------------------------------------------------
class RaccordLetter(NamedTuple):
    """A raccord letter copied where it stands on the grid (S1 4.3.1): ``dx`` squares to the
    right of the word's first letter (negative: to its left), ``dy`` squares below it
    (negative: above). Written ``R@+1,0`` on the bulletin line (docs/DUPLICATE.md)."""

    letter: str
    dx: int
    dy: int

    def notation(self) -> str:
        def signed(v: int) -> str:
            return f"{v:+d}" if v else "0"

        return f"{self.letter}@{signed(self.dx)},{signed(self.dy)}"


#: the bulletin's mark for a word written downwards (S1 5.3.1 a, « dans le même sens que
#: celui où il est écrit sur le bulletin »); ``↓`` is read the same
VERTICAL_MARK = "(vertical)"
_VERTICAL_MARKS = frozenset({VERTICAL_MARK, "↓"})
#: ``R@+1,0`` (coordinates up to two digits; the spaces a mail may put around ``@`` and the
#: comma are closed up before the line is split)
_PLACED_RE = re.compile(r"^([A-Za-z])@([+-]?\d{1,2}),([+-]?\d{1,2})$")
_PLACED_SPACES_RE = re.compile(r"\s*@\s*([+-]?\d{1,2})\s*[,;]\s*(?=[+-]?\d)")


@dataclass(frozen=True)
class Bulletin:
    """One player's answer for a round: the word (canonical, joker lowercase), an
    alphanumeric ``ref`` and/or raccord letters (uppercase): ``raccord`` a straight run of
    grid letters (``MEN``), ``raccord_at`` letters at their places relative to the word's
    first letter (``R@+1,0 M@+3,0 O@+1,+1``); the claimed score. ``vertical``: the word is
    written downwards on the bulletin (:data:`VERTICAL_MARK`)."""

    player: str
    word: str
    ref: str | None = None
    raccord: str | None = None
    claimed: int | None = None
    received_at: datetime | None = None
    #: further solutions written on the same bulletin (S1 5.6), ``A / B`` on the line
    alternatives: tuple[Bulletin, ...] = ()
    #: raccord letters copied where they stand (S1 4.3.1), in the order written
    raccord_at: tuple[RaccordLetter, ...] = ()
    #: the word is written downwards (S1 4.2.2 « de haut en bas »); False: on one line. The
    #: direction a wrong or absent reference's places are looked for in (S1 5.3.1 a)
    vertical: bool = False

    @property
    def raccord_text(self) -> str | None:
        """The raccord as written in either form (for messages), None without one."""
        if self.raccord_at:
            return " ".join(r.notation() for r in self.raccord_at)
        return self.raccord

    def to_text(self) -> str:
        mark = VERTICAL_MARK if self.vertical else None
        parts = [p for p in (mark, self.ref, self.raccord_text, self.word) if p]
        if self.claimed is not None:
            parts.append(str(self.claimed))
        return " / ".join([" ".join(parts), *(a.to_text() for a in self.alternatives)])


#: the most digits a written score may have (a Duplicate move scores well under 10,000)
MAX_SCORE_DIGITS = 4


def is_number(token: str) -> bool:
    """ASCII digits only: ``str.isdigit`` also takes « ² » or « ٣ », which ``int`` refuses
    or reads as another number."""
    return token.isascii() and token.isdigit()


def score_error(token: str) -> str | None:
    """A French reason when a written number is too long to be a score, else None."""
    if len(token) > MAX_SCORE_DIGITS:
        shown = token if len(token) <= 12 else f"{token[:12]}…"
        return f"Score « {shown} » : au plus {MAX_SCORE_DIGITS} chiffres."
    return None


def _is_ref(token: str) -> bool:
    if not token.isascii():
        return False
    if not any(ch.isdigit() for ch in token) or not any(ch.isalpha() for ch in token):
        return False
    try:
        parse_ref(token)
    except EngineError:
        return False
    return True


def parse_bulletin(
    text: str, *, player: str = "", received_at: datetime | None = None
) -> Bulletin | list[str]:
    """Read one line: an optional reference (``H4`` horizontal, ``4H`` vertical), optional
    raccord letters (a straight run before the word, or letters at their places
    ``LETTER@dx,dy``), the word (joker in lowercase, in parentheses or followed by 0), the
    claimed score, and :data:`VERTICAL_MARK` for a word written downwards — e.g.
    ``H4 RESTAIt 70``, ``4H RESTAIt 70``, ``MEN PROMENERAI 72``,
    ``R@+1,0 M@+3,0 O@+1,+1 KRUMPS 24``, ``(vertical) MEN PROMENERAI 72``. Returns a list of
    French errors when the line cannot be read."""
    if "/" in text:
        parts = text.split("/")
        parsed = [parse_bulletin(p, player=player, received_at=received_at) for p in parts]
        part_errors = [e for p in parsed if isinstance(p, list) for e in p]
        if part_errors:
            return part_errors
        sols = [p for p in parsed if isinstance(p, Bulletin)]
        scores = {b.claimed for b in sols if b.claimed is not None}
        if len(scores) == 1:  # one score written for all the solutions
            sols = [replace(b, claimed=next(iter(scores))) for b in sols]
        return replace(sols[0], alternatives=tuple(sols[1:]))
    tokens = close_placed_spaces(text).split()
    if not tokens:
        return ["Bulletin vide : écrivez la référence, le mot et le score (ex. « H4 RESTAIt 70 »)."]
    errors: list[str] = []
    ref: str | None = None
    claimed: int | None = None
    words: list[str] = []
    placed: list[RaccordLetter] = []
    vertical = False
    for tok in tokens:
        if tok.lower() in _VERTICAL_MARKS:
            vertical = True
        elif "@" in tok:
            letter = _placed_letter(tok, placed)
            if isinstance(letter, str):
                errors.append(letter)
            else:
                placed.append(letter)
        elif is_number(tok):
            too_long = score_error(tok)
            if too_long:
                errors.append(too_long)
                continue
            if claimed is not None:
                errors.append(f"Deux scores sur le bulletin : {claimed} et {tok}.")
            claimed = int(tok)
        elif _is_ref(tok):
            if ref is not None:
                errors.append(f"Deux références sur le bulletin : {ref} et {tok}.")
            ref = format_ref(parse_ref(tok))
        else:
            try:
                words.append(parse_word(tok))
            except EngineError:
                errors.append(f"« {tok} » n'est ni une référence (H4, 4H), ni un mot, ni un score.")
    if not words and not errors:
        errors.append("Le mot joué manque.")
    if len(words) > 2:
        errors.append(
            f"Trop de mots ({', '.join(words)}) : écrivez au plus le raccord puis le mot joué."
        )
    raccord: str | None = None
    if len(words) == 2:
        raccord = words[0].upper()
        if len(raccord) < 2:
            errors.append(f"Raccord « {raccord} » : trois lettres de raccord au minimum.")
    if placed and not errors:
        errors.extend(_placed_errors(placed, raccord, words[-1] if words else None))
    if errors:
        return errors
    return Bulletin(
        player, words[-1], ref, raccord, claimed, received_at,
        raccord_at=tuple(placed), vertical=vertical,
    )


def close_placed_spaces(text: str) -> str:
    """``text`` with the spaces a mail puts in a placed raccord letter closed up (``R @ +1 ,
    0`` → ``R@+1,0``, ``;`` for the comma), so that it is one token."""
    return _PLACED_SPACES_RE.sub(r"@\1,", text)


#: a ``+`` that separates (the Tactique's two words), not the sign of an offset (``@+1``,
#: ``,+1``)
PLUS_SEPARATOR_RE = re.compile(r"(?<![@,])\+")


def _placed_letter(tok: str, placed: Sequence[RaccordLetter]) -> RaccordLetter | str:
    """One ``LETTER@dx,dy`` token, or the French reason it cannot be read."""
    m = _PLACED_RE.match(tok)
    if m is None:
        return (
            f"« {tok} » : une lettre de raccord à sa place s'écrit LETTRE@colonnes,lignes "
            "comptées depuis la première lettre du mot (ex. « O@+1,+1 » : une case à droite, "
            "une case plus bas)."
        )
    letter = RaccordLetter(m.group(1).upper(), int(m.group(2)), int(m.group(3)))
    if max(abs(letter.dx), abs(letter.dy)) >= SIZE:
        return f"« {tok} » : la lettre de raccord tombe hors de la grille."
    same = next((p for p in placed if (p.dx, p.dy) == (letter.dx, letter.dy)), None)
    if same is not None:
        return (
            f"« {tok} » : la case {letter.notation()[2:]} porte déjà la lettre de raccord "
            f"{same.letter}."
        )
    return letter


def _placed_errors(
    placed: Sequence[RaccordLetter], raccord: str | None, word: str | None
) -> list[str]:
    """What is wrong with a whole raccord written letter by letter (S1 4.3.1)."""
    errors: list[str] = []
    if raccord is not None:
        errors.append(
            f"Raccord écrit de deux façons ({raccord} et {placed[0].notation()}) : écrivez "
            "soit les lettres suivies avant le mot, soit chaque lettre à sa place."
        )
    elif len(placed) < 2:
        errors.append(
            f"Raccord « {placed[0].notation()} » : trois lettres de raccord au minimum."
        )
    origin = next((p for p in placed if (p.dx, p.dy) == (0, 0)), None)
    if origin is not None and word and origin.letter != word[0].upper():
        errors.append(
            f"« {origin.notation()} » : la case 0,0 est celle de la première lettre du mot "
            f"({word[0].upper()}), pas {origin.letter}."
        )
    return errors


# --- correction -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Verdict:
    """The correction of one bulletin (RULES §4.7).

    ``score``: points credited for the move (after a 5-point penalty); ``solo``: the solo
    bonus (set by :func:`apply_solos`); ``warnings``: 0 or 1 (one per bulletin at most).
    ``ref``/``word``: the placement as credited (None when none is).
    """

    player: str
    score: int
    kind: VerdictKind
    warnings: int = 0
    reason_fr: str = ""
    ref: str | None = None
    word: str | None = None
    solo: int = 0

    def to_text(self) -> str:
        """The verdict's line in ``arbitre duplicate replay``'s text output."""
        place = f" {self.ref or '?'} {self.word}" if self.word else ""
        solo = f" + solo {self.solo}" if self.solo else ""
        return f"  {self.player} : {self.score}{solo} [{self.kind}]{place} — {self.reason_fr}"


@dataclass
class RoundContext:
    """Everything :func:`correct` needs per round, computed once for all bulletins."""

    board: Board
    rack: str
    config: GameConfig
    round_no: int
    top_score: int
    moves_by_word: dict[str, list[GeneratedMove]] = field(default_factory=dict)
    #: ``DuplicateSettings.penalty_points``
    penalty_points: int = 5
    #: the number of letters of the game's first word (``GameState.first_word``); None when
    #: the state does not know it (stored before it was kept)
    first_word_len: int | None = None
    #: ``DuplicateSettings.ambiguous_reference``
    ambiguous_reference: AmbiguousReference = "penalty"
    #: the round's extensions of grid words by the letters they put down (built on first use)
    _extensions: dict[str, list[GeneratedMove]] | None = field(default=None, repr=False)

    def two_letter_first_word(self) -> bool:
        """« sauf si le mot joué au premier coup ne comporte que deux lettres » (S1 5.2): the
        first word had two letters; a state that does not know it tells it by a grid of
        fewer than three letters (then it did)."""
        if self.first_word_len is not None:
            return self.first_word_len == 2
        return self.board.tile_count < 3

    def extensions(self, letters: str) -> list[GeneratedMove]:
        """The round's moves that extend a word already on the grid (:func:`extension_span`)
        by exactly ``letters`` (case ignored), in word order."""
        if self._extensions is None:
            index: dict[str, list[GeneratedMove]] = {}
            for moves in self.moves_by_word.values():
                for m in moves:
                    if extension_span(m) is not None:
                        index.setdefault(added_letters(m).upper(), []).append(m)
            self._extensions = index
        return self._extensions.get(letters.upper(), [])


def prepare_round(
    state: GameState,
    rack: str,
    config: GameConfig,
    *,
    round_no: int,
    top_score: int,
    settings: DuplicateSettings | None = None,
) -> RoundContext:
    """Generate the round's legal moves once (indexed by word, uppercase) for
    :func:`correct`."""
    board = state.board
    cfg = round_config(config, board, settings) if round_no == 1 or board.is_empty() else config
    by_word: dict[str, list[GeneratedMove]] = {}
    for m in movegen.generate(board, rack, cfg):
        by_word.setdefault(m.word.upper(), []).append(m)
    s = settings or DuplicateSettings()
    return RoundContext(
        board,
        rack,
        cfg,
        round_no,
        top_score,
        by_word,
        penalty_points=s.penalty_points,
        first_word_len=len(state.first_word) if state.first_word else None,
        ambiguous_reference=s.ambiguous_reference,
    )


def added_letters(move: GeneratedMove) -> str:
    """The letters ``move`` puts down, in word order (a joker as its lowercase letter)."""
    return "".join(ch for i, ch in enumerate(move.word) if move.new_mask >> i & 1)


def extension_span(move: GeneratedMove) -> tuple[int, int] | None:
    """``(i, j)`` when ``move`` extends a word already on the grid (S1 4.2.2, 4.3.2
    « prolongation »): letters ``i`` to ``j − 1`` of its main word were on the grid — two or
    more, a word — and every letter put down is at one end of them or both; None
    otherwise (a word through a single grid letter extends no word)."""
    n = len(move.word)
    new = [bool(move.new_mask >> k & 1) for k in range(n)]
    i = 0
    while i < n and new[i]:
        i += 1
    j = n
    while j > i and new[j - 1]:
        j -= 1
    if j - i < 2 or any(new[i:j]) or (i == 0 and j == n):
        return None
    return i, j


def marks_match(move: GeneratedMove, written: str, board: Board) -> bool:
    """The joker circles of ``written`` are right for ``move``: a lowercase letter exactly
    where the move puts a joker down, uppercase elsewhere (a letter already on the grid,
    joker or not, is written uppercase: circling it is a warning, RULES §4.7.2)."""
    if len(written) != len(move.word):
        return False
    for i, (have, wrote) in enumerate(zip(move.word, written, strict=True)):
        if move.new_mask >> i & 1:
            if have != wrote:
                return False
        elif wrote.islower():
            return False
    return True


def _neighbours(sq: int) -> Iterable[int]:
    r, c = divmod(sq, SIZE)
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE:
            yield (r + dr) * SIZE + c + dc


def placed_raccord_fits(
    board: Board, move: GeneratedMove, letters: Sequence[RaccordLetter]
) -> bool:
    """Each of ``letters`` stands on the grid at its place relative to the first square of
    ``move`` and is a raccord letter (S1 4.3.1): « soit faire partie du mot joué ; soit être
    adjacente par un de ses côtés à une des lettres du mot formé ; soit être adjacente par un
    de ses côtés à une lettre elle-même lettre de raccord »."""
    r0, c0 = divmod(move.start, SIZE)
    squares: set[int] = set()
    for x in letters:
        r, c = r0 + x.dy, c0 + x.dx
        if not (0 <= r < SIZE and 0 <= c < SIZE):
            return False
        on_grid = board[r * SIZE + c]
        if not on_grid or on_grid.upper() != x.letter.upper():
            return False
        squares.add(r * SIZE + c)
    word = set(word_squares(move))
    # the letters in the word or touching it, then those touching one of them, and so on
    reached = {sq for sq in squares if sq in word or any(n in word for n in _neighbours(sq))}
    frontier = list(reached)
    while frontier:
        for n in _neighbours(frontier.pop()):
            if n in squares and n not in reached:
                reached.add(n)
                frontier.append(n)
    return len(reached) == len(squares)


def placed_runs(letters: Sequence[RaccordLetter]) -> list[tuple[RaccordLetter, ...]]:
    """The runs of three or more letters of ``letters`` on consecutive squares of one row or
    column, shorter than the whole (S1 5.2: « le raccord correct doit cependant être composé
    de trois lettres consécutives ou plus »)."""
    at = {(x.dx, x.dy): x for x in letters}
    runs: list[tuple[RaccordLetter, ...]] = []
    for x in letters:
        for ddx, ddy in ((1, 0), (0, 1)):
            run = [x]
            while (run[-1].dx + ddx, run[-1].dy + ddy) in at:
                run.append(at[(run[-1].dx + ddx, run[-1].dy + ddy)])
                if 3 <= len(run) < len(letters):
                    runs.append(tuple(run))
    return runs


def raccord_fits(
    board: Board, move: GeneratedMove, raccord: str | Sequence[RaccordLetter]
) -> bool:
    """``raccord`` is a straight run of letters already on the grid, read left to right or
    top to bottom, one of which is part of the played word or side-adjacent to it (so every
    letter of the run meets RULES §4.3.1 through its neighbour); or letters at their places
    (:func:`placed_raccord_fits`)."""
    if not isinstance(raccord, str):
        return placed_raccord_fits(board, move, raccord)
    n = len(raccord)
    target = raccord.upper()
    zone: set[int] = set()
    for sq in word_squares(move):
        r, c = divmod(sq, SIZE)
        zone.add(sq)
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE:
                zone.add((r + dr) * SIZE + c + dc)
    for horizontal in (True, False):
        step = 1 if horizontal else SIZE
        for sq in zone:
            if not board[sq] or board[sq].upper() not in target:
                continue
            r, c = divmod(sq, SIZE)
            pos = c if horizontal else r
            for back in range(n):
                first = pos - back
                if first < 0 or first + n > SIZE:
                    continue
                start = sq - back * step
                cells = [board[start + i * step] for i in range(n)]
                if all(cells) and "".join(cells).upper() == target:
                    return True
    return False


def raccord_holds(board: Board, raccord: str, squares: Sequence[int]) -> bool:
    """``raccord`` is a straight run of grid letters (left to right or top to bottom) that
    covers every square of ``squares`` (the played word's letters next to its extensions,
    S1 4.3.2 « la lettre du mot joué attenante à la prolongation … doit être écrite »)."""
    n = len(raccord)
    target = raccord.upper()
    if not squares or n == 0:
        return False
    r, c = divmod(squares[0], SIZE)
    for horizontal in (True, False):
        step = 1 if horizontal else SIZE
        pos = c if horizontal else r
        for back in range(n):
            first = pos - back
            if first < 0 or first + n > SIZE:
                continue
            cells = [squares[0] + (k - back) * step for k in range(n)]
            if not all(sq in cells for sq in squares) or not all(board[sq] for sq in cells):
                continue
            if "".join(board[sq] for sq in cells).upper() == target:
                return True
    return False


def _forms_bad_word(board: Board, ref: str, word: str, config: GameConfig) -> str | None:
    """The non-admitted word made by writing ``word`` at ``ref`` (RULES §4.4), if any."""
    verdict = check_move(board, ref, word, config)
    if verdict.geometry_ok and verdict.invalid_words:
        return verdict.invalid_words[0].upper()
    return None


def _zero_reason(ctx: RoundContext, b: Bulletin) -> str:
    word = b.word.upper()
    lex = ctx.config.lexicon
    if lex is not None and word not in lex:
        return f"Nul : le mot {word} n'est pas admis."
    if b.ref is not None:
        verdict = check_move(ctx.board, b.ref, b.word, ctx.config)
        if verdict.invalid_words:
            return (
                f"Nul : {word} en {b.ref} forme le mot non admis "
                f"{verdict.invalid_words[0].upper()}."
            )
        if verdict.placement is not None and verdict.geometry_ok:
            used = "".join("?" if t.joker else t.letter for t in verdict.placement.tiles)
            if minus_tiles(ctx.rack, used) is None:
                return f"Nul : {word} en {b.ref} demande des lettres absentes du tirage {ctx.rack}."
        elif verdict.reasons:
            return f"Nul : {word} en {b.ref} — {verdict.reasons[0]}"
    return f"Nul : le mot {word} ne peut être placé sur la grille avec le tirage {ctx.rack}."


def _describe(m: GeneratedMove) -> tuple[str, str]:
    return format_ref(m.ref), m.word


def correct(
    state: GameState,
    rack: str,
    bulletin: Bulletin | None,
    config: GameConfig,
    *,
    round_no: int,
    top_score: int,
    context: RoundContext | None = None,
    player: str = "",
) -> Verdict:
    """Correct one bulletin (RULES §4.7): validity, then zero causes, then 5-point penalty
    causes (from round 2), then warnings; one sanction, the most severe. None: absent.

    ``state`` is the state in play (board before the top). Pass ``context`` (from
    :func:`prepare_round`) to correct many bulletins of one round."""
    who = bulletin.player if bulletin is not None and bulletin.player else player
    if bulletin is None:
        return Verdict(who, 0, "absent", reason_fr="Pas de bulletin : zéro.")
    ctx = context or prepare_round(state, rack, config, round_no=round_no, top_score=top_score)
    solutions = (bulletin, *bulletin.alternatives)
    return retain_solution([_correct_one(ctx, b, who) for b in solutions],
                           [b.claimed for b in solutions])


def retain_solution(verdicts: Sequence[Verdict], claimed: Sequence[int | None]) -> Verdict:
    """S1 5.6: of several solutions on one bulletin (``verdicts[i]`` the correction of the
    solution whose written score is ``claimed[i]``), the one whose score is exactly the
    claimed one, else the lowest-scoring non-null one; its reason says so."""
    if len(verdicts) == 1:
        return verdicts[0]
    exact = [
        v
        for v, c in zip(verdicts, claimed, strict=True)
        if v.kind == "valide" and v.score == c
    ]
    non_null = [v for v in verdicts if v.kind not in ("nul", "absent")]
    chosen = (
        exact[0] if exact else min(non_null, key=lambda v: v.score) if non_null else verdicts[0]
    )
    if chosen.kind == "nul":
        note = f"{len(verdicts)} solutions sur le bulletin, aucune n'est valable. "
    else:
        note = f"{len(verdicts)} solutions sur le bulletin ; retenue : {chosen.ref} {chosen.word}. "
    return replace(chosen, reason_fr=note + chosen.reason_fr)


def _normalise(b: Bulletin) -> Bulletin | str:
    """The bulletin in canonical form (word via :func:`parse_word`, reference formatted, an
    unreadable reference dropped: « illisible » counts as absent, S1 5.3.1); a French zero
    reason when the word cannot be read."""
    try:
        word = parse_word(b.word)
    except EngineError:
        return f"Nul : mot illisible « {b.word} »."
    ref: str | None = None
    if b.ref:
        try:
            ref = format_ref(parse_ref(b.ref))
        except EngineError:
            ref = None
    raccord = b.raccord.upper() if b.raccord and b.raccord.isalpha() else None
    placed = tuple(
        RaccordLetter(x.letter.upper(), x.dx, x.dy) for x in b.raccord_at if x.letter.isalpha()
    )
    return replace(b, word=word, ref=ref, raccord=raccord, raccord_at=placed)


def _correct_one(ctx: RoundContext, raw: Bulletin, who: str) -> Verdict:
    """One solution of a bulletin (see :func:`correct`)."""
    norm = _normalise(raw)
    if isinstance(norm, str):
        return Verdict(who, 0, "nul", reason_fr=norm)
    bulletin = norm
    written = bulletin.word
    cands = ctx.moves_by_word.get(written.upper(), [])
    if ctx.round_no == 1 or ctx.board.is_empty():
        return _correct_first(ctx, bulletin, who, cands)
    warnings: list[str] = []
    ref = parse_ref(bulletin.ref) if bulletin.ref else None
    # the raccord in either form: a straight run (str) or letters at their places
    raccord: str | tuple[RaccordLetter, ...] | None = bulletin.raccord_at or bulletin.raccord
    horizontal = written_horizontal(bulletin)
    at_ref = [m for m in cands if ref is not None and m.ref == ref]
    by_raccord = [m for m in cands if raccord and raccord_fits(ctx.board, m, raccord)]
    altered = False
    if raccord and not at_ref and not by_raccord and len(raccord) > 3:
        # S1 5.2: an altered raccord letter is a warning « le raccord correct doit cependant
        # être composé de trois lettres consécutives ou plus »: some run of 3 or more
        # consecutive letters of the written raccord must locate the word by itself
        n = len(raccord)
        runs: Sequence[str | tuple[RaccordLetter, ...]] = (
            list({raccord[i:j] for i in range(n) for j in range(i + 3, n + 1) if j - i < n})
            if isinstance(raccord, str)
            else placed_runs(raccord)
        )
        by_raccord = [m for m in cands if any(raccord_fits(ctx.board, m, r) for r in runs)]
        altered = bool(by_raccord)
    raccord_s = bulletin.raccord_text
    if at_ref:
        confirmed = bool(raccord) and any(m in by_raccord for m in at_ref)
        if raccord and not confirmed:
            warnings.append(
                f"raccord {raccord_s} incorrect (la référence {bulletin.ref} est juste)"
            )
        if not confirmed:
            ambiguous = _ambiguous_reference(ctx, bulletin, who, cands, at_ref, horizontal)
            if ambiguous is not None:
                return ambiguous
        return _score_located(ctx, bulletin, who, at_ref, warnings)
    extension = _extension_reading(ctx, bulletin)
    if by_raccord and extension and bulletin.claimed is not None:
        # the written letters are a word the raccord locates, and also an extension it
        # locates (MENERAI PRO: PRO across the R, or PROMENERAI): the score decides between
        # the two readings (S1 4.3.3), the whole word when it does not
        claimed = bulletin.claimed
        if any(m.score == claimed for m in extension) and not any(
            m.score == claimed for m in by_raccord
        ):
            by_raccord = []
    if by_raccord:
        # S1 4.2.2: a word that extends a grid word is located by its raccord, « il n'est
        # donc pas tenu compte, dans ce cas, de l'indication alphanumérique »
        extends = all(extension_span(m) is not None for m in by_raccord)
        if bulletin.ref is not None and not extends:
            bad = _forms_bad_word(ctx.board, bulletin.ref, written, ctx.config)
            if bad is not None:
                return _bad_word_zero(who, bulletin.ref, bad)
            warnings.append(f"référence {bulletin.ref} erronée (le raccord {raccord_s} est juste)")
        if altered:
            warnings.append(f"lettre de raccord altérée ({raccord_s})")
        warnings.extend(_raccord_length(ctx, raccord))
        return _score_located(ctx, bulletin, who, by_raccord, warnings)
    if extension:
        # S1 4.3.2: the extension written alone, located by its raccord, judged like the
        # whole word; the alphanumeric reference does not count (S1 4.2.2)
        warnings.extend(_raccord_length(ctx, raccord))
        return _score_located(
            ctx, bulletin, who, extension, warnings, marks=lambda m: added_letters(m) == written
        )
    if ref is not None and bulletin.ref is not None:
        inverted = [m for m in cands if m.ref == Ref(ref.row, ref.col, not ref.horizontal)]
        # the reference read in the direction the word is written in: laying the (admitted)
        # word across a non-word there is a zero (S1 4.4), never a fallback to another place
        lex = ctx.config.lexicon
        bad = (
            _forms_bad_word(ctx.board, bulletin.ref, written, ctx.config)
            if ref.horizontal == horizontal and (lex is None or written.upper() in lex)
            else None
        )
        if inverted and bad is None:
            warnings.append(f"sens de la référence {bulletin.ref} inversé")
            return _score_located(ctx, bulletin, who, inverted, warnings)
        if bad is not None:
            return _bad_word_zero(who, bulletin.ref, bad)
    if not cands:
        return _penalty_last_letter(ctx, bulletin, who) or Verdict(
            who, 0, "nul", reason_fr=_zero_reason(ctx, bulletin)
        )
    return _penalty_last_letter(ctx, bulletin, who) or _penalty_or_zero(
        ctx, bulletin, who, cands, horizontal
    )


def written_horizontal(b: Bulletin) -> bool:
    """The direction the word is written in on the bulletin (S1 5.3.1 « dans le même sens
    que celui où il est écrit sur le bulletin »): downwards with ``vertical``; on one line,
    the reference's direction when one is written (a line shows no other), else
    horizontal."""
    if b.vertical:
        return False
    if b.ref:
        try:
            return parse_ref(b.ref).horizontal
        except EngineError:
            return True
    return True


def _bad_word_zero(who: str, ref: str, bad: str) -> Verdict:
    return Verdict(who, 0, "nul", reason_fr=f"Nul : en {ref}, le mot forme le mot non admis {bad}.")


def _raccord_length(
    ctx: RoundContext, raccord: str | tuple[RaccordLetter, ...] | None
) -> list[str]:
    """S1 5.2 « À partir du deuxième coup (sauf si le mot joué au premier coup ne comporte
    que deux lettres), raccord de deux lettres au lieu de trois »: the warning, if due
    (the raccord in either form: a straight run or letters at their places)."""
    if raccord and len(raccord) == 2 and not ctx.two_letter_first_word():
        shown = raccord if isinstance(raccord, str) else " ".join(r.notation() for r in raccord)
        return [f"raccord de deux lettres ({shown}) au lieu de trois"]
    return []


def _extension_reading(ctx: RoundContext, b: Bulletin) -> list[GeneratedMove]:
    """S1 4.3.2 « Les deux seuls cas où le mot joué peut ne pas être écrit en entier » —
    the extension(s) written alone with raccord letters (``AME S``: EXOGAME becomes
    EXOGAMES): the round's moves that extend a grid word by exactly the written letters
    (case ignored: the joker marks are judged later), whose raccord holds the played word's
    letter next to each extension (a straight run, :func:`raccord_holds`)."""
    raccord = b.raccord
    if not raccord or len(raccord) < 2:
        return []
    found: list[GeneratedMove] = []
    for m in ctx.extensions(b.word):
        span = extension_span(m)
        assert span is not None
        i, j = span
        squares = word_squares(m)
        need = ([squares[i]] if i > 0 else []) + ([squares[j - 1]] if j < len(m.word) else [])
        if raccord_holds(ctx.board, raccord, need):
            found.append(m)
    return found


def _score_located(
    ctx: RoundContext,
    b: Bulletin,
    who: str,
    located: list[GeneratedMove],
    warnings: list[str],
    *,
    marks: Callable[[GeneratedMove], bool] | None = None,
) -> Verdict:
    """The reference is settled (``located``: the placements it allows): joker marks and
    score (RULES §4.3.3, §4.7.2, §4.7.6). ``marks``: the joker marks are right for a move
    (default: :func:`marks_match` of the written word)."""
    right = marks or (lambda m: marks_match(m, b.word, ctx.board))
    exact = [m for m in located if right(m)]
    pool = exact or located
    if not exact:
        warnings.append("joker mal entouré ou non entouré")
    matching = [m for m in pool if m.score == b.claimed]
    if matching:
        chosen = min(matching, key=lambda m: (m.ref, m.word))
    else:
        chosen = min(pool, key=lambda m: (m.score, m.ref, m.word))
        if b.claimed is None:
            warnings.append(f"score absent ({chosen.score} points attribués)")
        elif len({m.score for m in pool}) > 1:
            warnings.append(
                f"score {b.claimed} faux et placement incertain : score minimum "
                f"{chosen.score} attribué"
            )
        else:
            warnings.append(f"score {b.claimed} faux, score exact {chosen.score}")
    return _valid(who, chosen, warnings)


def _valid(who: str, m: GeneratedMove, warnings: list[str]) -> Verdict:
    ref, word = _describe(m)
    if warnings:
        text = "Avertissement : " + " ; ".join(dict.fromkeys(warnings)) + "."
        return Verdict(who, m.score, "avertissement", 1, text, ref, word)
    return Verdict(who, m.score, "valide", 0, "Valide.", ref, word)


def _correct_first(ctx: RoundContext, b: Bulletin, who: str, cands: list[GeneratedMove]) -> Verdict:
    """Round 1: no reference needed; the word scores its most advantageous (horizontal)
    placement; with unclear joker marks the score decides, else the least advantageous joker
    position (RULES §4.7.2, §4.7.6)."""
    if not cands:
        return Verdict(who, 0, "nul", reason_fr=_zero_reason(ctx, b))
    warnings: list[str] = []
    # among equally advantageous placements, the one the player wrote (a Tactique's second
    # word is judged on the grid this first word leaves), else the leftmost
    written = parse_ref(b.ref) if b.ref else None

    def preferred(m: GeneratedMove) -> tuple[int, bool, int]:
        return (m.score, m.ref == written, -m.start)

    exact = [m for m in cands if marks_match(m, b.word, ctx.board)]
    if exact:
        chosen = max(exact, key=preferred)
    else:
        warnings.append("joker mal entouré ou non entouré")
        best_by_marks: dict[str, GeneratedMove] = {}
        for m in cands:
            cur = best_by_marks.get(m.word)
            if cur is None or preferred(m) > preferred(cur):
                best_by_marks[m.word] = m
        options = list(best_by_marks.values())
        matching = [m for m in options if m.score == b.claimed]
        chosen = matching[0] if matching else min(options, key=lambda m: (m.score, m.word))
    if b.claimed != chosen.score:
        if b.claimed is None:
            warnings.append(f"score absent ({chosen.score} points attribués)")
        else:
            warnings.append(f"score {b.claimed} faux, score exact {chosen.score}")
    return _valid(who, chosen, warnings)


def _penalty_or_zero(
    ctx: RoundContext, b: Bulletin, who: str, cands: list[GeneratedMove], horizontal: bool
) -> Verdict:
    """No reference mode locates the word: 5-point penalty when the claimed score matches a
    placement in the direction the word is written in (RULES §4.7.3 (a), S1 5.3.1 « et ce
    dans le même sens que celui où il est écrit sur le bulletin », G5), else zero (§4.7.4)."""
    same_dir = [m for m in cands if m.horizontal == horizontal]
    matching = [m for m in same_dir if m.score == b.claimed]
    what = "référence erronée" if (b.ref or b.raccord_text) else "référence absente ou illisible"
    if b.claimed is not None and matching:
        return _penalty(ctx, b, who, matching, what)
    sense = "horizontalement" if horizontal else "verticalement"
    other = [m for m in cands if m.horizontal != horizontal and m.score == b.claimed]
    note = (
        f" (il correspond à un emplacement {'vertical' if horizontal else 'horizontal'}, mais "
        "le mot n'est pas écrit dans ce sens)"
        if b.claimed is not None and other
        else ""
    )
    return Verdict(
        who,
        0,
        "nul",
        reason_fr=f"Nul : {what} et le score {b.claimed if b.claimed is not None else '(absent)'} "
        f"ne correspond à aucun emplacement du mot écrit {sense}{note}.",
    )


def _penalty(
    ctx: RoundContext, b: Bulletin, who: str, matching: list[GeneratedMove], what: str
) -> Verdict:
    """The claimed score (that of ``matching``, the valid places it fits) less the penalty,
    never below 0."""
    assert b.claimed is not None
    penalty = ctx.penalty_points
    places = {m.ref for m in matching}
    m = min(matching, key=lambda x: (x.ref, x.word))
    ref_s, word = _describe(m) if len(places) == 1 else (None, m.word)
    note = "" if len(places) == 1 else f" ({len(places)} emplacements possibles)"
    return Verdict(
        who,
        _less_penalty(b.claimed, penalty),
        "penalite5",
        0,
        f"Pénalité de {penalty} points : {what}, le score {b.claimed} correspond à un "
        f"emplacement valable{note}{_floor_note(b.claimed, penalty)}.",
        ref_s,
        word,
    )


def _less_penalty(score: int, penalty: int) -> int:
    """A penalty never credits a negative score (RULES §4.7.3)."""
    return max(0, score - penalty)


def _floor_note(score: int, penalty: int) -> str:
    return f" ; {score} − {penalty} ramené à 0" if score < penalty else ""


def _ambiguous_reference(
    ctx: RoundContext,
    b: Bulletin,
    who: str,
    cands: list[GeneratedMove],
    at_ref: list[GeneratedMove],
    horizontal: bool,
) -> Verdict | None:
    """S1 5.3.2 « Référence portée sur le bulletin erronée, mais correspondant à un
    placement techniquement possible »: the reference is a legal place of the word, the
    claimed score is none of its scores but is that of another legal place in the direction
    written. With ``ambiguous_reference="penalty"`` (RULES §4.7.3, G5) the claimed score
    less the penalty; None otherwise (``warning``: the score at the reference, S1 5.2)."""
    if ctx.ambiguous_reference != "penalty" or b.claimed is None:
        return None
    if any(m.score == b.claimed for m in at_ref):
        return None
    here = at_ref[0].ref
    elsewhere = [
        m for m in cands if m.ref != here and m.horizontal == horizontal and m.score == b.claimed
    ]
    if not elsewhere:
        return None
    scores = " ou ".join(str(x) for x in sorted({m.score for m in at_ref}))
    what = f"référence {b.ref} ambiguë (le mot s'y place pour {scores} points)"
    return _penalty(ctx, b, who, elsewhere, what)


def _penalty_last_letter(ctx: RoundContext, b: Bulletin, who: str) -> Verdict | None:
    """RULES §4.7.3 (b): the last letter missing or altered while it is already on the grid,
    and the score of the whole word claimed."""
    if b.claimed is None:
        return None
    w = b.word.upper()
    options: list[GeneratedMove] = []
    for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        for full in (w + letter, w[:-1] + letter if len(w) > 1 and letter != w[-1] else ""):
            if not full:
                continue
            for m in ctx.moves_by_word.get(full, []):
                last_on_grid = not (m.new_mask >> (len(m.word) - 1) & 1)
                ref_ok = b.ref is None or format_ref(m.ref) == b.ref
                if last_on_grid and m.score == b.claimed and ref_ok:
                    options.append(m)
    if not options:
        return None
    m = min(options, key=lambda x: (x.ref, x.word))
    ref_s, word = _describe(m)
    return Verdict(
        who,
        _less_penalty(m.score, ctx.penalty_points),
        "penalite5",
        0,
        f"Pénalité de {ctx.penalty_points} points : dernière lettre du mot {word.upper()} "
        "absente ou modifiée alors qu'elle est déjà sur la grille"
        f"{_floor_note(m.score, ctx.penalty_points)}.",
        ref_s,
        word,
    )


def correct_all(
    state: GameState,
    rack: str,
    bulletins: Mapping[str, Bulletin | str | None],
    config: GameConfig,
    *,
    round_no: int,
    top_score: int,
    settings: DuplicateSettings,
    n_players: int | None = None,
) -> list[Verdict]:
    """Correct one round for every player (text bulletins parsed; an unreadable one is
    zero with its errors), then the solos. Players in ``bulletins`` order."""
    ctx = prepare_round(
        state, rack, config, round_no=round_no, top_score=top_score, settings=settings
    )
    out: list[Verdict] = []
    for who, raw in bulletins.items():
        b: Bulletin | list[str] | None
        b = parse_bulletin(raw, player=who) if isinstance(raw, str) else raw
        if isinstance(b, list):
            out.append(
                Verdict(who, 0, "nul", reason_fr="Nul : bulletin illisible — " + " ".join(b))
            )
            continue
        v = correct(
            state,
            rack,
            b,
            config,
            round_no=round_no,
            top_score=top_score,
            context=ctx,
            player=who,
        )
        out.append(v)
    return apply_solos(out, n_players if n_players is not None else len(out), settings)


# --- solos and ranking ----------------------------------------------------------------------
def solo_bonus(n_players: int, settings: DuplicateSettings) -> int:
    """The solo bonus for a field of ``n_players`` (RULES §4.8, G2): ``solo_points`` from
    ``solo_min_players``; below, n − 6 (``auto``, ``n_minus_6``; none for 6 or fewer) or
    nothing (``none``)."""
    if n_players >= settings.solo_min_players:
        return settings.solo_points
    if settings.solo_rule == "none":
        return 0
    return min(settings.solo_points, max(0, n_players - 6))


def apply_solos(
    verdicts: Sequence[Verdict], n_players: int, settings: DuplicateSettings
) -> list[Verdict]:
    """Give the solo bonus to the one player whose credited score beats every other (zeros
    and absents never compete; INFERRED) (RULES §4.8)."""
    bonus = solo_bonus(n_players, settings)
    out = [replace(v, solo=0) for v in verdicts]
    competing = [i for i, v in enumerate(out) if v.kind not in ("nul", "absent") and v.score > 0]
    if bonus <= 0 or not competing:
        return out
    high = max(out[i].score for i in competing)
    best = [i for i in competing if out[i].score == high]
    if len(best) == 1:
        i = best[0]
        out[i] = replace(out[i], solo=bonus)
    return out


@dataclass(frozen=True)
class RoundResult:
    round_no: int
    draw: Draw
    top: TopChoice
    board_cgp: str
    """The master grid after the top."""
    verdicts: tuple[Verdict, ...] = ()


@dataclass(frozen=True)
class StandingRow:
    player: str
    total: int
    percent_of_tops: float
    rank: int
    warnings: int
    penalties: int
    """Number of bulletins with a 5-point penalty."""
    warning_deduction: int = 0
    solos: int = 0
    zeros: int = 0


def warning_deduction(warnings: int, settings: DuplicateSettings) -> int:
    """RULES §4.7.7: each warning from the ``warning_conversion_from``-th costs
    ``warning_penalty_points``."""
    return settings.warning_penalty_points * max(
        0, warnings - (settings.warning_conversion_from - 1)
    )


def interrupted_game_stands(rounds_played: int, settings: DuplicateSettings) -> bool:
    """An interrupted game keeps its results when at least ``interruption_min_rounds``
    rounds were collected (RULES §4.9, G4: 15; 10 for original games); otherwise it is
    void."""
    return rounds_played >= settings.interruption_min_rounds


def rank_game(rounds: Sequence[RoundResult], settings: DuplicateSettings) -> list[StandingRow]:
    """Final ranking (RULES §4.10): move scores + solos − warning conversion (§4.7.7); equal
    totals share a rank (1, 1, 3); ties listed by player name."""
    tops = sum(r.top.score for r in rounds)
    players: dict[str, list[Verdict]] = {}
    for r in rounds:
        for v in r.verdicts:
            players.setdefault(v.player, []).append(v)
    rows: list[StandingRow] = []
    for name, vs in players.items():
        w = sum(v.warnings for v in vs)
        ded = warning_deduction(w, settings)
        total = sum(v.score + v.solo for v in vs) - ded
        pct = round(100.0 * total / tops, 2) if tops else 0.0
        rows.append(
            StandingRow(
                name,
                total,
                pct,
                0,
                w,
                sum(1 for v in vs if v.kind == "penalite5"),
                ded,
                sum(1 for v in vs if v.solo),
                sum(1 for v in vs if v.kind in ("nul", "absent")),
            )
        )
    rows.sort(key=lambda r: (-r.total, r.player))
    ranks = shared_ranks([r.total for r in rows])
    return [replace(r, rank=k) for r, k in zip(rows, ranks, strict=True)]


# --- replay ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReplayResult:
    settings: DuplicateSettings
    rounds: tuple[RoundResult, ...]
    standings: tuple[StandingRow, ...]
    final_state: GameState

    def to_dict(self) -> dict[str, Any]:
        return {
            "settings": asdict(self.settings),
            "rounds": [
                {
                    "round": r.round_no,
                    "draw": r.draw.notation,
                    "rack": r.draw.rack,
                    "rejected": list(r.draw.rejected),
                    "minimum": r.draw.minimum,
                    "top": {
                        "ref": r.top.ref,
                        "word": r.top.word,
                        "score": r.top.score,
                        "ties": len(r.top.ties),
                        "reason": r.top.reason_fr,
                    },
                    "grid": r.board_cgp,
                    "verdicts": [asdict(v) for v in r.verdicts],
                }
                for r in self.rounds
            ],
            "tops_total": self.final_state.tops_total,
            "end_reason": self.final_state.end_reason,
            "standings": [asdict(s) for s in self.standings],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)

    def to_text(self) -> str:
        lines: list[str] = []
        for r in self.rounds:
            minimum = (
                f"minimum {r.draw.minimum} voyelle(s) et {r.draw.minimum} consonne(s)"
                if r.draw.minimum
                else "dernières lettres"
            )
            lines.append(f"Coup {r.round_no} — tirage {r.draw.notation} ({minimum})")
            for rack in r.draw.rejected:
                if rack:
                    lines.append(f"  rejeté : {rack}")
            lines.append(f"  top : {r.top.ref} {r.top.word} {r.top.score} — {r.top.reason_fr}")
            lines.append(f"  grille : {r.board_cgp}")
            lines.extend(v.to_text() for v in r.verdicts)
        lines.append(f"Fin : {self.final_state.end_reason}")
        lines.append(f"Total des tops : {self.final_state.tops_total}")
        if self.standings:
            lines.append("Classement")
            for s in self.standings:
                extra = warnings_note(s.warnings, s.warning_deduction)
                lines.append(f"  {s.rank}. {s.player} {s.total} ({s.percent_of_tops:.2f} %){extra}")
        return "\n".join(lines) + "\n"


def warnings_note(warnings: int, deduction: int) -> str:
    """The warnings of a replay report's ranking line: « , avertissements 4 (−5) » (what the
    conversion took off: points of the total in the Duplicate, ranking points in Duplicate
    Top and the Partie de Superscrabble, RULES §4.7.7 / §5.3); "" without warnings. One
    form for ``arbitre duplicate replay`` on every game."""
    if not warnings:
        return ""
    return f", avertissements {warnings}" + (f" (−{deduction})" if deduction else "")


def game_players(
    data: Mapping[str, Any], bulletins: Mapping[int, Mapping[str, object]]
) -> list[str]:
    """The players of a replayed game: ``players`` of the GAME.json, then anyone who sent a
    bulletin, in round order."""
    players = [str(p) for p in data.get("players") or []]
    for rnd in sorted(bulletins):
        for name in bulletins[rnd]:
            if name not in players:
                players.append(name)
    return players


def initial_state(
    settings: DuplicateSettings, data: Mapping[str, Any], *, draws_example: str,
    bag_as_list: bool = True, empty_draws: bool = True,
) -> tuple[GameState, list[str] | None]:
    """The initial state of a GAME.json and its listed draws (None when the bag order is
    given): exactly one of ``bag``, ``seed``, ``draws``. With ``draws`` the bag is the whole
    set (every draw names its tiles). ``draws_example`` ends the error on a bad ``draws``;
    ``bag_as_list``: a ``bag`` may be a list of tiles; ``empty_draws``: ``draws`` may be
    empty (the game ends before its first round)."""
    given = [k for k in ("bag", "seed", "draws") if k in data]
    if len(given) != 1:
        raise DuplicateError("Partie : donnez exactement une des clés bag, seed ou draws.")
    if "bag" in data:
        bag = data["bag"]
        if bag_as_list and isinstance(bag, list):
            bag = "".join(str(x) for x in bag)
        if not isinstance(bag, str):
            raise DuplicateError("Partie : bag est une chaîne de lettres (? pour un joker).")
        return GameState.initial(settings, bag.replace(" ", "")), None
    if "seed" in data:
        if not isinstance(data["seed"], int):
            raise DuplicateError("Partie : seed est un entier.")
        return GameState.initial(settings, shuffled_bag(settings.lang, data["seed"])), None
    raw = data["draws"]
    if not isinstance(raw, list) or not all(isinstance(d, str) for d in raw) or not (
        raw or empty_draws
    ):
        raise DuplicateError(f"Partie : draws est une liste de tirages ({draws_example}).")
    full = sorted(tileset(settings.lang).bag().elements())
    return GameState.initial(settings, full), list(raw)


def load_game(
    game_json: str | Mapping[str, Any],
) -> tuple[DuplicateSettings, GameState, list[str] | None, dict[str, Any]]:
    """Read a GAME.json (docs/DUPLICATE.md): settings, the initial state, the listed draws
    (None when the bag order is given), the raw mapping."""
    data = read_object(game_json, "Partie", with_line=True)
    known = {"settings", "bag", "seed", "draws", "players", "n_players", "lexicon", "title"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise DuplicateError(f"Partie : clés inconnues {', '.join(unknown)}.")
    settings = DuplicateSettings.from_json(cast(Mapping[str, Any], data.get("settings") or {}))
    state, draws = initial_state(settings, data, draws_example="« RU+ZXTEU »")
    return settings, state, draws, data


DRAWS_USED_UP = "Fin des tirages donnés."


def listed_draws_over(state: GameState, settings: DuplicateSettings, draws: Sequence[str]) -> bool:
    """With listed draws: the list is used up, or ``settings.rounds`` rounds are played."""
    return state.round_no > len(draws) or (
        settings.rounds is not None and state.round_no > settings.rounds
    )


def next_draw(
    state: GameState,
    settings: DuplicateSettings,
    draws: Sequence[str] | None,
    draw_from_bag: Callable[[GameState], tuple[Draw | None, GameState]],
    *,
    rack_size: int = RACK_SIZE,
) -> tuple[Draw | None, GameState]:
    """A replayed round's draw: ``draw_from_bag`` when no draws are listed, else the next
    listed one (:func:`draw_listed`); None and the finished state at the end."""
    if draws is None:
        return draw_from_bag(state)
    if listed_draws_over(state, settings, draws):
        return None, replace(state, finished=True, end_reason=DRAWS_USED_UP)
    return draw_listed(state, settings, draws[state.round_no - 1], rack_size=rack_size)


def no_move_end(state: GameState, rack: str) -> GameState:
    """The finished state when no word can be played with ``rack``."""
    return replace(
        state, finished=True, end_reason=f"Aucun mot ne peut être joué avec le tirage {rack}."
    )


def replay(
    game_json: str | Mapping[str, Any],
    bulletins_by_round: Mapping[int, Mapping[str, str | Bulletin]] | None = None,
    *,
    config: GameConfig | None = None,
) -> ReplayResult:
    """Play a whole game from a GAME.json (docs/DUPLICATE.md) and correct the bulletins:
    per round the draw, the top, every player's verdict (a player of ``players`` or of any
    round without a bulletin that round is absent), the solos; then the ranking."""
    settings, state, draws, data = load_game(game_json)
    cfg = config or GameConfig.default(settings.lang)
    bulletins = bulletins_by_round or {}
    players = game_players(data, bulletins)
    n_players = int(data.get("n_players") or len(players))
    results: list[RoundResult] = []
    while True:
        draw, state = next_draw(
            state, settings, draws, lambda s: draw_round(s, settings, config=cfg)
        )
        if draw is None:
            break
        top = find_top(state, draw.rack, cfg, round_no=state.round_no, settings=settings)
        if top is None:
            state = no_move_end(state, draw.rack)
            break
        round_bulletins = bulletins.get(state.round_no, {})
        sheet: dict[str, Bulletin | str | None] = {p: round_bulletins.get(p) for p in players}
        verdicts = correct_all(
            state,
            draw.rack,
            sheet,
            cfg,
            round_no=state.round_no,
            top_score=top.score,
            settings=settings,
            n_players=n_players,
        )
        after = apply_top(state, draw, top)
        results.append(RoundResult(state.round_no, draw, top, after.board_cgp, tuple(verdicts)))
        state = after
    standings = rank_game(results, settings) if players else []
    return ReplayResult(settings, tuple(results), tuple(standings), state)


def parse_bulletins_file(text: str) -> dict[int, dict[str, str]]:
    """The BULLETINS file of ``arbitre duplicate replay`` (docs/DUPLICATE.md): JSON
    ``{"1": {"alice": "H4 RESTAIt 70"}}`` or lines ``1 alice : H4 RESTAIt 70`` (``#``
    comments). French errors raise :class:`DuplicateError`."""
    stripped = text.strip()
    out: dict[int, dict[str, str]] = {}
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise DuplicateError(f"Bulletins : JSON illisible ({exc.msg}).") from None
        if not isinstance(data, dict):
            raise DuplicateError("Bulletins : un objet JSON est attendu.")
        for key, per in data.items():
            if not str(key).isdigit() or not isinstance(per, dict):
                raise DuplicateError(f"Bulletins : coup « {key} » illisible.")
            out[int(key)] = {str(p): str(t) for p, t in per.items()}
        return out
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        head, sep, body = line.partition(":")
        parts = head.split()
        if not sep or len(parts) != 2 or not parts[0].isdigit():
            raise DuplicateError(
                f"Bulletins, ligne {n} : attendu « COUP JOUEUR : bulletin » "
                f"(ex. « 2 alice : H4 RESTAIt 70 »), lu « {raw.strip()[:60]} »."
            )
        rnd, who = int(parts[0]), parts[1]
        if who in out.setdefault(rnd, {}):
            raise DuplicateError(f"Bulletins, ligne {n} : deux bulletins de {who} au coup {rnd}.")
        out[rnd][who] = body.strip()
    return out
