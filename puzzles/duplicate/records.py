"""The stored JSON of the round games, typed: the draw, the move and the top of a round, the
one-word bulletin, a player's result — each a ``TypedDict`` with the keys the server has
stored since the first migration (no migration: the same keys, in the same order), with a
writer (``*_dict``) and a reader (``*_of``). The forms of one game only (a Tactique billet, a
Superscrabble sheet, a letter-choice bulletin or top) are written and read by its game module
(:mod:`puzzles.duplicate.games`); :mod:`puzzles.duplicate.codecs` gathers them all.

Imports the Duplicate's own modules only (settings, state, top, bulletins, correction), so that
every game module can build on it."""

from __future__ import annotations

from datetime import datetime
from typing import NotRequired, TypedDict, cast

from puzzles.duplicate.bulletins import VERTICAL_MARK, Bulletin, RaccordLetter
from puzzles.duplicate.correction import Verdict
from puzzles.duplicate.settings import VerdictKind
from puzzles.duplicate.state import Draw
from puzzles.duplicate.top import TopChoice
from scoring.movegen import GeneratedMove
from scoring.notation import format_ref

# --- the draw ------------------------------------------------------------------------------


class DrawJSON(TypedDict):
    """One draw (:class:`~puzzles.duplicate.Draw`); ``stock``: the letter-choice games' bag,
    sorted (what the players choose from)."""

    reliquat: str
    new: str
    rack: str
    rejected: list[str]
    minimum: int
    notation: str
    stock: NotRequired[str]


class TactiqueDrawJSON(TypedDict):
    """A Tactique round's two groups; ``rack`` « G1/G2 »."""

    groups: list[DrawJSON]
    rack: str
    notation: str


RoundDrawJSON = DrawJSON | TactiqueDrawJSON


def draw_dict(d: Draw) -> DrawJSON:
    return {"reliquat": d.reliquat, "new": d.new, "rack": d.rack, "rejected": list(d.rejected),
            "minimum": d.minimum, "notation": d.notation}


def draw_of(d: DrawJSON) -> Draw:
    return Draw(reliquat=d["reliquat"], new=d["new"], rack=d["rack"],
                rejected=tuple(d["rejected"]), minimum=int(d.get("minimum", 0)))


# --- moves and tops ------------------------------------------------------------------------

#: a :class:`~scoring.movegen.GeneratedMove` as stored: score, horizontal, start, word, mask
StoredMove = list[int | str]


class MoveJSON(TypedDict):
    ref: str
    word: str
    score: int
    move: StoredMove


class TopJSON(TypedDict):
    """The top of a one-word round (Duplicate, Top; a letter-choice game adds ``tied``,
    ``chosen``, ``swapped``)."""

    ref: str
    word: str
    score: int
    move: StoredMove
    reason: str
    ties: list[MoveJSON]
    tied: NotRequired[int]
    chosen: NotRequired[str]
    swapped: NotRequired[str]


class TactiqueTopJSON(TypedDict):
    """Both words in placement order (``first``, ``second``: None for a group that did not
    play), the group played first, the sum; ``ref``/``word`` read « H7 + H7 », « ZA + ZAS »."""

    first_group: int
    first: MoveJSON | None
    second: MoveJSON | None
    ref: str
    word: str
    score: int
    notation: str
    reason: str
    ties: list[MoveJSON]
    tied: int


class ScoredJSON(TypedDict):
    ref: str
    word: str
    score: int


class ScrabbleTopJSON(TypedDict):
    """The scrabble every player places (``move`` None: none) and every scrabble of the
    round (``scrabbles``)."""

    ref: str
    word: str
    score: int
    move: StoredMove | None
    ties: list[MoveJSON]
    scrabbles: list[ScoredJSON]
    reason: str


RoundTopJSON = TopJSON | TactiqueTopJSON | ScrabbleTopJSON


def move_dict(m: GeneratedMove) -> MoveJSON:
    return {"ref": format_ref(m.ref), "word": m.word, "score": int(m.score),
            "move": [int(m.score), bool(m.horizontal), int(m.start), m.word, int(m.new_mask)]}


def stored_move(move: StoredMove) -> GeneratedMove:
    score, horizontal, start, word, mask = move
    return GeneratedMove(int(score), bool(horizontal), int(start), str(word), int(mask))


def move_of(d: MoveJSON | TopJSON | ScrabbleTopJSON) -> GeneratedMove:
    move = d["move"]
    assert move is not None, "a round without a scrabble placed has no move"
    return stored_move(move)


def top_dict(t: TopChoice) -> TopJSON:
    m = move_dict(t.move)
    return {"ref": t.ref, "word": t.word, "score": int(t.score), "move": m["move"],
            "reason": t.reason_fr, "ties": [move_dict(x) for x in t.ties]}


def top_of(d: TopJSON) -> TopChoice:
    return TopChoice(move=move_of(d), ref=d["ref"], word=d["word"],
                     score=int(d["score"]), ties=tuple(move_of(x) for x in d["ties"]),
                     reason_fr=d.get("reason", ""))


def top_letters(top: RoundTopJSON | None) -> str:
    """`` -N +K`` after a letter-choice top (the letters given back and taken), else ""."""
    if not top:
        return ""
    swapped = cast(str, top.get("swapped", ""))
    chosen = cast(str, top.get("chosen", ""))
    out = f" -{swapped}" if swapped else ""
    return out + (f" +{chosen}" if chosen else "")


# --- bulletins -----------------------------------------------------------------------------


class BulletinJSON(TypedDict):
    """A bulletin (:class:`~puzzles.duplicate.Bulletin`): every key beyond the first four
    only when written (the bulletins stored before them read the same); a letter-choice
    bulletin adds ``chosen`` and ``swapped`` (always); ``alternatives``: the further
    solutions (S1 5.6)."""

    word: str
    ref: str | None
    raccord: str | None
    claimed: int | None
    raccord_at: NotRequired[list[list[str | int]]]
    vertical: NotRequired[bool]
    alternatives: NotRequired[list[BulletinJSON]]
    chosen: NotRequired[str]
    swapped: NotRequired[str]


class BilletJSON(TypedDict):
    """A Tactique billet: both words in placement order and the sum written."""

    first: BulletinJSON
    second: BulletinJSON | None
    total: int | None


class SheetJSON(TypedDict):
    """A Superscrabble sheet: the scrabbles written (``[ref, word]``) and their count."""

    entries: list[list[str]]
    count: int | None


AnyBulletinJSON = BulletinJSON | BilletJSON | SheetJSON


def bulletin_dict(b: Bulletin) -> BulletinJSON:
    """A ``puzzles.duplicate.Bulletin`` as stored (:class:`BulletinJSON`)."""
    out: BulletinJSON = {"word": b.word, "ref": b.ref, "raccord": b.raccord,
                         "claimed": b.claimed}
    if b.raccord_at:
        out["raccord_at"] = [[x.letter, x.dx, x.dy] for x in b.raccord_at]
    if b.vertical:
        out["vertical"] = True
    if b.alternatives:
        out["alternatives"] = [bulletin_dict(a) for a in b.alternatives]
    return out


def bulletin_of(d: BulletinJSON, player: str, received_at: datetime | None) -> Bulletin:
    """The stored bulletin (:func:`bulletin_dict`) with every solution."""
    placed = tuple(RaccordLetter(str(x[0]), int(x[1]), int(x[2]))
                   for x in d.get("raccord_at") or ())
    return Bulletin(player=player, word=d["word"], ref=d.get("ref"),
                    raccord=d.get("raccord"), claimed=d.get("claimed"),
                    received_at=received_at, raccord_at=placed,
                    vertical=bool(d.get("vertical")),
                    alternatives=tuple(bulletin_of(a, player, received_at)
                                       for a in d.get("alternatives") or ()))


def bulletin_line(b: BulletinJSON | None) -> str | None:
    """A one-word bulletin as the player wrote it (letters taken after the score)."""
    if not b:
        return None
    placed = " ".join(RaccordLetter(str(x[0]), int(x[1]), int(x[2])).notation()
                      for x in b.get("raccord_at") or ())
    place = " ".join(x for x in (b.get("ref"), b.get("raccord"), placed) if x)
    mark = VERTICAL_MARK if b.get("vertical") else ""
    claimed = b.get("claimed")
    swapped, chosen = b.get("swapped", ""), b.get("chosen", "")
    letters = (f"-{swapped}" if swapped else "", f"+{chosen}" if chosen else "")
    one = " ".join(str(x) for x in (mark, place, b["word"],
                                    claimed if claimed is not None else "", *letters)
                   if x != "")
    others = [bulletin_line(a) or "" for a in b.get("alternatives") or ()]
    return " / ".join([one, *others])


def solutions_of(b: BulletinJSON | None) -> int:
    """How many solutions a one-word bulletin holds."""
    if not b:
        return 0
    return 1 + len(b.get("alternatives") or ())


# --- results -------------------------------------------------------------------------------


class ResultJSON(TypedDict):
    """A player's result of a round, as the game gives it (the server puts ``player_id``,
    ``name`` and ``entry_id`` before these keys); a Superscrabble sheet adds ``invalid``
    and ``duplicates``."""

    score: int
    kind: str
    warnings: int
    solo: int
    reason: str
    ref: str | None
    word: str | None
    invalid: NotRequired[int]
    duplicates: NotRequired[int]


def result_dict(v: Verdict) -> ResultJSON:
    return {"score": int(v.score), "kind": str(v.kind), "warnings": int(v.warnings),
            "solo": int(v.solo), "reason": v.reason_fr, "ref": v.ref, "word": v.word}


def verdict_of(r: ResultJSON, player: str) -> Verdict:
    return Verdict(player=player, score=int(r["score"]), kind=cast(VerdictKind, r["kind"]),
                   warnings=int(r["warnings"]), reason_fr=r["reason"],
                   ref=r.get("ref"), word=r.get("word"), solo=int(r.get("solo", 0)))


__all__ = [
    "AnyBulletinJSON",
    "BilletJSON",
    "bulletin_dict",
    "bulletin_line",
    "bulletin_of",
    "BulletinJSON",
    "draw_dict",
    "draw_of",
    "DrawJSON",
    "move_dict",
    "move_of",
    "MoveJSON",
    "result_dict",
    "ResultJSON",
    "RoundDrawJSON",
    "RoundTopJSON",
    "ScoredJSON",
    "ScrabbleTopJSON",
    "SheetJSON",
    "solutions_of",
    "stored_move",
    "StoredMove",
    "TactiqueDrawJSON",
    "TactiqueTopJSON",
    "top_dict",
    "top_letters",
    "top_of",
    "TopJSON",
    "verdict_of",
]
