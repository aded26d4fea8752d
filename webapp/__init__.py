"""The competition server: Flask app, database, scheduler and pages.

:func:`create_app` builds the app; nothing runs at import time. Each subsystem offers
``init_app(app)``: :mod:`webapp.db`, :mod:`webapp.auth`, :mod:`webapp.scheduler`. The factory
itself owns what every page shares: security headers, French error pages (500 included), the
``int`` URL converter bounded to database ids, and private files (instance folder 0700,
SQLite file 0600).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask, render_template, request
from flask.typing import ResponseReturnValue
from flask_babel import lazy_gettext as _l  # type: ignore[import-untyped]
from sqlalchemy.engine import make_url
from werkzeug.datastructures import ImmutableMultiDict
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.routing import IntegerConverter
from werkzeug.wrappers import Response

import mailer
from webapp import auth, commands, db, i18n, scheduler
from webapp.config import Config, ProductionConfig, instance_path
from webapp.services import timefmt

#: the largest id a row can have (PostgreSQL ``integer``); a larger one in a URL is a 404
MAX_ROW_ID = 2**31 - 1


class RowIdConverter(IntegerConverter):
    """``<int:...>`` matches only ids a row can have: ``/rapports/99999999999999999999``
    is a French 404, not an integer overflow in the database (a 500)."""

    def __init__(self, map: Any, fixed_digits: int = 0, min: int | None = None,  # noqa: A002
                 max: int | None = None, signed: bool = False) -> None:  # noqa: A002
        super().__init__(map, fixed_digits, min, MAX_ROW_ID if max is None else max, signed)


def _truthy(value: object) -> bool:
    return str(value).strip().lower() in ("1", "true", "yes", "oui", "on")


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app: defaults, then ``instance/config.py``, then ``ARBITRE_*`` variables,
    then ``test_config``. The instance folder is ``test_config["INSTANCE_PATH"]`` or
    ``ARBITRE_INSTANCE_PATH``, by default the user's data directory
    (``$XDG_DATA_HOME/arbitre``, ``~/.local/share/arbitre``: :func:`webapp.config.instance_path`),
    outside the source tree."""
    app = Flask(
        __name__,
        instance_relative_config=True,
        instance_path=str(instance_path(test_config)),
    )
    i18n.prepare(app)  # the pages' environment, before anything reads app.jinja_env
    production = _truthy(os.environ.get("ARBITRE_PRODUCTION")) or _truthy(
        (test_config or {}).get("PRODUCTION", False)
    )
    app.config.from_object(ProductionConfig if production else Config)
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    app.config.from_prefixed_env("ARBITRE")
    if test_config is not None:
        app.config.update(test_config)
    app.config["PRODUCTION"] = production
    # the cookie lives as long as the longer of the two sign-in lifetimes; each role's own
    # limit is checked on every request (webapp.auth)
    app.config["PERMANENT_SESSION_LIFETIME"] = max(
        timedelta(days=float(app.config["PLAYER_SESSION_DAYS"])),
        timedelta(hours=float(app.config["ARBITRE_SESSION_HOURS"])),
    )
    _private_instance(app)
    _ensure_secret_key(app)
    app.url_map.converters["int"] = RowIdConverter
    proxies = int(app.config.get("PROXY_FIX_X_FOR") or 0)
    if proxies:
        # behind a reverse proxy every request comes from the proxy: the client's address
        # (sign-in throttling, the audit log) is in X-Forwarded-For, trusted this many hops
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies)  # type: ignore[method-assign]

    db.init_app(app)
    _private_sqlite_file(app)
    _init_security(app)
    auth.init_app(app)
    i18n.init_app(app)
    app.jinja_env.filters.setdefault("heure_locale", timefmt.format_local)
    app.jinja_env.filters.setdefault("heure_utc", timefmt.format_utc)
    # The package also holds the Store (models, db) that the mail package imports: the
    # pages (which reach the mail package's console view) are imported when an app is
    # built, not when the package is, so importing webapp.db first never goes round.
    from webapp.views import register_blueprints

    register_blueprints(app)
    i18n.translate_filters(app)
    scheduler.init_app(app)
    commands.init_app(app)
    _init_mail(app)
    return app


def _init_mail(app: Flask) -> None:
    """``mailer.init_app(app)`` when the mail package offers one (it is optional), and the
    factory the mail worker processes build their own app with (``MAIL_PROCESS_WORKERS``)."""
    mailer.init_app(app)
    app.extensions["arbitre.app_factory"] = create_app


def _ensure_secret_key(app: Flask) -> None:
    """Outside tests and debug, never run with the built-in key: keep a random one in the
    instance folder so sessions survive restarts."""
    if app.config["SECRET_KEY"] != Config.SECRET_KEY or app.testing or app.debug:
        return
    path = Path(app.instance_path) / "secret_key"
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32))
    app.config["SECRET_KEY"] = path.read_text().strip()


def _private_instance(app: Flask) -> None:
    """The instance folder holds the secret key, the SQLite file and the local mailbox:
    readable by the server's own user only (0700)."""
    path = Path(app.instance_path)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = path.stat()
    if st.st_uid == os.getuid() and st.st_mode & 0o077:
        path.chmod(0o700)


def _private_sqlite_file(app: Flask) -> None:
    """Create the SQLite database file 0600 before SQLite does (it would use the umask,
    usually 0644); its journal and WAL files take the same permissions."""
    url = make_url(app.config["DATABASE_URL"])
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return
    path = Path(url.database)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        # FileExistsError: another process created it in between
        with contextlib.suppress(FileExistsError):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


# (lazy: translated in the language of the request that shows them, webapp.i18n)
ERROR_PAGES = {
    405: (_l("Méthode non permise"), _l("Cette adresse ne s'utilise pas ainsi : revenez à la "
                                         "page précédente et passez par son formulaire.")),
    410: (_l("Page expirée"), _l("Cette page n'est plus valable.")),
    429: (_l("Trop de requêtes"), _l("Trop de requêtes en peu de temps : patientez un instant "
                                     "puis recommencez.")),
    500: (_l("Erreur interne"), _l("Une erreur inattendue est survenue ; elle est enregistrée "
                                   "et l'arbitre en sera informé. Ce que vous aviez envoyé "
                                   "avant cette page est conservé ; réessayez dans un moment.")),
}


def _init_security(app: Flask) -> None:
    """Security headers on every response and French pages for the errors the pages'
    blueprints leave (405, 410, 429, 500; 400/403/404/413 are in webapp.views)."""

    @app.before_request
    def _without_nul() -> None:
        """No form field or query value keeps a NUL character: PostgreSQL refuses them in
        text, and nothing typed in a form means anything by them. (Registered before CSRF,
        so every view reads the cleaned values; the services clean what mail brings.)"""
        for name in ("args", "form"):
            data = getattr(request, name)
            if any("\x00" in k or "\x00" in v for k, v in data.items(multi=True)):
                request.__dict__[name] = ImmutableMultiDict(
                    [(k.replace("\x00", ""), v.replace("\x00", ""))
                     for k, v in data.items(multi=True)]
                )
                request.__dict__.pop("values", None)

    @app.after_request
    def _headers(response: Response) -> Response:
        h = response.headers
        h.setdefault("Content-Security-Policy", app.config["CONTENT_SECURITY_POLICY"])
        h.setdefault("X-Frame-Options", "DENY")
        h.setdefault("X-Content-Type-Options", "nosniff")
        h.setdefault("Referrer-Policy", app.config["REFERRER_POLICY"])
        if app.config.get("SESSION_COOKIE_SECURE"):
            h.setdefault("Strict-Transport-Security", "max-age=31536000")
        return response

    def _page(exc: Any) -> ResponseReturnValue:
        code = getattr(exc, "code", None) or 500
        title, message = ERROR_PAGES.get(code, ERROR_PAGES[500])
        if code == 500:
            app.logger.error("erreur interne", exc_info=getattr(exc, "original_exception",
                                                                None) or exc)
        try:
            return render_template("error.html", code=code, title=title, message=message), code
        except Exception:  # the layout itself failed: a bare French page
            return (f"<!doctype html><html lang=\"fr\"><meta charset=\"utf-8\">"
                    f"<title>{title}</title><h1>{title}</h1><p>{message}</p></html>", code)

    for code in ERROR_PAGES:
        app.register_error_handler(code, _page)
