"""The puzzles' command line: ``arbitre problem new``, ``arbitre verify``, ``arbitre rank``
and ``arbitre solve`` (``argv`` includes the subcommand).

Messages are French, argparse's included, and no traceback is ever printed. Long batches
(``rank``) report progress on stderr only when stderr is a terminal, so scripts stay quiet.

Exit status (docs/PUZZLES.md §8): 0 done (``verify``: the sheet was read whole and no move
is zeroed; warnings allowed); 1 ``verify`` only: the report is written but the sheet has
unreadable lines or sheet-level errors, or moves are zeroed (a French summary on stderr);
2 unusable input (command line, problem, sheet or settings file, word list); 3 an internal
error (a French message, never a traceback).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from puzzles.families import FAMILIES
from puzzles.problem import (
    GameType,
    ProblemError,
    dump_problem,
    french_json_error,
    load_problem,
    os_error_message,
)
from puzzles.settings import Settings

if TYPE_CHECKING:
    from scoring.lexicon import Lexicon

ALIASES = {f.cli_alias: g for g, f in FAMILIES.items() if f.cli_alias}


def _game(text: str) -> GameType:
    key = text.strip().lower().replace("-", "_")
    if key in ALIASES:
        return ALIASES[key]
    try:
        return GameType(key)
    except ValueError:
        names = ", ".join(sorted({*ALIASES, *(g.value for g in GameType)}))
        raise argparse.ArgumentTypeError(
            f"type de partie inconnu « {text} » (connus : {names})"
        ) from None


# argparse's own messages (English) and their French
_ARGPARSE_FR: tuple[tuple[str, str], ...] = (
    (r"the following arguments are required: (.*)", r"arguments obligatoires manquants : \1"),
    (r"unrecognized arguments: (.*)", r"arguments inconnus : \1"),
    (r"argument (.*?): invalid choice: (.*?) \(choose from (.*)\)",
     r"argument \1 : choix inconnu \2 (possibles : \3)"),
    (r"argument (.*?): invalid int value: (.*)", r"argument \1 : nombre entier attendu, reçu \2"),
    (r"argument (.*?): invalid float value: (.*)", r"argument \1 : nombre attendu, reçu \2"),
    (r"argument (.*?): expected one argument", r"argument \1 : une valeur est attendue"),
    (r"argument (.*?): not allowed with argument (.*)", r"argument \1 : incompatible avec \2"),
    (r"argument (.*?): ignored explicit argument (.*)",
     r"argument \1 : valeur inattendue \2"),
    (r"argument (.*?): (.*)", r"argument \1 : \2"),
)


def _french_argparse(message: str) -> str:
    import re

    for english, french in _ARGPARSE_FR:
        m = re.fullmatch(english, message)
        if m:
            return m.expand(french)
    return message


class _Parser(argparse.ArgumentParser):
    def format_usage(self) -> str:
        return super().format_usage().replace("usage:", "utilisation :", 1)

    def format_help(self) -> str:
        text = super().format_help().replace("usage:", "utilisation :", 1)
        for english, french in (("positional arguments:", "arguments :"),
                                ("options:", "options :"),
                                ("show this help message and exit", "afficher cette aide")):
            text = text.replace(english, french)
        return text

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"arbitre : erreur : {_french_argparse(message)}", file=sys.stderr)
        raise SystemExit(2)


def _load_lexicon(path: str | None) -> Lexicon:
    from scoring.lexicon import Lexicon, default_lexicon

    return Lexicon.load(path) if path else default_lexicon()


def _progress(done: int, total: int, label: str) -> None:
    if sys.stderr.isatty():
        print(f"\r{label} {done}/{total}", end="" if done < total else "\n", file=sys.stderr)


def _cmd_problem(args: argparse.Namespace, out: TextIO) -> int:
    from puzzles.generate import new_problem

    game: GameType = args.type
    fam = game.family
    # the French avocalique's first group makes two-letter words (RULES §6.2)
    needs = fam.generator_needs_lexicon or (
        fam.anticipation and fam.consonants_announced and args.lang == "fr"
    )
    if needs and args.lang == "ro" and not args.lexicon and not os.environ.get("ARBITRE_LEXICON"):
        print(
            f"« {game.label} » en roumain a besoin d'une liste de mots roumaine : "
            "indiquez-la avec --lexicon (ou ARBITRE_LEXICON).",
            file=sys.stderr,
        )
        return 2
    lexicon = _load_lexicon(args.lexicon) if needs or args.lexicon else None
    try:
        problem = new_problem(
            game,
            seed=args.seed,
            lang=args.lang,
            lexicon=lexicon,
            n_groups=args.groupes,
            imposed_order=args.ordre_impose,
        )
    except (ValueError, RuntimeError) as exc:  # the generator's own French messages
        raise _InputError(str(exc)) from None
    if args.output:
        dump_problem(problem, args.output)
        print(f"Problème {problem.id} écrit dans {args.output}.", file=sys.stderr)
    else:
        out.write(problem.to_json())
    return 0


class _InputError(Exception):
    """Unusable input: a French message, exit status 2."""


def _read(path: str) -> str:
    try:
        return Path(path).read_text("utf-8", errors="replace")
    except OSError as exc:
        raise _InputError(os_error_message(exc)) from None


def _settings(path: str | None) -> Settings:
    if not path:
        return Settings()
    text = _read(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _InputError(
            f"Réglages {path}, ligne {exc.lineno} : JSON illisible ({french_json_error(exc)})."
        ) from None
    except (RecursionError, ValueError):
        raise _InputError(f"Réglages {path} : JSON illisible.") from None
    try:
        return Settings.from_dict(data)
    except ValueError as exc:
        raise _InputError(f"Réglages {path} : {exc}") from None


def _cmd_verify(args: argparse.Namespace, out: TextIO) -> int:
    from puzzles.feuille import parse_feuille
    from puzzles.verify import verify_text

    problem = load_problem(args.problem)
    settings = _settings(args.reglages)
    lexicon = _load_lexicon(args.lexicon)
    text = _read(args.sheet)
    report = verify_text(problem, text, lexicon, settings)
    out.write(report.to_json() if args.json else report.to_text())
    unreadable = len(parse_feuille(
        text, superscrabble=problem.game.family.answers_only).errors)
    sheet_errors = len(report.errors) - unreadable
    zeroed = report.zeroed
    if not (unreadable or sheet_errors or zeroed):
        return 0
    parts = []
    if unreadable:
        parts.append(f"{unreadable} erreur(s) de lecture de la feuille")
    if sheet_errors:
        parts.append(f"{sheet_errors} remarque(s) sur la feuille")
    if zeroed:
        parts.append("coup(s) à zéro : " + ", ".join(map(str, zeroed)))
    print(f"Feuille vérifiée avec réserves : {' ; '.join(parts)} (détail dans le rapport).",
          file=sys.stderr)
    return 1


def _cmd_rank(args: argparse.Namespace, out: TextIO) -> int:
    from puzzles.ranking import RankEntry, rank
    from puzzles.verify import verify_text

    problem = load_problem(args.problem)
    lexicon = _load_lexicon(args.lexicon)
    settings = _settings(args.reglages)
    entries: list[RankEntry] = []
    # Without an Envoyé header the files' order is the submission order: the id carries it.
    width = len(str(len(args.sheets)))
    for i, name in enumerate(args.sheets, start=1):
        text = _read(name)
        report = verify_text(problem, text, lexicon, settings)
        entries.append(RankEntry(f"{i:0{width}d}:{Path(name).name}", report))
        _progress(i, len(args.sheets), "Vérification")
    rows = rank(problem, entries, reference=args.reference)
    if args.json:
        out.write(json.dumps([r.to_dict() for r in rows], ensure_ascii=False, indent=2) + "\n")
    elif args.csv:
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(["rang", "feuille", "joueur", "score", "unité", "envoyé", "pourcentage",
                    "avertissements", "pénalité"])
        for r in rows:
            w.writerow([
                r.rank, r.entry_id.split(":", 1)[1], r.player or "", r.final_score, r.unit,
                r.submitted_at.isoformat() if r.submitted_at else "",
                "" if r.percent is None else f"{r.percent:.2f}", r.report.warnings,
                r.report.penalty,
            ])
        out.write(buf.getvalue())
    else:
        out.write(f"Classement — {problem.title or problem.id} ({problem.game.label})\n")
        for r in rows:
            pct = "" if r.percent is None else f"  {r.percent:.2f} %"
            eq = " (ex aequo, départagé)" if r.ex_aequo else ""
            out.write(
                f"{r.rank:>3}. {r.player or r.entry_id.split(':', 1)[1]:<24} "
                f"{r.final_score:>6} {r.unit}{pct}{eq}\n"
            )
    return 0


def _cmd_solve(args: argparse.Namespace, out: TextIO) -> int:
    from puzzles.solver import Progress, SolverError, solve

    problem = load_problem(args.problem)
    show = sys.stderr.isatty()

    def progress(p: Progress) -> None:
        if show:
            print(f"\rRecherche : {p}", end="", file=sys.stderr, flush=True)

    try:
        solution = solve(
            problem, _load_lexicon(args.lexicon), seconds=args.seconds, seed=args.seed,
            nodes=args.nodes, progress=progress,
        )
    except SolverError as exc:
        print(f"arbitre : {exc}", file=sys.stderr)
        return 2
    if show:
        print(file=sys.stderr)
    out.write(solution.feuille.to_json() if args.json else solution.feuille.to_text())
    return 0


def _build() -> argparse.ArgumentParser:
    p = _Parser(prog="arbitre", description="Problèmes, feuilles de route, classements.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    pr = sub.add_parser("problem", help="tirer un problème")
    prs = pr.add_subparsers(dest="action", required=True, parser_class=_Parser)
    new = prs.add_parser("new", help="tirer un nouveau problème")
    new.add_argument("type", type=_game)
    new.add_argument("--seed", type=int, default=0)
    new.add_argument("--lang", choices=("fr", "ro"), default="fr")
    new.add_argument("-o", "--output")
    new.add_argument("--lexicon")
    new.add_argument("--groupes", type=int, default=4, help="N-Scrabble : nombre de groupes")
    new.add_argument("--ordre-impose", action="store_true", help="N-Scrabble : ordre imposé")
    v = sub.add_parser("verify", help="vérifier une feuille de route")
    v.add_argument("problem")
    v.add_argument("sheet")
    v.add_argument("--json", action="store_true")
    v.add_argument("--lexicon")
    v.add_argument("--reglages", help="fichier JSON de réglages (docs/PUZZLES.md)")
    r = sub.add_parser("rank", help="classer des feuilles")
    r.add_argument("problem")
    r.add_argument("sheets", nargs="+")
    fmt = r.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--csv", action="store_true")
    r.add_argument("--lexicon")
    r.add_argument("--reglages")
    r.add_argument("--reference", type=float, help="score de référence pour les pourcentages")
    s = sub.add_parser("solve", help="solution de référence")
    s.add_argument("problem")
    s.add_argument("--lexicon")
    s.add_argument("--seconds", "--secondes", dest="seconds", type=float, default=30.0,
                   help="temps maximal de recherche (s)")
    s.add_argument("--nodes", type=int, default=None,
                   help="budget en appels au générateur de coups (résultat reproductible)")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--json", action="store_true")
    return p


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    """Run ``problem|verify|rank|solve``; returns the exit status (module docstring)."""
    from scoring.errors import EngineError

    args = _build().parse_args(sys.argv[1:] if argv is None else argv)
    stream = out or sys.stdout
    try:
        if args.command == "problem":
            return _cmd_problem(args, stream)
        if args.command == "verify":
            return _cmd_verify(args, stream)
        if args.command == "rank":
            return _cmd_rank(args, stream)
        return _cmd_solve(args, stream)
    except ProblemError as exc:
        print(f"Problème invalide : {exc}", file=sys.stderr)
        return 2
    except _InputError as exc:
        print(f"Erreur : {exc}", file=sys.stderr)
        return 2
    except EngineError as exc:  # the word list (scoring.lexicon), in French
        print(f"Erreur : {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"Erreur : {os_error_message(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("Interrompu.", file=sys.stderr)
        return 130
    except Exception as exc:  # never a traceback for the user
        print(f"Erreur interne ({type(exc).__name__}) : merci de la signaler avec la "
              "commande et les fichiers utilisés.", file=sys.stderr)
        return 3
