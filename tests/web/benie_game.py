"""The Duplicate of issue 24 §2: the word list {BENIE, ZA} and a bag whose round 1 draws
BENIEST. BENIE at H4 puts its B on the double letter H4 and its last E on the star H8 (a
double word): (3 × 2 + 1 + 1 + 1 + 1) × 2 = 20, the top (at H5, H6, H7 no letter premium:
(3 + 4) × 2 = 14; at H8 the last E on the double letter H12: (7 + 1) × 2 = 16). ZZZQX is
no word and not in the rack. Two rounds, 24 h each."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

from flask import Flask
from sqlmodel import Session

from puzzles.duplicate import DuplicateSettings
from scoring.tiles import tileset
from tests.web.za_game import use_word_list
from webapp.models import Competition, DuplicateGame
from webapp.services import duplicate

FIRST = "BENIEST"
#: the bulletin of the issue: the first solution is no word, the second is the top
TWO_SOLUTIONS = "H8 ZZZQX 99 / H4 BENIE 20"


def benie_bag() -> str:
    rest = tileset("fr").bag() - Counter(FIRST)
    return FIRST + "".join(sorted(rest.elements()))


def benie_game(app: Flask, session: Session, competition: Competition, tmp_path: Path, *,
               starts_at: datetime, code: str = "B24", variant: str = "",
               **create: Any) -> DuplicateGame:
    use_word_list(app, tmp_path, "BENIE\nZA\n", name="benie")
    with app.app_context():
        settings: Any = DuplicateSettings(lang="fr", rounds=2)
        game = duplicate.create_game(
            session=session, competition=competition, title="Bulletins", code=code,
            settings=settings, rhythm={"kind": "hours", "hours": 24}, starts_at=starts_at,
            lexicon_name="benie", bag_order=benie_bag(), variant=variant, **create)
        session.commit()
    return game
