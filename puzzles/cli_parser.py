"""The argument parser of the game sub-commands (``arbitre duplicate``, ``arbitre
correspondance``): owns :func:`parser_class`, whose parsers answer a usage error with the
usage and « arbitre <commande> : erreur : … » on stderr, exit status 2."""

from __future__ import annotations

import argparse
import sys


def parser_class(command: str) -> type[argparse.ArgumentParser]:
    """An ArgumentParser class whose errors name ``command`` (« arbitre duplicate »), for the
    parser and its sub-parsers alike."""

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> None:  # type: ignore[override]
            self.print_usage(sys.stderr)
            print(f"{command} : erreur : {message}", file=sys.stderr)
            raise SystemExit(2)

    return _Parser
