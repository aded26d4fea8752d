"""The Duplicate's top (RULES §4.5, G1): :func:`rank_moves` orders the legal moves by
score then the deterministic tie-break (:func:`top_key`: fewest jokers, openness, reference,
word), :func:`find_top` retains the top with its reason, :func:`apply_top` places it and gives
the state of the next round; :func:`top_score`, the best score alone (the C engine's top mode,
for the games that search many racks). Imports :mod:`~puzzles.duplicate.settings` and
:mod:`~puzzles.duplicate.state`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from puzzles.duplicate.settings import DuplicateError, DuplicateSettings
from puzzles.duplicate.state import Draw, GameState, minus_tiles, no_valid_draw, round_config
from scoring import movegen
from scoring.board import Board
from scoring.config import GameConfig
from scoring.layout import SIZE
from scoring.movegen import GeneratedMove
from scoring.notation import format_ref
from scoring.tiles import TileSet


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


def top_score(board: Board, rack: str, config: GameConfig) -> int | None:
    """The best score of ``rack`` on ``board`` (None: no move): the C engine's top mode,
    which visits anchors best bound first and stops when none can beat the best found — far
    cheaper than listing or counting every move (a two-joker rack: ≈ 1 ms against ≈ 30 ms)."""
    found = movegen.best(board, rack, config, n=1)
    return found[0].score if found else None

