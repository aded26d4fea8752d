"""``arbitre --help`` names every command that the ``arbitre`` dispatcher reaches (issue 13,
point 7): the subcommands are read from the parsers themselves (scoring, puzzles, Duplicate,
server, mail) and from the Flask CLI, so a command added later without a line in the help
makes this test fail."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import webapp
from arbitre_cli import main
from puzzles import cli as puzzles_cli
from puzzles import correspondence_cli, duplicate_cli
from scoring import cli as scoring_cli
from webapp import cli as web_cli
from webapp import mail_cli


def _paths(parser: argparse.ArgumentParser, prefix: list[str]) -> Iterator[list[str]]:
    """Every leaf command path of ``parser``, e.g. ``["mail", "quarantine", "replay"]``."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield prefix
        return
    for action in subs:
        for name, child in action.choices.items():
            yield from _paths(child, [*prefix, name])


def _registered() -> list[list[str]]:
    found: list[list[str]] = []
    for parser, prefix in ((scoring_cli._parser(), ["engine"]), (puzzles_cli._build(), []),
                           (duplicate_cli._build(), ["duplicate"]),
                           (correspondence_cli._build(), ["correspondance"]),
                           (web_cli._parser(), []),
                           (mail_cli._parser(), ["mail"])):
        found.extend(_paths(parser, prefix))
    return found


def _help(capsys: pytest.CaptureFixture[str], flag: str) -> str:
    assert main([flag]) == 0
    return capsys.readouterr().out


def _listed(text: str, path: list[str]) -> bool:
    """A help line starts with the path's parents, and names the command itself as a word."""
    for line in text.splitlines():
        words = line.split()
        if words[: len(path) - 1] == path[:-1] and re.search(
                rf"(?<![\w-]){re.escape(path[-1])}(?![\w-])", line):
            return True
    return False


def test_every_subcommand_is_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(capsys, "--help")
    paths = _registered()
    # engine: moves, score; puzzles: problem new, verify, rank, solve; duplicate replay;
    # correspondance replay; server: serve, db, seed-demo, create-arbitre, login-link; mail:
    # intake, send-outbox, imap-poll, process-pending, quarantine list|replay|discard
    # -> 2 + 4 + 1 + 1 + 5 + 7 = 20
    assert len(paths) == 20
    missing = [" ".join(p) for p in paths if not _listed(text, p)]
    assert missing == []
    assert _help(capsys, "-h") == text


def test_the_flask_commands_are_in_the_help(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    app = webapp.create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path),
                             "DATABASE_URL": f"sqlite:///{tmp_path / 'a.db'}",
                             "SCHEDULER_ENABLED": False})
    names = sorted(app.cli.list_commands(None))  # type: ignore[arg-type]
    assert names == ["create-arbitre", "db-upgrade", "import-players", "login-link",
                     "seed-demo"]
    text = _help(capsys, "--help")
    assert [n for n in names if not re.search(rf"(?<![\w-]){n}(?![\w-])", text)] == []


def test_the_help_is_in_french(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(capsys, "--help")
    assert text.startswith("utilisation : arbitre COMMANDE ...\n")
    assert "usage:" not in text and "commands:" not in text
    assert "  db upgrade|current         migrer la base / afficher sa révision\n" in text
