"""Duplicate Tactique (RULES §9.1) as a round game: two groups drawn (:func:`draw_tactique`,
:func:`draw_tactique_listed`), the exact best two-word sequence (:func:`tactique_top`, by the
engine's branch and bound :func:`scoring.movegen.sequences`), the arbitre's own sequence
(:func:`tactique_sequence`), the billet « H4 RESTAIT 70 + 8C MOTS 25 = 95 »
(:func:`parse_tactique_billet`) corrected word by word (:func:`correct_tactique`) then the
solos, both words placed (:func:`apply_tactique_top`), the ranking as the Duplicate's on the
sums. The master state (:func:`tactique_text`) is the JSON of the Duplicate state and each
group's reliquat."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import cast

from puzzles.duplicate.bulletins import (
    PLUS_SEPARATOR_RE,
    Bulletin,
    close_placed_spaces,
    is_number,
    parse_bulletin,
    score_error,
)
from puzzles.duplicate.correction import ContextCache, RoundContext, Verdict, context_for, correct
from puzzles.duplicate.games.classic import VariantGame, position_state
from puzzles.duplicate.protocol import (
    DrawnRound,
    Finished,
    GameSettings,
    PlayerBulletin,
    RoundRecord,
    StartPosition,
)
from puzzles.duplicate.ranking import apply_solos
from puzzles.duplicate.records import (
    AnyBulletinJSON,
    BilletJSON,
    RoundDrawJSON,
    RoundTopJSON,
    TactiqueDrawJSON,
    TactiqueTopJSON,
    bulletin_dict,
    bulletin_line,
    bulletin_of,
    draw_dict,
    draw_of,
    move_dict,
    move_of,
    solutions_of,
)
from puzzles.duplicate.settings import (
    RACK_SIZE,
    DuplicateError,
    DuplicateSettings,
    VariantSettings,
    VerdictKind,
)
from puzzles.duplicate.state import (
    Draw,
    GameState,
    draw_listed,
    draw_round,
    minus_tiles,
    no_valid_draw,
    round_config,
)
from puzzles.duplicate.top import TopChoice, top_score
from puzzles.verdicts import scores_nothing
from scoring import movegen
from scoring.board import Board
from scoring.config import GameConfig
from scoring.errors import EngineError
from scoring.layout import SIZE
from scoring.move import Placement
from scoring.movegen import GeneratedMove
from scoring.notation import format_ref, parse_ref
from scoring.tiles import TileSet, tileset


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
            firsts = [m for m in (movegen.generate(board, groups[a], first_cfg) if groups[a]
                                  else ()) if not _joker_dominated(m, groups[a])]
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
    contexts: ContextCache | None = None,
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
    cache: ContextCache = contexts if contexts is not None else {}

    def ctx(st: GameState, rack: str) -> RoundContext:
        return context_for(cache, st, rack, config, top_score=top_score,
                           settings=settings.duplicate)

    g = state.game
    best: Verdict | None = None
    for a, b in _tactique_orders(settings):
        racks = state.reliquats
        v1 = correct(
            g, racks[a], billet.first, config, round_no=g.round_no, top_score=top_score,
            player=who, context=ctx(g, racks[a]),
        )
        after = g
        if not scores_nothing(v1.kind) and v1.ref and v1.word:
            board = g.board
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
        if all(scores_nothing(k) for k in kinds):
            kind: VerdictKind = "nul"
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



# --- the stored forms -----------------------------------------------------------------------
def tactique_top_dict(t: TactiqueTop) -> TactiqueTopJSON:
    """A ``puzzles.variants.TactiqueTop`` (:class:`TactiqueTopJSON`)."""
    moves = [move_dict(m) if m is not None else None for m in (t.first, t.second)]
    placed = [m for m in moves if m]
    return {"first_group": int(t.first_group), "first": moves[0], "second": moves[1],
            "ref": " + ".join(m["ref"] for m in placed),
            "word": " + ".join(m["word"] for m in placed), "score": int(t.score),
            "notation": t.notation, "reason": t.reason_fr, "ties": [], "tied": int(t.ties)}


def tactique_top_of(d: TactiqueTopJSON) -> TactiqueTop:
    first, second = d.get("first"), d.get("second")
    return TactiqueTop(
        int(d["first_group"]), move_of(first) if first else None,
        move_of(second) if second else None, int(d["score"]))


def billet_dict(t: TactiqueBillet) -> BilletJSON:
    return {"first": bulletin_dict(t.first),
            "second": bulletin_dict(t.second) if t.second else None, "total": t.total}


def billet_of(d: BilletJSON, player: str, received_at: datetime | None) -> TactiqueBillet:
    second = d.get("second")
    return TactiqueBillet(player, bulletin_of(d["first"], player, received_at),
                          bulletin_of(second, player, received_at) if second else None,
                          d.get("total"))


def billet_line(b: BilletJSON) -> str:
    words = " + ".join(x for x in (bulletin_line(b["first"]), bulletin_line(b["second"]))
                       if x)
    return words + (f" = {b['total']}" if b.get("total") is not None else "")


def tactique_text(ts: TactiqueState) -> str:
    """A ``puzzles.variants.TactiqueState`` as stored: JSON of the Duplicate state's text and
    the two groups' reliquats."""
    return json.dumps({"tactique": list(ts.reliquats), "state": ts.game.to_text()},
                      ensure_ascii=False)


def tactique_of(text: str) -> TactiqueState:
    """The Tactique master game ``state_text``/``state_before`` hold (:func:`tactique_text`)."""
    data = json.loads(text)
    r1, r2 = data["tactique"]
    return TactiqueState(GameState.from_text(data["state"]), (str(r1), str(r2)))


# --- the round game ---------------------------------------------------------------------------
def tactique_text_of(ref: str, word: str) -> str:
    """The arbitre's Tactique sequence from the console's two fields: ``ref`` « H4 + 8C »
    and ``word`` « RESTAIT + MOTS » (paired in order), or the whole sequence in either
    field (« H4 RESTAIT + 8C MOTS »)."""
    m = re.match(r"\s*(groupe\s*[12])\s*:?\s*", ref, re.IGNORECASE)
    lead = f"groupe {m.group(1)[-1]} : " if m else ""
    rest = ref[m.end():] if m else ref
    refs = [r.strip() for r in rest.split("+")]
    words = [w.strip() for w in word.split("+")]
    if len(refs) == len(words) == 2 and all(len(x.split()) == 1 for x in refs + words):
        return f"{lead}{refs[0]} {words[0]} + {refs[1]} {words[1]}"
    return f"{lead}{rest.strip()} {word.strip()}".strip()


class TactiqueGame(VariantGame):
    """Duplicate Tactique: two groups, two words, in the order of the player's choice."""

    key = "tactique"
    label = "Duplicate Tactique"
    rules_page = "duplicate_tactique"
    rules_fr = ("Tactique : deux groupes de lettres ; jouez un mot avec chacun, dans l'ordre "
                "de votre choix, et écrivez les deux mots dans l'ordre où vous les posez, "
                "chacun avec son score, puis leur somme.")
    bulletin_example = "H4 RESTAIT 70 + 8C MOTS 25 = 95"
    # RULES §9.1 « Temps de réflexion: 6 minutes par coup »
    live_minutes = 6
    two_words = True
    form_settings = True

    def initial(self, settings: GameSettings, bag: str, config: GameConfig) -> str:
        return tactique_text(TactiqueState(GameState.initial(settings.duplicate, bag)))

    draws_example = "« RU+ZXTEU » ; Tactique « BC+DEFGH / MN+AEIRS »"
    lenient_bag = False

    def draw(self, state_text: str, settings: GameSettings, config: GameConfig,
             round_no: int, *, listed: str | None = None) -> DrawnRound | Finished:
        vs = settings.rules
        drawn: TactiqueDraw | None
        if listed is None:
            drawn, ts = draw_tactique(tactique_of(state_text), vs)
        else:
            drawn, ts = draw_tactique_listed(tactique_of(state_text), vs, listed)
        if drawn is None:
            return Finished(tactique_text(ts), ts.game.end_reason)
        top = tactique_top(ts.game.board, drawn.racks, config, vs)
        if top is None or (top.first is None and top.second is None):
            return Finished(tactique_text(ts), "Aucun mot ne peut être joué avec les groupes "
                            f"{drawn.notation}.")
        d1, d2 = drawn.groups
        draw: TactiqueDrawJSON = {"groups": [draw_dict(d1), draw_dict(d2)],
                                  "rack": f"{d1.rack}/{d2.rack}", "notation": drawn.notation}
        return DrawnRound(draw, tactique_text(ts), ts.game.board_cgp, tactique_top_dict(top))

    def finish(self, state_text: str, reason: str) -> str:
        ts = tactique_of(state_text)
        return tactique_text(replace(ts, game=replace(ts.game, finished=True,
                                                      end_reason=reason)))

    def start_text(self, state: GameState) -> str:
        return tactique_text(TactiqueState(state))

    def position(self, start: StartPosition, settings: GameSettings) -> str:
        """A Tactique position: ``reliquat`` « G1/G2 », each group's letters kept."""
        r1, _, r2 = start.reliquat.partition("/")
        state = position_state(replace(start, reliquat=r1 + r2), settings.duplicate)
        return tactique_text(TactiqueState(replace(state, reliquat=""),
                                           (r1.upper(), r2.upper())))

    def position_of(self, round: RoundRecord) -> StartPosition:
        ts = tactique_of(round.state_before)
        g1, g2 = cast(TactiqueDrawJSON, round.draw)["groups"]
        return StartPosition(round.grid_before, "".join(ts.game.bag) + g1["new"] + g2["new"],
                             f"{g1['reliquat']}/{g2['reliquat']}", round.number,
                             ts.game.tops_total, ts.game.first_word)

    def top_line(self, top: RoundTopJSON) -> str:
        t = cast(TactiqueTopJSON, top)
        return f"groupe {t['first_group']} d'abord : {t['notation']}"

    def end_totals(self, end: Finished) -> tuple[str, int]:
        g = tactique_of(end.state_text).game
        return g.end_reason if g.finished else end.end_reason, g.tops_total

    def parse(self, text: str, *, player: str = "") -> AnyBulletinJSON | list[str]:
        parsed = parse_tactique_billet(text, player=player)
        return parsed if isinstance(parsed, list) else billet_dict(parsed)

    def verdicts(self, round: RoundRecord, bulletins: Sequence[PlayerBulletin],
                 settings: GameSettings, config: GameConfig,
                 n_players: int) -> list[Verdict]:
        ts = tactique_of(round.state_before)
        vs = settings.rules
        contexts: ContextCache = {}
        verdicts = []
        for pb in bulletins:
            if not pb.absent and pb.bulletin is None:
                errors = list(pb.parse_errors) or ["billet illisible"]
                verdicts.append(Verdict(pb.player, 0, "nul", reason_fr="Nul : billet "
                                        "illisible — " + " ".join(errors)))
                continue
            billet = None if pb.bulletin is None else billet_of(
                cast(BilletJSON, pb.bulletin), pb.player, pb.received_at)
            verdicts.append(correct_tactique(ts, billet, config, top_score=int(round.top["score"]),
                                             settings=vs, player=pb.player, contexts=contexts))
        return apply_solos(verdicts, n_players, vs.duplicate)

    def other_top(self, round: RoundRecord, ref: str, word: str, settings: GameSettings,
                  config: GameConfig, *, actor: str, reason: str) -> RoundTopJSON:
        """RULES §9.1: another legal two-word sequence of the round
        (:func:`puzzles.variants.tactique_sequence`)."""
        if not reason.strip():
            raise DuplicateError("Indiquez le motif du changement de top.")
        ts = tactique_of(round.state_before)
        try:
            top = tactique_sequence(ts.game.board, ts.reliquats, tactique_text_of(ref, word),
                                    config, settings.rules)
        except ValueError as exc:
            raise DuplicateError(str(exc)) from None
        out = tactique_top_dict(top)
        out["reason"] = f"Suite choisie par l'arbitre ({actor}) : {reason.strip()}"
        return out

    def apply(self, round: RoundRecord, settings: GameSettings,
              config: GameConfig) -> tuple[str, str]:
        ts = apply_tactique_top(tactique_of(round.state_before),
                                tactique_top_of(cast(TactiqueTopJSON, round.top)))
        return tactique_text(ts), ts.game.board_cgp

    def round_draw(self, r: RoundRecord) -> Draw:
        return draw_of(cast(TactiqueDrawJSON, r.draw)["groups"][0])

    def round_top(self, r: RoundRecord) -> TopChoice:
        """The round's top as the ranking reads it: the sum, its first word."""
        d = cast(TactiqueTopJSON, r.top)
        first = d["first"] or d["second"]
        assert first is not None
        return TopChoice(move=move_of(first), ref=d["ref"], word=d["word"],
                         score=int(d["score"]))

    def rack_letters(self, draw: RoundDrawJSON) -> str:
        return "".join(g["rack"] for g in cast(TactiqueDrawJSON, draw)["groups"])

    def bulletin_line(self, bulletin: AnyBulletinJSON | None) -> str | None:
        return billet_line(cast(BilletJSON, bulletin)) if bulletin else None

    def solution_count(self, bulletin: AnyBulletinJSON | None) -> int:
        """A billet: its word with the most solutions."""
        if not bulletin:
            return 0
        b = cast(BilletJSON, bulletin)
        return max(solutions_of(b["first"]), solutions_of(b.get("second")))

    def top_words(self, top: RoundTopJSON) -> tuple[str, str]:
        """« H7 ZA 22 + » and « H7 ZAS 12 » (both words in placement order with their
        scores)."""
        t = cast(TactiqueTopJSON, top)
        words = [f"{m['ref']} {m['word']} {m['score']}" for m in (t["first"], t["second"]) if m]
        return words[0] + (" +" if len(words) > 1 else ""), words[1] if len(words) > 1 else ""


#: this module's round games, found by :mod:`puzzles.duplicate.registry`, and their place
#: in its lists (a new module takes the next number)
LISTED = 2
GAMES = (TactiqueGame(),)
