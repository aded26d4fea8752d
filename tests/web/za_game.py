"""The small Duplicate game of the web tests: the word list {ZA, ZAS} registered as « za »
and a fixed bag whose round 1 draws ZAEIBCD (top ZA at H7 = (10 + 1) × 2 = 22) and round 2
the reliquat EIBCD + SE; two rounds, starting at START (= tests.conftest.FROZEN_START).
:func:`use_word_list` registers any small word list the same way (the Anticipation tests'
« mini »)."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from flask import Flask
from sqlmodel import Session

from puzzles.duplicate import DuplicateSettings
from scoring.tiles import tileset
from webapp.models import Competition, DuplicateGame
from webapp.services import duplicate

START = datetime(2026, 5, 10, 10, 0, tzinfo=UTC)  # = tests.conftest.FROZEN_START
FIRST = "ZAEIBCD"  # round 1: vowels A E I, consonants Z B C D
SECOND_NEW = "SE"  # round 2: reliquat EIBCD + S E
ALL_ANSWERED = {"kind": "all_answered", "hours": 48}


def full_bag() -> str:
    rest = tileset("fr").bag() - Counter(FIRST + SECOND_NEW)
    return FIRST + SECOND_NEW + "".join(sorted(rest.elements()))


def use_word_list(app: Flask, tmp_path: Path, words: str, name: str = "za") -> None:
    """Write ``words`` (one a line) to ``tmp_path/<name>.txt`` and make it the server's only
    word list, ``name`` (``LEXICONS``)."""
    path = tmp_path / f"{name}.txt"
    path.write_text(words, "utf-8")
    app.config["LEXICONS"] = {name: str(path)}


def za_game(
    app: Flask, db_session: Session, competition: Competition, tmp_path: Path, *,
    title: str = "Express", code: str = "EX1", rhythm: dict[str, Any] | None = None,
    **create: Any,
) -> DuplicateGame:
    """The two-round game on {ZA, ZAS} (rhythm: a round closes when everyone has answered,
    48 h at most, unless given), created and committed; ``create``: more arguments of
    :func:`webapp.services.duplicate.create_game` (timezone, actor)."""
    use_word_list(app, tmp_path, "ZA\nZAS\n")
    with app.app_context():
        game = duplicate.create_game(
            session=db_session, competition=competition, title=title, code=code,
            settings=DuplicateSettings(lang="fr", rounds=2),
            rhythm=dict(rhythm or ALL_ANSWERED), starts_at=START, lexicon_name="za",
            bag_order=full_bag(), **create,
        )
        db_session.commit()
    return game
