"""Cold load of the default word list in fresh processes, with the compiled cache present.

Spawns N fresh interpreters; each imports ``scoring.lexicon``, calls ``default_lexicon()`` and
reports the time of that call and of the import, then hands the cached GADDAG to the compiled
core (``lex.engine_edges()``, what the first move generation does) and reports that time and
the process's peak memory. Prints the medians, the whole-process wall time, the one-off build
time without a cache (reading the xz, normalising, the DAWG, the GADDAG in C, writing), the
cache file's size, and the membership rate (``"MOT" in lex``).

    .venv/bin/python bench/lexicon_load.py [--runs 11]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = """
import json, time
t0 = time.perf_counter()
from scoring.lexicon import default_lexicon
t1 = time.perf_counter()
lex = default_lexicon()
t2 = time.perf_counter()
assert "MOT" in lex
lex.engine_edges()
t3 = time.perf_counter()
import resource
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "engine": t3 - t2, "rss": rss,
                  "words": len(lex)}))
"""


def child(env: dict[str, str]) -> tuple[dict[str, float], float]:
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out), time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=11)
    args = ap.parse_args()
    env = dict(os.environ)
    env.pop("ARBITRE_LEXICON", None)

    with tempfile.TemporaryDirectory() as tmp:
        cold = dict(env, ARBITRE_CACHE_DIR=tmp)
        build, _ = child(cold)
        size = sum(f.stat().st_size for f in Path(tmp).iterdir())
    print(f"construction sans cache (lecture xz, normalisation, DAWG, GADDAG, écriture) : "
          f"{build['load']:.2f} s ; fichier de cache {size / 1e6:.1f} Mo")

    child(env)  # make sure the cache exists
    loads, imports, walls, engines, rss = [], [], [], [], []
    for _ in range(args.runs):
        r, wall = child(env)
        loads.append(r["load"])
        imports.append(r["import"])
        engines.append(r["engine"])
        rss.append(r["rss"])
        walls.append(wall)
    print(f"{args.runs} processus neufs, cache présent, {int(r['words'])} mots :")
    print(f"  default_lexicon()          médiane {statistics.median(loads) * 1000:.0f} ms "
          f"(cible ≤ 300 ms ; max {max(loads) * 1000:.0f} ms)")
    print(f"  import scoring.lexicon     médiane {statistics.median(imports) * 1000:.0f} ms")
    print(f"  GADDAG remis au cœur C     médiane {statistics.median(engines) * 1000:.0f} ms "
          f"(lex.engine_edges(), au premier calcul de coups)")
    print(f"  mémoire du processus       médiane {statistics.median(rss):.0f} Mo (pic)")
    print(f"  processus entier (python)  médiane {statistics.median(walls) * 1000:.0f} ms")

    from scoring.lexicon import default_lexicon

    lex = default_lexicon()
    words = list(lex)[::40] + [w + "Z" for w in list(lex)[::40]]
    t = time.perf_counter()
    hits = sum(1 for w in words if w in lex)
    dt = time.perf_counter() - t
    print(f"  appartenance « MOT in lex » : {len(words) / dt / 1e6:.1f} millions/s "
          f"({hits} trouvés sur {len(words)})")


if __name__ == "__main__":
    main()
