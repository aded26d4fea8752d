"""Configuration: defaults, overridden by ``ARBITRE_*`` environment variables.

``ARBITRE_DATABASE_URL=postgresql+psycopg://...`` selects PostgreSQL; values are parsed as
JSON when they can be (``ARBITRE_SCHEDULER_ENABLED=false``, ``ARBITRE_APPEAL_DAYS=10``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path

#: the folder name of the server's files inside the user's data directory
APP_DIR_NAME = "arbitre"


def default_instance_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the server keeps its files (secret key, SQLite database, local mailbox,
    ``config.py``) when ``ARBITRE_INSTANCE_PATH`` does not say: the user's data directory
    of the XDG base-directory specification, ``$XDG_DATA_HOME/arbitre``, or
    ``~/.local/share/arbitre`` when that variable is unset, empty or relative (the
    specification says to ignore a relative one). Never inside the source tree: a ``git
    clean`` or a fresh checkout must not take the competitions with it."""
    env = os.environ if environ is None else environ
    xdg = env.get("XDG_DATA_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / APP_DIR_NAME
    home = env.get("HOME") or str(Path.home())
    return Path(home) / ".local" / "share" / APP_DIR_NAME


def instance_path(test_config: Mapping[str, object] | None = None,
                  environ: Mapping[str, str] | None = None) -> Path:
    """The instance folder: ``test_config["INSTANCE_PATH"]``, else ``ARBITRE_INSTANCE_PATH``,
    else :func:`default_instance_path` (absolute in every case)."""
    env = os.environ if environ is None else environ
    given = (test_config or {}).get("INSTANCE_PATH") or env.get("ARBITRE_INSTANCE_PATH")
    path = Path(str(given)).expanduser() if given else default_instance_path(env)
    return path.resolve()


class Config:
    SECRET_KEY = "dev-only-change-me"
    DATABASE_URL: str | None = None  # None: SQLite file in the instance folder
    DATABASE_SCHEMA: str | None = None  # PostgreSQL schema (search_path); None: public
    SQL_ECHO = False
    # the public address of the site, used in links sent by e-mail
    BASE_URL = "http://127.0.0.1:5000"
    DEFAULT_TIMEZONE = "Europe/Bucharest"
    # the pages' templates compiled once per language with their texts translated
    # (webapp.i18n.PageEnvironment); False: every _() translated at each render
    TEMPLATES_TRANSLATED = True

    SCHEDULER_ENABLED = True
    SCHEDULER_AUTOSTART = False  # create_app starts it (for gunicorn); `arbitre serve` does
    SCHEDULER_TICK_SECONDS = 60  # safety net: everything due is also checked this often
    SCHEDULER_POLL_SECONDS = 1  # the leader looks this often for schedule changes
    LEADER_LEASE_SECONDS = 30  # a dead leader is replaced after at most this long
    LEADER_RENEW_SECONDS = 10

    APPEAL_DAYS = 7  # appeal window after the provisional ranking (INFERRED, a setting)
    REMINDER_DAYS = [3, 1]  # J-3 and J-1 reminders to players without a sheet
    # An Anticipation played live (RULES §6.1, 164 min; INFERRED, the rules say nothing of
    # mail): each move's group is mailed when it is announced (for a player by e-mail the
    # notice is the move); False: the problem page only. No J-x reminder either way (a
    # reminder falling at or before the publication is never due).
    LIVE_ANNOUNCEMENT_MAILS = True
    AUTO_VERIFY = True  # verify the batch as soon as the deadline passes
    # a problem's verification and a Duplicate round's correction first wait (at most this
    # long) for the mail received before the deadline and not processed yet (services.backlog)
    SHEETS_WAIT_SECONDS = 120.0
    AUTO_PUBLISH_PROVISIONAL = True  # publish the provisional ranking after verification
    AUTO_FINALISE = True  # finalise when the appeal window closes and no appeal is open

    RESULTS_MAIL_TOP = 30  # results mails list the top rows and the player's own place
    LOGIN_TOKEN_MINUTES = 30
    # wrong passwords from one client for one account, then for any account, before that
    # client's password sign-ins are refused (Flask-Limiter syntax); other clients still
    # get in, and a sign-in link by e-mail always works
    LOGIN_RATE_LIMIT = "5 per 15 minutes"
    LOGIN_CLIENT_RATE_LIMIT = "30 per 15 minutes"
    RATELIMIT_STORAGE_URI = "memory://"  # per process; "redis://..." to share between workers
    # behind a reverse proxy: how many proxies set X-Forwarded-For (0: the socket's address
    # is the client's). Without it every client would share the proxy's address.
    PROXY_FIX_X_FOR = 0
    LOGIN_LINKS_PER_HOUR = 5  # sign-in mails per account and hour
    ARBITRE_LOGIN_TOKEN_MINUTES = 15  # an arbitre's one-time sign-in link
    PLAYER_SESSION_DAYS = 14  # a player stays signed in this long at most...
    ARBITRE_SESSION_HOURS = 12  # ...an arbitre this long
    PERMANENT_SESSION_LIFETIME = timedelta(days=14)  # the cookie's own expiry

    # sheets per player (all problems, web and e-mail together) within the window; 0: no limit
    SUBMISSIONS_PER_WINDOW = 10
    SUBMISSION_WINDOW_SECONDS = 60
    # round-game bulletins (Duplicate and its variants; docs/DUPLICATE.md « Bornes du
    # bulletin »): the bulletin line's characters, the solutions on it (« A / B »), the whole
    # text kept (a mail's signature below the line; longer is refused), the versions one
    # player may send for one round, and per window (web and e-mail together); beyond any of
    # them the bulletin is refused in French and nothing is stored; 0: no limit
    BULLETIN_MAX_CHARS = 200
    BULLETIN_MAX_SOLUTIONS = 5
    BULLETIN_TEXT_MAX_CHARS = 2000
    BULLETIN_VERSIONS_PER_ROUND = 30
    BULLETINS_PER_WINDOW = 10
    BULLETIN_WINDOW_SECONDS = 60
    # the same bulletin (same text, same side of the close) posted again from the web form
    # within this many seconds is the one already stored: no new version, no second
    # receipt (a double click); 0: every post is a version
    BULLETIN_REPOST_SECONDS = 10
    # a Duplicate round's reminder to the players without a readable bulletin, this many
    # hours before its close (only when the round lasts longer); 0: none
    DUPLICATE_REMINDER_HOURS = 12
    APPEALS_PER_SHEET = 2  # appeals a player may file on one problem's verification
    MAX_APPEAL_DAYS = 30  # the console accepts an appeal window of 0..MAX_APPEAL_DAYS days
    MAIL_FROM = "Arbitre <arbitre@localhost>"
    # submissions by e-mail go to SUBMIT_LOCALPART+<player token>@SUBMIT_DOMAIN
    SUBMIT_LOCALPART = "feuilles"
    SUBMIT_DOMAIN = "localhost"
    MAIL_INTAKE_ENABLED = True

    SESSION_COOKIE_HTTPONLY = True
    SESSION_COOKIE_SAMESITE = "Lax"
    SESSION_COOKIE_SECURE = False
    WTF_CSRF_TIME_LIMIT = None  # a player may leave the sheet form open for hours
    # sent on every response (webapp.create_app); inline style attributes are used, no
    # inline script
    CONTENT_SECURITY_POLICY = (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; "
        "frame-ancestors 'none'"
    )
    REFERRER_POLICY = "same-origin"


class ProductionConfig(Config):
    """Loaded instead of :class:`Config` when ``ARBITRE_PRODUCTION`` is set (``arbitre serve
    --production`` sets it for itself and its gunicorn workers): the site is served over
    HTTPS, so the session cookie is sent over HTTPS only."""

    SESSION_COOKIE_SECURE = True
