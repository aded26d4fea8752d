"""The competition server: Flask app, database, scheduler and pages.

:func:`create_app` builds the app; nothing runs at import time. Each subsystem offers
``init_app(app)``: :mod:`webapp.db`, :mod:`webapp.auth`, :mod:`webapp.scheduler`.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app: defaults, then ``instance/config.py``, then ``ARBITRE_*`` variables,
    then ``test_config``. The instance folder is ``ARBITRE_INSTANCE_PATH`` (or
    ``test_config["INSTANCE_PATH"]``), by default ``instance/`` next to the package."""
    instance = (test_config or {}).get("INSTANCE_PATH") or os.environ.get("ARBITRE_INSTANCE_PATH")
    app = Flask(
        __name__,
        instance_relative_config=True,
        instance_path=str(Path(instance).resolve()) if instance else None,
    )
    from webapp.config import Config

    app.config.from_object(Config)
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    app.config.from_prefixed_env("ARBITRE")
    if test_config is not None:
        app.config.update(test_config)
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    _ensure_secret_key(app)

    from webapp import auth, cli, db, scheduler, timefmt
    from webapp.views import register_blueprints

    db.init_app(app)
    auth.init_app(app)
    timefmt.init_app(app)
    register_blueprints(app)
    scheduler.init_app(app)
    cli.init_app(app)
    _init_mail(app)
    return app


def _init_mail(app: Flask) -> None:
    """``mailer.init_app(app)`` when the mail package offers one (it is optional)."""
    try:
        import mailer
    except ImportError:
        return
    init = getattr(mailer, "init_app", None)
    if callable(init):
        init(app)


def _ensure_secret_key(app: Flask) -> None:
    """Outside tests and debug, never run with the built-in key: keep a random one in the
    instance folder so sessions survive restarts."""
    from webapp.config import Config

    if app.config["SECRET_KEY"] != Config.SECRET_KEY or app.testing or app.debug:
        return
    path = Path(app.instance_path) / "secret_key"
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32))
    app.config["SECRET_KEY"] = path.read_text().strip()
