"""The argument parser and the bad-input answer of the game sub-commands (``arbitre
duplicate``, ``arbitre correspondance``): owns :func:`parser_class`, whose parsers answer a
usage error with the usage and « arbitre <commande> : erreur : … » on stderr, and
:func:`report_bad_input` for an unreadable file or a refused game; exit status 2 both."""

from __future__ import annotations

import argparse
import sys

from puzzles.correspondence import CorrespondenceError
from puzzles.duplicate import DuplicateError
from scoring.errors import LexiconError

#: what a sub-command answers with :func:`report_bad_input` (a word list that cannot be read
#: is one: its French message says which file and why)
BAD_INPUT = (DuplicateError, CorrespondenceError, LexiconError, OSError, UnicodeDecodeError)


def parser_class(command: str) -> type[argparse.ArgumentParser]:
    """An ArgumentParser class whose errors name ``command`` (« arbitre duplicate »), for the
    parser and its sub-parsers alike."""

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> None:  # type: ignore[override]
            self.print_usage(sys.stderr)
            print(f"{command} : erreur : {message}", file=sys.stderr)
            raise SystemExit(2)

    return _Parser


def report_bad_input(exc: Exception) -> int:
    """« Erreur : … » on stderr (the game's French message, or « fichier illisible »);
    returns the exit status, 2."""
    if isinstance(exc, DuplicateError | CorrespondenceError | LexiconError):
        print(f"Erreur : {exc}", file=sys.stderr)
    else:
        print(f"Erreur : fichier illisible ({exc}).", file=sys.stderr)
    return 2
