"""``arbitre serve | db | seed-demo | create-arbitre``: running and administering the server.

``arbitre serve`` is the one process to try everything: migrations, a demo championship on
an empty database, the web server, the scheduler and the mail intake. ``--production`` runs
the pages under gunicorn (worker processes) while this process keeps the scheduler and the
mail intake.
"""

from __future__ import annotations

import argparse
import getpass
import logging
import os
import signal
import subprocess
import sys
import threading
from typing import Any

from flask import Flask

USAGE = "arbitre serve|db|seed-demo|create-arbitre"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="arbitre", description="Serveur de compétitions Arbitre")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve", help="lancer le serveur (pages, calendrier, courriel)")
    s.add_argument("--host", default=os.environ.get("ARBITRE_HOST", "127.0.0.1"))
    s.add_argument("--port", type=int, default=int(os.environ.get("ARBITRE_PORT", "5000")))
    s.add_argument("--production", action="store_true",
                   help="pages servies par gunicorn (plusieurs processus)")
    s.add_argument("--workers", type=int, default=2, help="processus gunicorn (--production)")
    s.add_argument("--no-demo", action="store_true",
                   help="ne pas créer la démonstration sur une base vide")
    s.add_argument("--no-mail", action="store_true", help="sans réception de courriel")
    d = sub.add_parser("db", help="base de données")
    d.add_argument("action", choices=["upgrade", "current"])
    sub.add_parser("seed-demo", help="créer le championnat de démonstration")
    c = sub.add_parser("create-arbitre", help="créer un compte d'arbitre")
    c.add_argument("username")
    c.add_argument("--name", default="")
    c.add_argument("--password", help="sinon demandé (ou ARBITRE_NEW_PASSWORD)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    for chatty in ("alembic", "apscheduler", "mail.log"):
        logging.getLogger(chatty).setLevel(logging.WARNING)
    from webapp import create_app

    app = create_app()
    if args.cmd == "db":
        return _db(app, args.action)
    if args.cmd == "seed-demo":
        _upgrade(app)
        return _seed(app)
    if args.cmd == "create-arbitre":
        _upgrade(app)
        return _create_arbitre(app, args)
    return serve(app, args)


def _upgrade(app: Flask) -> None:
    from webapp import db

    db.upgrade(app)


def _db(app: Flask, action: str) -> int:
    from webapp import db

    if action == "upgrade":
        db.upgrade(app)
        print(f"Base à jour (révision {db.current_revision(app)}).")
    else:
        print(db.current_revision(app) or "(vide)")
    return 0


def _seed(app: Flask) -> int:
    from webapp.demo import seed_demo

    info = seed_demo(app)
    if info is None:
        print("La démonstration existe déjà.")
    else:
        print(info.describe(app.config["BASE_URL"]))
    return 0


def _create_arbitre(app: Flask, args: Any) -> int:
    from webapp.auth import create_arbitre
    from webapp.db import session_scope

    password = args.password or os.environ.get("ARBITRE_NEW_PASSWORD")
    if not password:
        password = getpass.getpass("Mot de passe : ")
        if getpass.getpass("Confirmation : ") != password:
            print("Les deux mots de passe diffèrent.", file=sys.stderr)
            return 1
    try:
        with session_scope(app) as s:
            create_arbitre(session=s, username=args.username, password=password, name=args.name)
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print(f"Compte d'arbitre « {args.username} » créé.")
    return 0


def prepare(app: Flask, *, demo: bool) -> str | None:
    """Migrate; on an empty database seed the demo. Returns the demo's description."""
    from webapp import db

    fresh = db.is_empty(app)
    db.upgrade(app)
    if fresh and demo:
        from webapp.demo import seed_demo

        info = seed_demo(app)
        return info.describe(app.config["BASE_URL"]) if info else None
    return None


def start_background(app: Flask, *, mail: bool) -> list[Any]:
    """The scheduler and (when ``mailer`` is present) the mail intake; returns what to stop."""
    from webapp.scheduler import get_scheduler

    stoppers: list[Any] = []
    if app.config.get("SCHEDULER_ENABLED"):
        sched = get_scheduler(app)
        sched.start()
        stoppers.append(sched.shutdown)
    if mail and app.config.get("MAIL_INTAKE_ENABLED"):
        try:
            from mailer.intake import start_embedded
        except ImportError:
            logging.getLogger(__name__).warning("mailer absent: no mail intake")
        else:
            handle = start_embedded(app)
            stoppers.insert(0, handle.stop)
            ports = getattr(handle, "ports", [])
            if ports:
                print(f"Réception des feuilles par courriel (SMTP) sur le port {ports[0]}.")
    return stoppers


def serve(app: Flask, args: Any) -> int:
    host, port = args.host, args.port
    if app.config["BASE_URL"] == "http://127.0.0.1:5000" and (host, port) != ("127.0.0.1", 5000):
        app.config["BASE_URL"] = f"http://{host}:{port}"
    demo = prepare(app, demo=not args.no_demo)
    stoppers = start_background(app, mail=not args.no_mail)
    url = app.config["BASE_URL"]
    print(f"Arbitre en service : {url}/")
    if demo:
        print(demo)
    sys.stdout.flush()
    stop = threading.Event()

    def _on_signal(signum: int, _frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _on_signal)
    try:
        if args.production:
            return _run_gunicorn(host, port, args.workers, stop)
        return _run_werkzeug(app, host, port, stop)
    finally:
        for s in stoppers:
            try:
                s()
            except Exception:
                logging.getLogger(__name__).exception("arrêt")


def _run_werkzeug(app: Flask, host: str, port: int, stop: threading.Event) -> int:
    from werkzeug.serving import make_server

    server = make_server(host, port, app, threaded=True)
    t = threading.Thread(target=server.serve_forever, name="http", daemon=True)
    t.start()
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    server.shutdown()
    t.join(5)
    return 0


def _run_gunicorn(host: str, port: int, workers: int, stop: threading.Event) -> int:
    """gunicorn in a child process: forking this (threaded) process would copy held locks."""
    env = dict(os.environ, ARBITRE_SCHEDULER_AUTOSTART="false")
    cmd = [sys.executable, "-m", "gunicorn", "--bind", f"{host}:{port}",
           "--workers", str(workers), "--worker-class", "gthread", "--threads", "4",
           "--access-logfile", "-", "webapp:create_app()"]
    proc = subprocess.Popen(cmd, env=env)
    try:
        while proc.poll() is None and not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    if proc.poll() is None:
        proc.terminate()
    return proc.wait(30) or 0


def init_app(app: Flask) -> None:
    """The same commands under ``flask --app webapp ...`` (and the tests' CLI runner)."""
    import click

    @app.cli.command("db-upgrade")
    def _db_upgrade() -> None:
        """Migrer la base à la dernière révision."""
        from webapp import db

        db.upgrade(app)
        click.echo(f"Base à jour (révision {db.current_revision(app)}).")

    @app.cli.command("seed-demo")
    def _seed_demo() -> None:
        """Créer le championnat de démonstration."""
        from webapp.demo import seed_demo

        info = seed_demo(app)
        click.echo(info.describe(app.config["BASE_URL"]) if info else
                   "La démonstration existe déjà.")

    @app.cli.command("create-arbitre")
    @click.argument("username")
    @click.option("--name", default="")
    @click.password_option("--password", prompt="Mot de passe")
    def _create_arbitre(username: str, name: str, password: str) -> None:
        """Créer un compte d'arbitre."""
        from webapp.auth import create_arbitre
        from webapp.db import session_scope

        try:
            with session_scope(app) as s:
                create_arbitre(session=s, username=username, password=password, name=name)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"Compte d'arbitre « {username} » créé.")

    @app.cli.command("import-players")
    @click.argument("csv_file", type=click.File("r", encoding="utf-8-sig"))
    @click.option("--competition", "slug", default=None, help="inscrire au championnat")
    def _import_players(csv_file: Any, slug: str | None) -> None:
        """Importer des joueurs depuis un CSV (nom, club, courriel)."""
        from sqlmodel import select

        from webapp.db import session_scope
        from webapp.models import Competition
        from webapp.services.players import import_players_csv

        with session_scope(app) as s:
            comp = None
            if slug:
                comp = s.exec(select(Competition).where(Competition.slug == slug)).first()
                if comp is None:
                    raise click.ClickException(f"Championnat inconnu : « {slug} ».")
            report = import_players_csv(session=s, text=csv_file.read(), competition=comp,
                                        actor="cli")
            if not report.ok:
                s.rollback()
                raise click.ClickException("Rien n'a été importé :\n" +
                                           "\n".join(report.messages()))
        click.echo(f"{len(report.created)} créé(s), {len(report.updated)} mis à jour, "
                   f"{len(report.unchanged)} inchangé(s).")
