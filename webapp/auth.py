"""Who is signed in: arbitres (username + hashed password) and players (a magic link sent by
e-mail, or a password they chose), the role decorators, and CSRF protection of every form.

Sessions hold ``arbitre_id`` or ``player_id``; :func:`current_arbitre` and
:func:`current_player` load them once per request into ``g``. Templates may be overridden by
``webapp/templates/auth/*.html``; the bundled ones live in ``webapp/auth_templates/``.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    Flask,
    abort,
    current_app,
    flash,
    has_request_context,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask.typing import ResponseReturnValue
from flask_wtf.csrf import CSRFProtect  # type: ignore[import-untyped]
from sqlmodel import Session, select
from werkzeug.security import check_password_hash, generate_password_hash
from werkzeug.wrappers import Response

from webapp.db import get_engine, session_scope
from webapp.models import Arbitre, AuditLog, LoginToken, OutboxKind, Player
from webapp.services import audit, clock, notify

bp = Blueprint("auth", __name__, template_folder="auth_templates")
csrf = CSRFProtect()

F = TypeVar("F", bound=Callable[..., Any])

MIN_PASSWORD = 8


def init_app(app: Flask) -> None:
    csrf.init_app(app)
    app.register_blueprint(bp)

    @app.context_processor
    def _who() -> dict[str, Any]:
        return {"current_arbitre": current_arbitre(), "current_player": current_player()}


def hash_password(password: str) -> str:
    return generate_password_hash(password)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# --- who is signed in ----------------------------------------------------------------------


def current_arbitre() -> Arbitre | None:
    """The signed-in arbitre, loaded once per request (cached in the WSGI environ, not in
    ``g``: ``g`` outlives the request when an app context was already pushed)."""
    if not has_request_context():
        return None
    cache = request.environ
    if "arbitre.arbitre" not in cache:
        cache["arbitre.arbitre"] = _load(Arbitre, session.get("arbitre_id"))
    return cast(Arbitre | None, cache["arbitre.arbitre"])


def current_player() -> Player | None:
    if not has_request_context():
        return None
    cache = request.environ
    if "arbitre.player" not in cache:
        cache["arbitre.player"] = _load(Player, session.get("player_id"))
    return cast(Player | None, cache["arbitre.player"])


def _load(model: type[Arbitre] | type[Player], row_id: object) -> Arbitre | Player | None:
    if not isinstance(row_id, int):
        return None
    # One SELECT on every page: in autocommit it needs no BEGIN and no ROLLBACK round trip
    # (a single statement reads the same committed row either way).
    with get_engine().connect().execution_options(isolation_level="AUTOCOMMIT") as conn, \
            Session(bind=conn) as s:
        row: Arbitre | Player | None = s.get(model, row_id)  # type: ignore[assignment]
        if row is None or not row.active:
            return None
        s.expunge(row)
        return row


def arbitre_required(view: F) -> F:
    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if current_arbitre() is None:
            return redirect(url_for("auth.arbitre_login", next=request.full_path))
        return view(*args, **kwargs)

    return cast(F, wrapped)


def player_required(view: F) -> F:
    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if current_player() is None:
            return redirect(url_for("auth.player_login", next=request.full_path))
        return view(*args, **kwargs)

    return cast(F, wrapped)


TOO_MANY = "Trop de tentatives de connexion : réessayez dans un quart d'heure."


def _throttled(s: Session, who: str, target: str) -> bool:
    """``LOGIN_MAX_FAILURES`` failed passwords for one account within
    ``LOGIN_FAILURE_WINDOW_MINUTES`` suspend password sign-in for it (guessing defence)."""
    window = timedelta(minutes=int(current_app.config.get("LOGIN_FAILURE_WINDOW_MINUTES", 15)))
    since = clock.now() - window
    failures = s.exec(
        select(AuditLog.id).where(
            AuditLog.action == f"{who}.login_failed", AuditLog.target == target,
            AuditLog.at >= since,
        )
    ).all()
    return len(failures) >= int(current_app.config.get("LOGIN_MAX_FAILURES", 5))


def _too_many_links(s: Session, player: Player) -> bool:
    """At most ``LOGIN_LINKS_PER_HOUR`` sign-in mails per player: the form cannot be used
    to flood someone's mailbox."""
    since = clock.now() - timedelta(hours=1)
    recent = s.exec(
        select(LoginToken.id).where(LoginToken.player_id == player.id,
                                    LoginToken.created_at >= since)
    ).all()
    return len(recent) >= int(current_app.config.get("LOGIN_LINKS_PER_HOUR", 5))


def _safe_next(default: str) -> str:
    """Only local paths: a login form must not become an open redirect."""
    target = request.values.get("next") or ""
    parts = urlsplit(target)
    if target.startswith("/") and not target.startswith("//") and not parts.netloc:
        return target.rstrip("?") or default
    return default


def _home(endpoint: str) -> str:
    try:
        return url_for(endpoint)
    except Exception:  # the pages blueprint may not define it (yet)
        return "/"


# --- arbitres ------------------------------------------------------------------------------


def create_arbitre(*, session: Session, username: str, password: str, name: str = "") -> Arbitre:
    if len(password) < MIN_PASSWORD:
        raise ValueError(f"Le mot de passe doit compter au moins {MIN_PASSWORD} caractères.")
    if session.exec(select(Arbitre).where(Arbitre.username == username)).first():
        raise ValueError(f"L'identifiant « {username} » existe déjà.")
    a = Arbitre(username=username, name=name or username, password_hash=hash_password(password))
    session.add(a)
    session.flush()
    audit.record(session=session, actor=audit.SYSTEM, action="arbitre.create", target=username)
    return a


@bp.route("/arbitre/connexion", methods=["GET", "POST"])
def arbitre_login() -> str | Response:
    error = None
    if request.method == "POST":
        username = request.form.get("username", "").strip()
        password = request.form.get("password", "")
        arbitre_id = None
        with session_scope() as s:
            if _throttled(s, "arbitre", username):
                error = TOO_MANY
            else:
                a = s.exec(select(Arbitre).where(Arbitre.username == username)).first()
                if a is not None and a.active and check_password_hash(a.password_hash, password):
                    a.last_login_at = clock.now()
                    audit.record(session=s, actor=a.username, action="arbitre.login")
                    arbitre_id = a.id
                else:
                    audit.record(session=s, actor="anonyme", action="arbitre.login_failed",
                                 target=username, ip=request.remote_addr)
                    error = "Identifiant ou mot de passe incorrect."
        if arbitre_id is not None:
            session.clear()
            session["arbitre_id"] = arbitre_id
            return redirect(_safe_next(_home("console.index")))
    return render_template("auth/arbitre_login.html", error=error)


@bp.route("/deconnexion", methods=["POST"])
def logout() -> Response:
    session.clear()
    flash("Vous êtes déconnecté.")
    return redirect(_home("public.index"))


# --- players -------------------------------------------------------------------------------


def issue_login_link(*, session: Session, player: Player) -> str:
    """Create a one-time sign-in token for ``player`` and enqueue the e-mail; returns the
    token (for tests and the console)."""
    token = secrets.token_urlsafe(32)
    now = clock.now()
    minutes = int(current_app.config["LOGIN_TOKEN_MINUTES"])
    assert player.id is not None
    session.add(
        LoginToken(
            player_id=player.id,
            token_sha256=token_digest(token),
            created_at=now,
            expires_at=now + timedelta(minutes=minutes),
        )
    )
    base = current_app.config["BASE_URL"].rstrip("/")
    link = base + url_for("auth.magic_link", token=token)
    notify.enqueue(
        session=session,
        kind=OutboxKind.LOGIN,
        to_addr=player.email,
        template="login",
        context={"link": link, "player_name": player.name, "expires_minutes": minutes},
        player_id=player.id,
    )
    return token


@bp.route("/connexion", methods=["GET", "POST"])
def player_login() -> str | Response:
    error = None
    sent = False
    if request.method == "POST":
        email = request.form.get("email", "").strip().lower()
        password = request.form.get("password", "")
        with session_scope() as s:
            p = s.exec(select(Player).where(Player.email == email)).first()
            if password and _throttled(s, "player", email):
                player_id = None
                error = TOO_MANY
            elif password:
                if (
                    p is not None
                    and p.active
                    and p.password_hash
                    and check_password_hash(p.password_hash, password)
                ):
                    player_id = p.id
                    audit.record(session=s, actor=f"player:{p.id}", action="player.login")
                else:
                    player_id = None
                    error = "Adresse ou mot de passe incorrect."
                    audit.record(session=s, actor="anonyme", action="player.login_failed",
                                 target=email, ip=request.remote_addr)
            else:
                player_id = None
                sent = True
                if p is not None and p.active and not _too_many_links(s, p):
                    issue_login_link(session=s, player=p)
        if player_id is not None:
            session.clear()
            session["player_id"] = player_id
            return redirect(_safe_next(_home("player.index")))
    # The same answer whether or not the address is known: no list of players leaks.
    return render_template("auth/player_login.html", error=error, sent=sent)


@bp.route("/connexion/lien/<token>", methods=["GET", "POST"])
def magic_link(token: str) -> ResponseReturnValue:
    digest = token_digest(token)
    now = clock.now()
    with session_scope() as s:
        lt = s.exec(select(LoginToken).where(LoginToken.token_sha256 == digest)).first()
        if lt is None or lt.used_at is not None or lt.expires_at < now:
            return render_template(
                "auth/link_invalid.html",
                error="Ce lien de connexion n'est plus valable. Demandez-en un nouveau.",
            ), 410
        # Mail scanners follow links: only the button (POST) consumes the token.
        if request.method == "GET":
            return render_template("auth/link_confirm.html", token=token)
        lt.used_at = now
        player_id = lt.player_id
        audit.record(session=s, actor=f"player:{player_id}", action="player.login_link")
    session.clear()
    session["player_id"] = player_id
    return redirect(_home("player.index"))


@bp.route("/connexion/mot-de-passe", methods=["GET", "POST"])
@player_required
def set_password() -> str | Response:
    error = None
    if request.method == "POST":
        pw1 = request.form.get("password", "")
        pw2 = request.form.get("password2", "")
        if len(pw1) < MIN_PASSWORD:
            error = f"Le mot de passe doit compter au moins {MIN_PASSWORD} caractères."
        elif pw1 != pw2:
            error = "Les deux mots de passe diffèrent."
        else:
            me = current_player()
            assert me is not None
            with session_scope() as s:
                p = s.get(Player, me.id)
                if p is None:
                    abort(404)
                p.password_hash = hash_password(pw1)
                audit.record(session=s, actor=f"player:{p.id}", action="player.set_password")
            flash("Mot de passe enregistré.")
            return redirect(_home("player.index"))
    return render_template("auth/set_password.html", error=error)
