"""``arbitre duplicate replay GAME.json [BULLETINS] [--json]``: a whole Duplicate game replayed
from a fixed bag order (or listed draws), with the optional bulletins of each round corrected
(docs/DUPLICATE.md); a GAME.json with a ``variant`` key is a Duplicate variant or a Partie de
Superscrabble (:mod:`puzzles.variants_replay`, docs/VARIANTS.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from puzzles.cli_parser import BAD_INPUT, parser_class, report_bad_input
from puzzles.duplicate import (
    DuplicateError,
    ReplayResult,
    load_game,
    parse_bulletins_file,
    replay,
)

if TYPE_CHECKING:
    from puzzles.variants_replay import VariantReplay
    from scoring.config import GameConfig


_Parser = parser_class("arbitre duplicate")


def _build() -> argparse.ArgumentParser:
    p = _Parser(prog="arbitre duplicate", description="Duplicate FISF par correspondance.")
    sub = p.add_subparsers(dest="action", required=True, parser_class=_Parser)
    r = sub.add_parser("replay", help="rejouer une partie et corriger les bulletins")
    r.add_argument(
        "game", help="GAME.json (docs/DUPLICATE.md ; variantes : docs/VARIANTS.md)"
    )
    r.add_argument("bulletins", nargs="?", help="fichier des bulletins, par coup et par joueur")
    r.add_argument("--json", action="store_true", help="sortie JSON")
    r.add_argument("--lexicon", help="liste de mots (par défaut : la liste française fournie)")
    return p


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    """Run ``duplicate replay``; returns the exit status (2 on bad input, French message)."""
    args = _build().parse_args(sys.argv[1:] if argv is None else argv)
    stream = out or sys.stdout
    result: ReplayResult | VariantReplay
    try:
        game_text = Path(args.game).read_text(encoding="utf-8")
        if _is_variant(game_text):
            from puzzles.variants_replay import replay_variant

            data = json.loads(game_text)
            settings = data.get("settings") or {}
            lang = settings.get("lang", "fr") if isinstance(settings, dict) else "fr"
            result = replay_variant(
                game_text, _bulletins(args), config=_config(args, lang, data.get("lexicon"))
            )
        else:
            plain, _, _, data = load_game(game_text)
            result = replay(
                game_text, _bulletins(args), config=_config(args, plain.lang, data.get("lexicon"))
            )
    except BAD_INPUT as exc:
        return report_bad_input(exc)
    stream.write(result.to_json() + "\n" if args.json else result.to_text())
    return 0


def _is_variant(game_text: str) -> bool:
    try:
        data = json.loads(game_text)
    except json.JSONDecodeError:
        return False
    return isinstance(data, dict) and "variant" in data


def _bulletins(args: argparse.Namespace) -> dict[int, dict[str, str]]:
    """The BULLETINS file named on the command line, if any."""
    if not args.bulletins:
        return {}
    return parse_bulletins_file(Path(args.bulletins).read_text(encoding="utf-8"))


def _config(args: argparse.Namespace, lang: str, game_lexicon: Any) -> GameConfig:
    """The engine configuration: ``--lexicon``, else the GAME.json's ``lexicon`` (relative to
    the GAME.json), else the French list shipped (a Romanian game must name its list)."""
    from scoring.config import GameConfig
    from scoring.lexicon import Lexicon

    lexicon_path = args.lexicon or game_lexicon
    if lexicon_path:
        path = Path(lexicon_path)
        if not path.is_absolute() and not args.lexicon:
            path = Path(args.game).parent / path
        return GameConfig.default(lang, Lexicon.load(path))
    if lang != "fr":
        raise DuplicateError("Partie en roumain : donnez la liste de mots (--lexicon).")
    return GameConfig.default("fr")
