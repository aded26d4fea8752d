"""The engine's command line, ``arbitre engine moves|score`` (dispatched by ``arbitre_cli``).

``moves`` lists what a rack can do on a position (placements, scrabbles, the top and the
moves reaching it), for one position or a JSON-lines file of them; ``score`` judges one move
written in French notation. Messages are in French. Exit status: 0 on success (``score``: the
move is valid), 1 when ``score`` refuses the move or a line of ``--positions`` could not be
read, 2 on unusable input (bad CGP, rack, reference, word list or options).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import IO, NoReturn

from scoring.board import Board
from scoring.config import GameConfig
from scoring.errors import EngineError
from scoring.lexicon import Lexicon, default_lexicon
from scoring.movegen import GeneratedMove, analyse
from scoring.notation import format_ref, parse_ref
from scoring.tiles import tileset
from scoring.validate import Verdict, check_move

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_BAD_INPUT = 2


class _InputError(Exception):
    """Unusable input; the message is shown as is."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_BAD_INPUT, f"{self.prog} : erreur : {message}\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="arbitre engine",
                description="Moteur de jeu : coups possibles, score d'un coup.")
    sub = p.add_subparsers(dest="command", required=True, metavar="moves|score")

    m = sub.add_parser("moves", help="les placements possibles d'un tirage et le top")
    where = m.add_mutually_exclusive_group(required=True)
    where.add_argument("--board", help="grille en CGP (rangées A à O séparées par /)")
    where.add_argument("--positions", metavar="FICHIER.jsonl",
                       help='une position par ligne : {"board": ..., "rack": ...}')
    m.add_argument("--rack", help="tirage, ? pour un joker (avec --board)")
    m.add_argument("--lexicon", metavar="CHEMIN", help="liste de mots (défaut : liste française)")
    m.add_argument("--lang", choices=("fr", "ro"), default="fr", help="jeu de lettres")
    m.add_argument("--top", type=int, metavar="N", help="les N meilleurs coups (ordre FISF)")
    m.add_argument("--bag-empty", action="store_true",
                   help="sac vide : à score égal, préférer un coup qui finit la partie")
    m.add_argument("--json", action="store_true", help="sortie JSON")

    s = sub.add_parser("score", help="le verdict d'un coup en notation française")
    s.add_argument("--board", required=True, help="grille en CGP")
    s.add_argument("move", nargs="+", metavar="COUP", help='par exemple "H4 MOT" ou 4H MOt')
    s.add_argument("--lang", choices=("fr", "ro"), default="fr", help="jeu de lettres")
    s.add_argument("--lexicon", metavar="CHEMIN",
                   help="liste de mots (défaut : liste française ; aucune en roumain)")
    s.add_argument("--json", action="store_true", help="sortie JSON")
    return p


def main(argv: Sequence[str] | None = None, stdout: IO[str] | None = None) -> int:
    out = stdout or sys.stdout
    try:
        args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
    try:
        if args.command == "moves":
            return _moves(args, out)
        return _score(args, out)
    except _InputError as exc:
        print(f"arbitre engine : {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _config(args: argparse.Namespace, *, need_lexicon: bool) -> GameConfig:
    lexicon: Lexicon | None
    try:
        if args.lexicon:
            lexicon = Lexicon.load(args.lexicon)
        elif args.lang == "fr":
            lexicon = default_lexicon()
        elif need_lexicon:
            raise _InputError("le roumain n'a pas de liste fournie : indiquez --lexicon CHEMIN.")
        else:
            lexicon = None
    except EngineError as exc:
        raise _InputError(str(exc)) from None
    return GameConfig(tileset=tileset(args.lang), lexicon=lexicon)


def _board(text: str) -> Board:
    try:
        return Board.from_cgp(text)
    except EngineError as exc:
        raise _InputError(str(exc)) from None


def _triples(moves: list[GeneratedMove]) -> list[list[object]]:
    return [[format_ref(m.ref), m.word, m.score] for m in moves]


def _analyse(board: Board, rack: str, config: GameConfig, n: int | None,
             bag_empty: bool) -> dict[str, object]:
    found = analyse(board, rack, config, n=n, bag_empty=bag_empty)  # one search
    c = found.counts
    result: dict[str, object] = {
        "placements": c.placements,
        "scrabbles": c.scrabbles,
        "top": c.top,
        "top_moves": _triples(found.tops),
    }
    if found.best is not None:
        result["best"] = _triples(found.best)
    return result


def _moves(args: argparse.Namespace, out: IO[str]) -> int:
    if args.top is not None and args.top < 1:
        raise _InputError("--top attend un nombre de coups d'au moins 1.")
    if args.positions:
        if args.rack:
            raise _InputError("--rack va avec --board ; avec --positions le tirage est dans "
                              "chaque ligne.")
        return _moves_file(args, out)
    if not args.rack:
        raise _InputError("indiquez le tirage : --rack LETTRES (? pour un joker).")
    config = _config(args, need_lexicon=True)
    board = _board(args.board)
    try:
        result = _analyse(board, args.rack, config, args.top, args.bag_empty)
    except EngineError as exc:
        raise _InputError(str(exc)) from None
    if args.json:
        print(json.dumps(result, ensure_ascii=False), file=out)
        return EXIT_OK
    print(_moves_text(args.rack, result), file=out)
    return EXIT_OK


def _moves_text(rack: str, r: dict[str, object]) -> str:
    lines = [f"Tirage {rack.strip().upper()} : {r['placements']} placements, "
             f"dont {r['scrabbles']} scrabbles (7 lettres posées)."]
    top_moves = r["top_moves"]
    assert isinstance(top_moves, list)
    if r["top"] is None:
        lines.append("Aucun coup possible.")
    else:
        lines.append(f"Top : {r['top']} points ({len(top_moves)} coup"
                     f"{'s' if len(top_moves) > 1 else ''}).")
        lines.extend(f"  {ref:<4} {word:<15} {score:>4}" for ref, word, score in top_moves)
    ranked = r.get("best")
    if isinstance(ranked, list):
        lines.append(f"Les {len(ranked)} meilleurs coups (ordre FISF) :")
        lines.extend(f"  {i:>3}. {ref:<4} {word:<15} {score:>4}"
                     for i, (ref, word, score) in enumerate(ranked, start=1))
    return "\n".join(lines)


def _moves_file(args: argparse.Namespace, out: IO[str]) -> int:
    config = _config(args, need_lexicon=True)
    try:
        fh = open(args.positions, encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise _InputError(f"fichier {args.positions} illisible : {exc.strerror}.") from None
    status = EXIT_OK
    with fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                if not isinstance(item, dict) or "board" not in item or "rack" not in item:
                    raise _InputError('objet {"board": ..., "rack": ...} attendu')
                board = _board(str(item["board"]))
                result = _analyse(board, str(item["rack"]), config, args.top, args.bag_empty)
            except (json.JSONDecodeError, _InputError, EngineError) as exc:
                reason = f"JSON illisible ({exc.msg})" if isinstance(exc, json.JSONDecodeError) \
                    else str(exc)
                message = f"{args.positions}, ligne {number} : {reason}"
                print(f"arbitre engine : {message}", file=sys.stderr)
                print(json.dumps({"line": number, "error": message}, ensure_ascii=False),
                      file=out)
                status = EXIT_REFUSED
                continue
            if "id" in item:
                result = {"id": item["id"], **result}
            if args.json:
                print(json.dumps(result, ensure_ascii=False), file=out)
            else:
                print(f"— ligne {number}\n{_moves_text(str(item['rack']), result)}", file=out)
    return status


def _score(args: argparse.Namespace, out: IO[str]) -> int:
    parts = " ".join(args.move).split()
    if len(parts) != 2:
        raise _InputError(f"coup « {' '.join(args.move)} » : attendu une référence et un mot, "
                          "par exemple « H4 MOT ».")
    ref_text, word = parts
    try:
        ref = parse_ref(ref_text)
    except EngineError as exc:
        raise _InputError(str(exc)) from None
    config = _config(args, need_lexicon=False)
    board = _board(args.board)
    verdict = check_move(board, ref, word, config)
    if verdict.placement is None:  # the word itself could not be read or placed
        raise _InputError("; ".join(verdict.reasons))
    if args.json:
        print(json.dumps(_verdict_json(verdict), ensure_ascii=False), file=out)
    else:
        print(_verdict_text(verdict, checked=config.lexicon is not None), file=out)
    return EXIT_OK if verdict.ok else EXIT_REFUSED


def _verdict_json(v: Verdict) -> dict[str, object]:
    return {
        "ok": v.ok,
        "ref": format_ref(v.ref) if v.ref else None,
        "word": v.word,
        "score": v.score,
        "bonus": v.bonus,
        "words": [[format_ref(w.ref), w.text, w.points] for w in v.words],
        "invalid_words": list(v.invalid_words),
        "reasons": list(v.reasons),
    }


def _verdict_text(v: Verdict, *, checked: bool) -> str:
    head = f"{format_ref(v.ref) if v.ref else '?'} {v.word}"
    if v.ok:
        lines = [f"{head} : coup valide, {v.score} points."]
    else:
        lines = [f"{head} : coup refusé."]
        lines.extend(f"  - {r}" for r in v.reasons)
    if v.geometry_ok:
        for w in v.words:
            kind = "mot principal" if w.main else "mot secondaire"
            lines.append(f"  {format_ref(w.ref):<4} {w.text:<15} {w.points:>4}  ({kind})")
        if v.bonus:
            lines.append(f"  prime scrabble : {v.bonus}")
        if not v.ok:
            lines.append(f"  (score des lettres posées : {v.score} points)")
    if not checked:
        lines.append("  (mots non vérifiés : aucune liste de mots)")
    return "\n".join(lines)
