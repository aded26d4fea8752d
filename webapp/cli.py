"""``arbitre serve | db | seed-demo | create-arbitre``: running and administering the server.

``arbitre serve`` is the one process to try everything: migrations, a demo championship on
an empty database, the web server, the scheduler and the mail intake. ``--production`` runs
the pages under gunicorn (worker processes) while this process keeps the scheduler and the
mail intake.
"""

from __future__ import annotations

import argparse
import errno
import getpass
import http.client
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
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
    c.add_argument("--email", default="", help="adresse pour les liens de connexion")
    k = sub.add_parser("login-link", help="afficher un lien de connexion à usage unique "
                       "pour un arbitre (mot de passe oublié, compte bloqué)")
    k.add_argument("username")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    for chatty in ("alembic", "apscheduler", "mail.log"):
        logging.getLogger(chatty).setLevel(logging.WARNING)
    from webapp import create_app

    if getattr(args, "production", False):
        # ProductionConfig (Secure cookie) here and in the gunicorn workers, which inherit it
        os.environ["ARBITRE_PRODUCTION"] = "1"
    app = create_app()
    if args.cmd == "db":
        return _db(app, args.action)
    if args.cmd == "seed-demo":
        _upgrade(app)
        return _seed(app)
    if args.cmd == "create-arbitre":
        _upgrade(app)
        return _create_arbitre(app, args)
    if args.cmd == "login-link":
        _upgrade(app)
        return _login_link(app, args.username)
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
            create_arbitre(session=s, username=args.username, password=password, name=args.name,
                           email=args.email)
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print(f"Compte d'arbitre « {args.username} » créé.")
    return 0


def _login_link(app: Flask, username: str) -> int:
    """Print a one-time sign-in link for an arbitre (the way in that needs no password and
    no mail: whoever runs this command already administers the server)."""
    from sqlmodel import select

    from webapp.auth import issue_arbitre_link
    from webapp.db import session_scope
    from webapp.models import Arbitre

    with app.app_context(), session_scope(app) as s:
        a = s.exec(select(Arbitre).where(Arbitre.username == username)).first()
        if a is None or not a.active:
            print(f"Aucun compte d'arbitre actif « {username} ».", file=sys.stderr)
            return 1
        link = issue_arbitre_link(session=s, arbitre=a, mail=False)
    minutes = app.config.get("ARBITRE_LOGIN_TOKEN_MINUTES", 15)
    print(f"Lien de connexion pour « {username} » (usage unique, valable {minutes} min) :")
    print(link)
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


class PortError(Exception):
    """A port this process must listen on is taken (or refused): said in French, no traceback."""


def port_error(what: str, host: str, port: int, exc: OSError, hint: str) -> PortError:
    if exc.errno == errno.EADDRINUSE:
        return PortError(f"Le port {what}{port} ({host}) est déjà utilisé par un autre "
                         f"programme : arrêtez-le ou choisissez un autre port ({hint}).")
    if exc.errno == errno.EACCES:
        return PortError(f"Écoute refusée sur le port {what}{port} ({host}) : un port "
                         f"inférieur à 1024 demande des droits d'administrateur ({hint}).")
    return PortError(f"Impossible d'écouter sur le port {what}{port} ({host}) : "
                     f"{exc.strerror or exc} ({hint}).")


def start_background(app: Flask, *, mail: bool) -> list[Any]:
    """The scheduler and (when ``mailer`` is present) the mail intake; returns what to stop.
    Raises :class:`PortError` (after stopping what it started) when the SMTP port is taken."""
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
            try:
                handle = start_embedded(app)
            except OSError as exc:
                _stop_all(stoppers)
                raise _mail_port_error(app, exc) from None
            stoppers.insert(0, handle.stop)
            ports = getattr(handle, "ports", [])
            if ports:
                print(f"Réception des feuilles par courriel (SMTP) sur le port {ports[0]}.")
    return stoppers


def _mail_port_error(app: Flask, exc: OSError) -> PortError:
    from mailer.settings import host_port

    for name, default in (("MAIL_SMTP_LISTEN", 25), ("MAIL_LMTP_LISTEN", 24)):
        listen = str(app.config.get(name) or "")
        if not listen:
            continue
        host, port = host_port(listen, default)
        if _port_taken(host, port):
            kind = "SMTP " if name == "MAIL_SMTP_LISTEN" else "LMTP "
            return port_error(kind, host, port, exc, f"réglage ARBITRE_{name}")
    listen = str(app.config.get("MAIL_SMTP_LISTEN") or "")
    host, port = host_port(listen, 25) if listen else ("?", 0)
    return port_error("SMTP ", host, port, exc, "réglage ARBITRE_MAIL_SMTP_LISTEN")


def _port_taken(host: str, port: int) -> bool:
    try:
        with socket.create_server((host, port)):
            return False
    except OSError:
        return True


def _stop_all(stoppers: list[Any]) -> None:
    for s in stoppers:
        try:
            s()
        except Exception:
            logging.getLogger(__name__).exception("arrêt")


def serve(app: Flask, args: Any) -> int:
    """Bind the web port, migrate (and seed the demo), start the scheduler and the mail
    intake, serve; the banner is printed only once the port answers. A taken port ends the
    command with a French message and exit status 1."""
    host, port = args.host, args.port
    if app.config["BASE_URL"] == "http://127.0.0.1:5000" and (host, port) != ("127.0.0.1", 5000):
        app.config["BASE_URL"] = f"http://{host}:{port}"
    try:
        # bound first: a taken port is reported before anything else is done
        listener = _bind(host, port)
    except PortError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    stop = threading.Event()

    def _on_signal(signum: int, _frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _on_signal)
    stoppers: list[Any] = []
    try:
        demo = prepare(app, demo=not args.no_demo)
        try:
            stoppers = start_background(app, mail=not args.no_mail)
        except PortError as exc:
            print(str(exc), file=sys.stderr)
            return 1

        def banner() -> None:
            print(f"Arbitre en service : {app.config['BASE_URL']}/")
            if demo:
                print(demo)
            sys.stdout.flush()

        if args.production:
            return _run_gunicorn(listener, args.workers, stop, banner)
        return _run_werkzeug(app, listener, stop, banner)
    finally:
        listener.close()
        _stop_all(stoppers)


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket of the pages (SO_REUSEADDR, as werkzeug and gunicorn do)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise PortError(f"Adresse d'écoute inconnue : « {host} » ({exc.strerror}).") from None
    family = infos[0][0]
    try:
        return socket.create_server((host, port), family=family, backlog=128)
    except OSError as exc:
        raise port_error("", host, port, exc, "option --port") from None


def _run_werkzeug(app: Flask, listener: socket.socket, stop: threading.Event,
                  banner: Callable[[], None]) -> int:
    from werkzeug.serving import make_server

    host, port = listener.getsockname()[:2]
    server = make_server(host, port, app, threaded=True, fd=listener.fileno())
    t = threading.Thread(target=server.serve_forever, name="http", daemon=True)
    t.start()
    banner()  # the socket listens since _bind: a connection now is served
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    server.shutdown()
    t.join(5)
    return 0


def _run_gunicorn(listener: socket.socket, workers: int, stop: threading.Event,
                  banner: Callable[[], None]) -> int:
    """gunicorn in a child process (forking this threaded process would copy held locks),
    serving the socket bound here (``fd://``); the banner waits for its first answer."""
    env = dict(os.environ, ARBITRE_SCHEDULER_AUTOSTART="false")
    fd = listener.fileno()
    listener.set_inheritable(True)
    cmd = [sys.executable, "-m", "gunicorn", "--bind", f"fd://{fd}",
           "--workers", str(workers), "--worker-class", "gthread", "--threads", "4",
           "--access-logfile", "-", "webapp:create_app()"]
    proc = subprocess.Popen(cmd, env=env, pass_fds=(fd,))
    try:
        if _wait_answering(listener, proc, stop):
            banner()
        while proc.poll() is None and not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    if proc.poll() is None:
        proc.terminate()
    code = proc.wait(30)
    if code and not stop.is_set():
        print(f"gunicorn s'est arrêté (code {code}).", file=sys.stderr)
    return code or 0


def _wait_answering(listener: socket.socket, proc: subprocess.Popen[Any],
                    stop: threading.Event) -> bool:
    """Until the pages answer an HTTP request (any status): True; False if gunicorn stopped
    or we were asked to stop first. No time limit: gunicorn's own timeout ends a stuck boot."""
    host, port = listener.getsockname()[:2]
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1" if listener.family == socket.AF_INET else "::1"
    warned_at = time.monotonic() + 60
    while proc.poll() is None and not stop.is_set():
        conn = http.client.HTTPConnection(host, port, timeout=5)
        try:
            conn.request("HEAD", "/")
            conn.getresponse()
            return True
        except (OSError, http.client.HTTPException):
            pass
        finally:
            conn.close()
        if time.monotonic() > warned_at:
            logging.getLogger(__name__).warning("gunicorn ne répond pas encore sur le port %s",
                                                port)
            warned_at = time.monotonic() + 60
        stop.wait(0.2)
    return False


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

    @app.cli.command("login-link")
    @click.argument("username")
    def _cli_login_link(username: str) -> None:
        """Afficher un lien de connexion à usage unique pour un arbitre."""
        if _login_link(app, username) != 0:
            raise click.ClickException(f"Aucun compte d'arbitre actif « {username} ».")

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
