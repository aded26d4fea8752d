"""Move generation speed over the 120 public positions (tests/data/movegen_public.jsonl).

For each position, the median of a few runs of: every placement (``generate``), the counts
(``count``), the top only (``best``, with shadow pruning), and once the pure-Python engine;
then the median over the positions. One core, the bundled French list.

    .venv/bin/python bench/movegen.py [--repeat 5] [--python-every 1]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from scoring import movegen
from scoring.board import Board
from scoring.config import GameConfig

ROOT = Path(__file__).resolve().parents[1]


def per_position(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--python-every", type=int, default=1,
                    help="time the pure-Python engine on every k-th position")
    args = ap.parse_args()
    positions = [json.loads(x) for x in (ROOT / "tests/data/movegen_public.jsonl").open()]
    config = GameConfig.default("fr")
    if not movegen.c_available():
        raise SystemExit("scoring._movegen absent : lancez .venv/bin/pip install -e .")
    c = movegen._c_generate
    rows: dict[str, list[float]] = {"generate": [], "count": [], "best": [], "tops": [],
                                   "python": []}
    for i, pos in enumerate(positions):
        board = Board.from_cgp(pos["board"])
        rack = pos["rack"]
        rows["generate"].append(per_position(
            lambda b=board, r=rack: movegen.generate(b, r, config, engine=c), args.repeat))
        rows["count"].append(per_position(
            lambda b=board, r=rack: movegen.count(b, r, config, engine=c), args.repeat))
        rows["best"].append(per_position(
            lambda b=board, r=rack: movegen.best(b, r, config, engine=c), args.repeat))
        rows["tops"].append(per_position(
            lambda b=board, r=rack: movegen.tops(b, r, config, engine=c), args.repeat))
        if i % args.python_every == 0:
            rows["python"].append(per_position(
                lambda b=board, r=rack: movegen.generate(b, r, config,
                                                         engine=movegen.py_generate), 1))
    med = {k: statistics.median(v) * 1000 for k, v in rows.items()}
    print(f"{len(positions)} positions, médiane par position (ms) :")
    print(f"  tous les placements (C, generate) : {med['generate']:.3f}  (cible ≤ 10)")
    print(f"  comptage seul       (C, count)    : {med['count']:.3f}")
    print(f"  top seul            (C, best)     : {med['best']:.3f}  (cible ≤ 3)")
    print(f"  tous les tops       (C, tops)     : {med['tops']:.3f}")
    print(f"  tous les placements (Python pur)  : {med['python']:.3f} "
          f"sur {len(rows['python'])} positions")
    print(f"  rapport Python / C (generate)     : {med['python'] / med['generate']:.0f}×")
    print(f"  max par position : generate {max(rows['generate']) * 1000:.3f}, "
          f"best {max(rows['best']) * 1000:.3f}")


if __name__ == "__main__":
    main()
