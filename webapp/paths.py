"""Where a running server keeps its things, said in French for the start-up message of
``arbitre serve`` (and the demo's description): the instance folder, the database, the
outgoing and incoming mail.

The instance folder itself is chosen by :func:`webapp.config.instance_path` (by default the
user's data directory, outside the source tree).
"""

from __future__ import annotations

from pathlib import Path

from flask import Flask
from sqlalchemy.engine import make_url

from mailer.settings import MailSettings, mbox_path

#: the folder the server used by default before it moved to the user's data directory
LEGACY_INSTANCE = Path(__file__).resolve().parent.parent / "instance"


def local_mailbox(app: Flask) -> Path | None:
    """The mbox outgoing mail is appended to when no SMTP relay is configured, else None."""
    if MailSettings.from_config(app.config).relay:
        return None
    return mbox_path(app)


def database_description(app: Flask) -> str:
    """The database the app uses: the SQLite file, or the URL without its password."""
    url = make_url(app.config["DATABASE_URL"])
    if url.get_backend_name() == "sqlite":
        if not url.database or url.database == ":memory:":
            return "SQLite en mémoire (rien n'est gardé à l'arrêt)"
        return f"{Path(url.database).resolve()} (SQLite)"
    text = url.render_as_string(hide_password=True)
    schema = app.config.get("DATABASE_SCHEMA")
    return f"{text} (schéma {schema})" if schema else text


def startup_lines(app: Flask, *, mail: bool = True) -> list[str]:
    """The paths ``arbitre serve`` names when it starts: one line each, French."""
    instance = Path(app.instance_path)
    lines = [
        f"Dossier d'instance : {instance} (réglage ARBITRE_INSTANCE_PATH)",
        f"Base de données : {database_description(app)}",
    ]
    if mail:
        settings = MailSettings.from_config(app.config)
        box = local_mailbox(app)
        if box is not None:
            lines.append(f"Courriel sortant : boîte locale {box} "
                         "(aucun relais SMTP : réglage ARBITRE_SMTP_RELAY)")
        else:
            lines.append(f"Courriel sortant : relais SMTP {settings.relay}")
        if settings.imap_host:
            user = f"{settings.imap_username}@" if settings.imap_username else ""
            lines.append(
                f"Courriel entrant : IMAP {user}{settings.imap_host}:{settings.imap_port}, "
                f"dossier « {settings.imap_folder} », traités rangés dans "
                f"« {settings.imap_done_folder} »")
    legacy = LEGACY_INSTANCE
    if legacy != instance and (legacy / "arbitre.sqlite3").exists():
        lines.append(f"Ancien dossier d'instance, dans les sources, qui n'est plus lu : {legacy} "
                     f"(pour le reprendre : ARBITRE_INSTANCE_PATH={legacy})")
    return lines
