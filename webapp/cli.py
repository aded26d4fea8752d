"""``arbitre serve | db | seed-demo | create-arbitre | login-link``: running and administering
the server (the administration commands themselves are :mod:`webapp.commands`).

``arbitre serve`` is the one process to try everything: migrations, a demo championship on
an empty database, the web server, the scheduler and the mail intake. ``--production`` runs
the pages under gunicorn (worker processes) while this process keeps the scheduler and the
mail intake.
"""

from __future__ import annotations

import argparse
import errno
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
from werkzeug.serving import make_server

import webapp
from mailer.intake import start_embedded
from mailer.settings import host_port
from webapp import commands, db, paths
from webapp.demo import seed_demo
from webapp.scheduler import get_scheduler

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
    if getattr(args, "production", False):
        # ProductionConfig (Secure cookie) here and in the gunicorn workers, which inherit it
        os.environ["ARBITRE_PRODUCTION"] = "1"
    app = webapp.create_app()
    if args.cmd == "db":
        return commands.db_action(app, args.action)
    if args.cmd == "seed-demo":
        db.upgrade(app)
        return commands.seed(app)
    if args.cmd == "create-arbitre":
        db.upgrade(app)
        return commands.create_arbitre_interactive(app, args)
    if args.cmd == "login-link":
        db.upgrade(app)
        return commands.login_link(app, args.username)
    return serve(app, args)


def prepare(app: Flask, *, demo: bool) -> str | None:
    """Migrate; on an empty database seed the demo. Returns the demo's description."""
    fresh = db.is_empty(app)
    db.upgrade(app)
    if fresh and demo:
        info = seed_demo(app)
        return info.describe(app.config["BASE_URL"], paths.local_mailbox(app)) if info else None
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
    stoppers: list[Any] = []
    if app.config.get("SCHEDULER_ENABLED"):
        sched = get_scheduler(app)
        sched.start()
        stoppers.append(sched.shutdown)
    if mail and app.config.get("MAIL_INTAKE_ENABLED"):
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
            for line in paths.startup_lines(app, mail=not args.no_mail):
                print(line)
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
