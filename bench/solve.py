"""Reference cumuls of the solver on five fixed problems (fixed seeds, bundled French list),
with a stated node budget so that the figures are reproducible.

    .venv/bin/python bench/solve.py [--scale 1.0]

Each problem is drawn with :func:`puzzles.generate.new_problem` and solved with
:func:`puzzles.solver.solve` under ``nodes`` move-generator calls (``--scale`` multiplies
them; the time cap is generous so that the node budget decides). The sheet is then checked
with :func:`puzzles.verify.verify`: the verifier's score must equal the solver's cumul.
Printed per problem: cumul (or number of scrabbles), moves, beam width reached, nodes,
seconds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from puzzles.generate import new_problem  # noqa: E402
from puzzles.problem import GameType  # noqa: E402
from puzzles.solver import solve  # noqa: E402
from puzzles.verify import verify  # noqa: E402
from scoring.lexicon import default_lexicon  # noqa: E402

#: (game, problem seed, node budget)
PROBLEMS = [
    (GameType.RANGEE, 101, 3000),
    (GameType.INTEGRAL_PARTIEL, 102, 2000),
    (GameType.ANTICIPATION, 103, 3000),
    (GameType.SERIE_MAXIMAUX, 104, 1000),
    (GameType.SUPERSCRABBLE, 105, 10),
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0)
    args = ap.parse_args(argv)
    lexicon = default_lexicon()
    failed = 0
    for game, seed, nodes in PROBLEMS:
        problem = new_problem(game, seed=seed, lexicon=lexicon)
        budget = max(1, int(nodes * args.scale))
        t0 = time.perf_counter()
        sol = solve(problem, lexicon, seconds=3600, nodes=budget, seed=0)
        elapsed = time.perf_counter() - t0
        report = verify(problem, sol.feuille, lexicon)
        ok = report.final_score == sol.cumul and report.warnings == 0 and not report.errors
        failed += not ok
        what = (f"{sol.scrabble_count} scrabbles" if sol.scrabbles or game.ranking_points
                else f"cumul {sol.cumul}")
        kind = "exact" if sol.exact else f"largeur {sol.width}"
        print(f"{problem.id:<28} {what:>16}  {len(sol.feuille.moves):>2} coups  {kind:<12} "
              f"{sol.nodes:>5}/{budget} nœuds  {elapsed:6.1f} s  "
              f"vérifié {report.final_score}{'' if ok else '  ÉCART'}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
