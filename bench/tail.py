"""The deadline's tail alone, on the real deployment: close, verification, ranking and one
results mail per player, on PostgreSQL with ``arbitre serve --production``.

    .venv/bin/python bench/tail.py [--players 3000] [--workers 1] [--db arbitre_bench_tail]
                                   [--py-spy OUT.svg] [--keep]

``bench/burst.py`` measures the whole deadline (the rush of sheets, then the tail); this
one leaves the rush out so the tail is measured on a quiet server, and repeatably:

1. recreates ``--db`` and seeds it as ``bench/burst.py`` does (its ``seed``: one open
   *Intégral partiel*, ``--players`` registered players, 40 engine-played sheets);
2. stores every player's sheet, received in time (web channel): the first player of each
   distinct sheet through ``submissions.submit_sheet``, the others as copies of those rows,
   500 per ``INSERT``; their receipts marked ``sent`` (the outbox holds them, as after a
   real rush, but the sink does not wait for them);
3. starts an aiosmtpd sink for the relay and ``arbitre serve --production --no-demo``
   (default settings but the addresses), then moves the deadline to ``--lead`` seconds
   from now (``problems.reschedule``: the scheduler hears of it);
4. waits for the close, the verification, the provisional ranking and ``--players``
   results mails at the sink, and prints when each was done after the deadline, the
   results mails' rate at the sink (overall, and per fifth of them: a rate that falls as
   they go says some per-mail cost grows with the outbox), the CPU seconds of the
   ``serve`` process tree and of PostgreSQL, and the load average;
5. checks: one results mail per player, none twice (exit status 1 otherwise).

``--py-spy OUT`` records the ``serve`` process (and its children: the mail worker
processes) with py-spy from the deadline to the last mail (``pip install py-spy``).
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from _common import free_port  # bench/_common.py (a bench script runs from bench/)
from burst import (
    CODE,
    GAMES,
    SECRET,
    Sink,
    cpu_now,
    db_state,
    db_url,
    loadavg,
    reschedule,
    seed,
    server_env,
    shutdown,
    start_server,
)
from web import recreate_database

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def store_sheets(name: str, instance: str, plan: list[dict[str, object]]) -> None:
    """Every player's sheet stored, received now (in time), and its receipt in the outbox,
    marked sent (this bench measures the results mails, not the receipts). The first
    player of each distinct sheet goes through ``submissions.submit_sheet`` as the site
    stores it; the others get copies of those rows (same parsed sheet, their own player,
    receipt key and Message-ID), a few hundred per ``INSERT``: seeding 10,000 players
    takes seconds, not minutes."""
    import sqlalchemy as sa
    from sqlmodel import Session, select

    from webapp import create_app
    from webapp.db import get_engine
    from webapp.models import OutboxMessage, Player, Problem, Submission
    from webapp.services import clock, submissions

    app = create_app({"DATABASE_URL": db_url(name), "SCHEDULER_ENABLED": False,
                      "SECRET_KEY": SECRET, "INSTANCE_PATH": instance})
    sub_t = Submission.__table__  # type: ignore[attr-defined]
    out_t = OutboxMessage.__table__  # type: ignore[attr-defined]
    with app.app_context(), Session(get_engine(app), expire_on_commit=False) as s:
        prob = s.exec(select(Problem).where(Problem.code == CODE)).one()
        by_email = {p.email: p for p in s.exec(select(Player)).all()}
        models: dict[str, tuple[dict[str, object], dict[str, object]]] = {}
        rest: list[tuple[Player, str]] = []
        for p in plan:
            player, sheet = by_email[str(p["email"])], str(p["sheet"])
            if sheet in models:
                rest.append((player, sheet))
                continue
            out = submissions.submit_sheet(session=s, player=player, problem=prob, text=sheet,
                                           channel="web", received_at=clock.now())
            s.flush()
            sub = {c.key: getattr(out.submission, c.key) for c in sub_t.columns
                   if c.key != "id"}
            receipt = {c.key: getattr(out.receipt, c.key) for c in out_t.columns
                       if c.key != "id"} if out.receipt is not None else {}
            models[sheet] = (sub, receipt)
        s.commit()
        for start in range(0, len(rest), 500):
            subs, receipts = [], []
            for player, sheet in rest[start:start + 500]:
                sub, receipt = models[sheet]
                subs.append({**sub, "player_id": player.id, "received_at": clock.now()})
                if receipt:
                    receipts.append({**receipt, "player_id": player.id, "to_addr": player.email,
                                     "dedupe_key": f"bench-receipt:{player.id}",
                                     "message_id": f"<bench-receipt-{player.id}@bench>"})
            s.execute(sa.insert(sub_t), subs)
            if receipts:
                s.execute(sa.insert(out_t), receipts)
            s.commit()
        s.execute(sa.update(out_t).values(status="sent", sent_at=clock.now()))
        s.commit()
    get_engine(app).dispose()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=3000)
    ap.add_argument("--workers", type=int, default=1, help="gunicorn workers")
    ap.add_argument("--lead", type=float, default=8.0,
                    help="seconds from moving the deadline to the deadline")
    ap.add_argument("--after", type=float, default=600.0,
                    help="seconds to wait after the deadline for the results mails")
    ap.add_argument("--db", default="arbitre_bench_tail")
    ap.add_argument("--py-spy", dest="py_spy", metavar="OUT",
                    help="py-spy record of the serve process into OUT (svg or speedscope)")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="extra server setting (e.g. ARBITRE_OUTBOX_CONNECTIONS=8)")
    ap.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = ap.parse_args(argv)

    from aiosmtpd.controller import Controller

    n = args.players
    print(f"== la fin d'échéance seule : {n} joueurs, base {args.db}"
          + (f", réglages {' '.join(args.env)}" if args.env else ""))
    print(f"   load average avant l'amorçage : {loadavg()}")
    recreate_database(name=args.db)
    t0 = time.perf_counter()
    seeded = seed(args.db, n)
    store_sheets(args.db, seeded["instance"], seeded["plan"])
    print(f"   amorçage et {n} feuilles : {time.perf_counter() - t0:.1f} s")

    sink = Sink()
    relay_port, smtp_port, web_port = free_port(), free_port(), free_port()
    relay = Controller(sink, hostname="127.0.0.1", port=relay_port)
    relay.start()
    tmp = Path(tempfile.mkdtemp(prefix="arbitre-tail-"))
    env = server_env(args.db, instance=seeded["instance"], smtp_port=smtp_port,
                     relay_port=relay_port)
    for kv in args.env:
        k, _, v = kv.partition("=")
        env[k] = v
    server = start_server(env, web_port, args.workers, tmp / "serve.log")
    spy: subprocess.Popen[bytes] | None = None
    ok = False
    try:
        time.sleep(2.0)  # the server settled (scheduler started, outbox idle)
        deadline_ts = time.time() + args.lead
        reschedule(args.db, seeded["instance"], datetime.fromtimestamp(deadline_ts, UTC))
        load0 = loadavg()
        while time.time() < deadline_ts:
            time.sleep(0.05)
        cpu0 = cpu_now(server.pid, None)
        if args.py_spy:
            spy = subprocess.Popen(
                [str(Path(sys.executable).parent / "py-spy"), "record", "--subprocesses",
                 "-p", str(server.pid), "-o", args.py_spy, "-r", "50"]
                + (["-f", "speedscope"] if not args.py_spy.endswith(".svg") else []),
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        state = db_state(args.db, GAMES["sheet"])
        until = deadline_ts + args.after
        while time.time() < until:
            state = db_state(args.db, GAMES["sheet"])
            if state["status"] in ("provisional", "final") and sink.count("results") >= n:
                break
            time.sleep(0.2)
        cpu1 = cpu_now(server.pid, None)
        load1 = loadavg()
        if spy is not None:
            spy.send_signal(signal.SIGINT)
            spy.wait(60)
        time.sleep(3.0)  # anything sent twice would arrive now
        state = db_state(args.db, GAMES["sheet"])
        steps = state["steps"]

        def after(key: str) -> str:
            at = steps.get(key)
            return f"{at.timestamp() - deadline_ts:+.1f} s" if at is not None else "—"

        times = sorted(m["at"] - deadline_ts for m in sink.mails if m["kind"] == "results")
        print(f"== load average : à l'échéance {load0}, au dernier courriel {load1}")
        print(f"   clos {after('problem.close')}, vérifié {after('problem.verify')}, "
              f"classement provisoire {after('problem.provisional')}")
        if times:
            span = times[-1] - times[0]
            print(f"   courriels de résultats : {len(times)} du {times[0]:+.1f} s au "
                  f"{times[-1]:+.1f} s ({len(times) / span if span > 0 else 0:.0f} par s)")
            fifths = []
            for k in range(5):
                part = times[k * len(times) // 5:(k + 1) * len(times) // 5]
                if len(part) > 1 and part[-1] > part[0]:
                    fifths.append(f"{len(part) / (part[-1] - part[0]):.0f}")
            print(f"   débit par cinquième (courriels/s) : {' → '.join(fifths)}")
        used = {k: cpu1[k] - cpu0[k] for k in cpu0 if k != "load generator"}
        print("   CPU : " + " ; ".join(f"{k} {v:.1f} s" for k, v in used.items()))
        to = Counter(m["to"] for m in sink.mails if m["kind"] == "results")
        ok = len(times) == n and len(to) == n and set(to.values()) == {1}
        print(f"  {'OK ' if ok else 'FAIL'} un courriel de résultats par joueur, aucun en "
              f"double ({len(times)} reçus, {len(to)} destinataires)")
        outbox = state["outbox"]
        print(f"   outbox : {dict(sorted(outbox.items()))}")
    finally:
        shutdown(server, relay, db=args.db, keep=args.keep, helper=spy)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
