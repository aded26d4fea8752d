"""Benchmark of the Duplicate engine: a 20-round game (seeded French bag, bundled French list)
with 1,000 players whose bulletins are generated from the legal moves of each round, then
corrected round by round with :func:`puzzles.duplicate.correct_all` (parsing, the round's
move generation, every correction, the solos).

The bulletins of a round are built before the clock starts, from
:func:`scoring.movegen.generate` on that round's position: 40 % the top as announced
(some with the joker uncircled or the score wrong), 35 % another legal move with its
reference, 10 % a legal move without reference (5-point penalty or zero), 10 % a legal move
with a wrong score (warning), 5 % a word that is not admitted (zero).

    .venv/bin/python bench/duplicate.py [--players 1000] [--rounds 20] [--seed 7] [--profile]

Prints per round the draw, the top search time and the correction time of all bulletins
(target: ≤ 2 s per round for 1,000 bulletins on one core), then totals.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from puzzles.duplicate import (  # noqa: E402
    DuplicateSettings,
    GameState,
    apply_top,
    correct_all,
    draw_round,
    find_top,
    shuffled_bag,
)
from scoring import movegen  # noqa: E402
from scoring.config import GameConfig  # noqa: E402
from scoring.lexicon import default_lexicon  # noqa: E402
from scoring.movegen import GeneratedMove  # noqa: E402
from scoring.notation import format_ref  # noqa: E402


def bulletin_for(rng: random.Random, moves: list[GeneratedMove], top: GeneratedMove) -> str:
    roll = rng.random()
    if roll < 0.40:
        word = top.word.upper() if rng.random() < 0.1 else top.word
        score = top.score + (1 if rng.random() < 0.1 else 0)
        return f"{format_ref(top.ref)} {word} {score}"
    m = rng.choice(moves)
    if roll < 0.75:
        return f"{format_ref(m.ref)} {m.word} {m.score}"
    if roll < 0.85:
        return f"{m.word} {m.score}"
    if roll < 0.95:
        return f"{format_ref(m.ref)} {m.word} {m.score + 3}"
    return f"{format_ref(m.ref)} {m.word.upper()}X {m.score}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()

    t0 = time.perf_counter()
    cfg = GameConfig.default("fr", default_lexicon())
    print(f"lexicon loaded in {time.perf_counter() - t0:.2f} s")
    settings = DuplicateSettings(rounds=args.rounds)
    state = GameState.initial(settings, shuffled_bag("fr", args.seed))
    rng = random.Random(args.seed)
    players = [f"joueur{i:04d}" for i in range(args.players)]
    top_times: list[float] = []
    correct_times: list[float] = []
    profiler = cProfile.Profile() if args.profile else None
    print(f"{'coup':>4} {'tirage':<12} {'top':<22} {'coups':>6} {'top s':>7} "
          f"{'corr. s':>8}  verdicts")
    while True:
        draw, state = draw_round(state, settings, config=cfg)
        if draw is None:
            break
        n = state.round_no
        t = time.perf_counter()
        top = find_top(state, draw.rack, cfg, round_no=n, settings=settings)
        top_times.append(time.perf_counter() - t)
        assert top is not None
        gen_cfg = cfg if n > 1 else GameConfig(tileset=cfg.tileset, lexicon=cfg.lexicon,
                                               first_move_horizontal=True)
        moves = movegen.generate(state.board, draw.rack, gen_cfg)
        sheet: dict[str, str | None] = {p: bulletin_for(rng, moves, top.move) for p in players}
        if profiler:
            profiler.enable()
        t = time.perf_counter()
        verdicts = correct_all(state, draw.rack, sheet, cfg, round_no=n, top_score=top.score,
                               settings=settings, n_players=len(players))
        correct_times.append(time.perf_counter() - t)
        if profiler:
            profiler.disable()
        kinds: dict[str, int] = {}
        for v in verdicts:
            kinds[v.kind] = kinds.get(v.kind, 0) + 1
        summary = " ".join(f"{k}={c}" for k, c in sorted(kinds.items()))
        print(f"{n:>4} {draw.notation:<12} {top.ref + ' ' + top.word + ' ' + str(top.score):<22} "
              f"{len(moves):>6} {top_times[-1]:>7.3f} {correct_times[-1]:>8.3f}  {summary}")
        state = apply_top(state, draw, top)
    print(f"rounds: {len(correct_times)}, players: {len(players)}, "
          f"tops total: {state.tops_total}")
    print(f"top search per round: mean {statistics.mean(top_times):.3f} s, "
          f"max {max(top_times):.3f} s")
    print(f"correction of {len(players)} bulletins per round: mean "
          f"{statistics.mean(correct_times):.3f} s, max {max(correct_times):.3f} s "
          f"(target ≤ 2 s)")
    if profiler:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
