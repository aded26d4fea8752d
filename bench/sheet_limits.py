"""Verifier CPU for the longest sheet the server takes, per game type (``puzzles.limits``),
against a long sheet of the kind that used to be accepted.

For each game type a problem is drawn (seed 3) and a legal sheet found by the solver (fixed
node budget); the sheet is then padded to the problem's bound with copies of its own move
lines, renumbered (each copy lands on occupied squares, so it is judged and zeroed — the
verifier's whole path). The same padding to ``--long`` lines (default 2,000) shows what a
sheet over the bound would cost. CPU is ``time.process_time()`` of ``verify_text`` alone.

    .venv/bin/python bench/sheet_limits.py [--long 2000] [--games integral,rangee]

Prints one line per game type: bound, CPU at the bound, CPU at ``--long`` lines, and the
sheets a 20-second re-run preview (``RERUN_PREVIEW_SECONDS``) covers at the bound.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from puzzles.feuille import Feuille, FeuilleMove, format_feuille  # noqa: E402
from puzzles.generate import new_problem  # noqa: E402
from puzzles.limits import max_sheet_entries  # noqa: E402
from puzzles.problem import GameType  # noqa: E402
from puzzles.solver import solve  # noqa: E402
from puzzles.verify import verify_text  # noqa: E402
from scoring.lexicon import default_lexicon  # noqa: E402


def padded(feuille: Feuille, game: GameType, lines: int) -> Feuille:
    """``feuille`` with its own moves copied (renumbered) until it holds ``lines`` entries."""
    answers = game in (GameType.SUPERSCRABBLE,)
    base = list(feuille.scrabbles if answers else feuille.moves)
    if not base:
        return feuille
    out: list[FeuilleMove] = []
    k = 0
    while len(out) < lines:
        m = base[k % len(base)]
        out.append(replace(m, number=len(out) + 1, cumul=None))
        k += 1
    return replace(feuille, scrabbles=tuple(out)) if answers else replace(feuille, moves=tuple(out))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--long", type=int, default=2000)
    ap.add_argument("--games", default="")
    args = ap.parse_args()
    lex = default_lexicon()
    games = [GameType(g) for g in args.games.split(",") if g] or [
        g for g in GameType
        if g not in (GameType.ANTICIPATION_AVEUGLE, GameType.SUPERSCRABBLE_INCOMPLET)
    ]
    print(f"{'game':28} {'bound':>6} {'CPU at bound':>13} {'CPU at ' + str(args.long):>13}"
          f" {'sheets/20 s':>11}")
    for g in games:
        pz = new_problem(g.value, seed=3, lexicon=lex)
        sheet = solve(pz, lex, seconds=30, seed=1, nodes=60).feuille
        bound = max_sheet_entries(pz)
        cpu = []
        for n in (bound, args.long):
            text = format_feuille(padded(sheet, g, n))
            t = time.process_time()
            verify_text(pz, text, lex)
            cpu.append(time.process_time() - t)
        per20 = int(20 / cpu[0]) if cpu[0] > 0 else 0
        print(f"{g.value:28} {bound:6d} {cpu[0]:12.3f}s {cpu[1]:12.3f}s {per20:11d}")


if __name__ == "__main__":
    main()
