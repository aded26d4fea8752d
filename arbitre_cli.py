"""The ``arbitre`` command: dispatches to each part's own command line.

``arbitre engine ...`` (scoring), ``arbitre problem|verify|rank|solve ...`` (puzzles),
``arbitre serve|db|...`` (webapp), ``arbitre mail ...`` (mailer).
"""

from __future__ import annotations

import sys

USAGE = """usage: arbitre COMMAND ...

commands:
  engine moves|score   the game engine (move generation, scoring a move)
  problem new          draw a new problem
  verify               verify a feuille de route against a problem
  rank                 rank several feuilles
  solve                compute a reference solution
  duplicate replay     replay a FISF Duplicate game and correct its bulletins
  serve                run the competition server (web, scheduler, mail intake)
"""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    cmd, rest = args[0], args[1:]
    if cmd == "engine":
        from scoring.cli import main as engine_main

        return engine_main(rest)
    if cmd in ("problem", "verify", "rank", "solve"):
        from puzzles.cli import main as puzzles_main

        return puzzles_main(args)
    if cmd == "duplicate":
        from puzzles.duplicate_cli import main as duplicate_main

        return duplicate_main(rest)
    if cmd == "mail":
        from webapp.mail_cli import main as mail_main

        return mail_main(rest)
    from webapp.cli import main as web_main

    return web_main(args)


if __name__ == "__main__":
    raise SystemExit(main())
