"""The letter-choice games (RULES §9.3–9.6) as ONE round game parameterised as Eliot's game
modes are (:class:`FreeLetters`): ``drawn`` letters drawn by the arbitre, ``free`` letters the
player takes from the stock, ``swap`` (one drawn letter may be given back for a stock letter),
``max_tiles`` the most tiles one move places — Complétif (6 + 1), Superjoker (5 + 2),
Métagramme (7, one swap), Elliptique (8 drawn, 7 among them: a parameter, not a branch). One
line each at the end of this module (:data:`FREE_GAMES`).

The tops are searched exactly:

* a free letter is generated as a joker, then each move is re-scored with the real letter in
  place of the free joker — a tile at square ``q`` adds ``value × lm(q) × (wm(main word) +
  wm(q) if it also makes a cross word)`` — among the letters still in the stock
  (:func:`free_letter_moves`); checked against a brute force over every choice in the tests;
* Métagramme: the drawn rack and every (drawn letter → stock letter) swap;
* ``max_tiles`` fewer than ``drawn`` (Elliptique): the best move of each subset of that size.

The draw stores the stock (the bag, sorted); a bulletin names its letters (« +T », « -N +K »,
:func:`split_letters`, the one reader of those tokens); the correction checks them against the
stock (the Romanian online joker rules under ``free_joker_rule="ro_online"``)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import cast

from puzzles.duplicate.bulletins import Bulletin, close_placed_spaces, parse_bulletin
from puzzles.duplicate.correction import (
    ContextCache,
    Verdict,
    context_for,
    correct,
    retain_solution,
)
from puzzles.duplicate.games.classic import (
    VariantGame,
    arbitre_top,
    legal_move,
    stored_or_line,
)
from puzzles.duplicate.protocol import GameSettings, PlayerBulletin, RoundRecord
from puzzles.duplicate.ranking import correct_each
from puzzles.duplicate.records import (
    AnyBulletinJSON,
    BulletinJSON,
    DrawJSON,
    RoundTopJSON,
    TopJSON,
    bulletin_dict,
    bulletin_of,
    draw_dict,
    move_dict,
    move_of,
)
from puzzles.duplicate.settings import (
    RACK_SIZE,
    DuplicateError,
    DuplicateSettings,
    VariantSettings,
)
from puzzles.duplicate.state import Draw, GameState, draw_round, minus_tiles, round_config
from puzzles.duplicate.top import TopChoice, apply_top, top_key, top_score
from puzzles.verdicts import scores_nothing
from scoring import movegen
from scoring.board import Board
from scoring.config import GameConfig
from scoring.errors import EngineError
from scoring.layout import SIZE
from scoring.move import Placement
from scoring.movegen import GeneratedMove
from scoring.notation import format_ref, parse_ref, parse_word
from scoring.tiles import JOKER, TileSet
from scoring.validate import check_move


@dataclass(frozen=True)
class FreeLetters:
    """The parameters of a letter-choice game."""

    #: letters the arbitre draws
    drawn: int
    #: letters the player takes from the stock
    free: int = 0
    #: one drawn letter may be given back for one stock letter (Métagramme)
    swap: bool = False
    #: the most tiles one move places (Elliptique: 7 of the 8 drawn)
    max_tiles: int = RACK_SIZE

    def too_many(self, tiles: int) -> bool:
        """The Elliptique's rule (« 7 among 8 »): a move placing more tiles than
        ``max_tiles`` is not a move of this game — the one test of it, for the top search's
        subsets, the correction's zero and the arbitre's other top."""
        return tiles > self.max_tiles




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
    letters = letters_of(settings)
    # (rack, base): base = the drawn letters the player keeps; rack = base + choice
    racks: list[tuple[str, str, str]] = []  # (rack, base, swapped)
    if letters.free:
        # choices of ``free`` letters cover every move using fewer; near the end the stock
        # may hold fewer letters than that
        for combo in stock_choices(
            stock, min(letters.free, len(stock)), jokers=settings.free_joker_rule == "ro_online"
        ):
            racks.append((drawn + combo, drawn, ""))
        if not racks:
            racks.append((drawn, drawn, ""))
    elif letters.swap:
        racks.append((drawn, drawn, ""))
        for x in sorted(set(drawn)):
            rest = minus_tiles(drawn, x)
            assert rest is not None
            for y in stock_choices(stock, 1):
                if y != x:
                    racks.append((rest + y, rest, x))
    elif len(drawn) > letters.max_tiles:
        # « 7 among 8 » (Elliptique): every subset of ``max_tiles`` of the drawn letters
        for out in sorted(set(itertools.combinations(sorted(drawn), len(drawn)
                                                     - letters.max_tiles))):
            rest = minus_tiles(drawn, "".join(out))
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
    tc = TopChoice(top.move, top.ref, top.word, top.score)
    return apply_top(replace(state, bag=tuple(bag)), Draw("", rack, rack), tc)


def draw_variant(
    state: GameState, settings: VariantSettings
) -> tuple[Draw | None, GameState]:
    """The arbitre's draw of a one-word variant: :func:`~puzzles.duplicate.draw_round` with
    the variant's number of letters (Complétif 6, Superjoker 5, Elliptique 8, else 7); the
    minimum applies to those letters (« 7 read as 6 », E11)."""
    return draw_round(state, settings.duplicate, rack_size=letters_of(settings).drawn)


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


def split_letters(tokens: Sequence[str]) -> tuple[list[str], str, str, list[str]]:
    """The one reader of the letters a letter-choice move names (a bulletin, the arbitre's
    other top): ``+LETTERS`` the letters taken from the stock (``+?`` a stock joker),
    ``-L`` the letter given back (Métagramme), uppercased; returns the other tokens, the
    chosen letters, the given-back ones and the French errors of unreadable ones."""
    chosen = swapped = ""
    rest: list[str] = []
    errors: list[str] = []
    for tok in tokens:
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
    return rest, chosen, swapped, errors


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
    rest, chosen, swapped, errors = split_letters(close_placed_spaces(text).split())
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
    contexts: ContextCache | None = None,
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
    letters = letters_of(settings)
    free = letters.free if not letters.swap else (1 if fb.swapped else 0)
    if len(fb.chosen) > free or (letters.swap and len(fb.swapped) > 1):
        return Verdict(
            who, 0, "nul", reason_fr=f"Nul : {len(fb.chosen)} lettre(s) choisie(s), {free} au plus."
        )
    if letters.swap and bool(fb.swapped) != bool(fb.chosen):
        return Verdict(
            who, 0, "nul", reason_fr=f"Nul : en {_short_name(settings)}, la lettre rendue et "
            "la lettre choisie vont ensemble (« -A +T »)."
        )
    if letters.drawn > letters.max_tiles and fb.bulletin.ref:
        tiles = _tiles_placed(state.board, fb.bulletin.ref, fb.bulletin.word)
        if letters.too_many(tiles):
            return Verdict(
                who, 0, "nul", reason_fr=f"Nul : en {_short_name(settings)}, un coup pose au "
                f"plus {letters.max_tiles} lettres ({fb.bulletin.word} en pose {tiles})."
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
    ctx = context_for({} if contexts is None else contexts, state, rack, config,
                      top_score=top_score, settings=settings.duplicate)
    verdict = correct(
        state, rack, b, config, round_no=state.round_no, top_score=top_score,
        context=ctx, player=who,
    )
    if deduct and not scores_nothing(verdict.kind):
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
    contexts: ContextCache = {}
    return correct_each(
        bulletins, parse_free_bulletin,
        lambda who, fb: correct_free(state, drawn, fb, config, top_score=top_score,
                                     settings=settings, player=who, contexts=contexts),
        n_players, settings.duplicate)



# --- the stored forms -----------------------------------------------------------------------
def variant_top_dict(t: VariantTop) -> TopJSON:
    """A ``puzzles.variants.VariantTop``: the move, the letters it takes from the stock
    (``chosen``) and the Métagramme's given-back letter (``swapped``)."""
    m = move_dict(t.move)
    return {"ref": t.ref, "word": t.word, "score": int(t.score), "move": m["move"],
            "reason": t.reason_fr, "ties": [], "tied": int(t.ties), "chosen": t.choice.chosen,
            "swapped": t.choice.swapped}


def variant_top_of(d: TopJSON) -> VariantTop:
    return VariantTop(FreeMove(move_of(d), d.get("chosen", ""), d.get("swapped", "")),
                      ref=d["ref"], word=d["word"], score=int(d["score"]),
                      reason_fr=d.get("reason", ""))


def free_dict(fb: FreeBulletin) -> BulletinJSON:
    """A ``puzzles.variants.FreeBulletin`` as stored: :func:`bulletin_dict` with the letters
    taken (``chosen``, ``swapped``); each alternative with its own letters."""
    out: BulletinJSON = {**bulletin_dict(fb.bulletin), "chosen": fb.chosen,
                         "swapped": fb.swapped}
    if fb.alternatives:
        out["alternatives"] = [free_dict(a) for a in fb.alternatives]
    return out


def free_of(d: BulletinJSON, player: str, received_at: datetime | None) -> FreeBulletin:
    """The stored bulletin of a letter-choice game (:func:`free_dict`) with every solution
    and its letters."""
    return FreeBulletin(
        replace(bulletin_of(d, player, received_at), alternatives=()),
        d.get("chosen", ""), d.get("swapped", ""),
        tuple(free_of(a, player, received_at) for a in d.get("alternatives") or ()))



# --- the round game ---------------------------------------------------------------------------
@dataclass(eq=False, kw_only=True)
class FreeGame(VariantGame):
    """One letter-choice game: its key, names, rule text, example and :class:`FreeLetters`."""

    key: str
    label: str
    #: the name in a sentence (« En Métagramme, … »)
    short: str
    rules_fr: str
    bulletin_example: str
    letters: FreeLetters

    names_letters = True
    draws_example = "« RU+ZXTEU » ; Tactique « BC+DEFGH / MN+AEIRS »"
    lenient_bag = False

    def __post_init__(self) -> None:
        self.rules_page = f"duplicate_{self.key}"
        self.rack_size = self.letters.drawn
        # the players choose from the stock: the page and the draw mail show it
        self.free_letters = self.shows_stock = self.letters.free > 0 or self.letters.swap
        # the jokers' rule and the unused chosen letter are set where letters are chosen
        self.form_settings = self.letters.free > 0

    def draw_from(self, state: GameState, settings: GameSettings,
                  config: GameConfig) -> tuple[Draw | None, GameState]:
        return draw_variant(state, settings.rules)

    def top_of_round(self, state: GameState, draw: Draw, settings: GameSettings,
                     config: GameConfig, round_no: int) -> TopJSON | None:
        top = variant_top(state, draw.rack, config, settings.rules)
        return None if top is None else variant_top_dict(top)

    def draw_json(self, draw: Draw, state: GameState) -> DrawJSON:
        # what the players choose from (stored for every letter-choice game)
        return {**draw_dict(draw), "stock": "".join(sorted(state.bag))}

    def parse(self, text: str, *, player: str = "") -> AnyBulletinJSON | list[str]:
        parsed = parse_free_bulletin(text, player=player)
        return parsed if isinstance(parsed, list) else free_dict(parsed)

    def verdicts(self, round: RoundRecord, bulletins: Sequence[PlayerBulletin],
                 settings: GameSettings, config: GameConfig,
                 n_players: int) -> list[Verdict]:
        state = GameState.from_text(round.state_before)
        sheets = {pb.player: stored_or_line(pb, free_of) for pb in bulletins}
        return correct_free_round(state, round.draw["rack"], sheets, config,
                                  top_score=int(round.top["score"]), settings=settings.rules,
                                  n_players=n_players)

    def other_top(self, round: RoundRecord, ref: str, word: str, settings: GameSettings,
                  config: GameConfig, *, actor: str, reason: str) -> RoundTopJSON:
        if not reason.strip():
            raise DuplicateError("Indiquez le motif du changement de top.")
        state = GameState.from_text(round.state_before)
        rack, written, chosen, swapped = self.free_rack(state, round.draw["rack"], word,
                                                        settings)
        move = legal_move(state, rack, config, ref, written)
        if self.letters.too_many(bin(move.new_mask).count("1")):
            raise DuplicateError(f"En {self.short}, un coup pose au plus "
                                 f"{self.letters.max_tiles} lettres.")
        base = rack[:len(rack) - len(chosen)]
        used = "".join(sorted((Counter(move.letters) - Counter(base)).elements()))
        # G15: a named letter the move does not place returns to the stock (it is no
        # choice), unless the game keeps it on the rack (free_unused="reliquat")
        kept = chosen if settings.rules.free_unused == "reliquat" else used
        return arbitre_top(move, actor, reason, (kept, swapped if used else ""))

    def free_rack(self, state: GameState, drawn: str, text: str,
                  settings: GameSettings) -> tuple[str, str, str, str]:
        """The arbitre's move written with its letters (``RESTAIT +T``, ``KETAMINE -N
        +K``): the rack (the drawn letters less the given-back one, plus the chosen ones,
        which must be in the stock), the word, the chosen and the given-back letters."""
        # unreadable letters are refused below, by the stock (« absente(s) du stock »)
        word_parts, chosen, swapped, _ = split_letters(text.split())
        if len(word_parts) != 1:
            raise DuplicateError("Écrivez le mot puis les lettres choisies, par exemple "
                                 "« RESTAIT +T » (Métagramme : « KETAMINE -N +K »).")
        swap = self.letters.swap
        limit = 1 if swap else self.letters.free
        if len(chosen) > limit or len(swapped) > (1 if swap else 0):
            raise DuplicateError(f"{self.label} : {limit} lettre(s) choisie(s) au plus.")
        if swap and bool(chosen) != bool(swapped):
            raise DuplicateError(f"En {self.short}, la lettre rendue et la lettre choisie vont "
                                 "ensemble (« -N +K »).")
        stock = Counter(state.bag)
        if Counter(chosen) - stock:
            raise DuplicateError(f"Lettre(s) choisie(s) « {chosen} » absente(s) du stock.")
        base = drawn
        if swapped:
            if swapped not in drawn:
                raise DuplicateError(f"La lettre rendue {swapped} n'est pas dans le tirage "
                                     f"{drawn}.")
            base = drawn.replace(swapped, "", 1)
        return base + chosen, word_parts[0], chosen, swapped

    def top_line(self, top: RoundTopJSON) -> str:
        """« H4 MOT 30 +T -N » (the letters taken, then the one given back)."""
        t = cast(TopJSON, top)
        chosen, swapped = t.get("chosen", ""), t.get("swapped", "")
        return (super().top_line(top) + (f" +{chosen}" if chosen else "")
                + (f" -{swapped}" if swapped else ""))

    def apply(self, round: RoundRecord, settings: GameSettings,
              config: GameConfig) -> tuple[str, str]:
        state = apply_variant_top(GameState.from_text(round.state_before), round.draw["rack"],
                                  variant_top_of(cast(TopJSON, round.top)), settings.rules)
        return state.to_text(), state.board_cgp


COMPLETIF = FreeGame(
    key="completif", label="Duplicate Complétif", short="Complétif",
    rules_fr="Complétif : complétez le tirage de 6 lettres par 1 lettre choisie dans le stock "
    "et nommez-la après le score (« +T »).", bulletin_example="H4 RESTAIT 70 +T",
    letters=FreeLetters(drawn=6, free=1))
SUPERJOKER = FreeGame(
    key="superjoker", label="Duplicate Superjoker", short="Superjoker",
    rules_fr="Superjoker : complétez le tirage de 5 lettres par 2 lettres choisies dans le "
    "stock et nommez-les après le score (« +ST »).", bulletin_example="H4 RESTAIT 70 +ST",
    letters=FreeLetters(drawn=5, free=2))
METAGRAMME = FreeGame(
    key="metagramme", label="Duplicate Métagramme", short="Métagramme",
    rules_fr="Métagramme : vous pouvez échanger une lettre du tirage contre une lettre du "
    "stock ; nommez la lettre rendue puis la lettre prise (« -N +K »).",
    bulletin_example="H4 KETAMINE 92 -N +K", letters=FreeLetters(drawn=RACK_SIZE, swap=True))
ELLIPTIQUE = FreeGame(
    key="elliptique", label="Duplicate Elliptique", short="Elliptique",
    rules_fr="Elliptique : 8 lettres sont tirées ; jouez un mot d'au plus 7 d'entre elles.",
    bulletin_example="H4 RESTAIt 70", letters=FreeLetters(drawn=8, max_tiles=RACK_SIZE))

#: the letter-choice games by key: one line each above
FREE_GAMES: dict[str, FreeGame] = {g.key: g for g in (COMPLETIF, SUPERJOKER, METAGRAMME,
                                                       ELLIPTIQUE)}


def letters_of(settings: VariantSettings) -> FreeLetters:
    """The letter-choice parameters of a variant's settings (:data:`FREE_GAMES`); another
    variant (Top, Tactique) plays the drawn letters alone."""
    game = FREE_GAMES.get(settings.variant)
    return game.letters if game is not None else FreeLetters(drawn=RACK_SIZE)


def _short_name(settings: VariantSettings) -> str:
    game = FREE_GAMES.get(settings.variant)
    return game.short if game is not None else settings.variant


#: this module's round games, found by :mod:`puzzles.duplicate.registry`, and their place
#: in its lists (a new module takes the next number)
LISTED = 4
GAMES = tuple(FREE_GAMES.values())
