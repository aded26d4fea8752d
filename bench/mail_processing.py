"""Mail processing alone: stored sheets through ``pipeline.process_batch``, in one process.

Stores N sheets (those of ``bench/mail.py``, P registered players) with the intake's
``store_many``, then processes them in batches of B in this process, and reports the CPU
and the wall time a sheet and the SQL statements a sheet (counted at the cursor: an
executemany is one). Machine-independent enough to compare two versions run one after the
other (give the load average, printed). Checks that every sheet was processed, submitted
once and got one receipt.

    .venv/bin/python bench/mail_processing.py [--sheets 400] [--batch 25] [--players 50]
        [--database-url postgresql+psycopg://postgres@127.0.0.1/test] [--profile out.prof]

Without ``--database-url`` a fresh SQLite file in a temporary directory is used; on
PostgreSQL the tables go to a schema of their own, dropped at the end.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from mail import finish, seed, sheet  # bench/mail.py (a bench script runs from bench/)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sheets", type=int, default=400)
    ap.add_argument("--batch", type=int, default=25)
    ap.add_argument("--players", type=int, default=50)
    ap.add_argument("--database-url", default=None)
    ap.add_argument("--profile", default="", help="write a cProfile of the processing here")
    args = ap.parse_args(argv)

    import sqlalchemy as sa
    from sqlmodel import select

    from mailer import pipeline
    from webapp import create_app
    from webapp.db import get_engine, session_scope
    from webapp.models import (
        InboundChannel,
        InboundMessage,
        InboundStatus,
        OutboxMessage,
        Submission,
    )

    url = args.database_url or (
        f"sqlite:///{Path(tempfile.mkdtemp(prefix='arbitre-bench-proc-')) / 'b.sqlite3'}")
    schema = f"bench_proc_{int(time.time())}" if url.startswith("postgresql") else None
    app = create_app({
        "TESTING": True, "SECRET_KEY": "bench", "DATABASE_URL": url, "DATABASE_SCHEMA": schema,
        "SCHEDULER_ENABLED": False, "SUBMIT_DOMAIN": "arbitre.test",
        "SUBMISSIONS_PER_WINDOW": 0,  # several sheets per player within seconds, by design
    })
    engine = get_engine(app)
    seed(app, args.players)

    def incoming(i: int) -> pipeline.Incoming:
        p = i % args.players
        return pipeline.Incoming(
            sheet(i, p, f"benchtok{p:04d}").as_bytes(), InboundChannel.SMTP,
            f"joueur{p}@bench.example", [f"feuilles+benchtok{p:04d}@arbitre.test"],
            datetime.now(UTC))

    # one batch first (imports, compiled statements, templates), not counted
    warm = pipeline.store_many(app, [incoming(10**6 + i) for i in range(args.batch)])
    pipeline.process_batch(app, warm)
    ids: list[int] = []
    for start in range(0, args.sheets, 100):
        ids += pipeline.store_many(app, [incoming(i) for i in
                                         range(start, min(args.sheets, start + 100))])
    statements = 0

    def count(*_: object) -> None:
        nonlocal statements
        statements += 1

    sa.event.listen(engine, "before_cursor_execute", count)
    profile = cProfile.Profile() if args.profile else None
    statuses: set[str] = set()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    if profile is not None:
        profile.enable()
    for start in range(0, len(ids), args.batch):
        statuses |= set(pipeline.process_batch(app, ids[start:start + args.batch]).values())
    if profile is not None:
        profile.disable()
        profile.dump_stats(args.profile)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    sa.event.remove(engine, "before_cursor_execute", count)
    load = os.getloadavg()
    with session_scope(app) as s:
        subs = s.exec(select(sa.func.count()).select_from(Submission)).one()
        receipts = s.exec(select(sa.func.count()).select_from(OutboxMessage)
                          .where(OutboxMessage.kind == "receipt")).one()
        left = s.exec(select(sa.func.count()).select_from(InboundMessage)
                      .where(InboundMessage.status != InboundStatus.PROCESSED)).one()
    n = len(ids)
    print(f"database: {engine.dialect.name}; {n} sheets in batches of {args.batch}, "
          f"{args.players} players")
    print(f"CPU {cpu * 1000 / n:.2f} ms a sheet, wall {wall * 1000 / n:.2f} ms a sheet, "
          f"{statements / n:.2f} statements a sheet")
    print("load average (1, 5, 15 min): " + " ".join(f"{x:.2f}" for x in load))
    checks = {
        "all processed": statuses == {InboundStatus.PROCESSED} and left == 0,
        "submitted once": subs == n + len(warm),
        "one receipt each": receipts == n + len(warm),
    }
    return finish(engine, schema, checks)


if __name__ == "__main__":
    raise SystemExit(main())
