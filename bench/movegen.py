"""Move generation speed on every conformance position, with the peers side by side.

For each position of ``tests/data/movegen_public.jsonl`` (the project's copy of the
conformance data) it times, through the public API of :mod:`scoring.movegen`:

* ``count``    — every placement counted (``count()``);
* ``best``     — the FISF top only (``best(n=1)``);
* ``generate`` — every placement listed (``generate()`` and ``len()`` of its answer): with the
  C engine the moves come back packed and no ``GeneratedMove`` is made — it is made when an
  item is read (MAGPIE's all-moves mode, the peer figure, records its moves packed as well);
* ``gen iter`` — ``generate()``, then every move read (one attribute per move): a
  ``GeneratedMove`` made for each, what a caller looping over all of them pays;
* ``core count`` / ``core top`` — the C core alone (the raw engine with its arguments built
  beforehand: no grid conversion, no move objects);
* ``cli``      — what ``arbitre engine moves --json --top 1`` does per position
  (``Board.from_cgp``, the analysis, ``json.dumps``);

and once in a while the pure-Python reference. Every figure is the median of ``--repeat``
runs per position, over ``--rounds`` rounds interleaved with the peers' runs; the table gives
the median and the mean over the positions of those per-position medians (µs), and the
ratios Arbitre / peer. Each driver's counts and tops are checked against the conformance
data first (a peer that disagrees is reported, not timed).

Peers (optional): a driver binary that reads ``BOARD RACK`` lines (CGP rows, ``?`` a joker)
on stdin, takes the repeat count as its argument and prints ``placements top µs_all
µs_top`` per line, with the same French word list compiled as a KWG. Give them with
``--magpie BIN`` / ``--wolges BIN`` or ``ARBITRE_BENCH_MAGPIE`` / ``ARBITRE_BENCH_WOLGES``;
``--magpie-cwd`` (``ARBITRE_BENCH_MAGPIE_CWD``) is the directory MAGPIE runs in (its
``data/`` folder). How to build both drivers from the peers' public sources, outside this
repository: docs/OPERATIONS.md, « Banc du générateur : MAGPIE et wolges ». The driver
sources are ``bench/peers/``; nothing of the peers is kept here.

    .venv/bin/python bench/movegen.py [--repeat 5] [--rounds 3] [--python-every 12]
        [--magpie /work/peers/drivers/magpie_bench --magpie-cwd /work/peers/MAGPIE]
        [--wolges /work/peers/drivers/wolges_bench]

The machine is shared: note ``uptime`` with the figures, and prefer instruction counts when
the wall clock is noisy: ``--instructions`` runs each row under ``valgrind --tool=callgrind``
twice (one and two passes over the positions; the difference is one pass, start-up and
loading cancel out) and MAGPIE's driver with ``--toggle-collect=generate_moves`` (its two
modes apart: a driver built without ``-march=native``, which valgrind cannot decode), and
prints instructions per position and the ratios (wolges is left out there: its driver runs
both modes in one call).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's engine, not an installed one

from scoring import cli, movegen  # noqa: E402
from scoring.board import Board  # noqa: E402
from scoring.config import GameConfig  # noqa: E402
from scoring.movegen_py import MODE_COUNT, MODE_TOP  # noqa: E402

DATA = ROOT / "tests/data/movegen_public.jsonl"


def per_position(fn: Callable[[], object], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return times


def run_peer(binary: str, cwd: str | None, positions: list[dict[str, Any]],
             repeat: int) -> list[tuple[int, int, float, float]]:
    """(placements, top, µs all, µs top) per position, from a peer driver."""
    text = "".join(f"{p['board']} {p['rack']}\n" for p in positions)
    out = subprocess.run([binary, str(repeat)], input=text, capture_output=True, text=True,
                         cwd=cwd, check=True).stdout
    rows = []
    for line in out.splitlines():
        n, top, t_all, t_top = line.split()
        rows.append((int(n), int(top), float(t_all), float(t_top)))
    if len(rows) != len(positions):
        raise SystemExit(f"{binary} : {len(rows)} lignes pour {len(positions)} positions")
    return rows


def worker(row: str, passes: int) -> None:
    """One row over every position, ``passes`` times, untimed (for --instructions)."""
    positions = [json.loads(x) for x in DATA.open(encoding="utf-8")]
    config = GameConfig.default("fr")
    lex = movegen._lexicon(config, None)
    c = movegen._c_generate
    assert c is not None
    boards = [Board.from_cgp(p["board"]) for p in positions]
    core = [movegen._position(b, p["rack"], config, lex)
            for b, p in zip(boards, positions, strict=True)]
    racks = [p["rack"] for p in positions]

    def gen_iter(i: int) -> None:
        for m in movegen.generate(boards[i], racks[i], config):
            m.score  # noqa: B018
    rows: dict[str, Callable[[int], object]] = {
        "count": lambda i: movegen.count(boards[i], racks[i], config),
        "best": lambda i: movegen.best(boards[i], racks[i], config),
        "generate": lambda i: len(movegen.generate(boards[i], racks[i], config)),
        "gen iter": gen_iter,
        "core count": lambda i: c(*core[i], MODE_COUNT, 0),
        "core top": lambda i: c(*core[i], MODE_TOP, 1),
        "cli": lambda i: json.dumps(cli._analyse(Board.from_cgp(positions[i]["board"]),
                                                 racks[i], config, 1, False)),
    }
    for _ in range(passes):
        for i in range(len(positions)):
            rows[row](i)


def _callgrind(cmd: list[str], cwd: str | None = None, stdin: str | None = None,
               toggle: str | None = None) -> int:
    extra = [f"--toggle-collect={toggle}"] if toggle else []
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                          *extra, *cmd], input=stdin, capture_output=True, text=True, cwd=cwd,
                         check=True).stderr
    return int(out.split("Collected :")[1].split()[0])


def instructions(magpie: str | None, magpie_cwd: str | None, only: set[str]) -> None:
    positions = [json.loads(x) for x in DATA.open(encoding="utf-8")]
    n = len(positions)
    me = [sys.executable, str(Path(__file__).resolve()), "--worker"]
    ours = {}
    for row in ("count", "best", "generate", "gen iter", "core count", "core top", "cli"):
        if only and row not in only:
            continue
        one = _callgrind([*me, row, "1"])
        two = _callgrind([*me, row, "2"])
        ours[row] = (two - one) / n
    peer: dict[str, float] = {}
    if magpie:
        text = "".join(f"{p['board']} {p['rack']}\n" for p in positions)
        for mode in ("all", "top"):
            peer[mode] = _callgrind([magpie, "1", mode], magpie_cwd, text,
                                    "generate_moves") / n
    load = os.getloadavg()
    print(f"{n} positions, instructions par position (callgrind), charge {load[0]:.2f}")
    against = {"count": "all", "generate": "all", "gen iter": "all", "core count": "all",
               "best": "top",
               "core top": "top", "cli": "all"}
    for row, ir in ours.items():
        line = f"  {row:<12}{ir / 1e6:>8.2f} M"
        if peer:
            p = peer[against[row]]
            line += f"   MAGPIE {p / 1e6:>6.2f} M   ÷ MAGPIE {ir / p:>5.2f}"
        print(line)


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        worker(sys.argv[2], int(sys.argv[3]))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs per position and round")
    ap.add_argument("--rounds", type=int, default=3, help="rounds interleaved with the peers")
    ap.add_argument("--python-every", type=int, default=12,
                    help="time the pure-Python engine on every k-th position (0: never)")
    ap.add_argument("--magpie", default=os.environ.get("ARBITRE_BENCH_MAGPIE"))
    ap.add_argument("--magpie-cwd", default=os.environ.get("ARBITRE_BENCH_MAGPIE_CWD"))
    ap.add_argument("--wolges", default=os.environ.get("ARBITRE_BENCH_WOLGES"))
    ap.add_argument("--wolges-cwd", default=os.environ.get("ARBITRE_BENCH_WOLGES_CWD"))
    ap.add_argument("--only", default="", help="comma-separated subset of the rows to time")
    ap.add_argument("--instructions", action="store_true",
                    help="instruction counts under callgrind instead of the wall clock")
    args = ap.parse_args()
    if args.instructions:
        instructions(args.magpie, args.magpie_cwd,
                     {k.strip() for k in args.only.split(",") if k.strip()})
        return
    positions = [json.loads(x) for x in DATA.open(encoding="utf-8")]
    config = GameConfig.default("fr")
    if not movegen.c_available():
        raise SystemExit("scoring._movegen absent : lancez .venv/bin/pip install -e .")
    c = movegen._c_generate
    assert c is not None
    lex = movegen._lexicon(config, None)
    boards = [Board.from_cgp(p["board"]) for p in positions]
    core_args = [movegen._position(b, p["rack"], config, lex)
                 for b, p in zip(boards, positions, strict=True)]

    # exactness first: every driver reproduces the conformance counts and tops
    for p, b in zip(positions, boards, strict=True):
        got = movegen.count(b, p["rack"], config)
        assert got == movegen.MoveCount(p["placements"], p["scrabbles"], p["top"]), p["id"]
        top = movegen.best(b, p["rack"], config)
        assert (top[0].score if top else None) == p["top"], p["id"]
    peers = {name: (binary, cwd) for name, binary, cwd in
             (("MAGPIE", args.magpie, args.magpie_cwd), ("wolges", args.wolges, args.wolges_cwd))
             if binary}
    for name, (binary, cwd) in list(peers.items()):
        rows = run_peer(binary, cwd, positions, 1)
        bad = [p["id"] for p, r in zip(positions, rows, strict=True) if r[0] != p["placements"]]
        if bad:
            print(f"{name} : nombres de placements différents sur {len(bad)} positions "
                  f"({bad[:10]}), non chronométré")
            del peers[name]
            continue
        # a peer's top-only mode may rank by its own equity (wolges: endgame and opening
        # adjustments): a different top score there is reported, the timing kept
        off = [p["id"] for p, r in zip(positions, rows, strict=True)
               if r[1] != (-1 if p["top"] is None else p["top"])]
        if off:
            print(f"{name} : top (par son équité) ≠ top au score sur {len(off)} positions "
                  f"({off[:10]})")

    def api_count(b: Board, r: str) -> None:
        movegen.count(b, r, config)

    def api_best(b: Board, r: str) -> None:
        movegen.best(b, r, config)

    def api_generate(b: Board, r: str) -> None:
        len(movegen.generate(b, r, config))  # packed: no move object made

    def api_gen_iter(b: Board, r: str) -> None:
        for m in movegen.generate(b, r, config):
            m.score  # noqa: B018 - read one attribute per move, as a caller would

    def cli_position(cgp: str, r: str) -> None:
        json.dumps(cli._analyse(Board.from_cgp(cgp), r, config, 1, False))

    ours: dict[str, Callable[[int], object]] = {
        "count": lambda i: api_count(boards[i], positions[i]["rack"]),
        "best": lambda i: api_best(boards[i], positions[i]["rack"]),
        "generate": lambda i: api_generate(boards[i], positions[i]["rack"]),
        "gen iter": lambda i: api_gen_iter(boards[i], positions[i]["rack"]),
        "core count": lambda i: c(*core_args[i], MODE_COUNT, 0),
        "core top": lambda i: c(*core_args[i], MODE_TOP, 1),
        "cli": lambda i: cli_position(positions[i]["board"], positions[i]["rack"]),
    }
    if args.only:
        keep = {k.strip() for k in args.only.split(",")}
        ours = {k: v for k, v in ours.items() if k in keep}
    samples: dict[str, list[list[float]]] = {k: [[] for _ in positions] for k in ours}
    peer_samples: dict[str, list[list[list[float]]]] = {
        name: [[[] for _ in positions], [[] for _ in positions]] for name in peers}
    for _ in range(args.rounds):
        for k, fn in ours.items():
            gc.collect()
            for i in range(len(positions)):
                samples[k][i].extend(per_position(lambda i=i, fn=fn: fn(i), args.repeat))
        for name, (binary, cwd) in peers.items():
            for i, r in enumerate(run_peer(binary, cwd, positions, args.repeat)):
                peer_samples[name][0][i].append(r[2] * 1e-6)
                peer_samples[name][1][i].append(r[3] * 1e-6)
    python: list[float] = []
    if args.python_every:
        for i in range(0, len(positions), args.python_every):
            b, r = boards[i], positions[i]["rack"]
            python.extend(per_position(
                lambda b=b, r=r: movegen.generate(b, r, config, engine=movegen.py_generate), 1))

    def summary(per_pos: list[list[float]]) -> tuple[float, float]:
        meds = [statistics.median(s) * 1e6 for s in per_pos]
        return statistics.median(meds), statistics.fmean(meds)

    table = {k: summary(v) for k, v in samples.items()}
    peer_table = {name: (summary(s[0]), summary(s[1])) for name, s in peer_samples.items()}
    load = os.getloadavg()
    print(f"{len(positions)} positions ({sum(p['placements'] for p in positions)} placements), "
          f"{args.rounds} tours × {args.repeat} essais, charge {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f} ; µs par position, médiane / moyenne des médianes")
    header = f"  {'':<12}{'Arbitre':>17}"
    for name in peer_table:
        header += f"{name:>17}{'÷ ' + name:>16}"
    print(header)
    # which peer figure each row compares with: 0 all placements, 1 top only
    against = {"count": 0, "generate": 0, "gen iter": 0, "core count": 0, "best": 1,
               "core top": 1, "cli": 0}
    for k, (med, mean) in table.items():
        line = f"  {k:<12}{med:>8.0f} / {mean:<6.0f}"
        for pt in peer_table.values():
            pmed, pmean = pt[against[k]]
            line += f"{pmed:>8.0f} / {pmean:<6.0f}{med / pmed:>7.2f} / {mean / pmean:<5.2f}"
        print(line)
    if python:
        print(f"  moteur Python pur (generate), médiane sur {len(python)} positions : "
              f"{statistics.median(python) * 1e6:.0f} µs")


if __name__ == "__main__":
    main()
