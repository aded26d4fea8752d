#!/usr/bin/env python3
"""Keep every core busy for a bounded time, to run the test suite on a loaded machine.

    python3 scripts/stress.py --seconds 600 &      # one busy process per core, 10 minutes
    CI=true bash .ci/run

It starts one spinning process per core (``--workers`` to choose), each of which stops by
itself after ``--seconds`` even if this parent is killed with SIGKILL (every worker checks
its own deadline), and exits 0 when they are done. Ctrl-C or SIGTERM stops everything at once.
Standard library only, so it runs before the project's venv exists.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import sys
import time


def _spin(deadline: float) -> None:
    """Burn CPU until ``deadline`` (time.monotonic), checking the clock every few ms."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    x = 0
    while time.monotonic() < deadline:
        for i in range(20_000):
            x = (x * 31 + i) % 1_000_003


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="occuper chaque cœur pendant une durée bornée")
    p.add_argument("--seconds", type=float, required=True,
                   help="durée de la charge (au plus 3600 s)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   help="processus occupés (défaut : un par cœur)")
    args = p.parse_args(argv)
    if not 0 < args.seconds <= 3600:
        p.error("--seconds doit être compris entre 0 et 3600")
    if args.workers < 1:
        p.error("--workers doit valoir au moins 1")
    deadline = time.monotonic() + args.seconds
    workers = [multiprocessing.Process(target=_spin, args=(deadline,), daemon=True)
               for _ in range(args.workers)]

    def _stop(signum: int, _frame: object) -> None:
        for w in workers:
            if w.is_alive():
                w.terminate()
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    for w in workers:
        w.start()
    print(f"charge : {args.workers} processus pendant {args.seconds:g} s", flush=True)
    for w in workers:
        w.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
