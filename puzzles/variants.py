"""The Duplicate variants of the FRSc rule book (docs/RULES.md §9, §7.7, §6.1; docs/VARIANTS.md):
Tactique, Duplicate Top, Complétif, Superjoker, Métagramme, Elliptique, the Partie de
Superscrabble. The live Anticipation timetable (:class:`LiveSlot`, :func:`anticipation_minutes`,
:func:`anticipation_schedule`) lives in :mod:`puzzles.rounds` and is re-exported here for
its callers.

Built on :mod:`puzzles.duplicate` by composition: the same game state, draws
(:func:`puzzles.duplicate.draw_round` with another ``rack_size``), top order
(:func:`puzzles.duplicate.rank_moves`), bulletin correction (:func:`puzzles.duplicate.correct`)
and solos. Every rule the sources leave open is a named field of :class:`VariantSettings`
with the default of the RULES §11 gap register. Pure and deterministic.

The tops are searched exactly:

* Complétif / Superjoker / Métagramme: the free letters are generated as jokers, then each
  move is re-scored with the real letter in place of a free joker — a tile at square ``q``
  adds ``value × lm(q) × (wm(main word) + wm(q) if it also makes a cross word)`` — among the
  letters still in the stock (:func:`free_letter_moves`); checked against a brute force over
  every choice in the tests.
* Elliptique: the best move of each 7-letter subset of the 8 letters.
* Tactique: every first move of either group (both orders when the order is free), then the
  best second move of the other group on the grid it leaves (:func:`tactique_top`), by the
  engine's exact branch and bound (:func:`scoring.movegen.sequences`).
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Literal, cast, get_args

from puzzles.duplicate import (
    PLUS_SEPARATOR_RE,
    RACK_SIZE,
    Bulletin,
    Draw,
    DuplicateError,
    DuplicateSettings,
    GameState,
    RoundContext,
    Verdict,
    apply_solos,
    apply_top,
    check_choice,
    close_placed_spaces,
    correct,
    draw_listed,
    draw_round,
    is_number,
    minus_tiles,
    no_valid_draw,
    parse_bulletin,
    prepare_round,
    rank_moves,
    read_object,
    retain_solution,
    round_config,
    score_error,
    top_key,
)
from puzzles.rounds import LiveSlot as LiveSlot
from puzzles.rounds import anticipation_minutes as anticipation_minutes
from puzzles.rounds import anticipation_schedule as anticipation_schedule
from puzzles.ties import shared_ranks
from scoring import movegen
from scoring.board import Board
from scoring.config import GameConfig
from scoring.errors import EngineError
from scoring.layout import SIZE
from scoring.move import Placement
from scoring.movegen import GeneratedMove
from scoring.notation import format_ref, parse_ref, parse_word
from scoring.tiles import JOKER, TileSet, tileset
from scoring.validate import check_move

Variant = Literal["tactique", "top", "completif", "superjoker", "metagramme", "elliptique"]
TactiqueOrder = Literal["free", "group1_first", "group2_first"]
FreeJokerRule = Literal["none", "ro_online"]
Companions = Literal["sum", "distinct"]
TactiqueRefill = Literal["per_group", "pooled"]
TactiqueRejection = Literal["group", "both"]
FreeUnused = Literal["stock", "reliquat"]

VARIANTS: dict[str, str] = {
    "tactique": "Duplicate Tactique",
    "top": "Duplicate Top",
    "completif": "Duplicate Complétif",
    "superjoker": "Duplicate Superjoker",
    "metagramme": "Duplicate Métagramme",
    "elliptique": "Duplicate Elliptique",
}

#: tiles drawn by the arbitre, and letters the player chooses from the stock, per variant
DRAWN: dict[str, int] = {
    "tactique": RACK_SIZE,
    "top": RACK_SIZE,
    "completif": 6,
    "superjoker": 5,
    "metagramme": RACK_SIZE,
    "elliptique": 8,
}
FREE: dict[str, int] = {"completif": 1, "superjoker": 2}


# --- settings -----------------------------------------------------------------------------
@dataclass(frozen=True)
class VariantSettings:
    """A variant and the rules the sources leave open (RULES §9, §11), over the Duplicate's
    own :class:`~puzzles.duplicate.DuplicateSettings`."""

    variant: Variant = "completif"
    duplicate: DuplicateSettings = field(default_factory=DuplicateSettings)
    #: Tactique: the order of the two groups — free (the seed's « au choix des joueurs »,
    #: the default) or imposed by the arbitre (group 1 or group 2 first) (RULES §9.1)
    tactique_order: TactiqueOrder = "free"
    #: Complétif / Superjoker: the Romanian online joker rules (RULES §9.3, E12), or none (a
    #: chosen letter must be a letter of the stock)
    free_joker_rule: FreeJokerRule = "none"
    #: Duplicate Top: a room top must score at least this much (RULES §9.2: > 0, INFERRED)
    top_min_score: int = 1
    #: Duplicate Top companions (G13): Σ (toppers − 1) over the topped rounds (``sum``), or
    #: the number of distinct players who topped with him (``distinct``)
    top_companions: Companions = "sum"
    #: Duplicate Top / Superscrabble warnings (RULES §5.3): the first conversion at this
    #: many warnings, then one more every ``warning_step`` (4, 7, 10, …)
    warning_first: int = 4
    warning_step: int = 3
    #: G14 (INFERRED) Tactique refill: each group keeps its own reliquat and is completed in
    #: display order (``per_group``), or the two reliquats are pooled, group 1's first, and
    #: shared out again in order — the first 7 letters to group 1 (``pooled``)
    tactique_refill: TactiqueRefill = "per_group"
    #: G14 (INFERRED) Tactique rejection: a group without a vowel or a consonant is redrawn
    #: alone (``group``), or both groups are rejected and redrawn together (``both``)
    tactique_rejection: TactiqueRejection = "group"
    #: G15 (INFERRED) Complétif / Superjoker: a chosen letter the retained top does not
    #: place returns to the stock (``stock``), or stays on the rack with the reliquat
    #: (``reliquat``: it leaves the stock). The engine's own top names only the letters it
    #: places; the difference shows when a top names more (the arbitre's choice,
    #: ``RESTAIT +TE``)
    free_unused: FreeUnused = "stock"

    @property
    def drawn(self) -> int:
        return DRAWN[self.variant]

    @property
    def free(self) -> int:
        return FREE.get(self.variant, 0)

    def to_json(self) -> str:
        data = asdict(self)
        return json.dumps(data, ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | Mapping[str, Any]) -> VariantSettings:
        """Read settings from JSON (or a mapping): the variant keys of this class, the
        Duplicate keys either flat or under ``duplicate``. French errors raise
        :class:`~puzzles.duplicate.DuplicateError`."""
        data = read_object(text, "Réglages", blank_is_empty=True)
        mine = {f.name for f in fields(cls)} - {"duplicate"}
        dup_keys = {f.name for f in fields(DuplicateSettings)}
        nested = data.pop("duplicate", None) or {}
        if not isinstance(nested, dict):
            raise DuplicateError("Réglages : « duplicate » est un objet JSON.")
        flat_dup = {k: v for k, v in data.items() if k in dup_keys}
        unknown = sorted(set(data) - mine - dup_keys)
        if unknown:
            raise DuplicateError(f"Réglages inconnus : {', '.join(unknown)}.")
        dup = DuplicateSettings.from_json({**nested, **flat_dup})
        choices: dict[str, tuple[object, ...]] = {
            "variant": get_args(Variant),
            "tactique_order": get_args(TactiqueOrder),
            "free_joker_rule": get_args(FreeJokerRule),
            "top_companions": get_args(Companions),
            "tactique_refill": get_args(TactiqueRefill),
            "tactique_rejection": get_args(TactiqueRejection),
            "free_unused": get_args(FreeUnused),
        }
        own = {k: v for k, v in data.items() if k in mine}
        for key, value in own.items():
            if key in choices:
                check_choice(key, value, choices[key])
            elif not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise DuplicateError(f"Réglage {key} : un entier strictement positif est attendu.")
        return cls(duplicate=dup, **own)


def ranking_point_penalty(warnings: int, settings: VariantSettings | None = None) -> int:
    """RULES §5.3 (Superscrabble family, Duplicate Top): « pour 4 avertissements techniques le
    joueur perd un point de classement (un top); pour 7 … 2 tops; pour 10 … 3 tops »."""
    s = settings or VariantSettings()
    if warnings < s.warning_first:
        return 0
    return 1 + (warnings - s.warning_first) // s.warning_step


def top_score(board: Board, rack: str, config: GameConfig) -> int | None:
    """The best score of ``rack`` on ``board`` (None: no move): the C engine's top mode,
    which visits anchors best bound first and stops when none can beat the best found — far
    cheaper than listing or counting every move (a two-joker rack: ≈ 1 ms against ≈ 30 ms)."""
    found = movegen.best(board, rack, config, n=1)
    return found[0].score if found else None


# --- free letters (Complétif, Superjoker, Métagramme) ----------------------------------------
@dataclass(frozen=True)
class FreeMove:
    """A move with the letters the player took from the stock: ``move`` carries the real
    letters (a chosen letter is a tile, uppercase; a joker taken from the stock under the
    Romanian rules stays lowercase); ``chosen``: the stock letters it uses (``?``: a stock
    joker); ``swapped``: the drawn letter given back (Métagramme)."""

    move: GeneratedMove
    chosen: str = ""
    swapped: str = ""

    @property
    def score(self) -> int:
        return self.move.score


def _coefficients(board: Board, move: GeneratedMove, config: GameConfig) -> dict[int, int]:
    """Points one unit of letter value is worth on each square the move puts a tile on:
    ``lm(q) × wm(main)``, plus ``lm(q) × wm(q)`` when the tile also makes a cross word."""
    lm = config.layout.letter_mult
    wm = config.layout.word_mult
    step = 1 if move.horizontal else SIZE
    squares = [
        move.start + i * step for i in range(len(move.word)) if move.new_mask >> i & 1
    ]
    main = 1
    for q in squares:
        main *= wm[q]
    out: dict[int, int] = {}
    for q in squares:
        r, c = divmod(q, SIZE)
        if move.horizontal:
            cross = (r > 0 and bool(board[q - SIZE])) or (r < SIZE - 1 and bool(board[q + SIZE]))
        else:
            cross = (c > 0 and bool(board[q - 1])) or (c < SIZE - 1 and bool(board[q + 1]))
        out[q] = lm[q] * (main + (wm[q] if cross else 0))
    return out


def _assign_free(
    board: Board,
    move: GeneratedMove,
    real_jokers: int,
    n_free: int,
    stock: Counter[str],
    ts: TileSet,
    config: GameConfig,
    stock_jokers: bool,
) -> FreeMove | None:
    """The best way to play the jokers of ``move`` (generated with ``n_free`` extra jokers)
    with ``real_jokers`` drawn jokers and up to ``n_free`` stock letters; None if the stock
    cannot supply the letters it needs."""
    step = 1 if move.horizontal else SIZE
    spots = [
        i for i, ch in enumerate(move.word) if move.new_mask >> i & 1 and ch.islower()
    ]
    if not spots:
        return FreeMove(move)
    need = max(0, len(spots) - real_jokers)
    most = min(len(spots), n_free)
    if need > most:
        return None
    coef: dict[int, int] | None = None
    best: tuple[int, tuple[int, ...], int] | None = None  # (gain, letter spots, stock jokers)
    for size in range(need, most + 1):
        for combo in itertools.combinations(spots, size):
            want = Counter(move.word[i].upper() for i in combo)
            short = sum(max(0, n - stock.get(ch, 0)) for ch, n in want.items())
            jokers_used = 0
            if short:
                if not stock_jokers or stock.get(JOKER, 0) < short:
                    continue
                jokers_used = short
            if coef is None:
                coef = _coefficients(board, move, config)
            # letters the stock lacks are stock jokers (0 points): keep the best-valued
            # spots as letters
            values = sorted(
                (ts.value(move.word[i].upper()) * coef[move.start + i * step], i) for i in combo
            )
            if jokers_used:
                # which spots become jokers: those of the short letters with the lowest gain
                lacking = Counter(
                    {ch: max(0, n - stock.get(ch, 0)) for ch, n in want.items()}
                )
                letters: list[int] = []
                for _gain, i in values:
                    ch = move.word[i].upper()
                    if lacking[ch] > 0:
                        lacking[ch] -= 1
                    else:
                        letters.append(i)
                gain = sum(g for g, i in values if i in letters)
                cand = (gain, tuple(letters), jokers_used)
            else:
                gain = sum(g for g, _ in values)
                cand = (gain, tuple(sorted(combo)), 0)
            if best is None or (cand[0], -len(combo), -cand[2]) > (best[0], 0, -best[2]):
                best = cand
    if best is None:
        return None
    gain, letter_spots, jokers_used = best
    word = "".join(
        ch.upper() if i in letter_spots else ch for i, ch in enumerate(move.word)
    )
    chosen = "".join(move.word[i].upper() for i in letter_spots) + JOKER * jokers_used
    real = GeneratedMove(move.score + gain, move.horizontal, move.start, word, move.new_mask)
    return FreeMove(real, chosen)


def free_letter_moves(
    board: Board,
    drawn: str,
    n_free: int,
    stock: str,
    config: GameConfig,
    *,
    stock_jokers: bool = False,
) -> list[FreeMove]:
    """Every move of ``drawn`` completed by up to ``n_free`` letters of ``stock`` (RULES
    §9.3, §9.4): one generation with ``n_free`` extra jokers, each move re-scored with the
    best stock letters in place of its free jokers. ``stock_jokers``: a stock joker may be
    chosen (Romanian online rules, E12)."""
    counts = Counter(stock)
    real_jokers = drawn.count(JOKER)
    out: list[FreeMove] = []
    for m in movegen.generate(board, drawn + JOKER * n_free, config):
        fm = _assign_free(
            board, m, real_jokers, n_free, counts, config.tileset, config, stock_jokers
        )
        if fm is not None:
            out.append(fm)
    return out


def brute_force_free_top(
    board: Board, drawn: str, n_free: int, stock: str, config: GameConfig
) -> int | None:
    """The top score over every choice of ``n_free`` stock letters (or fewer), by one move
    generation per choice: the reference :func:`free_letter_moves` is checked against."""
    best: int | None = None
    letters = sorted(set(stock) - {JOKER})
    for k in range(n_free + 1):
        for combo in itertools.combinations_with_replacement(letters, k):
            if any(Counter(combo)[ch] > stock.count(ch) for ch in set(combo)):
                continue
            rack = drawn + "".join(combo)
            if not rack:
                continue
            c = movegen.count(board, rack, config)
            if c.top is not None and (best is None or c.top > best):
                best = c.top
    return best


@dataclass(frozen=True)
class VariantTop:
    """The retained top of a one-word variant, with the letters it takes from the stock."""

    choice: FreeMove
    ref: str
    word: str
    score: int
    ties: int = 0
    reason_fr: str = ""

    @property
    def move(self) -> GeneratedMove:
        return self.choice.move


def _rank_free(
    options: Sequence[FreeMove],
    board: Board,
    rack_of: Mapping[tuple[str, str], str],
    after: str,
    config: GameConfig,
    settings: DuplicateSettings,
) -> VariantTop | None:
    """The FISF top order over moves of different racks (fewer stock letters, then no swap,
    break the last ties; INFERRED)."""
    if not options:
        return None
    high = max(o.score for o in options)
    best = [o for o in options if o.score == high]
    keyed: list[tuple[tuple[object, ...], FreeMove]] = []
    for o in best:
        rack = rack_of[(o.chosen, o.swapped)]
        k = top_key(o.move, board, rack, after, config.tileset, settings)
        keyed.append(((*k, len(o.chosen), o.swapped, o.chosen), o))
    keyed.sort(key=lambda km: km[0])
    first = keyed[0][1]
    reason = (
        f"Seul coup à {high} points."
        if len(keyed) == 1
        else f"{len(keyed)} coups à {high} points ; retenu selon l'ordre FISF du top."
    )
    if first.chosen:
        reason += f" Lettre(s) choisie(s) : {first.chosen}."
    if first.swapped:
        reason += f" Lettre rendue : {first.swapped}."
    m = first.move
    return VariantTop(first, format_ref(m.ref), m.word, m.score, len(keyed) - 1, reason)


def stock_choices(stock: str, k: int, *, jokers: bool = False) -> list[str]:
    """Every multiset of ``k`` letters the stock can supply (a stock joker ``?`` only with
    ``jokers``), sorted."""
    have = Counter(stock)
    letters = sorted(ch for ch in have if ch != JOKER or jokers)
    out: list[str] = []
    for combo in itertools.combinations_with_replacement(letters, k):
        want = Counter(combo)
        if all(have[ch] >= n for ch, n in want.items()):
            out.append("".join(combo))
    return out


def _best_racks(board: Board, racks: Sequence[str], config: GameConfig) -> tuple[int, list[str]]:
    """The best top score over ``racks`` (one :func:`top_score` each) and the racks
    reaching it."""
    high = -1
    best: list[str] = []
    for rack in racks:
        if not rack:
            continue
        top = top_score(board, rack, config)
        if top is None:
            continue
        if top > high:
            high, best = top, [rack]
        elif top == high:
            best.append(rack)
    return high, best


def _extra(move: GeneratedMove, base: str) -> str:
    """The letters of ``move`` that ``base`` does not supply (the chosen letters it uses)."""
    return "".join(sorted((Counter(move.letters) - Counter(base)).elements()))


def variant_top(
    state: GameState,
    drawn: str,
    config: GameConfig,
    settings: VariantSettings,
) -> VariantTop | None:
    """The top of a Complétif, Superjoker, Métagramme or Elliptique round (also plain
    Duplicate and Duplicate Top): ``state`` in play (its bag is the stock), ``drawn`` the
    arbitre's letters.

    Exact over every choice: one move count (the C engine's top score) per rack the player
    could hold — the drawn letters plus every multiset of stock letters (Complétif 1,
    Superjoker 2; a stock joker too under ``free_joker_rule="ro_online"``), or, in
    Métagramme, the drawn letters and every drawn letter swapped for every stock letter;
    then the equal-best moves of the best racks, in the FISF order. A chosen letter the move
    does not use is no choice (it stays in the stock, G15)."""
    board = state.board
    dup = settings.duplicate
    cfg = round_config(config, board, dup) if board.is_empty() else config
    stock = "".join(state.bag)
    v = settings.variant
    # (rack, base): base = the drawn letters the player keeps; rack = base + choice
    racks: list[tuple[str, str, str]] = []  # (rack, base, swapped)
    if v in ("completif", "superjoker"):
        # choices of ``free`` letters cover every move using fewer; near the end the stock
        # may hold fewer letters than that
        for combo in stock_choices(
            stock, min(settings.free, len(stock)), jokers=settings.free_joker_rule == "ro_online"
        ):
            racks.append((drawn + combo, drawn, ""))
        if not racks:
            racks.append((drawn, drawn, ""))
    elif v == "metagramme":
        racks.append((drawn, drawn, ""))
        for x in sorted(set(drawn)):
            rest = minus_tiles(drawn, x)
            assert rest is not None
            for y in stock_choices(stock, 1):
                if y != x:
                    racks.append((rest + y, rest, x))
    elif v == "elliptique" and len(drawn) > RACK_SIZE:
        for x in sorted(set(drawn)):
            rest = minus_tiles(drawn, x)
            assert rest is not None
            racks.append((rest, drawn, ""))
    else:
        racks.append((drawn, drawn, ""))
    by_rack = {r: (base, sw) for r, base, sw in racks}
    _, best = _best_racks(board, [r for r, _, _ in racks], cfg)
    options: dict[tuple[GeneratedMove, str, str], FreeMove] = {}
    rack_of: dict[tuple[str, str], str] = {}
    for rack in best:
        base, swapped = by_rack[rack]
        for m in movegen.tops(board, rack, cfg):
            chosen = _extra(m, base)
            sw = swapped if chosen else ""
            options.setdefault((m, chosen, sw), FreeMove(m, chosen, sw))
            rack_of[(chosen, sw)] = (base if sw else drawn) + chosen
    return _rank_free(list(options.values()), board, rack_of, stock, config, dup)


def apply_variant_top(
    state: GameState,
    drawn: str,
    top: VariantTop,
    settings: VariantSettings | None = None,
) -> GameState:
    """The top on the master grid. The chosen letters it places leave the stock (the bag);
    a chosen letter it names but does not place returns to the stock (G15,
    ``free_unused="stock"``, the default) or stays on the rack with the reliquat, out of the
    stock (``free_unused="reliquat"``); a Métagramme's swapped letter goes back to the end
    of the bag; the reliquat is the rack's letters the top did not use."""
    keep_unused = settings is not None and settings.free_unused == "reliquat"
    bag = list(state.bag)
    rack = drawn
    if top.choice.swapped:
        rest = minus_tiles(drawn, top.choice.swapped)
        if rest is None:
            raise DuplicateError(
                f"La lettre rendue « {top.choice.swapped} » n'est pas dans le tirage {drawn}."
            )
        rack = rest
        bag.append(top.choice.swapped)
    # the chosen letters the move places: those the drawn letters kept do not supply
    placed = _extra(top.move, rack) if top.choice.chosen else ""
    if Counter(placed) - Counter(top.choice.chosen):
        raise DuplicateError(
            f"Le coup {top.word} utilise des lettres ni tirées ni choisies ({placed})."
        )
    taken = top.choice.chosen if keep_unused else placed
    for ch in taken:
        if ch not in bag:
            raise DuplicateError(f"La lettre choisie « {ch} » n'est plus dans le stock.")
        bag.remove(ch)
    rack += taken
    from puzzles.duplicate import TopChoice

    tc = TopChoice(top.move, top.ref, top.word, top.score)
    return apply_top(replace(state, bag=tuple(bag)), Draw("", rack, rack), tc)


def draw_variant(
    state: GameState, settings: VariantSettings
) -> tuple[Draw | None, GameState]:
    """The arbitre's draw of a one-word variant: :func:`~puzzles.duplicate.draw_round` with
    the variant's number of letters (Complétif 6, Superjoker 5, Elliptique 8, else 7); the
    minimum applies to those letters (« 7 read as 6 », E11)."""
    return draw_round(state, settings.duplicate, rack_size=settings.drawn)


# --- bulletins of the free-letter variants -------------------------------------------------
@dataclass(frozen=True)
class FreeBulletin:
    """A bulletin with the letters the player took: ``chosen`` (``+T``), ``swapped`` (the
    Métagramme's given-back letter, ``-A``); ``alternatives``: the further solutions written
    on the line (``A +T / B +S``, S1 5.6), each with its own letters."""

    bulletin: Bulletin
    chosen: str = ""
    swapped: str = ""
    alternatives: tuple[FreeBulletin, ...] = ()


def parse_free_bulletin(text: str, *, player: str = "") -> FreeBulletin | list[str]:
    """``H4 RESTAIT 70 +T`` (the chosen letters after ``+``; ``+?`` a stock joker) and, in
    Métagramme, ``-A`` for the letter given back. Several solutions are separated by ``/``,
    each with its letters (``H4 RESTAIT 70 +T / 8C MOTS 25 +S``); one score written for all
    of them counts for each (as :func:`~puzzles.duplicate.parse_bulletin`). French errors
    as a list (« solution 2 : … » when the line has several)."""
    if "/" in text:
        parts = text.split("/")
        parsed = [parse_free_bulletin(p, player=player) for p in parts]
        errors = [f"Solution n° {k} : {e}" for k, p in enumerate(parsed, 1)
                  if isinstance(p, list) for e in p]
        if errors:
            return errors
        sols = [p for p in parsed if isinstance(p, FreeBulletin)]
        scores = {f.bulletin.claimed for f in sols if f.bulletin.claimed is not None}
        if len(scores) == 1:  # one score written for all the solutions
            sols = [replace(f, bulletin=replace(f.bulletin, claimed=next(iter(scores))))
                    for f in sols]
        return replace(sols[0], alternatives=tuple(sols[1:]))
    chosen = swapped = ""
    rest: list[str] = []
    errors = []
    for tok in close_placed_spaces(text).split():
        if tok.startswith("+") and len(tok) > 1:
            body = tok[1:].upper()
            if not all(ch == JOKER or "A" <= ch <= "Z" for ch in body):
                errors.append(f"Lettres choisies « {tok} » illisibles.")
            chosen += body
        elif tok.startswith("-") and len(tok) > 1:
            body = tok[1:].upper()
            if not all(ch == JOKER or "A" <= ch <= "Z" for ch in body):
                errors.append(f"Lettre rendue « {tok} » illisible.")
            swapped += body
        else:
            rest.append(tok)
    b = parse_bulletin(" ".join(rest), player=player)
    if isinstance(b, list):
        return errors + b
    if errors:
        return errors
    return FreeBulletin(b, chosen, swapped)


def _tiles_placed(board: Board, ref: str, word: str) -> int:
    """How many tiles the word written at ``ref`` puts on the grid (0 when it cannot be read
    or placed there: the correction says why)."""
    try:
        return len(Placement.from_notation(board, parse_ref(ref), parse_word(word)))
    except EngineError:
        return 0


def correct_free(
    state: GameState,
    drawn: str,
    fb: FreeBulletin | None,
    config: GameConfig,
    *,
    top_score: int,
    settings: VariantSettings,
    player: str = "",
    contexts: dict[str, RoundContext] | None = None,
) -> Verdict:
    """Correct one bulletin of a free-letter variant: the player's rack is the drawn letters
    (less the swapped one) plus his chosen letters, which must be in the stock — else zero,
    or under ``free_joker_rule="ro_online"`` (RULES §9.3, E12): a letter not in the stock,
    not marked, while a joker remains → it is the joker and its value is deducted; a letter
    marked as a joker while one remains → a joker (0); marked as a joker when none remains →
    its value is deducted; not in the stock and no joker left → zero."""
    who = fb.bulletin.player if fb is not None and fb.bulletin.player else player
    if fb is None:
        return Verdict(who, 0, "absent", reason_fr="Pas de bulletin : zéro.")
    if fb.alternatives:  # several solutions (S1 5.6), each corrected with its own letters
        solutions = (replace(fb, alternatives=()), *fb.alternatives)
        return retain_solution(
            [correct_free(state, drawn, sol, config, top_score=top_score, settings=settings,
                          player=who, contexts=contexts) for sol in solutions],
            [sol.bulletin.claimed for sol in solutions])
    v = settings.variant
    free = settings.free if v != "metagramme" else (1 if fb.swapped else 0)
    if len(fb.chosen) > free or (v == "metagramme" and len(fb.swapped) > 1):
        return Verdict(
            who, 0, "nul", reason_fr=f"Nul : {len(fb.chosen)} lettre(s) choisie(s), {free} au plus."
        )
    if v == "metagramme" and bool(fb.swapped) != bool(fb.chosen):
        return Verdict(
            who, 0, "nul", reason_fr="Nul : en Métagramme, la lettre rendue et la lettre "
            "choisie vont ensemble (« -A +T »)."
        )
    if v == "elliptique" and fb.bulletin.ref:
        tiles = _tiles_placed(state.board, fb.bulletin.ref, fb.bulletin.word)
        if tiles > RACK_SIZE:
            return Verdict(
                who, 0, "nul", reason_fr=f"Nul : en Elliptique, un coup pose au plus "
                f"{RACK_SIZE} lettres ({fb.bulletin.word} en pose {tiles})."
            )
    base = drawn
    if fb.swapped:
        rest = minus_tiles(drawn, fb.swapped)
        if rest is None:
            return Verdict(
                who, 0, "nul", reason_fr=f"Nul : la lettre rendue {fb.swapped} n'est pas "
                f"dans le tirage {drawn}."
            )
        base = rest
    stock = Counter(state.bag)
    rack = base
    word = fb.bulletin.word
    marked_joker = {ch.upper() for ch in word if ch.islower()}
    deemed: list[str] = []  # letters written as letters that count as jokers (E12)
    marked_none_left: set[str] = set()  # marked as jokers when none remains (E12)
    for ch in fb.chosen:
        if ch != JOKER and stock.get(ch, 0) > 0 and ch not in marked_joker:
            stock[ch] -= 1
            rack += ch
            continue
        if settings.free_joker_rule != "ro_online":
            if ch == JOKER and stock.get(JOKER, 0) > 0:
                stock[JOKER] -= 1
                rack += JOKER
                continue
            return Verdict(
                who, 0, "nul", reason_fr=f"Nul : la lettre choisie {ch} n'est plus dans le stock."
            )
        jokers_left = stock.get(JOKER, 0) > 0
        if ch in marked_joker or ch == JOKER:
            # marked as a joker: a joker (0) while one remains; when none remains the letter
            # « its value deducted » — it counts 0 all the same, the mark stays
            if jokers_left:
                stock[JOKER] -= 1
            elif ch != JOKER:
                marked_none_left.add(ch)
            rack += JOKER
        elif jokers_left:  # not in the stock, not marked: deemed the joker
            stock[JOKER] -= 1
            rack += JOKER
            deemed.append(ch)
        else:
            return Verdict(
                who, 0, "nul", reason_fr=f"Nul : la lettre {ch} n'est plus dans le stock et "
                "il ne reste aucun joker."
            )
    b = replace(fb.bulletin, word=word)
    deduct = 0
    if deemed or marked_none_left:
        b, deduct = _deemed_jokers(state.board, b, deemed, set(deemed) | marked_none_left,
                                   config)
    ctx_map = contexts if contexts is not None else {}
    ctx = ctx_map.get(rack)
    if ctx is None:
        ctx = prepare_round(
            state, rack, config, round_no=state.round_no, top_score=top_score,
            settings=settings.duplicate,
        )
        ctx_map[rack] = ctx
    verdict = correct(
        state, rack, b, config, round_no=state.round_no, top_score=top_score,
        context=ctx, player=who,
    )
    if deduct and verdict.kind not in ("nul", "absent"):
        verdict = replace(
            verdict,
            reason_fr=verdict.reason_fr + f" Valeur de la lettre hors stock déduite : −{deduct}.",
        )
    return verdict


def _deemed_jokers(
    board: Board, b: Bulletin, deemed: list[str], zeroed: set[str], config: GameConfig
) -> tuple[Bulletin, int]:
    """The Romanian online rules (RULES §9.3, E12): a chosen letter outside the stock written
    as a letter is « deemed the joker and the letter's value is deducted » (and one marked as
    a joker when none remains has « the letter's value deducted » too) — the word is
    scored with that tile as a joker (of its occurrences, the one least advantageous to the
    player, as for an unclear joker mark, S1 5.6). The player may write the score with the
    letter's value (the arbitre deducts it) or without; returns the bulletin to correct (the
    joker marked, the claim read as the joker score when it was the letter score) and the
    points deducted (the letter score less the joker score)."""
    letters = b.word  # the word as the player may have scored it: those letters real
    for ch in zeroed:
        letters = "".join(c.upper() if c.upper() == ch else c for c in letters)
    if b.ref is not None:
        refs = [b.ref]
    else:  # no reference written: wherever the word fits (the correction locates it)
        rack = "".join(c for c in letters if c.isupper()) + "?" * sum(
            1 for c in letters if c.islower())
        refs = sorted({format_ref(m.ref) for m in movegen.generate(board, rack, config)
                       if m.word == letters})
    best: tuple[int, str] | None = None
    letter_scores: list[int] = []
    for ref in refs:
        as_letter = check_move(board, ref, letters, config)
        if as_letter.ok:
            letter_scores.append(as_letter.score)
        for cand in _mark_deemed(b.word, deemed):
            v = check_move(board, ref, cand, config)
            if v.ok and (best is None or v.score < best[0]):
                best = (v.score, cand)
    if best is None:
        return replace(b, word=next(iter(_mark_deemed(b.word, deemed)), b.word)), 0
    joker_score, word = best
    letter_score = min(letter_scores) if letter_scores else joker_score
    claimed = b.claimed
    if claimed is not None and claimed == letter_score:
        claimed = joker_score
    return replace(b, word=word, claimed=claimed), letter_score - joker_score


def _mark_deemed(word: str, deemed: list[str]) -> list[str]:
    """Every way of writing ``deemed`` letters of ``word`` as jokers (lowercase), in order."""
    out = [word]
    for ch in deemed:
        nxt: list[str] = []
        for w in out:
            for i, c in enumerate(w):
                if c == ch:
                    cand = w[:i] + c.lower() + w[i + 1:]
                    if cand not in nxt:
                        nxt.append(cand)
        out = nxt
    return out


# --- Tactique --------------------------------------------------------------------------------
@dataclass(frozen=True)
class TactiqueState:
    """A Tactique game: the Duplicate state (grid, bag, round, tops) and each group's own
    reliquat (G14: each group keeps its unused letters)."""

    game: GameState
    reliquats: tuple[str, str] = ("", "")


@dataclass(frozen=True)
class TactiqueDraw:
    groups: tuple[Draw, Draw]

    @property
    def racks(self) -> tuple[str, str]:
        return (self.groups[0].rack, self.groups[1].rack)

    @property
    def notation(self) -> str:
        return f"{self.groups[0].notation} / {self.groups[1].notation}"


def tactique_initial(settings: VariantSettings, bag_order: Sequence[str] | str) -> TactiqueState:
    return TactiqueState(GameState.initial(settings.duplicate, bag_order))


def _straight(reliquat: str, bag: list[str]) -> tuple[Draw, list[str]]:
    need = max(0, RACK_SIZE - len(reliquat))
    new = "".join(bag[:need])
    return Draw(reliquat, new, reliquat + new, (), 0), bag[need:]


def _draw_both(
    r1: str, r2: str, bag: list[str], dup: DuplicateSettings, ts: TileSet
) -> tuple[Draw, Draw, list[str]] | None:
    """G14 ``tactique_rejection="both"``: both groups completed in order; when either lacks
    a vowel or a consonant both are rejected — all their tiles, or only the new ones
    (``rejection_returns``), back to the end of the bag — and drawn again. None after a
    whole turn of the bag without a valid pair (the caller then redraws group by group)."""
    rejected: list[tuple[str, str]] = []
    turn = len(r1) + len(r2) + len(bag)
    while len(rejected) <= turn:
        d1, rest = _straight(r1, bag)
        d2, rest = _straight(r2, rest)
        if ts.draw_meets_minimum(d1.rack, 1) and ts.draw_meets_minimum(d2.rack, 1):
            return (
                Draw(d1.reliquat, d1.new, d1.rack, tuple(x for x, _ in rejected), 1),
                Draw(d2.reliquat, d2.new, d2.rack, tuple(y for _, y in rejected), 1),
                rest,
            )
        rejected.append((d1.rack, d2.rack))
        if dup.rejection_returns == "all":
            bag, r1, r2 = rest + list(d1.rack) + list(d2.rack), "", ""
        else:
            bag = rest + list(d1.new) + list(d2.new)
    return None


def draw_tactique(
    state: TactiqueState, settings: VariantSettings
) -> tuple[TactiqueDraw | None, TactiqueState]:
    """Complete both groups, group 1 first (« il complètera les 2 groupes, dans l'ordre de
    leur affichage »), each with ≥ 1 vowel and ≥ 1 consonant; a failing group is redrawn
    alone (G14, ``tactique_rejection="group"``), its tiles going back as in the Duplicate
    (``rejection_returns``), or both groups are redrawn (``"both"``). Each group is
    completed from its own reliquat (G14, ``tactique_refill="per_group"``) or from the two
    reliquats pooled, group 1's first (``"pooled"``: group 1 takes the first 7).

    End of game (RULES §9.1): when the tiles left cannot give both groups a vowel and a
    consonant, the groups are completed in order without condition (« cette condition peut
    être remplie par un seul groupe »); if both groups then hold only vowels or only
    consonants (jokers and Y aside), the game is over; one vowels-only and one
    consonants-only group play on."""
    g = state.game
    dup = settings.duplicate
    if g.finished:
        return None, state
    if dup.rounds is not None and g.round_no > dup.rounds:
        return None, replace(
            state, game=replace(g, finished=True, end_reason=f"Les {dup.rounds} coups prévus "
                                "ont été joués.")
        )
    ts = tileset(dup.lang)
    r1, r2 = state.reliquats
    remaining = r1 + r2 + "".join(g.bag)
    if not remaining:
        return None, replace(
            state,
            game=replace(g, finished=True, end_reason="Toutes les lettres ont été tirées et "
                         "placées."),
        )
    if settings.tactique_refill == "pooled":
        pool = r1 + r2
        r1, r2 = pool[:RACK_SIZE], pool[RACK_SIZE:]
    per_group = replace(dup, min_split_rounds=0, rounds=None)
    d1: Draw | None = None
    d2: Draw | None = None
    bag = list(g.bag)
    if ts.draw_meets_minimum(remaining, 2) and settings.tactique_rejection == "both":
        both = _draw_both(r1, r2, bag, dup, ts)
        if both is not None:
            d1, d2, bag = both
    if d1 is None and ts.draw_meets_minimum(remaining, 2):
        d1, s1 = draw_round(replace(g, reliquat=r1, finished=False), per_group)
        if d1 is not None:
            d2, s2 = draw_round(replace(g, bag=s1.bag, reliquat=r2, finished=False), per_group)
            if d2 is not None:
                bag = list(s2.bag)
    if d1 is None or d2 is None:
        bag = list(g.bag)
        d1, bag = _straight(r1, bag)
        d2, bag = _straight(r2, bag)
        if no_valid_draw(d1.rack + d2.rack, ts):
            return None, replace(
                state,
                game=replace(
                    g,
                    finished=True,
                    end_reason="Les deux groupes ne contiennent que des voyelles ou que des "
                    "consonnes : la partie est terminée.",
                ),
            )
    draw = TactiqueDraw((d1, d2))
    return draw, TactiqueState(replace(g, bag=tuple(bag), reliquat=""), (d1.rack, d2.rack))


def draw_tactique_listed(
    state: TactiqueState, settings: VariantSettings, notation: str
) -> tuple[TactiqueDraw, TactiqueState]:
    """Take both groups of a round from a game record: ``BC+DEFGH / MN+AEIRS`` (each group
    as :func:`~puzzles.duplicate.draw_listed` reads a draw: its reliquat — G14, per group or
    pooled — then tiles still in the bag, group 1 first). French :class:`DuplicateError`
    when a group is not those tiles."""
    parts = notation.split("/")
    if len(parts) != 2:
        raise DuplicateError(
            f"Tirage de Tactique « {notation} » : deux groupes séparés par « / » "
            "(ex. « BC+DEFGH / MN+AEIRS »)."
        )
    g = state.game
    r1, r2 = state.reliquats
    if settings.tactique_refill == "pooled":
        pool = r1 + r2
        r1, r2 = pool[:RACK_SIZE], pool[RACK_SIZE:]
    per_group = replace(settings.duplicate, min_split_rounds=0, rounds=None)
    d1, s1 = draw_listed(replace(g, reliquat=r1, finished=False), per_group, parts[0])
    d2, s2 = draw_listed(replace(g, bag=s1.bag, reliquat=r2, finished=False), per_group,
                         parts[1])
    draw = TactiqueDraw((d1, d2))
    return draw, TactiqueState(replace(g, bag=s2.bag, reliquat=""), (d1.rack, d2.rack))


@dataclass(frozen=True)
class TactiqueTop:
    """The best two-word sequence: ``first_group`` (1 or 2) is played first."""

    first_group: int
    first: GeneratedMove | None
    second: GeneratedMove | None
    score: int
    ties: int = 0
    reason_fr: str = ""

    @property
    def first_score(self) -> int:
        return self.first.score if self.first is not None else 0

    @property
    def second_score(self) -> int:
        return self.second.score if self.second is not None else 0

    @property
    def notation(self) -> str:
        parts = [
            f"{format_ref(m.ref)} {m.word} {m.score}"
            for m in (self.first, self.second)
            if m is not None
        ]
        return " + ".join(parts) + f" = {self.score}"


def _tactique_orders(settings: VariantSettings) -> list[tuple[int, int]]:
    if settings.tactique_order == "group1_first":
        return [(0, 1)]
    if settings.tactique_order == "group2_first":
        return [(1, 0)]
    return [(0, 1), (1, 0)]


def _pair_key(
    a: int, m1: GeneratedMove | None, m2: GeneratedMove | None
) -> tuple[object, ...]:
    def mk(m: GeneratedMove | None) -> tuple[object, ...]:
        if m is None:
            return (1,)
        return (0, not m.horizontal, m.start // SIZE, m.start % SIZE, m.word.upper(),
                m.word)  # a joker after the same letter as a tile, as top_key

    jokers = (m1.jokers if m1 else 0) + (m2.jokers if m2 else 0)
    return (jokers, a, mk(m1), mk(m2))


def _joker_dominated(move: GeneratedMove, rack: str) -> bool:
    """True when ``move`` puts a joker down as a letter the rack still holds as a tile (not
    used by the move): the same move with the tile scores at least as much, and so does any
    second move after it (same letters on the grid, the tile worth its value) — so it can
    be left out of the Tactique search without changing the top score."""
    if not move.jokers:
        return False
    spare = Counter(rack) - Counter(move.letters)
    for i, ch in enumerate(move.word):
        if move.new_mask >> i & 1 and ch.islower() and spare[ch.upper()] > 0:
            return True
    return False


@dataclass
class TactiqueStats:
    """Work done by :func:`tactique_top` (``stats=``), summed over the orders searched: legal
    first moves, those skipped as dominated, second-move searches ended by the bounds alone,
    searches that expanded an anchor (of which over the whole grid), anchors expanded. The
    search without cuts ran one whole-grid second-move search per first move not
    dominated."""

    firsts: int = 0
    dominated: int = 0
    bounded: int = 0
    searched: int = 0
    full: int = 0
    anchors: int = 0

    def add(self, s: movegen.SequenceStats) -> None:
        self.firsts += s.firsts
        self.dominated += s.dominated
        self.bounded += s.bounded
        self.searched += s.searched
        self.full += s.full
        self.anchors += s.anchors


def tactique_top(
    board: Board,
    groups: tuple[str, str],
    config: GameConfig,
    settings: VariantSettings,
    *,
    stats: TactiqueStats | None = None,
) -> TactiqueTop | None:
    """The exact top of a Tactique round (RULES §9.1: « la suite de mots dont le cumul des
    scores est le plus élevé »): for every order allowed, every legal first move of the
    first group, then the best score of the second group on the grid it leaves. Equal sums:
    fewer jokers, group 1 first, then the first word's and the second word's reference and
    word (horizontal, row, column, alphabetical) (INFERRED). A group that cannot be placed
    scores 0 and the other plays alone (INFERRED)."""
    dup = settings.duplicate
    first_cfg = round_config(config, board, dup) if board.is_empty() else config
    best_total = -1
    pairs: list[tuple[int, GeneratedMove | None]] = []
    # the order whose first group holds fewer jokers first: it has fewer first moves and
    # gives the other order a high floor to cut from (the result does not depend on it)
    orders = sorted(_tactique_orders(settings), key=lambda ab: groups[ab[0]].count("?"))
    for a, b in orders:
        if groups[a] and groups[b]:
            # every first move, best first, then the second group's best on the grid it
            # leaves, by branch and bound from the best sum so far (scoring.movegen)
            total_ab, found, seq_stats = movegen.sequences(
                board, groups[a], groups[b], config, first_config=first_cfg, floor=best_total
            )
            if stats is not None:
                stats.add(seq_stats)
            if seq_stats.firsts:
                if total_ab is not None and total_ab > best_total:
                    best_total, pairs = total_ab, [(a, m1) for m1, _ in found]
                elif total_ab is not None and total_ab == best_total:
                    pairs.extend((a, m1) for m1, _ in found)
                continue
            firsts: list[GeneratedMove] = []
        else:
            firsts = movegen.generate(board, groups[a], first_cfg) if groups[a] else []
            firsts = [m for m in firsts if not _joker_dominated(m, groups[a])]
        if not firsts:
            single = top_score(board, groups[b], first_cfg) if groups[b] else None
            total = single if single is not None else -1
            if total > best_total:
                best_total, pairs = total, [(a, None)]
            elif total == best_total and total >= 0:
                pairs.append((a, None))
            continue
        # no second group (end of game): the first move alone
        for m1 in firsts:
            if m1.score > best_total:
                best_total, pairs = m1.score, [(a, m1)]
            elif m1.score == best_total:
                pairs.append((a, m1))
    if best_total < 0:
        return None
    cands: list[tuple[tuple[object, ...], int, GeneratedMove | None, GeneratedMove | None]] = []
    for a, first in pairs:
        b = 1 - a
        if first is None:
            seconds = movegen.tops(board, groups[b], first_cfg)
            for alone in seconds:
                # the only group placed is the other one: it counts as played first
                cands.append((_pair_key(b, alone, None), b, alone, None))
            continue
        after = board.copy()
        first.placement.apply(after)
        seconds2: list[GeneratedMove | None] = (
            list(movegen.tops(after, groups[b], config)) if groups[b] else []
        )
        if not seconds2:
            seconds2 = [None]
        for second in seconds2:
            cands.append((_pair_key(a, first, second), a, first, second))
    # a group that cannot be placed in one order and plays alone in the other gives the
    # same sequence twice: count it once
    cands = list({c[0]: c for c in cands}.values())
    cands.sort(key=lambda c: c[0])
    _, a, m1_top, m2_top = cands[0]
    n = len(cands)
    reason = (
        f"Seule suite à {best_total} points."
        if n == 1
        else f"{n} suites à {best_total} points ; retenue : le moins de jokers, le groupe 1 "
        "d'abord, puis l'ordre des références et des mots."
    )
    return TactiqueTop(a + 1, m1_top, m2_top, best_total, n - 1, reason)


def apply_tactique_top(state: TactiqueState, top: TactiqueTop) -> TactiqueState:
    """Both words on the master grid; each group keeps its unused letters."""
    g = state.game
    board = g.board
    left = list(state.reliquats)
    a = top.first_group - 1
    for idx, m in ((a, top.first), (1 - a, top.second)):
        if m is None:
            continue
        rest = minus_tiles(left[idx], m.letters)
        if rest is None:
            raise DuplicateError(
                f"Le mot {m.word} utilise des lettres absentes du groupe {idx + 1} ({left[idx]})."
            )
        left[idx] = rest
        m.placement.apply(board)
    return TactiqueState(
        replace(
            g,
            board_cgp=board.to_cgp(),
            round_no=g.round_no + 1,
            tops_total=g.tops_total + top.score,
        ),
        (left[0], left[1]),
    )


def _written_move(
    board: Board, rack: str, ref: str, word: str, config: GameConfig
) -> GeneratedMove | None:
    """The legal move of ``rack`` on ``board`` written ``ref word`` (a joker in lower case;
    an all-capital word matches when only one joker placement fits), or None."""
    try:
        wanted = parse_ref(ref)
    except EngineError:
        return None
    moves = [m for m in movegen.generate(board, rack, config) if m.ref == wanted]
    exact = [m for m in moves if m.word == word]
    folded = [m for m in moves if m.word.upper() == word.upper()]
    found = exact or (folded if len(folded) == 1 else [])
    return found[0] if found else None


def tactique_sequence(
    board: Board,
    groups: tuple[str, str],
    text: str,
    config: GameConfig,
    settings: VariantSettings,
) -> TactiqueTop:
    """The arbitre's own retained sequence of a Tactique round (RULES §9.1, like the
    Duplicate's « any legal move » as top): ``H4 RESTAIT + 8C MOTS``, the words in placement
    order (a written score is ignored: the engine scores), optionally led by ``groupe 2 :``
    when the group played first must be named (both groups can play the first word).
    Without it the first order allowed (``tactique_order``; free: group 1 first, then
    group 2 first) in which the first word is legal with one group and the second word,
    on the grid the first leaves, with the other. One word alone only when the other group
    has no legal move on the grid it leaves. French :class:`DuplicateError` otherwise."""
    body = text.strip()
    named: int | None = None
    low = body.lower()
    # « groupe 2 : » only (a bare « G2 » is a reference: row G, column 2)
    prefix = "groupe "
    if low.startswith(prefix) and low[len(prefix):len(prefix) + 1] in ("1", "2"):
        named = int(low[len(prefix)]) - 1
        body = body[len(prefix) + 1:].lstrip(" :")
    body = body.split("=", 1)[0]
    parts: list[tuple[str, str]] = []
    for chunk in body.split("+"):
        tokens = [t for t in chunk.split() if not t.isdigit()]
        if not tokens:
            continue
        if len(tokens) != 2:
            raise DuplicateError(
                f"Tactique : « {chunk.strip()} » — écrivez la référence puis le mot, les deux "
                "mots séparés par « + » (ex. « H4 RESTAIT + 8C MOTS »)."
            )
        parts.append((tokens[0], tokens[1]))
    if not 1 <= len(parts) <= 2:
        raise DuplicateError(
            "Tactique : une suite de deux mots séparés par « + » (ex. « H4 RESTAIT + 8C MOTS »)."
        )
    dup = settings.duplicate
    first_cfg = round_config(config, board, dup) if board.is_empty() else config
    orders = [ab for ab in _tactique_orders(settings) if named is None or ab[0] == named]
    if not orders:
        raise DuplicateError(
            f"Tactique : l'ordre est imposé, le groupe {named + 1 if named is not None else ''} "
            "ne peut pas être joué d'abord."
        )
    problems: list[str] = []
    for a, b in orders:
        m1 = _written_move(board, groups[a], *parts[0], first_cfg)
        if m1 is None:
            problems.append(f"{parts[0][0]} {parts[0][1]} n'est pas jouable avec le groupe "
                            f"{a + 1} ({groups[a]})")
            continue
        after = board.copy()
        m1.placement.apply(after)
        if len(parts) == 1:
            if groups[b] and movegen.best(after, groups[b], config, n=1):
                problems.append(f"le groupe {b + 1} ({groups[b]}) peut encore jouer : il faut "
                                "deux mots")
                continue
            return TactiqueTop(a + 1, m1, None, m1.score, 0,
                               f"Suite choisie par l'arbitre : {m1.word} seul.")
        m2 = _written_move(after, groups[b], *parts[1], config)
        if m2 is None:
            problems.append(f"{parts[1][0]} {parts[1][1]} n'est pas jouable avec le groupe "
                            f"{b + 1} ({groups[b]}) après {m1.word}")
            continue
        return TactiqueTop(a + 1, m1, m2, m1.score + m2.score, 0,
                           f"Suite choisie par l'arbitre : groupe {a + 1} d'abord.")
    raise DuplicateError("Tactique : suite refusée — " + " ; ".join(problems) + ".")


@dataclass(frozen=True)
class TactiqueBillet:
    """Both words in placement order (each a Duplicate bulletin with its score) and the sum
    written (None: omitted)."""

    player: str
    first: Bulletin
    second: Bulletin | None
    total: int | None


def parse_tactique_billet(text: str, *, player: str = "") -> TactiqueBillet | list[str]:
    """``H4 RESTAIT 70 + 8C MOTS 25 = 95``: the two words in placement order, each with its
    score, then the sum after ``=``. French errors as a list."""
    head, eq, tail = text.partition("=")
    total: int | None = None
    errors: list[str] = []
    if eq:
        t = tail.strip()
        too_long = score_error(t) if is_number(t) else None
        if is_number(t) and too_long is None:
            total = int(t)
        elif t:
            shown = t if len(t) <= 12 else f"{t[:12]}…"
            errors.append(too_long or f"Cumul « {shown} » illisible.")
    # « + » between the words, not the sign of a raccord letter's offset (« O@+1,+1 »)
    parts = [p for p in PLUS_SEPARATOR_RE.split(close_placed_spaces(head)) if p.strip()]
    if not parts or len(parts) > 2:
        return errors + [
            "Billet de Tactique : deux mots séparés par « + », puis « = cumul » "
            "(ex. « H4 RESTAIT 70 + 8C MOTS 25 = 95 »)."
        ]
    parsed = [parse_bulletin(p, player=player) for p in parts]
    for p in parsed:
        if isinstance(p, list):
            errors.extend(p)
    if errors:
        return errors
    first = cast(Bulletin, parsed[0])
    second = cast(Bulletin, parsed[1]) if len(parsed) == 2 else None
    return TactiqueBillet(player, first, second, total)


def _written_score(b: Bulletin, v: Verdict) -> int:
    """The score written for the solution of ``b`` that ``v`` retained (a word written with
    several solutions, « A / B », S1 5.6: the cumul is checked against the retained one's);
    0 when none was written."""
    solutions = (b, *b.alternatives)
    same = [s for s in solutions if s.word == v.word] or [b]
    placed = [s for s in same if s.ref == v.ref] or same
    return placed[0].claimed or 0


def correct_tactique(
    state: TactiqueState,
    billet: TactiqueBillet | None,
    config: GameConfig,
    *,
    top_score: int,
    settings: VariantSettings,
    player: str = "",
    contexts: dict[tuple[str, str, int], RoundContext] | None = None,
) -> Verdict:
    """Correct a Tactique billet: the first word as a Duplicate bulletin with one group, the
    second with the other group on the grid the first word (as credited) leaves; each order
    allowed is tried and the better kept. Any error or omission of a score or of the sum →
    one technical warning (« toute erreur ou omission de score ou de cumul »); warnings do
    not add up on one billet (S1 5.5, INFERRED for the two words).

    ``contexts``: a dict kept across the billets of a round, so each (grid, group) has its
    moves generated once."""
    who = billet.player if billet is not None and billet.player else player
    if billet is None:
        return Verdict(who, 0, "absent", reason_fr="Pas de billet : zéro.")
    cache = contexts if contexts is not None else {}

    def ctx(st: GameState, rack: str) -> RoundContext:
        key = (st.board_cgp, rack, st.round_no)
        found = cache.get(key)
        if found is None:
            found = prepare_round(
                st, rack, config, round_no=st.round_no, top_score=top_score,
                settings=settings.duplicate,
            )
            cache[key] = found
        return found

    g = state.game
    best: Verdict | None = None
    for a, b in _tactique_orders(settings):
        racks = state.reliquats
        v1 = correct(
            g, racks[a], billet.first, config, round_no=g.round_no, top_score=top_score,
            player=who, context=ctx(g, racks[a]),
        )
        after = g
        if v1.kind not in ("nul", "absent") and v1.ref and v1.word:
            board = g.board
            from scoring.move import Placement

            Placement.from_notation(board, v1.ref, v1.word).apply(board)
            after = replace(g, board_cgp=board.to_cgp(), round_no=g.round_no + 1)
        if billet.second is not None:
            v2 = correct(
                after, racks[b], billet.second, config,
                round_no=after.round_no, top_score=top_score, player=who,
                context=ctx(after, racks[b]),
            )
        else:
            v2 = Verdict(who, 0, "absent", reason_fr="Second mot absent.")
        score = v1.score + v2.score
        reasons = [f"Mot 1 : {v1.reason_fr}", f"Mot 2 : {v2.reason_fr}"]
        warn = v1.kind == "avertissement" or v2.kind == "avertissement"
        written = _written_score(billet.first, v1) + (
            _written_score(billet.second, v2) if billet.second else 0)
        if billet.total is None:
            warn = True
            reasons.append("Avertissement : cumul absent.")
        elif billet.total != written:
            warn = True
            reasons.append(
                f"Avertissement : cumul {billet.total} faux ({written} d'après les scores écrits)."
            )
        kinds = {v1.kind, v2.kind}
        if kinds <= {"nul", "absent"}:
            kind: Any = "nul"
            warn = False
        elif "penalite5" in kinds:
            kind = "penalite5"
            warn = False
        else:
            kind = "avertissement" if warn else "valide"
        v = Verdict(
            who, score, kind, 1 if warn else 0, " ".join(reasons),
            " + ".join(x for x in (v1.ref, v2.ref) if x) or None,
            " + ".join(x for x in (v1.word, v2.word) if x) or None,
        )
        if best is None or (v.score, -v.warnings) > (best.score, -best.warnings):
            best = v
    assert best is not None
    return best


# --- Duplicate Top ranking -------------------------------------------------------------------
@dataclass(frozen=True)
class TopStandingRow:
    player: str
    points: int
    """Ranking points: the rounds topped, less the warning conversion."""
    tops: int
    companions: int
    topped_total: int
    warnings: int
    penalty: int
    rank: int = 0


def rank_duplicate_top(
    rounds: Sequence[Sequence[Verdict]], settings: VariantSettings
) -> list[TopStandingRow]:
    """Duplicate Top (RULES §9.2): each round, every player whose credited score equals the
    room top (the highest, at least ``top_min_score``) earns 1 point; warnings count only
    for that round's toppers and cost 1 top at 4, 2 at 7, 3 at 10 … (§5.3). Ties: fewer
    companions (G13: Σ (toppers − 1), or distinct co-toppers), then the higher total of the
    topped rounds' scores; then shared rank (listed by name)."""
    players: dict[str, dict[str, Any]] = {}
    for verdicts in rounds:
        for v in verdicts:
            players.setdefault(v.player, {"tops": 0, "comp": 0, "with": set(), "sum": 0, "w": 0})
        scored = [v for v in verdicts if v.kind not in ("nul", "absent")]
        if not scored:
            continue
        high = max(v.score for v in scored)
        if high < settings.top_min_score:
            continue
        toppers = [v for v in scored if v.score == high]
        names = {v.player for v in toppers}
        for v in toppers:
            p = players[v.player]
            p["tops"] += 1
            p["comp"] += len(toppers) - 1
            p["with"] |= names - {v.player}
            p["sum"] += v.score
            p["w"] += v.warnings
    rows: list[TopStandingRow] = []
    for name, p in players.items():
        pen = ranking_point_penalty(p["w"], settings)
        comp = p["comp"] if settings.top_companions == "sum" else len(p["with"])
        rows.append(TopStandingRow(name, p["tops"] - pen, p["tops"], comp, p["sum"], p["w"], pen))
    rows.sort(key=lambda r: (-r.points, r.companions, -r.topped_total, r.player))
    ranks = shared_ranks([(r.points, r.companions, r.topped_total) for r in rows])
    return [replace(r, rank=k) for r, k in zip(rows, ranks, strict=True)]


# --- Partie de Superscrabble -----------------------------------------------------------------
@dataclass(frozen=True)
class ScrabbleSheet:
    """One player's sheet of a round: the scrabbles written (reference, word) and the count
    written (None: omitted)."""

    player: str
    entries: tuple[tuple[str, str], ...]
    count: int | None


def parse_scrabble_sheet(text: str, *, player: str = "") -> ScrabbleSheet | list[str]:
    """``H4 RESTAIT, 8C RESTAIT ; 2`` — the scrabbles (reference and word) separated by
    commas, then ``;`` and the count. French errors as a list."""
    head, sep, tail = text.partition(";")
    count: int | None = None
    errors: list[str] = []
    if "/" in head:
        errors.append("Feuille de Superscrabble : écrivez chaque scrabble une fois, séparés "
                      "par des virgules ; « / » n'y a pas de sens (ex. « H4 RESTAIT, "
                      "8C RESTAIT ; 2 »).")
        head = head.replace("/", ",")
    t = tail.strip()
    if sep and t:
        if is_number(t) and not score_error(t):
            count = int(t)
        else:
            shown = t if len(t) <= 12 else f"{t[:12]}…"
            errors.append(f"Nombre de scrabbles « {shown} » illisible.")
    entries: list[tuple[str, str]] = []
    for part in head.split(","):
        if not part.strip():
            continue
        b = parse_bulletin(part, player=player)
        if isinstance(b, list):
            errors.extend(b)
            continue
        if b.ref is None:
            errors.append(f"Scrabble « {part.strip()} » sans référence.")
            continue
        entries.append((b.ref, b.word))
    if errors:
        return errors
    return ScrabbleSheet(player, tuple(entries), count)


@dataclass(frozen=True)
class SheetVerdict:
    player: str
    valid: int
    invalid: int
    duplicates: int
    warnings: int
    reason_fr: str


def list_scrabbles(board: Board, rack: str, config: GameConfig) -> list[GeneratedMove]:
    """Every distinct scrabble of a round (RULES §7.5 identity: start square, direction,
    word with the joker's letter resolved) — :func:`puzzles.solver.superscrabble_moves`."""
    from puzzles.solver import superscrabble_moves

    return superscrabble_moves(board, rack, config)


def correct_scrabble_sheet(
    sheet: ScrabbleSheet | None, answers: Sequence[GeneratedMove], player: str = ""
) -> SheetVerdict:
    """One point per distinct valid scrabble; invalid or repeated entries score 0; a count
    missing or different from the number of entries written → one technical warning
    (INFERRED)."""
    who = sheet.player if sheet is not None and sheet.player else player
    if sheet is None:
        return SheetVerdict(who, 0, 0, 0, 0, "Pas de feuille : zéro.")
    valid_ids = {(format_ref(m.ref), m.word.upper()) for m in answers}
    seen: set[tuple[str, str]] = set()
    valid = invalid = dup = 0
    for ref, word in sheet.entries:
        ident = (ref, word.upper())
        if ident in seen:
            dup += 1
        elif ident in valid_ids:
            valid += 1
            seen.add(ident)
        else:
            invalid += 1
            seen.add(ident)
    notes = [f"{valid} scrabble(s) valable(s)"]
    if invalid:
        notes.append(f"{invalid} non valable(s)")
    if dup:
        notes.append(f"{dup} répété(s)")
    warn = 0
    if sheet.count is None:
        warn = 1
        notes.append("avertissement : nombre de scrabbles absent")
    elif sheet.count != len(sheet.entries):
        warn = 1
        notes.append(
            f"avertissement : nombre écrit {sheet.count}, {len(sheet.entries)} scrabbles listés"
        )
    return SheetVerdict(who, valid, invalid, dup, warn, " ; ".join(notes) + ".")


def choose_scrabble(
    board: Board, answers: Sequence[GeneratedMove], config: GameConfig
) -> GeneratedMove | None:
    """The scrabble the engine places when the arbitre asks it to choose (INFERRED): the
    best score, then the FISF top order (:func:`puzzles.duplicate.rank_moves`)."""
    if not answers:
        return None
    ranked, _ = rank_moves(answers, board, "", "", config.tileset, DuplicateSettings())
    return ranked[0]


@dataclass(frozen=True)
class SuperscrabbleRow:
    player: str
    points: int
    valid: int
    warnings: int
    penalty: int
    rank: int = 0


def rank_superscrabble(
    rounds: Sequence[Sequence[SheetVerdict]], settings: VariantSettings | None = None
) -> list[SuperscrabbleRow]:
    """Total of valid scrabbles over the rounds, less the ranking-point conversion of the
    warnings (RULES §7.7, §5.3); equal totals share a rank."""
    s = settings or VariantSettings()
    acc: dict[str, list[int]] = {}
    for verdicts in rounds:
        for v in verdicts:
            a = acc.setdefault(v.player, [0, 0])
            a[0] += v.valid
            a[1] += v.warnings
    rows = []
    for name, (valid, w) in acc.items():
        pen = ranking_point_penalty(w, s)
        rows.append(SuperscrabbleRow(name, valid - pen, valid, w, pen))
    rows.sort(key=lambda r: (-r.points, r.player))
    ranks = shared_ranks([r.points for r in rows])
    return [replace(r, rank=k) for r, k in zip(rows, ranks, strict=True)]


def correct_free_round(
    state: GameState,
    drawn: str,
    bulletins: Mapping[str, str | FreeBulletin | None],
    config: GameConfig,
    *,
    top_score: int,
    settings: VariantSettings,
    n_players: int | None = None,
) -> list[Verdict]:
    """A whole free-letter round: parse, correct (one move generation per distinct rack),
    then the solos (RULES §9: « as in the Duplicate »)."""
    contexts: dict[str, RoundContext] = {}
    out: list[Verdict] = []
    for who, raw in bulletins.items():
        fb = parse_free_bulletin(raw, player=who) if isinstance(raw, str) else raw
        if isinstance(fb, list):
            out.append(Verdict(who, 0, "nul", reason_fr="Nul : bulletin illisible — " +
                               " ".join(fb)))
            continue
        out.append(
            correct_free(
                state, drawn, fb, config, top_score=top_score, settings=settings,
                player=who, contexts=contexts,
            )
        )
    return apply_solos(out, n_players if n_players is not None else len(out), settings.duplicate)
