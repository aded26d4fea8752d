"""Benchmark of the verifier: build 1,000 sheets of 15–20 moves once, then time only
:func:`puzzles.verify.verify` over all of them in one process.

The sheets are Intégral games (the full French set as the stock) played by a fast greedy
player over the bundled French list: each move draws 7 random letters from what remains
of the stock and plays the engine's top with them (``scoring.movegen.best``); the number
of moves (15–20) is drawn per sheet. Every sheet is legal, so the verifier does its whole
work (materialise, letters, words, cascade, score, cumul) on every line.

    .venv/bin/python bench/verify.py [--sheets 1000] [--seed 0] [--repeat 3] [--reference]
                                     [--profile]

Prints the build (the sheets are fixed by the seed: 1,000 sheets and 17,440 moves for seed
0, the same on every machine), then for each of ``--repeat`` timed runs the wall-clock and
CPU seconds, sheets per second (wall and CPU) and CPU microseconds per move, and the best
and median runs (target, issue 23: at least 5,000 sheets per CPU second on one core; the
machine may be shared, so the CPU figures are the ones to read). Legal moves go through the
compiled fast path (``scoring.validate.quick_check``) when the extension is built.
``--reference`` also times the pure-Python path on the same sheets (every move through
``check_move``, as without the extension), checks that both give the same reports, and
prints the ratio of their CPU times, a figure that does not depend on the machine's speed.
``--profile`` runs the timed loop under cProfile and prints the 25 most expensive functions
(cumulative time).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import scoring.validate as validate  # noqa: E402
from puzzles.feuille import Feuille, FeuilleMove  # noqa: E402
from puzzles.problem import GameType, Problem  # noqa: E402
from puzzles.verify import MoveStatus, Report, verify  # noqa: E402
from scoring import movegen  # noqa: E402
from scoring.board import Board  # noqa: E402
from scoring.config import GameConfig  # noqa: E402
from scoring.lexicon import Lexicon, default_lexicon  # noqa: E402
from scoring.notation import format_ref  # noqa: E402
from scoring.tiles import french  # noqa: E402


def greedy_sheet(seed: int, config: GameConfig) -> tuple[Problem, Feuille]:
    """An Intégral sheet of 15–20 moves: random 7-letter racks from the stock, top move."""
    rng = random.Random(seed)
    want = rng.randint(15, 20)
    stock = french().bag()
    board = Board()
    cumul = 0
    lines: list[FeuilleMove] = []
    tries = 0
    while len(lines) < want and tries < 200:
        tries += 1
        letters = sorted(stock.elements())
        rng.shuffle(letters)
        rack = "".join(letters[:7])
        if not rack:
            break
        top = movegen.best(board, rack, config)
        if not top:
            continue
        m = top[0]
        m.placement.apply(board)
        stock -= Counter(m.letters)
        cumul += m.score
        lines.append(FeuilleMove(len(lines) + 1, format_ref(m.ref), m.word, m.letters,
                                 m.score, cumul))
    problem = Problem(id=f"bench-integral-{seed}", game=GameType.INTEGRAL)
    return problem, Feuille(moves=tuple(lines), problem_id=problem.id)


def build(n: int, seed: int, lexicon: Lexicon) -> list[tuple[Problem, Feuille]]:
    config = GameConfig(tileset=french(), lexicon=lexicon)
    out: list[tuple[Problem, Feuille]] = []
    s = seed
    while len(out) < n:
        problem, feuille = greedy_sheet(s, config)
        s += 1
        if len(feuille.moves) >= 15:
            out.append((problem, feuille))
    return out


@contextmanager
def pure_python() -> Iterator[None]:
    """Every move through the pure-Python ``check_move``, as without the extension."""
    saved = validate._c_check
    validate._c_check = None
    try:
        yield
    finally:
        validate._c_check = saved


def run(
    sheets: list[tuple[Problem, Feuille]], lexicon: Lexicon, keep: list[Report] | None = None
) -> tuple[float, float, int]:
    """Verify every sheet; wall-clock and CPU seconds (the machine may be shared), and how
    many sheets had a zero or a warning (none should). ``keep`` collects the reports."""
    start, cpu = time.perf_counter(), time.process_time()
    bad = 0
    for problem, feuille in sheets:
        report = verify(problem, feuille, lexicon)
        if keep is not None:
            keep.append(report)
        if report.warnings or any(m.status is not MoveStatus.VALID for m in report.moves):
            bad += 1
    return time.perf_counter() - start, time.process_time() - cpu, bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sheets", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--reference", action="store_true",
                    help="also time the pure-Python path and compare the reports")
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args(argv)
    lexicon = default_lexicon()
    t0 = time.perf_counter()
    sheets = build(args.sheets, args.seed, lexicon)
    moves = sum(len(f.moves) for _, f in sheets)
    print(f"construction : {len(sheets)} feuilles, {moves} coups en "
          f"{time.perf_counter() - t0:.1f} s (moteur C : {movegen.c_available()}, "
          f"voie rapide : {validate.quick_available()})")
    verify(*sheets[0], lexicon)  # warm caches outside the timing
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        run(sheets, lexicon)
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
    cpus: list[float] = []
    ref_cpus: list[float] = []
    bad = 0
    for i in range(max(1, args.repeat)):
        elapsed, cpu, bad = run(sheets, lexicon)
        cpus.append(cpu)
        print(f"vérification {i + 1} : {elapsed:.2f} s ({cpu:.2f} s CPU), "
              f"{len(sheets) / elapsed:.0f} feuilles/s ({len(sheets) / cpu:.0f} par seconde "
              f"CPU), {cpu / moves * 1e6:.1f} µs CPU par coup")
        if args.reference:  # interleaved, so that both see the same load
            with pure_python():
                _, ref_cpu, _ = run(sheets, lexicon)
            ref_cpus.append(ref_cpu)
            print(f"  voie Python seule : {ref_cpu:.2f} s CPU, "
                  f"{len(sheets) / ref_cpu:.0f} feuilles par seconde CPU")
    best, median = min(cpus), statistics.median(cpus)
    print(f"meilleure : {len(sheets) / best:.0f} feuilles par seconde CPU, médiane : "
          f"{len(sheets) / median:.0f} (objectif ≥ 5000 feuilles/s sur un cœur)")
    if args.reference:
        fast: list[Report] = []
        run(sheets, lexicon, fast)
        with pure_python():
            reference: list[Report] = []
            run(sheets, lexicon, reference)
        same = sum(1 for a, b in zip(fast, reference, strict=True) if a == b)
        print(f"voie Python seule / voie rapide : {statistics.median(ref_cpus) / median:.1f}× "
              f"le temps CPU (médianes) ; rapports identiques : {same}/{len(sheets)}")
        if same != len(sheets):
            return 1
    if bad:
        print(f"ATTENTION : {bad} feuille(s) avec un zéro ou un avertissement")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
