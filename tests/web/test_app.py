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
