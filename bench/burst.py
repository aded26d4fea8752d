"""A deadline burst on the real deployment: ``arbitre serve --production`` on PostgreSQL.

    .venv/bin/python bench/burst.py [--players 1000] [--window 600] [--workers 2]
                                    [--web-share 0.5] [--db arbitre_bench_burst] [--keep]
                                    [--game sheet|duplicate]

``--game sheet`` (the default) is a one-sheet problem's deadline, described below step by
step; ``--game duplicate`` is a FISF Duplicate round's close instead: round 1 of a two-round
game on the bundled list drawn 13 hours earlier (its draw notices and reminders sent before
the window opens), each player's bulletin one of the round's 40 best moves, posted on the
game's page (sign-in page, sign-in, game page, bulletin) or mailed with the game's code in
the subject; round 1's close is moved into the window (the bench writes ``closes_at`` and
tells the scheduler); after it: the close, the correction, the publication with one results
mail per player, and round 2's draw with its notices (printed apart; « done » is the last
results mail).

What it does, all on 127.0.0.1 (the machine is shared: every figure is printed with the
load average it was measured at):

1. recreates the database ``--db`` on the local PostgreSQL (``postgresql+psycopg://postgres@
   127.0.0.1:5432/<db>``, trust auth) and brings it to the Alembic head with ``arbitre db
   upgrade``;
2. seeds it through the app's own services: one competition, ``--players`` registered
   players (a shared fast password hash: signing in is measured, the cost of the hash is
   not) and one open *Intégral partiel* (a one-sheet problem); every player's sheet is one
   of 40 engine-played sheets (``webapp.demo.greedy_sheet``, every move legal), so the
   verifier does its whole work;
3. starts an SMTP sink (aiosmtpd) standing for the relay: every mail that leaves the
   outbox arrives there, and is recorded (arrival time, kind, recipient, ``In-Reply-To``);
4. starts the server exactly as in production: ``arbitre serve --production --no-demo``
   (gunicorn gthread workers for the pages; the scheduler, the SMTP intake and the outbox
   sender in the ``arbitre serve`` process), default settings except the addresses
   (``MAIL_SMTP_LISTEN``, ``SMTP_RELAY``, ``SUBMIT_DOMAIN``);
5. once it answers, moves the deadline (``problems.reschedule``, as the console does) to
   ``--lead`` + ``--window`` seconds from now; the scheduler hears of it through the
   change counter;
6. in a separate process (the load generator, like real senders), each player starts at
   his own instant in the ``--window`` seconds before the deadline — a rush: the density of
   arrivals grows linearly to the deadline (twice the mean rate at the end), the last one
   3 s before it. ``--web-share`` of them (half by default) use the site: sign-in page,
   sign-in, sheet form, sheet posted (4 timed requests over one keep-alive connection);
   the others send their sheet by SMTP (a new connection each, as a mail server would) to
   ``feuilles+<token>@``;
7. then waits for the deadline's work: close, verification of every sheet, provisional
   ranking, one results mail per player at the sink (``--after`` seconds at most).

**Time.** ``--window 600`` is the real ten minutes; a smaller window compresses the same
arrivals into less time (the rate grows by 600/window), and is said in the output.

Printed: p50/p99 of the web answers (all four requests, and the sheet post alone); p50/p99
of the receipt delay, from the SMTP ``250`` (taken by the sender) or the web ``302`` to the
receipt at the sink; the time from the deadline to the close, the verification, the
provisional ranking and the last results mail at the sink; CPU seconds of the server
(``arbitre serve`` and gunicorn), PostgreSQL and the load generator; and the checks (none
lost): every player's sheet stored once and on time, every receipt sent exactly once (one
outbox row ``sent`` per sheet, one mail at the sink per player, the SMTP ones ``In-Reply-To``
their message), one results mail per player, a ranking of every player. Exit status 1 when
a check fails. Targets (issue 23): web p99 <= 200 ms, receipt p99 <= 10 s, 0 lost,
everything done within 60 s of the deadline.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import signal
import smtplib
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from email.policy import compat32
from pathlib import Path
from typing import Any

from _common import free_port  # bench/_common.py (a bench script runs from bench/)
from web import TOKEN_RE, Client, _postgres_pids, _proc_cpu, recreate_database

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SECRET = "bench-burst-secret"
PASSWORD = "banc-essai-2026"
DOMAIN = "arbitre.test"
CODE = "RUSH"


@dataclass(frozen=True)
class Game:
    """What differs between the two bursts (``--game``): a one-sheet problem's deadline
    (sheets, the verifier, the provisional ranking) and a Duplicate round's close
    (bulletins, the correction, the round's results and the next draw)."""

    form_path: str  # the page with the form (formatted with the code)
    post_path: str  # where the form posts
    field: str  # the form's text field
    post_step: str  # the timed name of the post
    subject: str  # the SMTP Subject
    results_kind: str  # the X-Arbitre-Kind of a player's results mail
    steps: tuple[tuple[str, str], ...]  # (label, audit action) of the deadline's steps
    ranked_step: str  # the step after which the results are composed
    before: tuple[tuple[str, int], ...]  # mails per player sent before the window opens
    after: tuple[tuple[str, int], ...]  # other mails per player after the deadline
    status_sql: str  # the problem's (round 1's) status; parameter: the code
    entries_table: str  # where the sheets (bulletins) are stored
    ranked_sql: str  # how many players the results rank; parameter: the code


GAMES = {
    "sheet": Game(
        form_path="/joueur/problemes/{code}/envoyer", post_path="/joueur/problemes/{code}/envoyer",
        field="feuille", post_step="envoi de la feuille", subject="Problème : {code}",
        results_kind="results",
        steps=(("clos", "problem.close"), ("vérifié", "problem.verify"),
               ("classement provisoire", "problem.provisional")),
        ranked_step="problem.provisional", before=(), after=(),
        status_sql="SELECT status FROM problem WHERE code = %s", entries_table="submission",
        ranked_sql="SELECT jsonb_array_length(r.rows::jsonb) FROM ranking r JOIN problem p "
                   "ON p.id = r.problem_id WHERE p.code = %s ORDER BY r.id DESC LIMIT 1"),
    "duplicate": Game(
        form_path="/duplicate/{code}", post_path="/duplicate/{code}/bulletin",
        field="bulletin", post_step="envoi du bulletin", subject="Bulletin {code}",
        results_kind="duplicate_results",
        steps=(("clos", "duplicate.close"), ("corrigé", "duplicate.correct"),
               ("résultats publiés", "duplicate.publish"), ("tour 2 tiré", "duplicate.draw")),
        ranked_step="duplicate.publish",
        before=(("duplicate_draw", 1), ("reminder", 1)), after=(("duplicate_draw", 1),),
        status_sql="SELECT r.status FROM duplicate_round r JOIN duplicate_game g "
                   "ON g.id = r.game_id WHERE g.code = %s AND r.number = 1",
        entries_table="duplicate_entry",
        ranked_sql="SELECT count(*) FROM duplicate_round r JOIN duplicate_game g "
                   "ON g.id = r.game_id, jsonb_array_elements(r.results::jsonb) e "
                   "WHERE g.code = %s AND r.number = 1 AND e->>'entry_id' IS NOT NULL"),
}


def db_url(name: str) -> str:
    return f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"


def loadavg() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


# ---------------------------------------------------------------- the sink (the relay)

class Sink:
    """aiosmtpd handler standing for the relay: one record per mail, headers only."""

    def __init__(self) -> None:
        self.mails: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        at = time.time()
        head = BytesHeaderParser(policy=compat32).parsebytes(envelope.original_content or b"")
        with self.lock:
            self.mails.append({
                "at": at, "kind": str(head.get("X-Arbitre-Kind", "")),
                "to": str(head.get("To", "")).strip().lower(),
                "in_reply_to": "".join(str(head.get("In-Reply-To", "")).split()),
                "message_id": "".join(str(head.get("Message-ID", "")).split()),
            })
        return "250 OK"

    def count(self, kind: str) -> int:
        with self.lock:
            return sum(1 for m in self.mails if m["kind"] == kind)


# ---------------------------------------------------------------- seeding

def enumerate_players(s: Any, competition_id: int | None,
                      players: int) -> Iterator[tuple[int, list[Any]]]:
    """Register ``players`` players (a shared fast password hash) in the competition, 500
    at a time (one multi-row INSERT each, on a fresh database, rather than
    problems.register's lookup per player): (index of the first, the committed players)."""
    from werkzeug.security import generate_password_hash

    from webapp.models import Player, Registration
    from webapp.services.players import new_token

    pw_hash = generate_password_hash(PASSWORD, method="pbkdf2:sha256:1000")
    for start in range(0, players, 500):
        chunk = [Player(name=f"Joueur {i:05d}", club=f"Club {i % 37}",
                        email=f"j{i:05d}@bench.example", token=new_token(),
                        password_hash=pw_hash)
                 for i in range(start, min(players, start + 500))]
        s.add_all(chunk)
        s.flush()
        s.add_all([Registration(competition_id=competition_id, player_id=p.id) for p in chunk])
        s.commit()
        yield start, chunk


def seed(name: str, players: int) -> dict[str, Any]:
    """The database at head, a competition, the players, the problem (deadline in 2 h:
    moved to the real one once the server runs). Everything through the services."""
    env = server_env(name, instance=tempfile.mkdtemp(prefix="arbitre-burst-seed-"))
    subprocess.run([sys.executable, "-m", "arbitre_cli", "db", "upgrade"], cwd=str(ROOT),
                   env=dict(os.environ, **env), check=True, capture_output=True)
    from sqlmodel import Session

    from puzzles.generate import new_problem
    from scoring.lexicon import default_lexicon
    from webapp import create_app
    from webapp.db import get_engine
    from webapp.demo import greedy_sheet
    from webapp.services import clock, problems

    app = create_app({"DATABASE_URL": db_url(name), "SCHEDULER_ENABLED": False,
                      "SECRET_KEY": SECRET, "INSTANCE_PATH": env["ARBITRE_INSTANCE_PATH"]})
    lex = default_lexicon()
    puzzle = new_problem("integral_partiel", seed=2026, lexicon=lex)
    sheets = [greedy_sheet(puzzle.stock, lex, seed=k) for k in range(40)]
    rng = random.Random(23)
    plan: list[dict[str, Any]] = []
    with app.app_context(), Session(get_engine(app), expire_on_commit=False) as s:
        comp = problems.create_competition(session=s, slug="rush", name="Banc d'échéance")
        now = clock.now()
        problems.create_problem(
            session=s, competition=comp, puzzle=puzzle, code=CODE,
            publish_at=now - timedelta(hours=1), deadline_at=now + timedelta(hours=2),
            status="open",
        )
        for start, chunk in enumerate_players(s, comp.id, players):
            for i, p in enumerate(chunk, start):
                plan.append({"i": i, "kind": "", "email": p.email, "token": p.token,
                             "sheet": sheets[rng.randrange(len(sheets))]})
    get_engine(app).dispose()
    return {"plan": plan, "instance": env["ARBITRE_INSTANCE_PATH"]}


def seed_duplicate(name: str, players: int) -> dict[str, Any]:
    """The database at head, a competition, the players and a FISF Duplicate of two rounds
    on the bundled French list, its round 1 drawn (a secret seed, as every game) with its
    draw notices and reminders queued (drawn 13 hours ago for a day's round: the reminders,
    ``DUPLICATE_REMINDER_HOURS`` before the close, are due now, so they are sent before the
    window opens, as they would be hours before a real close); each player's bulletin is one
    of the round's 40 best moves as a player writes it (« H8 WORD 22 »). Everything through
    the services."""
    env = server_env(name, instance=tempfile.mkdtemp(prefix="arbitre-burst-seed-"))
    subprocess.run([sys.executable, "-m", "arbitre_cli", "db", "upgrade"], cwd=str(ROOT),
                   env=dict(os.environ, **env), check=True, capture_output=True)
    from sqlmodel import Session, select

    from puzzles.duplicate import DuplicateSettings
    from scoring.board import Board
    from scoring.movegen import best
    from scoring.notation import format_ref
    from webapp import create_app
    from webapp.db import get_engine
    from webapp.models import DuplicateRound
    from webapp.services import clock, duplicate, lifecycle, problems
    from webapp.services.stored import round_draw_of

    app = create_app({"DATABASE_URL": db_url(name), "SCHEDULER_ENABLED": False,
                      "SECRET_KEY": SECRET, "INSTANCE_PATH": env["ARBITRE_INSTANCE_PATH"]})
    rng = random.Random(23)
    plan: list[dict[str, Any]] = []
    with app.app_context(), Session(get_engine(app), expire_on_commit=False) as s:
        comp = problems.create_competition(session=s, slug="rush", name="Banc d'échéance")
        drawn = clock.now() - timedelta(hours=13)
        game = duplicate.create_game(
            session=s, competition=comp, title="Duplicate du banc", code=CODE,
            settings=DuplicateSettings(lang="fr", rounds=2),
            rhythm={"kind": "hours", "hours": 24}, starts_at=drawn, actor="bench")
        chunks = [chunk for _, chunk in enumerate_players(s, comp.id, players)]
    with app.app_context():
        assert lifecycle.run_due(now=drawn) == [f"draw:{CODE}:1"]
    with app.app_context(), Session(get_engine(app), expire_on_commit=False) as s:
        rnd = s.exec(select(DuplicateRound).where(DuplicateRound.number == 1)).one()
        game = s.get(type(game), game.id)
        assert game is not None
        rack = duplicate.game_of(game).rack_letters(round_draw_of(rnd))
        moves = best(Board.from_cgp(rnd.grid_before), rack, duplicate.config_of(game), n=40)
        bulletins = [f"{format_ref(m.ref)} {m.word} {m.score}" for m in moves]
    with app.app_context():
        assert lifecycle.run_due(now=clock.now()) == [f"remind:{CODE}:1"]
    for chunk in chunks:
        for p in chunk:
            plan.append({"i": len(plan), "kind": "", "email": p.email, "token": p.token,
                         "sheet": bulletins[rng.randrange(len(bulletins))]})
    get_engine(app).dispose()
    return {"plan": plan, "instance": env["ARBITRE_INSTANCE_PATH"], "rack": rack,
            "bulletins": len(bulletins), "top": bulletins[0]}


def assign_channels(plan: list[dict[str, Any]], web_n: int) -> None:
    """``web_n`` players by the web, spread evenly (every other one at a half share)."""
    n = len(plan)
    for i, p in enumerate(plan):
        p["kind"] = "web" if int((i + 1) * web_n / n) > int(i * web_n / n) else "smtp"


def arrival_offsets(n: int, window: float, margin: float = 3.0) -> list[float]:
    """Seconds after the window opens of each player's start: a rush whose density grows
    linearly to the deadline (quantiles of the CDF (t/W)^2), the last ``margin`` s before."""
    span = max(1.0, window - margin)
    return [span * math.sqrt((k + 0.5) / n) for k in range(n)]


# ---------------------------------------------------------------- the server

def server_env(name: str, *, instance: str, smtp_port: int = 0,
               relay_port: int = 0) -> dict[str, str]:
    env = {
        "ARBITRE_DATABASE_URL": db_url(name),
        "ARBITRE_SECRET_KEY": SECRET,
        "ARBITRE_INSTANCE_PATH": instance,
        "ARBITRE_SUBMIT_DOMAIN": DOMAIN,
        "PYTHONPATH": str(ROOT),
    }
    if smtp_port:
        env["ARBITRE_MAIL_SMTP_LISTEN"] = f"127.0.0.1:{smtp_port}"
        env["ARBITRE_SMTP_RELAY"] = f"127.0.0.1:{relay_port}"
    return env


def start_server(env: dict[str, str], port: int, workers: int,
                 log_path: Path) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "arbitre_cli", "serve", "--production", "--no-demo",
           "--port", str(port), "--workers", str(workers)]
    log = open(log_path, "wb")  # noqa: SIM115 (kept open for the server's life)
    proc = subprocess.Popen(cmd, env=dict(os.environ, **env), cwd=str(ROOT), stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"arbitre serve stopped: {log_path.read_text()[-2000:]}")
        if "Arbitre en service" in log_path.read_text(errors="replace"):
            return proc
        time.sleep(0.2)
    raise RuntimeError("arbitre serve did not answer within 120 s")


def shutdown(server: subprocess.Popen[bytes], relay: Any, *, db: str, keep: bool,
             helper: subprocess.Popen[bytes] | None = None) -> None:
    """End a bench run: the helper process (load generator, profiler) killed if still
    running, the server's process group stopped (SIGTERM, then SIGKILL after 30 s), the
    relay stopped, and the database dropped unless ``keep``."""
    if helper is not None and helper.poll() is None:
        helper.kill()
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
    relay.stop()
    if not keep:
        try:
            recreate_database(name=db, create=False)
        except Exception as exc:  # leaving a bench database behind is not fatal
            print("   (base non supprimée :", exc, ")")


def _tree(pid: int) -> list[int]:
    out = [pid]
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            for child in (task / "children").read_text().split():
                out += _tree(int(child))
        except OSError:
            continue
    return out


def cpu_now(server_pid: int, client_pid: int | None) -> dict[str, float]:
    serve = _proc_cpu(server_pid)
    return {
        "arbitre serve": serve,
        "gunicorn": sum(_proc_cpu(p) for p in _tree(server_pid)) - serve,
        "PostgreSQL": sum(_proc_cpu(p) for p in _postgres_pids()),
        "load generator": _proc_cpu(client_pid) if client_pid else 0.0,
    }


# ---------------------------------------------------------------- the load generator

def run_clients(plan_path: Path, out_path: Path) -> int:
    """Client mode (its own process): every player at his instant; results as JSON."""
    job = json.loads(plan_path.read_text())
    start = job["window_start"]
    web_port, smtp_port = job["web_port"], job["smtp_port"]
    game = GAMES[job["game"]]
    form_path = game.form_path.format(code=job["code"])
    post_path = game.post_path.format(code=job["code"])
    results: list[dict[str, Any]] = []
    lock = threading.Lock()

    def web_player(p: dict[str, Any]) -> dict[str, Any]:
        r: dict[str, Any] = {"kind": "web", "email": p["email"], "times": {}}
        c = Client(web_port)
        try:
            status, text, _, dt = c.request("GET", "/connexion")
            r["times"]["page de connexion"] = dt
            token = TOKEN_RE.search(text)
            if status != 200 or not token:
                raise RuntimeError(f"sign-in page HTTP {status}")
            status, _, _, dt = c.request("POST", "/connexion", {
                "email": p["email"], "password": PASSWORD, "csrf_token": token.group(1)})
            r["times"]["connexion"] = dt
            if status != 302:
                raise RuntimeError(f"sign-in HTTP {status}")
            status, text, _, dt = c.request("GET", form_path)
            r["times"]["formulaire"] = dt
            token = TOKEN_RE.search(text)
            if status != 200 or not token:
                raise RuntimeError(f"form HTTP {status}")
            status, _, headers, dt = c.request("POST", post_path, {
                game.field: p["sheet"], "csrf_token": token.group(1)})
            r["times"][game.post_step] = dt
            r["answered_at"] = time.time()
            if status != 302:
                raise RuntimeError(f"{game.field} post HTTP {status}")
        except Exception as exc:  # counted and printed, never hidden
            r["error"] = f"{type(exc).__name__}: {exc}"
        finally:
            c.conn.close()
        return r

    def smtp_player(p: dict[str, Any]) -> dict[str, Any]:
        mid = f"<burst-{p['i']}@bench.example>"
        r: dict[str, Any] = {"kind": "smtp", "email": p["email"], "message_id": mid}
        msg = EmailMessage()
        msg["From"] = f"Joueur {p['i']:05d} <{p['email']}>"
        msg["To"] = f"feuilles+{p['token']}@{DOMAIN}"
        msg["Subject"] = game.subject.format(code=job["code"])
        msg["Message-ID"] = mid
        msg.set_content(f"Bonjour,\n{p['sheet']}\n-- \nJoueur\n")
        try:
            t0 = time.perf_counter()
            with smtplib.SMTP("127.0.0.1", smtp_port, timeout=60) as smtp:
                refused = smtp.send_message(msg)
                r["accepted_at"] = time.time()
                r["latency"] = time.perf_counter() - t0
                if refused:
                    raise RuntimeError(f"refused {refused}")
        except Exception as exc:
            r["error"] = f"{type(exc).__name__}: {exc}"
        return r

    def run(p: dict[str, Any]) -> None:
        started = time.time()
        r = web_player(p) if p["kind"] == "web" else smtp_player(p)
        r["late_start"] = started - (start + p["offset"])
        with lock:
            results.append(r)

    with ThreadPoolExecutor(max_workers=job["threads"]) as pool:
        for p in sorted(job["players"], key=lambda q: q["offset"]):
            wait = start + p["offset"] - time.time()
            if wait > 0:
                time.sleep(wait)
            pool.submit(run, p)
    out_path.write_text(json.dumps(results))
    return 0


# ---------------------------------------------------------------- measuring

def pct(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of ``values`` (any order)."""
    s = sorted(values)
    if not s:
        return float("nan")
    return s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))]


def ms(x: float) -> str:
    return f"{x * 1000:.0f} ms"


def db_state(name: str, game: Game) -> dict[str, Any]:
    """The problem's (or round 1's) status, when each deadline step was recorded (the audit
    log's time: the last of each action), the outbox by kind and status."""
    import psycopg

    with psycopg.connect(db_url(name).replace("+psycopg", ""), autocommit=True) as conn:
        status = conn.execute(game.status_sql, (CODE,)).fetchone()
        steps = dict(conn.execute(
            "SELECT action, max(at) FROM audit_log WHERE target = %s AND action = ANY(%s) "
            "GROUP BY action", (CODE, [a for _, a in game.steps])).fetchall())
        outbox = Counter({(k, st): n for k, st, n in conn.execute(
            "SELECT kind, status, count(*) FROM outbox_message GROUP BY kind, status")})
    return {"status": status[0] if status else None, "steps": steps, "outbox": outbox}


def check_database(name: str, game: Game) -> dict[str, Any]:
    """Sheets (or bulletins) stored, by whom, late, by mail; the inbound messages by status;
    the receipt rows; the players ranked (the Duplicate: round 1's results with a bulletin)."""
    import psycopg

    with psycopg.connect(db_url(name).replace("+psycopg", ""), autocommit=True) as conn:
        subs = conn.execute(
            "SELECT count(*), count(DISTINCT player_id), sum(CASE WHEN late THEN 1 ELSE 0 END),"
            " sum(CASE WHEN channel = 'email' THEN 1 ELSE 0 END) FROM "
            + game.entries_table).fetchone()
        inbound = Counter(dict(conn.execute(
            "SELECT status, count(*) FROM inbound_message GROUP BY status").fetchall()))
        receipt_keys = conn.execute(
            "SELECT count(*), count(DISTINCT dedupe_key) FROM outbox_message "
            "WHERE kind = 'receipt'").fetchone()
        ranking = conn.execute(game.ranked_sql, (CODE,)).fetchone()
    return {"submissions": subs[0], "players_with_sheet": subs[1], "late": subs[2] or 0,
            "by_mail": subs[3] or 0, "inbound": inbound, "receipt_rows": receipt_keys[0],
            "receipt_keys": receipt_keys[1], "ranked": ranking[0] if ranking else 0}


def reschedule(name: str, instance: str, deadline: datetime) -> None:
    from sqlmodel import Session, select

    from webapp import create_app
    from webapp.db import get_engine
    from webapp.models import Problem
    from webapp.services import problems

    app = create_app({"DATABASE_URL": db_url(name), "SCHEDULER_ENABLED": False,
                      "SECRET_KEY": SECRET, "INSTANCE_PATH": instance})
    with app.app_context(), Session(get_engine(app)) as s:
        prob = s.exec(select(Problem).where(Problem.code == CODE)).one()
        problems.reschedule(session=s, problem=prob, publish_at=prob.publish_at,
                            deadline_at=deadline, actor="bench",
                            reason="banc d'essai : échéance dans la fenêtre mesurée")
        s.commit()
    get_engine(app).dispose()


def reschedule_round(name: str, instance: str, deadline: datetime) -> None:
    """Round 1's close moved to ``deadline`` and the scheduler told (the change counter).
    No console form moves a round's close later (« Clore maintenant » only brings it
    forward), so the bench writes the column itself, as a longer rhythm would have set it."""
    from sqlmodel import Session, select

    from webapp import create_app
    from webapp.db import get_engine
    from webapp.models import DuplicateRound
    from webapp.services import duplicate

    app = create_app({"DATABASE_URL": db_url(name), "SCHEDULER_ENABLED": False,
                      "SECRET_KEY": SECRET, "INSTANCE_PATH": instance})
    with app.app_context(), Session(get_engine(app)) as s:
        rnd = s.exec(select(DuplicateRound).where(DuplicateRound.number == 1)).one()
        rnd.closes_at = deadline
        s.add(rnd)
        duplicate.schedule_changed(s)
        s.commit()
    get_engine(app).dispose()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=1000)
    ap.add_argument("--game", choices=sorted(GAMES), default="sheet",
                    help="sheet: a one-sheet problem's deadline; duplicate: a Duplicate "
                         "round's close")
    ap.add_argument("--window", type=float, default=600.0,
                    help="seconds of arrivals before the deadline (600: real time)")
    ap.add_argument("--lead", type=float, default=5.0,
                    help="seconds between moving the deadline and the window's start")
    ap.add_argument("--web-share", type=float, default=0.5)
    ap.add_argument("--workers", type=int, default=2, help="gunicorn workers (--workers)")
    ap.add_argument("--threads", type=int, default=200, help="load generator threads")
    ap.add_argument("--after", type=float, default=600.0,
                    help="seconds to wait after the deadline for the results mails")
    ap.add_argument("--db", default="arbitre_bench_burst")
    ap.add_argument("--keep", action="store_true", help="keep the database afterwards")
    ap.add_argument("--clients", nargs=2, metavar=("PLAN", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.clients:
        return run_clients(Path(args.clients[0]), Path(args.clients[1]))

    from aiosmtpd.controller import Controller

    n = args.players
    game = GAMES[args.game]
    print(f"== {n} joueurs ({'bulletins Duplicate' if args.game == 'duplicate' else 'feuilles'})"
          f", fenêtre {args.window:.0f} s avant l'échéance"
          + ("" if args.window >= 600 else
             f" (temps comprimé ×{600 / args.window:.1f} : les 10 minutes réelles en "
             f"{args.window:.0f} s)")
          + f", {args.web_share:.0%} par le web ; base {args.db}")
    print(f"   load average avant l'amorçage : {loadavg()}")
    recreate_database(name=args.db)
    t0 = time.perf_counter()
    seeded = (seed_duplicate if args.game == "duplicate" else seed)(args.db, n)
    plan = seeded["plan"]
    if "rack" in seeded:
        print(f"   tour 1 : tirage {seeded['rack']}, {seeded['bulletins']} bulletins différents"
              f" (top {seeded['top']})")
    assign_channels(plan, round(n * args.web_share))
    print(f"   amorçage : {time.perf_counter() - t0:.1f} s")

    sink = Sink()
    relay_port, smtp_port, web_port = free_port(), free_port(), free_port()
    relay = Controller(sink, hostname="127.0.0.1", port=relay_port)
    relay.start()
    tmp = Path(tempfile.mkdtemp(prefix="arbitre-burst-"))
    env = server_env(args.db, instance=seeded["instance"], smtp_port=smtp_port,
                     relay_port=relay_port)
    server = start_server(env, web_port, args.workers, tmp / "serve.log")
    client: subprocess.Popen[bytes] | None = None
    ok = False
    try:
        # warm every gunicorn worker (imports, templates) before the window opens
        for _ in range(args.workers * 4):
            warm = Client(web_port)
            warm.request("GET", "/connexion")
            warm.conn.close()
        # the mails due before the window (a Duplicate's draw notices and reminders) out
        expected = Counter({kind: k * n for kind, k in game.before})
        t_before = time.perf_counter()
        while any(sink.count(kind) < want for kind, want in expected.items()):
            if time.perf_counter() - t_before > 1200:
                raise RuntimeError(f"mails before the window not all sent: {expected}")
            time.sleep(0.5)
        if expected:
            print(f"   avant la fenêtre : {dict(expected)} envoyés en "
                  f"{time.perf_counter() - t_before:.1f} s")
        offsets = arrival_offsets(n, args.window)
        random.Random(7).shuffle(plan)  # web and SMTP players mixed along the window
        for p, off in zip(plan, offsets, strict=True):
            p["offset"] = off
        window_start = time.time() + args.lead
        deadline_ts = window_start + args.window
        deadline = datetime.fromtimestamp(deadline_ts, UTC)
        (reschedule_round if args.game == "duplicate" else reschedule)(
            args.db, seeded["instance"], deadline)
        plan_path, out_path = tmp / "plan.json", tmp / "results.json"
        plan_path.write_text(json.dumps({
            "window_start": window_start, "web_port": web_port, "smtp_port": smtp_port,
            "code": CODE, "game": args.game, "threads": args.threads, "players": plan}))
        load0 = loadavg()
        cpu0 = cpu_now(server.pid, None)
        client = subprocess.Popen([sys.executable, __file__, "--clients", str(plan_path),
                                   str(out_path)], cwd=str(ROOT / "bench"))
        loads: list[tuple[float, tuple[float, float, float]]] = []
        while client.poll() is None:
            loads.append((time.time(), os.getloadavg()))
            time.sleep(1.0)
        if client.returncode:
            raise RuntimeError(f"load generator failed ({client.returncode})")
        load_window_end = loadavg()
        results: list[dict[str, Any]] = json.loads(out_path.read_text())
        # the deadline's work: close, verify, rank, one results mail per player
        until = deadline_ts + args.after
        state = db_state(args.db, game)
        later = {kind: sink.count(kind) + k * n for kind, k in game.after}
        while time.time() < until:
            state = db_state(args.db, game)
            if (game.ranked_step in state["steps"] and sink.count(game.results_kind) >= n
                    and sink.count("receipt") >= n
                    and all(sink.count(kind) >= want for kind, want in later.items())):
                break
            time.sleep(0.5)
        done_at = time.time()
        time.sleep(3.0)  # anything sent twice would arrive now
        load_end = loadavg()
        cpu1 = cpu_now(server.pid, None)
        state = db_state(args.db, game)
        report(args, n, results, sink, state, check_database(args.db, game), deadline_ts,
               done_at, cpu0, cpu1, load0, load_window_end, load_end, loads)
        ok = all(v for v in LAST_CHECKS.values())
    finally:
        shutdown(server, relay, db=args.db, keep=args.keep, helper=client)
    return 0 if ok else 1


LAST_CHECKS: dict[str, bool] = {}


def report(args: argparse.Namespace, n: int, results: list[dict[str, Any]], sink: Sink,
           state: dict[str, Any], db: dict[str, Any], deadline_ts: float, done_at: float,
           cpu0: dict[str, float], cpu1: dict[str, float], load0: str, load_window: str,
           load_end: str, loads: list[tuple[float, tuple[float, float, float]]]) -> None:
    game = GAMES[args.game]
    errors = [r for r in results if "error" in r]
    web_res = [r for r in results if r["kind"] == "web"]
    smtp_res = [r for r in results if r["kind"] == "smtp"]
    all_web = [t for r in web_res for t in r["times"].values()]
    peak = max((lv[0] for _, lv in loads), default=0.0)
    lags = [r["late_start"] for r in results]
    print(f"== charge : {len(web_res)} joueurs web, {len(smtp_res)} par SMTP, "
          f"{len(errors)} erreur(s); retard de départ du générateur p99 {pct(lags, .99):.2f} s, "
          f"max {max(lags, default=0):.2f} s (au-delà de quelques secondes, le générateur ne "
          "suit plus : la machine est saturée et les chiffres ne mesurent plus le serveur)")
    print(f"   load average : début de fenêtre {load0}, fin de fenêtre {load_window}, "
          f"pic (1 min) {peak:.2f}, fin des mesures {load_end}")
    for e in errors[:10]:
        print("   !", e["kind"], e["email"], e["error"])
    print(f"  réponses web (4 requêtes par joueur, n={len(all_web)}) : p50 {ms(pct(all_web, .5))}"
          f", p99 {ms(pct(all_web, .99))}, max {ms(max(all_web, default=0))}")
    for name in ("page de connexion", "connexion", "formulaire", game.post_step):
        v = [r["times"][name] for r in web_res if name in r["times"]]
        print(f"    {name:<22} p50 {ms(pct(v, .5)):>8}  p99 {ms(pct(v, .99)):>8}  "
              f"max {ms(max(v, default=0)):>8}")
    lat = [r["latency"] for r in smtp_res if "latency" in r]
    print(f"  SMTP (connexion, envoi, 250) : p50 {ms(pct(lat, .5))}, p99 {ms(pct(lat, .99))}, "
          f"max {ms(max(lat, default=0))}")
    # receipts: first one at the sink for each player; SMTP ones matched by In-Reply-To
    receipts = [m for m in sink.mails if m["kind"] == "receipt"]
    by_reply = Counter(m["in_reply_to"] for m in receipts if m["in_reply_to"])
    by_to = Counter(m["to"] for m in receipts)
    first: dict[str, float] = {}
    for m in sorted(receipts, key=lambda m: m["at"]):
        first.setdefault(m["to"], m["at"])
    smtp_wait = [first[r["email"]] - r["accepted_at"] for r in smtp_res
                 if "accepted_at" in r and r["email"] in first]
    web_wait = [first[r["email"]] - r["answered_at"] for r in web_res
                if "answered_at" in r and r["email"] in first]
    print(f"  accusé de réception après le 250 SMTP (n={len(smtp_wait)}) : p50 "
          f"{ms(pct(smtp_wait, .5))}, p99 {ms(pct(smtp_wait, .99))}, "
          f"max {ms(max(smtp_wait, default=0))}")
    print(f"  accusé de réception après le 302 web  (n={len(web_wait)}) : p50 "
          f"{ms(pct(web_wait, .5))}, p99 {ms(pct(web_wait, .99))}, "
          f"max {ms(max(web_wait, default=0))}")
    steps = state["steps"]
    results_mails = sorted(m["at"] for m in sink.mails if m["kind"] == game.results_kind)

    def after(at: Any) -> str:
        return f"{at.timestamp() - deadline_ts:+.1f} s" if at is not None else "—"

    last_results = results_mails[-1] - deadline_ts if results_mails else float("nan")
    first_results = results_mails[0] - deadline_ts if results_mails else float("nan")
    print("== après l'échéance : "
          + ", ".join(f"{label} {after(steps.get(action))}" for label, action in game.steps)
          + f", courriels de résultats {len(results_mails)} du {first_results:+.1f} s au "
          f"{last_results:+.1f} s")
    for kind, _ in game.after:
        later = sorted(m["at"] for m in sink.mails if m["kind"] == kind
                       and m["at"] >= deadline_ts)
        if later:
            print(f"   puis {len(later)} courriels {kind} du {later[0] - deadline_ts:+.1f} s au "
                  f"{later[-1] - deadline_ts:+.1f} s")
    done = max(last_results,
               steps[game.ranked_step].timestamp() - deadline_ts
               if game.ranked_step in steps else float("nan"))
    print(f"   tout fini {done:.1f} s après l'échéance (objectif <= 60 s)")
    used = {k: cpu1[k] - cpu0[k] for k in cpu0}
    print("  CPU : " + " ; ".join(f"{k} {v:.1f} s" for k, v in used.items()
                                   if k != "load generator"))
    web_emails = {r["email"] for r in web_res}
    smtp_mids = {r["message_id"] for r in smtp_res}
    checks = {
        f"every player's {game.field} stored once": db["submissions"] == n
        and db["players_with_sheet"] == n,
        "none late": db["late"] == 0,
        "by mail: every message processed": db["by_mail"] == len(smtp_res)
        and db["inbound"] == Counter({"processed": len(smtp_res)}),
        "one receipt row per sheet, all sent": db["receipt_rows"] == n
        and db["receipt_keys"] == n and state["outbox"][("receipt", "sent")] == n,
        "one receipt at the sink per player": len(receipts) == n and len(by_to) == n
        and set(by_to.values()) == {1},
        "SMTP receipts In-Reply-To their message, once each":
        set(by_reply) == smtp_mids and set(by_reply.values()) == {1},
        "web players' receipts all there": web_emails <= set(by_to),
        "one results mail per player": len(results_mails) == n
        and len({m["to"] for m in sink.mails if m["kind"] == game.results_kind}) == n,
        "everyone ranked": db["ranked"] == n,
        "no other mail": Counter(m["kind"] for m in sink.mails)
        == Counter({"receipt": n, game.results_kind: n})
        + sum((Counter({k: c * n}) for k, c in game.before + game.after), Counter()),
        "no error": not errors,
    }
    LAST_CHECKS.clear()
    LAST_CHECKS.update(checks)
    for name, good in checks.items():
        print(f"  {'OK ' if good else 'FAIL'} {name}")
    web_p99 = pct(all_web, .99)
    rec_p99 = pct(smtp_wait, .99)
    print("== objectifs (load average à la fin : " + load_end + ")")
    print(f"  web p99 {ms(web_p99)} (<= 200 ms) : {'atteint' if web_p99 <= .2 else 'MANQUÉ'}")
    print(f"  accusé p99 {rec_p99:.1f} s (<= 10 s) : {'atteint' if rec_p99 <= 10 else 'MANQUÉ'}")
    lost = n - db["players_with_sheet"]
    missing = n - len(by_to)
    twice = sum(1 for v in by_to.values() if v > 1)
    print(f"  {game.field}s perdu(e)s {lost}, accusés manquants {missing}, accusés en double "
          f"{twice} (0) : {'atteint' if all(checks.values()) else 'MANQUÉ'}")
    print(f"  fini {done:.1f} s après l'échéance (<= 60 s) : "
          f"{'atteint' if done <= 60 else 'MANQUÉ'}")


if __name__ == "__main__":
    raise SystemExit(main())
