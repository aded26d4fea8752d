"""The app factory: configuration sources, instance folder, nothing started at import."""

from __future__ import annotations

from pathlib import Path

import pytest

from webapp import create_app
from webapp.db import get_engine
from webapp.scheduler import get_scheduler


def test_environment_overrides_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ARBITRE_DATABASE_URL", f"sqlite:///{tmp_path / 'env.sqlite3'}")
    monkeypatch.setenv("ARBITRE_APPEAL_DAYS", "10")
    monkeypatch.setenv("ARBITRE_AUTO_FINALISE", "false")
    monkeypatch.setenv("ARBITRE_INSTANCE_PATH", str(tmp_path / "inst"))
    app = create_app({"TESTING": True})
    assert app.config["APPEAL_DAYS"] == 10
    assert app.config["AUTO_FINALISE"] is False
    assert str(get_engine(app).url).endswith("env.sqlite3")
    assert app.instance_path == str(tmp_path / "inst")
    get_engine(app).dispose()


def test_default_database_is_sqlite_in_the_instance_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("ARBITRE_DATABASE_URL", raising=False)
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path / "inst")})
    url = get_engine(app).url
    assert url.get_backend_name() == "sqlite"
    assert Path(url.database or "") == Path(app.instance_path) / "arbitre.sqlite3"
    get_engine(app).dispose()


def test_test_config_wins_and_scheduler_is_not_started(app) -> None:  # type: ignore[no-untyped-def]
    assert app.config["TESTING"] is True
    assert get_scheduler(app).running is False


def test_production_secret_key_is_generated_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ARBITRE_DATABASE_URL", "sqlite://")
    monkeypatch.delenv("ARBITRE_SECRET_KEY", raising=False)
    monkeypatch.setenv("ARBITRE_INSTANCE_PATH", str(tmp_path / "inst"))
    first = create_app({"TESTING": False, "DEBUG": False})
    assert (tmp_path / "inst" / "secret_key").exists()
    key = first.config["SECRET_KEY"]
    assert key != "dev-only-change-me" and len(key) == 64
    second = create_app({"TESTING": False, "DEBUG": False})
    assert second.config["SECRET_KEY"] == key


def test_instance_folder_outside_the_source_tree_by_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Issue 13.7: the default instance folder is the user's data directory (XDG base
    directories: $XDG_DATA_HOME/arbitre, else ~/.local/share/arbitre); ARBITRE_INSTANCE_PATH
    and the test configuration's INSTANCE_PATH still choose another."""
    from webapp.config import default_instance_path, instance_path

    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("ARBITRE_INSTANCE_PATH", raising=False)
    monkeypatch.delenv("ARBITRE_DATABASE_URL", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert default_instance_path() == home / ".local" / "share" / "arbitre"
    # a relative XDG_DATA_HOME is ignored, as the specification says
    assert default_instance_path({"HOME": str(home), "XDG_DATA_HOME": "rel"}) == (
        home / ".local" / "share" / "arbitre")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    app = create_app({"TESTING": True})
    assert app.instance_path == str(tmp_path / "xdg" / "arbitre")
    database = Path(get_engine(app).url.database or "")
    assert database == tmp_path / "xdg" / "arbitre" / "arbitre.sqlite3"
    assert not Path(app.instance_path).is_relative_to(Path(__file__).resolve().parents[2])
    get_engine(app).dispose()
    monkeypatch.setenv("ARBITRE_INSTANCE_PATH", str(tmp_path / "mine"))
    assert instance_path() == tmp_path / "mine"
    assert instance_path({"INSTANCE_PATH": str(tmp_path / "test")}) == tmp_path / "test"


def test_startup_lines_name_the_relay_and_the_imap_folders(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from webapp.paths import startup_lines

    monkeypatch.delenv("ARBITRE_DATABASE_URL", raising=False)
    app = create_app({
        "TESTING": True, "INSTANCE_PATH": str(tmp_path / "inst"),
        "DATABASE_URL": "postgresql+psycopg://juge:secret@db.example.org/arbitre",
        "SMTP_RELAY": "relay.example.org:587", "IMAP_HOST": "imap.example.org",
        "IMAP_USERNAME": "feuilles", "IMAP_PORT": 993,
    })
    lines = startup_lines(app)
    assert lines[:4] == [
        f"Dossier d'instance : {tmp_path / 'inst'} (réglage ARBITRE_INSTANCE_PATH)",
        "Base de données : postgresql+psycopg://juge:***@db.example.org/arbitre",
        "Courriel sortant : relais SMTP relay.example.org:587",
        "Courriel entrant : IMAP feuilles@imap.example.org:993, dossier « INBOX », "
        "traités rangés dans « Arbitre-traites »",
    ]
    assert "secret" not in "\n".join(lines)
    get_engine(app).dispose()
