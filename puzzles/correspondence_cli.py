"""``arbitre correspondance replay FICHE.txt [--json] [--lexicon FILE]``: a correspondence game
(RULES §8.1, docs/VARIANTS.md) rebuilt from its score sheet (*fișa de concurs*, the text of
``puzzles.correspondence.sheet_text`` — the server's ``/correspondance/<code>/fiche.txt``):
every move replayed on the row and checked (rack, legality, the score written), the scores
recorded under the round I/II caps, the end, the leftover letters and the result. Bad input:
a French message, exit status 2."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from puzzles.cli_parser import BAD_INPUT, parser_class, report_bad_input
from puzzles.correspondence import (
    COLOURS,
    CorrespondenceError,
    CorrespondenceSettings,
    CorrState,
    SheetHeader,
    parse_sheet,
    result,
)

_Parser = parser_class("arbitre correspondance")


def _build() -> argparse.ArgumentParser:
    p = _Parser(prog="arbitre correspondance",
                description="Partie de Scrabble par correspondance (FRSc).")
    sub = p.add_subparsers(dest="action", required=True, parser_class=_Parser)
    r = sub.add_parser("replay", help="reconstituer une partie depuis sa fiche")
    r.add_argument("sheet", help="la fiche de la partie (fișa de concurs, texte)")
    r.add_argument("--json", action="store_true", help="sortie JSON")
    r.add_argument("--lexicon", help="liste de mots (par défaut : la liste française fournie)")
    r.add_argument("--lang", choices=("fr", "ro"), default="fr",
                   help="jeu de lettres (fr : 102 jetons, ro : 100)")
    return p


def to_json(header: SheetHeader, state: CorrState) -> dict[str, object]:
    red, blue = result(state) if state.finished else (None, None)
    return {
        "event": header.event, "red": header.red, "blue": header.blue,
        "arbiters": header.arbiters, "row": state.row,
        "moves": [{"round": m.round_no, "colour": COLOURS[m.colour].lower(), "ref": m.ref,
                   "word": m.word, "score": m.score, "recorded": m.recorded}
                  for m in state.moves],
        "recorded": list(state.recorded), "finished": state.finished,
        "end": state.end_reason, "leftover": list(state.leftover),
        "totals": list(state.totals), "result": [red, blue], "grid": state.board_cgp,
    }


def to_text(header: SheetHeader, state: CorrState) -> str:
    lines = [f"Partie par correspondance : {header.event}",
             f"ROUGE {header.red} – BLEU {header.blue}",
             f"Rangée : {state.row}"]
    for m in state.moves:
        what = f"{m.ref} {m.word}" if m.ref else "passe"
        capped = f" (inscrit {m.recorded})" if m.recorded != m.score else ""
        lines.append(f"Tour {m.round_no} {COLOURS[m.colour].lower()} : {what} — {m.score} "
                     f"points{capped}")
    if state.finished:
        red, blue = result(state)
        lines += [f"Fin : {state.end_reason}",
                  f"Lettres restantes : ROUGE {state.leftover[0]}, BLEU {state.leftover[1]}",
                  f"Total : ROUGE {state.totals[0]}, BLEU {state.totals[1]}",
                  f"Résultat : ROUGE {red:g} – BLEU {blue:g}"]
    else:
        lines.append(f"Partie en cours : ROUGE {state.recorded[0]}, BLEU {state.recorded[1]} ; "
                     f"au tour de {COLOURS[state.turn]}.")
    lines += ["Grille :", state.board.to_ascii()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    """Run ``correspondance replay``; returns the exit status (2 on bad input)."""
    args = _build().parse_args(sys.argv[1:] if argv is None else argv)
    stream = out or sys.stdout
    from scoring.config import GameConfig
    from scoring.lexicon import Lexicon

    try:
        text = Path(args.sheet).read_text(encoding="utf-8")
        if args.lexicon:
            config = GameConfig.default(args.lang, Lexicon.load(Path(args.lexicon)))
        elif args.lang != "fr":
            raise CorrespondenceError("Partie en roumain : donnez la liste de mots (--lexicon).")
        else:
            config = GameConfig.default("fr")
        header, state = parse_sheet(text, config, CorrespondenceSettings(lang=args.lang))
    except BAD_INPUT as exc:
        return report_bad_input(exc)
    if args.json:
        stream.write(json.dumps(to_json(header, state), ensure_ascii=False) + "\n")
    else:
        stream.write(to_text(header, state))
    return 0
