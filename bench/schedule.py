"""Benchmark of the deadline batch through the server: N players' sheets stored with
``submit_sheet`` (receipts included), then one ``lifecycle.run_due`` at the deadline
(close, verify every sheet, provisional ranking, N results mails), on SQLite or PostgreSQL.

    .venv/bin/python bench/schedule.py [--players 300] [--url postgresql+psycopg://...]

The sheets are the demo's engine-played Intégral partiel sheets (every move legal), so the
verifier does its whole work. Prints the time to store the sheets and the time of the batch.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=300)
    ap.add_argument("--url", default=None, help="database (default: a fresh SQLite file)")
    ap.add_argument("--profile", action="store_true", help="cProfile the deadline batch")
    args = ap.parse_args(argv)

    import sqlalchemy as sa
    import time_machine
    from sqlmodel import SQLModel

    import webapp.models  # noqa: F401
    from puzzles.generate import new_problem
    from scoring.lexicon import default_lexicon
    from webapp import create_app
    from webapp.db import get_engine, session_scope
    from webapp.demo import greedy_sheet
    from webapp.models import Channel, Problem
    from webapp.services import clock, lifecycle, problems
    from webapp.services.players import create_player
    from webapp.services.submissions import submit_sheet

    tmp = Path(tempfile.mkdtemp())
    schema = f"bench_{uuid.uuid4().hex[:8]}" if args.url else None
    app = create_app({
        "TESTING": True, "SECRET_KEY": "bench", "INSTANCE_PATH": str(tmp),
        "DATABASE_URL": args.url or f"sqlite:///{tmp / 'bench.sqlite3'}",
        "DATABASE_SCHEMA": schema, "SCHEDULER_ENABLED": False,
    })
    engine = get_engine(app)
    SQLModel.metadata.create_all(engine)
    lex = default_lexicon()
    start = datetime(2026, 5, 10, 10, 0, tzinfo=UTC)
    try:
        with time_machine.travel(start, tick=False) as clock_tm, app.app_context():
            with session_scope(app) as s:
                comp = problems.create_competition(session=s, slug="bench", name="Bench")
                puzzle = new_problem("integral_partiel", seed=2026, lexicon=lex)
                prob = problems.create_problem(
                    session=s, competition=comp, puzzle=puzzle, code="B1",
                    publish_at=start - timedelta(hours=1), deadline_at=start + timedelta(days=1),
                    status="open",
                )
                prob_id = prob.id
                stock = puzzle.stock
            sheets = [f"Problème: B1\n{greedy_sheet(stock, lex, seed=i)}"
                      for i in range(args.players)]
            t0 = time.perf_counter()
            for i, text in enumerate(sheets):
                with session_scope(app) as s:
                    p = create_player(session=s, name=f"Joueur {i}", email=f"j{i}@example.org")
                    problems.register(session=s, competition=comp, player=p)
                    submit_sheet(session=s, player=p, problem=s.get(Problem, prob_id),
                                 text=text, channel=Channel.WEB,
                                 received_at=start + timedelta(seconds=i))
            stored = time.perf_counter() - t0
            clock_tm.move_to(start + timedelta(days=1, seconds=1))
            t0 = time.perf_counter()
            if args.profile:
                import cProfile
                import pstats

                prof = cProfile.Profile()
                done = prof.runcall(lifecycle.run_due, now=clock.now())
                pstats.Stats(prof).sort_stats("cumulative").print_stats(30)
            else:
                done = lifecycle.run_due(now=clock.now())
            batch = time.perf_counter() - t0
        backend = engine.dialect.name
        print(f"{backend}: {args.players} sheets stored with receipts in {stored:.2f} s "
              f"({stored / args.players * 1000:.1f} ms each)")
        print(f"{backend}: deadline batch {done} in {batch:.2f} s "
              f"({batch / args.players * 1000:.1f} ms per sheet, verification + ranking + "
              "results mail)")
    finally:
        if schema:
            with engine.begin() as conn:
                conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        engine.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
