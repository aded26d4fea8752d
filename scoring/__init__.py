"""Arbitre's game engine: tile sets, board layout, notation, positions, lexicon, scoring,
validation and move generation for French (FISF) and Romanian (FRSc) Scrabble.

This package is pure: no web framework, database, e-mail or network. Files are opened only
by the data and lexicon loaders (:mod:`scoring.tiles`, :mod:`scoring.layout`,
:mod:`scoring.lexicon`).
"""

from scoring.board import Board
from scoring.config import GameConfig
from scoring.errors import (
    CGPError,
    EngineError,
    NotationError,
    OffBoardError,
    OverlapError,
    UnknownLetterError,
)
from scoring.layout import STANDARD_LAYOUT, BoardLayout
from scoring.move import Placement, Tile
from scoring.notation import Ref, format_ref, format_word, parse_ref, parse_word
from scoring.score import FormedWord, ScoreBreakdown, formed_words, score_placement
from scoring.tiles import TileSet
from scoring.validate import Verdict, check_move, validate_placement

__all__ = [
    "Board",
    "BoardLayout",
    "CGPError",
    "EngineError",
    "FormedWord",
    "GameConfig",
    "NotationError",
    "OffBoardError",
    "OverlapError",
    "Placement",
    "Ref",
    "STANDARD_LAYOUT",
    "ScoreBreakdown",
    "Tile",
    "TileSet",
    "UnknownLetterError",
    "Verdict",
    "check_move",
    "format_ref",
    "format_word",
    "formed_words",
    "parse_ref",
    "parse_word",
    "score_placement",
    "validate_placement",
]
