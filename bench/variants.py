"""Benchmark of the Duplicate variants' top search (puzzles.variants): the top of a Tactique
round, of a Superjoker round and of a Complétif round on mid-game positions.

Positions: a FISF Duplicate game of seed ``seed + i`` (bundled French list) played with its
tops up to round 4 + i % 9 (so 4 to 12 words on the grid); the reliquat goes back to the bag,
then the variant's draw is made from there (Tactique: two groups of 7; Superjoker: 5 letters
and 2 free; Complétif: 6 and 1 free). Only the top search is timed.

    .venv/bin/python bench/variants.py [--positions 50] [--seed 100] [--only tactique]

Prints per variant the median and the worst time over the positions (target: ≤ 1 s each on
one core) and the slowest position; for Tactique also the machine-independent work of the
search (``TactiqueStats``): first moves, second-move searches cut by the bounds alone,
searches that expanded an anchor (of which over the whole grid), anchors expanded — against
one whole-grid second-move search per first move not dominated without the branch and bound.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from puzzles.duplicate import (  # noqa: E402
    DuplicateSettings,
    GameState,
    apply_top,
    draw_round,
    find_top,
    shuffled_bag,
)
from puzzles.variants import (  # noqa: E402
    TactiqueState,
    TactiqueStats,
    VariantSettings,
    draw_tactique,
    draw_variant,
    tactique_top,
    variant_top,
)
from scoring.config import GameConfig  # noqa: E402


def position(seed: int, rounds: int, cfg: GameConfig) -> GameState:
    s = DuplicateSettings()
    st = GameState.initial(s, shuffled_bag("fr", seed))
    for _ in range(rounds):
        d, st = draw_round(st, s, config=cfg)
        if d is None:
            break
        top = find_top(st, d.rack, cfg, round_no=st.round_no, settings=s)
        if top is None:
            break
        st = apply_top(st, d, top)
    # the reliquat goes back to the bag: the variant draws afresh
    return replace(st, bag=tuple(st.reliquat) + st.bag, reliquat="")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=50)
    ap.add_argument("--seed", type=int, default=100)
    ap.add_argument("--only", choices=["tactique", "superjoker", "completif"])
    args = ap.parse_args()
    cfg = GameConfig.default("fr")
    positions = [position(args.seed + i, 4 + i % 9, cfg) for i in range(args.positions)]
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    for variant in ("tactique", "superjoker", "completif"):
        if args.only and variant != args.only:
            continue
        vs = VariantSettings(variant=variant)  # type: ignore[arg-type]
        times: list[tuple[float, str]] = []
        work = TactiqueStats()
        for i, st in enumerate(positions):
            if variant == "tactique":
                draw_t, ts = draw_tactique(TactiqueState(st), vs)
                if draw_t is None:
                    continue
                t0 = time.perf_counter()
                tt = tactique_top(ts.game.board, draw_t.racks, cfg, vs, stats=work)
                dt = time.perf_counter() - t0
                label = f"#{i} {draw_t.notation} → {tt.notation if tt else '—'}"
            else:
                draw, st2 = draw_variant(st, vs)
                if draw is None:
                    continue
                t0 = time.perf_counter()
                top = variant_top(st2, draw.rack, cfg, vs)
                dt = time.perf_counter() - t0
                label = (
                    f"#{i} {draw.rack} → {top.ref} {top.word} {top.score} +{top.choice.chosen}"
                    if top
                    else f"#{i} {draw.rack} → —"
                )
            times.append((dt, label))
        only = [t for t, _ in times]
        worst = max(times)
        over = sum(1 for t in only if t > 1.0)
        p90 = sorted(only)[int(0.9 * (len(only) - 1))]
        print(
            f"{variant:10s} n={len(only)} median {statistics.median(only):.3f} s, "
            f"p90 {p90:.3f} s, mean {statistics.mean(only):.3f} s, over 1 s: {over}, "
            f"worst {worst[0]:.3f} s ({worst[1]})"
        )
        if variant == "tactique":
            print(
                f"  work: {work.firsts} first moves, {work.dominated} dominated; second-move "
                f"searches without cuts: {work.firsts - work.dominated}; with branch and "
                f"bound: {work.bounded} cut by bounds alone, {work.searched} searched "
                f"({work.full} over the whole grid), {work.anchors} anchors expanded"
            )
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
