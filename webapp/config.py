"""Configuration: defaults, overridden by ``ARBITRE_*`` environment variables.

``ARBITRE_DATABASE_URL=postgresql+psycopg://...`` selects PostgreSQL; values are parsed as
JSON when they can be (``ARBITRE_SCHEDULER_ENABLED=false``, ``ARBITRE_APPEAL_DAYS=10``).
"""

from __future__ import annotations


class Config:
    SECRET_KEY = "dev-only-change-me"
    DATABASE_URL: str | None = None  # None: SQLite file in the instance folder
    DATABASE_SCHEMA: str | None = None  # PostgreSQL schema (search_path); None: public
    SQL_ECHO = False
    # the public address of the site, used in links sent by e-mail
    BASE_URL = "http://127.0.0.1:5000"
    DEFAULT_TIMEZONE = "Europe/Bucharest"

    SCHEDULER_ENABLED = True
    SCHEDULER_AUTOSTART = False  # create_app starts it (for gunicorn); `arbitre serve` does
    SCHEDULER_TICK_SECONDS = 60  # safety net: everything due is also checked this often
    LEADER_LEASE_SECONDS = 30  # a dead leader is replaced after at most this long
    LEADER_RENEW_SECONDS = 10

    APPEAL_DAYS = 7  # appeal window after the provisional ranking (INFERRED, a setting)
    REMINDER_DAYS = [3, 1]  # J-3 and J-1 reminders to players without a sheet
    AUTO_VERIFY = True  # verify the batch as soon as the deadline passes
    AUTO_PUBLISH_PROVISIONAL = True  # publish the provisional ranking after verification
    AUTO_FINALISE = True  # finalise when the appeal window closes and no appeal is open

    RESULTS_MAIL_TOP = 30  # results mails list the top rows and the player's own place
    LOGIN_TOKEN_MINUTES = 30
    LOGIN_MAX_FAILURES = 5  # wrong passwords per account before sign-in is suspended...
    LOGIN_FAILURE_WINDOW_MINUTES = 15  # ...for this long
    LOGIN_LINKS_PER_HOUR = 5  # sign-in mails per player and hour
    MAIL_FROM = "Arbitre <arbitre@localhost>"
    # submissions by e-mail go to SUBMIT_LOCALPART+<player token>@SUBMIT_DOMAIN
    SUBMIT_LOCALPART = "feuilles"
    SUBMIT_DOMAIN = "localhost"
    MAIL_INTAKE_ENABLED = True

    SESSION_COOKIE_HTTPONLY = True
    SESSION_COOKIE_SAMESITE = "Lax"
    WTF_CSRF_TIME_LIMIT = None  # a player may leave the sheet form open for hours


class ProductionConfig(Config):
    SESSION_COOKIE_SECURE = True
