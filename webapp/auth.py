"""Who is signed in: arbitres (username + hashed password) and players (a magic link sent by
e-mail, or a password they chose), the role decorators, and CSRF protection of every form.

Sessions hold ``arbitre_id`` or ``player_id``, the account's ``session_epoch`` and the
sign-in instant; :func:`current_arbitre` and :func:`current_player` load the account once per
request and refuse a cookie whose epoch is older than the account's (sign-out and password
changes bump it: a copied cookie dies with them) or older than ``ARBITRE_SESSION_HOURS`` /
``PLAYER_SESSION_DAYS``.

Password guessing is throttled per client *and* account (Flask-Limiter's storage, memory by
default): failures from one address never lock the account for anyone else. Unknown names
are checked against a dummy hash, so they cost as long as known ones. Arbitres have a second
way in: a one-time link mailed to their address, or printed by ``arbitre login-link``.

Templates may be overridden by ``webapp/templates/auth/*.html``; the bundled ones live in
``webapp/auth_templates/``.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

import sqlalchemy as sa
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
from flask_babel import gettext  # type: ignore[import-untyped]
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_wtf.csrf import CSRFProtect  # type: ignore[import-untyped]
from limits import parse as parse_limit
from sqlmodel import Session, col, select
from werkzeug.security import check_password_hash, generate_password_hash
from werkzeug.wrappers import Response

from webapp.db import get_engine, session_scope
from webapp.models import Arbitre, ArbitreLoginToken, LoginToken, OutboxKind, Player
from webapp.services import addresses, audit, clock, inputs, notify, single_use

bp = Blueprint("auth", __name__, template_folder="auth_templates")
csrf = CSRFProtect()

F = TypeVar("F", bound=Callable[..., Any])

MIN_PASSWORD = 8


def init_app(app: Flask) -> None:
    csrf.init_app(app)
    app.config.setdefault("RATELIMIT_STORAGE_URI", "memory://")
    # No default limits: only failed sign-ins are counted, by hand (see _throttled). One
    # limiter per app: its storage (memory, or RATELIMIT_STORAGE_URI) is this app's.
    limiter = Limiter(key_func=get_remote_address, default_limits=[])
    limiter.init_app(app)
    app.extensions["arbitre.limiter"] = limiter
    app.register_blueprint(bp)

    @app.context_processor
    def _who() -> dict[str, Any]:
        return {"current_arbitre": current_arbitre(), "current_player": current_player()}


def hash_password(password: str) -> str:
    return generate_password_hash(password)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


_DUMMY_HASH: list[str] = []


def _dummy_hash() -> str:
    """A hash of a random password, made with the same method as real ones: an unknown name
    is checked against it, so it costs as long as a known one (no timing oracle)."""
    if not _DUMMY_HASH:
        _DUMMY_HASH.append(hash_password(secrets.token_urlsafe(16)))
    return _DUMMY_HASH[0]


def password_matches(stored_hash: str | None, password: str) -> bool:
    """``check_password_hash`` against the stored hash, or against a dummy one when there is
    none (unknown account, player without a password): always one full hash computation."""
    if not stored_hash:
        check_password_hash(_dummy_hash(), password)
        return False
    return check_password_hash(stored_hash, password)


def start_session(who: Arbitre | Player) -> None:
    """Sign ``who`` in on this browser: a fresh session carrying the account's epoch."""
    session.clear()
    key = "arbitre_id" if isinstance(who, Arbitre) else "player_id"
    session[key] = who.id
    session["epoch"] = who.session_epoch
    session["signed_in_at"] = int(time.time())
    session.permanent = True  # lifetime: PERMANENT_SESSION_LIFETIME (PLAYER_SESSION_DAYS)


def revoke_sessions(*, session: Session, who: Arbitre | Player) -> int:
    """Bump the account's epoch: every session cookie issued before is refused from now on.
    Returns the new epoch."""
    model = type(who)
    session.execute(
        sa.update(model).where(col(model.id) == who.id)
        .values(session_epoch=model.session_epoch + 1)
    )
    new = session.exec(select(model.session_epoch).where(col(model.id) == who.id)).one()
    who.session_epoch = new
    return int(new)


# --- who is signed in ----------------------------------------------------------------------


def current_arbitre() -> Arbitre | None:
    """The signed-in arbitre, loaded once per request (cached in the WSGI environ, not in
    ``g``: ``g`` outlives the request when an app context was already pushed)."""
    if not has_request_context():
        return None
    cache = request.environ
    if "arbitre.arbitre" not in cache:
        hours = float(current_app.config.get("ARBITRE_SESSION_HOURS", 12))
        cache["arbitre.arbitre"] = _load(Arbitre, session.get("arbitre_id"), hours * 3600)
    return cast(Arbitre | None, cache["arbitre.arbitre"])


def current_player() -> Player | None:
    if not has_request_context():
        return None
    cache = request.environ
    if "arbitre.player" not in cache:
        days = float(current_app.config.get("PLAYER_SESSION_DAYS", 14))
        cache["arbitre.player"] = _load(Player, session.get("player_id"), days * 86400)
    return cast(Player | None, cache["arbitre.player"])


def _load(
    model: type[Arbitre] | type[Player], row_id: object, max_age_seconds: float
) -> Arbitre | Player | None:
    if not isinstance(row_id, int) or not 0 < row_id < 2**31:
        return None
    # A cookie without these was issued before epochs existed (its signed timestamp still
    # bounds it to PERMANENT_SESSION_LIFETIME): epoch 0 is every account's first one, so a
    # sign-out or a password change revokes it too.
    signed_in_at = session.get("signed_in_at")
    if isinstance(signed_in_at, int) and time.time() - signed_in_at > max_age_seconds:
        return None
    # One SELECT on every page: in autocommit it needs no BEGIN and no ROLLBACK round trip
    # (a single statement reads the same committed row either way).
    with get_engine().connect().execution_options(isolation_level="AUTOCOMMIT") as conn, \
            Session(bind=conn) as s:
        row: Arbitre | Player | None = s.get(model, row_id)  # type: ignore[assignment]
        if row is None or not row.active or session.get("epoch", 0) != row.session_epoch:
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


TOO_MANY = ("Trop de tentatives de connexion depuis votre adresse : réessayez dans un "
            "quart d'heure, ou demandez un lien de connexion par courriel.")


def _guess_keys(who: str, account: str) -> list[tuple[str, str, str]]:
    """(limit setting, default, key): failures per client and account, and per client."""
    client = get_remote_address() or "?"
    return [
        ("LOGIN_RATE_LIMIT", "5 per 15 minutes", f"{who}|{client}|{account.lower()}"),
        ("LOGIN_CLIENT_RATE_LIMIT", "30 per 15 minutes", f"{who}|{client}"),
    ]


def _throttled(who: str, account: str) -> bool:
    """Too many failed passwords from this client for this account (``LOGIN_RATE_LIMIT``,
    5 per 15 minutes by default) or for any account (``LOGIN_CLIENT_RATE_LIMIT``). The
    account stays open to every other client: a guesser cannot lock the arbitre out."""
    strategy = current_app.extensions["arbitre.limiter"].limiter
    return any(
        not strategy.test(parse_limit(str(current_app.config.get(name, default))), "login", key)
        for name, default, key in _guess_keys(who, account)
    )


def _count_failure(who: str, account: str) -> None:
    strategy = current_app.extensions["arbitre.limiter"].limiter
    for name, default, key in _guess_keys(who, account):
        strategy.hit(parse_limit(str(current_app.config.get(name, default))), "login", key)


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


def create_arbitre(
    *, session: Session, username: str, password: str, name: str = "", email: str = ""
) -> Arbitre:
    username = _clean_name(username)
    if not username:
        raise ValueError("L'identifiant ne peut pas être vide.")
    if len(password) < MIN_PASSWORD:
        raise ValueError(f"Le mot de passe doit compter au moins {MIN_PASSWORD} caractères.")
    if session.exec(select(Arbitre).where(Arbitre.username == username)).first():
        raise ValueError(f"L'identifiant « {username} » existe déjà.")
    name = inputs.check_line(name, "Nom de l'arbitre")  # one line: it signs mails
    if email.strip():
        email = addresses.validate(email.strip())  # InvalidAddress: a French ValueError
    a = Arbitre(username=username, name=name or username, email=email.strip(),
                password_hash=hash_password(password))
    session.add(a)
    session.flush()
    audit.record(session=session, actor=audit.SYSTEM, action="arbitre.create", target=username)
    return a


@bp.route("/arbitre/connexion", methods=["GET", "POST"])
def arbitre_login() -> str | Response:
    error = None
    if request.method == "POST":
        username = _clean_name(request.form.get("username", ""))
        password = request.form.get("password", "")
        signed_in = None
        if _throttled("arbitre", username):
            error = TOO_MANY
        else:
            with session_scope() as s:
                a = s.exec(select(Arbitre).where(Arbitre.username == username)).first() \
                    if username else None
                ok = password_matches(a.password_hash if a is not None else None, password)
                if a is not None and a.active and ok:
                    a.last_login_at = clock.now()
                    audit.record(session=s, actor=a.username, action="arbitre.login")
                    signed_in = a
                else:
                    audit.record(session=s, actor="anonyme", action="arbitre.login_failed",
                                 target=username, ip=request.remote_addr)
                    error = gettext("Identifiant ou mot de passe incorrect.")
            if signed_in is None:
                _count_failure("arbitre", username)
        if signed_in is not None:
            start_session(signed_in)
            return redirect(_safe_next(_home("console.dashboard.index")))
    return render_template("auth/arbitre_login.html", error=error)


def _clean_name(value: str) -> str:
    """A sign-in name as typed, without surrounding blanks or NUL and control characters
    (PostgreSQL refuses NUL in text; no account name holds one)."""
    return "".join(ch for ch in value if ch >= " " and ch != "\x7f").strip()


def issue_arbitre_link(*, session: Session, arbitre: Arbitre, mail: bool = True) -> str:
    """A one-time sign-in link for ``arbitre`` (``ARBITRE_LOGIN_TOKEN_MINUTES``, 15 by
    default); mailed to his address when ``mail`` (and he has one). Returns the full link."""
    token = secrets.token_urlsafe(32)
    now = clock.now()
    minutes = int(current_app.config.get("ARBITRE_LOGIN_TOKEN_MINUTES", 15))
    assert arbitre.id is not None
    session.add(ArbitreLoginToken(arbitre_id=arbitre.id, token_sha256=token_digest(token),
                                  created_at=now, expires_at=now + timedelta(minutes=minutes)))
    base = current_app.config["BASE_URL"].rstrip("/")
    if has_request_context():
        path = url_for("auth.arbitre_magic_link", token=token)
    else:  # the command line
        with current_app.test_request_context():
            path = url_for("auth.arbitre_magic_link", token=token)
    link = str(base) + path
    if mail and arbitre.email:
        notify.enqueue(
            session=session, kind=OutboxKind.LOGIN, to_addr=arbitre.email, template="login",
            context={"link": link, "player_name": arbitre.name or arbitre.username,
                     "expires_minutes": minutes},
        )
    audit.record(session=session, actor=audit.SYSTEM if not mail else "anonyme",
                 action="arbitre.login_link_issued", target=arbitre.username,
                 mailed=bool(mail and arbitre.email))
    return link


@bp.route("/arbitre/connexion/lien", methods=["GET", "POST"])
def arbitre_link_request() -> str:
    """The second way in: a sign-in link sent to the arbitre's own address (the same answer
    whether or not the name is known, at most ``LOGIN_LINKS_PER_HOUR`` mails an hour)."""
    sent = False
    if request.method == "POST":
        username = _clean_name(request.form.get("username", ""))
        sent = True
        with session_scope() as s:
            a = s.exec(select(Arbitre).where(Arbitre.username == username)).first() \
                if username else None
            if a is not None and a.active and a.email:
                since = clock.now() - timedelta(hours=1)
                recent = s.exec(select(ArbitreLoginToken.id).where(
                    ArbitreLoginToken.arbitre_id == a.id,
                    ArbitreLoginToken.created_at >= since)).all()
                if len(recent) < int(current_app.config.get("LOGIN_LINKS_PER_HOUR", 5)):
                    issue_arbitre_link(session=s, arbitre=a)
    return render_template("auth/arbitre_link.html", sent=sent)


def _dead_link() -> ResponseReturnValue:
    """The answer to a sign-in link that is unknown, used, expired or just used by another
    request (410, the same page in every case)."""
    return render_template(
        "auth/link_invalid.html",
        error=gettext("Ce lien de connexion n'est plus valable. Demandez-en un nouveau."),
    ), 410


@bp.route("/arbitre/connexion/lien/<token>", methods=["GET", "POST"])
def arbitre_magic_link(token: str) -> ResponseReturnValue:
    digest = token_digest(token)
    now = clock.now()
    with session_scope() as s:
        lt = s.exec(select(ArbitreLoginToken)
                    .where(ArbitreLoginToken.token_sha256 == digest)).first()
        a = s.get(Arbitre, lt.arbitre_id) if lt is not None else None
        if (lt is None or a is None or not a.active or lt.used_at is not None
                or lt.expires_at < now):
            return _dead_link()
        if request.method == "GET":  # mail scanners follow links: only the button uses it
            return render_template("auth/link_confirm.html", token=token)
        if not single_use.consume(session=s, token=lt, now=now):  # another request won
            return _dead_link()
        a.last_login_at = now
        audit.record(session=s, actor=a.username, action="arbitre.login_link")
        s.flush()
        s.expunge(a)
    start_session(a)
    return redirect(_home("console.dashboard.index"))


@bp.route("/deconnexion", methods=["POST"])
def logout() -> Response:
    """Sign out: the account's epoch is bumped, so every copy of this session cookie (and
    the account's other sessions) stops working."""
    who: Arbitre | Player | None = current_arbitre() or current_player()
    if who is not None:
        with session_scope() as s:
            revoke_sessions(session=s, who=who)
    session.clear()
    flash(gettext("Vous êtes déconnecté."))
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
        email = _clean_name(request.form.get("email", "")).lower()
        password = request.form.get("password", "")
        signed_in = None
        if password and _throttled("player", email):
            error = TOO_MANY
        else:
            with session_scope() as s:
                p = s.exec(select(Player).where(Player.email == email)).first() \
                    if email else None
                if password:
                    ok = password_matches(p.password_hash if p is not None else None, password)
                    if p is not None and p.active and ok:
                        signed_in = p
                        audit.record(session=s, actor=f"player:{p.id}", action="player.login")
                        s.flush()
                        s.expunge(p)
                    else:
                        error = gettext("Adresse ou mot de passe incorrect.")
                        audit.record(session=s, actor="anonyme", action="player.login_failed",
                                     target=email, ip=request.remote_addr)
                else:
                    sent = True
                    if p is not None and p.active and not _too_many_links(s, p):
                        issue_login_link(session=s, player=p)
            if password and signed_in is None:
                _count_failure("player", email)
        if signed_in is not None:
            start_session(signed_in)
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
            return _dead_link()
        # Mail scanners follow links: only the button (POST) consumes the token.
        if request.method == "GET":
            return render_template("auth/link_confirm.html", token=token)
        p = s.get(Player, lt.player_id)
        if p is None or not p.active:
            return _dead_link()
        if not single_use.consume(session=s, token=lt, now=now):  # another request won
            return _dead_link()
        audit.record(session=s, actor=f"player:{p.id}", action="player.login_link")
        s.flush()
        s.expunge(p)
    start_session(p)
    return redirect(_home("player.index"))


@bp.route("/connexion/mot-de-passe", methods=["GET", "POST"])
@player_required
def set_password() -> str | Response:
    error = None
    if request.method == "POST":
        pw1 = request.form.get("password", "")
        pw2 = request.form.get("password2", "")
        if len(pw1) < MIN_PASSWORD:
            error = gettext("Le mot de passe doit compter au moins %(n)s caractères.",
                            n=MIN_PASSWORD)
        elif pw1 != pw2:
            error = gettext("Les deux mots de passe diffèrent.")
        else:
            me = current_player()
            assert me is not None
            with session_scope() as s:
                p = s.get(Player, me.id)
                if p is None:
                    abort(404)
                p.password_hash = hash_password(pw1)
                # every other session of this player (a copied cookie) ends here
                revoke_sessions(session=s, who=p)
                audit.record(session=s, actor=f"player:{p.id}", action="player.set_password")
                s.flush()
                s.expunge(p)
            start_session(p)  # this browser stays signed in, with the new epoch
            flash(gettext("Mot de passe enregistré."))
            return redirect(_home("player.index"))
    return render_template("auth/set_password.html", error=error)
