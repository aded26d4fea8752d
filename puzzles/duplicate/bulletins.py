"""The Duplicate's bulletin (RULES §4.7, S1 5.3): :class:`Bulletin` and
:class:`RaccordLetter`, :func:`parse_bulletin` for every written form (reference, word,
score; the raccord before the word, the extension alone, placed letters ``LETTER@dx,dy``, the
``(vertical)`` / ``↓`` mark, several solutions) with line-numbered French reasons, and the
tokens' helpers the variants' parsers share (:func:`is_number`, :func:`score_error`,
:data:`PLUS_SEPARATOR_RE`…). Imports nothing of the package."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import NamedTuple

from scoring.errors import EngineError
from scoring.layout import SIZE
from scoring.notation import format_ref, parse_ref, parse_word


class RaccordLetter(NamedTuple):
    """A raccord letter copied where it stands on the grid (S1 4.3.1): ``dx`` squares to the
    right of the word's first letter (negative: to its left), ``dy`` squares below it
    (negative: above). Written ``R@+1,0`` on the bulletin line (docs/DUPLICATE.md)."""

    letter: str
    dx: int
    dy: int

    def notation(self) -> str:
        def signed(v: int) -> str:
            return f"{v:+d}" if v else "0"

        return f"{self.letter}@{signed(self.dx)},{signed(self.dy)}"


#: the bulletin's mark for a word written downwards (S1 5.3.1 a, « dans le même sens que
#: celui où il est écrit sur le bulletin »); ``↓`` is read the same
VERTICAL_MARK = "(vertical)"
_VERTICAL_MARKS = frozenset({VERTICAL_MARK, "↓"})
#: ``R@+1,0`` (coordinates up to two digits; the spaces a mail may put around ``@`` and the
#: comma are closed up before the line is split)
_PLACED_RE = re.compile(r"^([A-Za-z])@([+-]?\d{1,2}),([+-]?\d{1,2})$")
_PLACED_SPACES_RE = re.compile(r"\s*@\s*([+-]?\d{1,2})\s*[,;]\s*(?=[+-]?\d)")


@dataclass(frozen=True)
class Bulletin:
    """One player's answer for a round: the word (canonical, joker lowercase), an
    alphanumeric ``ref`` and/or raccord letters (uppercase): ``raccord`` a straight run of
    grid letters (``MEN``), ``raccord_at`` letters at their places relative to the word's
    first letter (``R@+1,0 M@+3,0 O@+1,+1``); the claimed score. ``vertical``: the word is
    written downwards on the bulletin (:data:`VERTICAL_MARK`)."""

    player: str
    word: str
    ref: str | None = None
    raccord: str | None = None
    claimed: int | None = None
    received_at: datetime | None = None
    #: further solutions written on the same bulletin (S1 5.6), ``A / B`` on the line
    alternatives: tuple[Bulletin, ...] = ()
    #: raccord letters copied where they stand (S1 4.3.1), in the order written
    raccord_at: tuple[RaccordLetter, ...] = ()
    #: the word is written downwards (S1 4.2.2 « de haut en bas »); False: on one line. The
    #: direction a wrong or absent reference's places are looked for in (S1 5.3.1 a)
    vertical: bool = False

    @property
    def raccord_text(self) -> str | None:
        """The raccord as written in either form (for messages), None without one."""
        if self.raccord_at:
            return " ".join(r.notation() for r in self.raccord_at)
        return self.raccord

    def to_text(self) -> str:
        mark = VERTICAL_MARK if self.vertical else None
        parts = [p for p in (mark, self.ref, self.raccord_text, self.word) if p]
        if self.claimed is not None:
            parts.append(str(self.claimed))
        return " / ".join([" ".join(parts), *(a.to_text() for a in self.alternatives)])


#: the most digits a written score may have (a Duplicate move scores well under 10,000)
MAX_SCORE_DIGITS = 4


def is_number(token: str) -> bool:
    """ASCII digits only: ``str.isdigit`` also takes « ² » or « ٣ », which ``int`` refuses
    or reads as another number."""
    return token.isascii() and token.isdigit()


def score_error(token: str) -> str | None:
    """A French reason when a written number is too long to be a score, else None."""
    if len(token) > MAX_SCORE_DIGITS:
        shown = token if len(token) <= 12 else f"{token[:12]}…"
        return f"Score « {shown} » : au plus {MAX_SCORE_DIGITS} chiffres."
    return None


def _is_ref(token: str) -> bool:
    if not token.isascii():
        return False
    if not any(ch.isdigit() for ch in token) or not any(ch.isalpha() for ch in token):
        return False
    try:
        parse_ref(token)
    except EngineError:
        return False
    return True


def parse_bulletin(
    text: str, *, player: str = "", received_at: datetime | None = None
) -> Bulletin | list[str]:
    """Read one line: an optional reference (``H4`` horizontal, ``4H`` vertical), optional
    raccord letters (a straight run before the word, or letters at their places
    ``LETTER@dx,dy``), the word (joker in lowercase, in parentheses or followed by 0), the
    claimed score, and :data:`VERTICAL_MARK` for a word written downwards — e.g.
    ``H4 RESTAIt 70``, ``4H RESTAIt 70``, ``MEN PROMENERAI 72``,
    ``R@+1,0 M@+3,0 O@+1,+1 KRUMPS 24``, ``(vertical) MEN PROMENERAI 72``. Returns a list of
    French errors when the line cannot be read."""
    if "/" in text:
        parts = text.split("/")
        parsed = [parse_bulletin(p, player=player, received_at=received_at) for p in parts]
        part_errors = [e for p in parsed if isinstance(p, list) for e in p]
        if part_errors:
            return part_errors
        sols = [p for p in parsed if isinstance(p, Bulletin)]
        scores = {b.claimed for b in sols if b.claimed is not None}
        if len(scores) == 1:  # one score written for all the solutions
            sols = [replace(b, claimed=next(iter(scores))) for b in sols]
        return replace(sols[0], alternatives=tuple(sols[1:]))
    tokens = close_placed_spaces(text).split()
    if not tokens:
        return ["Bulletin vide : écrivez la référence, le mot et le score (ex. « H4 RESTAIt 70 »)."]
    errors: list[str] = []
    ref: str | None = None
    claimed: int | None = None
    words: list[str] = []
    placed: list[RaccordLetter] = []
    vertical = False
    for tok in tokens:
        if tok.lower() in _VERTICAL_MARKS:
            vertical = True
        elif "@" in tok:
            letter = _placed_letter(tok, placed)
            if isinstance(letter, str):
                errors.append(letter)
            else:
                placed.append(letter)
        elif is_number(tok):
            too_long = score_error(tok)
            if too_long:
                errors.append(too_long)
                continue
            if claimed is not None:
                errors.append(f"Deux scores sur le bulletin : {claimed} et {tok}.")
            claimed = int(tok)
        elif _is_ref(tok):
            if ref is not None:
                errors.append(f"Deux références sur le bulletin : {ref} et {tok}.")
            ref = format_ref(parse_ref(tok))
        else:
            try:
                words.append(parse_word(tok))
            except EngineError:
                errors.append(f"« {tok} » n'est ni une référence (H4, 4H), ni un mot, ni un score.")
    if not words and not errors:
        errors.append("Le mot joué manque.")
    if len(words) > 2:
        errors.append(
            f"Trop de mots ({', '.join(words)}) : écrivez au plus le raccord puis le mot joué."
        )
    raccord: str | None = None
    if len(words) == 2:
        raccord = words[0].upper()
        if len(raccord) < 2:
            errors.append(f"Raccord « {raccord} » : trois lettres de raccord au minimum.")
    if placed and not errors:
        errors.extend(_placed_errors(placed, raccord, words[-1] if words else None))
    if errors:
        return errors
    return Bulletin(
        player, words[-1], ref, raccord, claimed, received_at,
        raccord_at=tuple(placed), vertical=vertical,
    )


def close_placed_spaces(text: str) -> str:
    """``text`` with the spaces a mail puts in a placed raccord letter closed up (``R @ +1 ,
    0`` → ``R@+1,0``, ``;`` for the comma), so that it is one token."""
    return _PLACED_SPACES_RE.sub(r"@\1,", text)


#: a ``+`` that separates (the Tactique's two words), not the sign of an offset (``@+1``,
#: ``,+1``)
PLUS_SEPARATOR_RE = re.compile(r"(?<![@,])\+")


def _placed_letter(tok: str, placed: Sequence[RaccordLetter]) -> RaccordLetter | str:
    """One ``LETTER@dx,dy`` token, or the French reason it cannot be read."""
    m = _PLACED_RE.match(tok)
    if m is None:
        return (
            f"« {tok} » : une lettre de raccord à sa place s'écrit LETTRE@colonnes,lignes "
            "comptées depuis la première lettre du mot (ex. « O@+1,+1 » : une case à droite, "
            "une case plus bas)."
        )
    letter = RaccordLetter(m.group(1).upper(), int(m.group(2)), int(m.group(3)))
    if max(abs(letter.dx), abs(letter.dy)) >= SIZE:
        return f"« {tok} » : la lettre de raccord tombe hors de la grille."
    same = next((p for p in placed if (p.dx, p.dy) == (letter.dx, letter.dy)), None)
    if same is not None:
        return (
            f"« {tok} » : la case {letter.notation()[2:]} porte déjà la lettre de raccord "
            f"{same.letter}."
        )
    return letter


def _placed_errors(
    placed: Sequence[RaccordLetter], raccord: str | None, word: str | None
) -> list[str]:
    """What is wrong with a whole raccord written letter by letter (S1 4.3.1)."""
    errors: list[str] = []
    if raccord is not None:
        errors.append(
            f"Raccord écrit de deux façons ({raccord} et {placed[0].notation()}) : écrivez "
            "soit les lettres suivies avant le mot, soit chaque lettre à sa place."
        )
    elif len(placed) < 2:
        errors.append(
            f"Raccord « {placed[0].notation()} » : trois lettres de raccord au minimum."
        )
    origin = next((p for p in placed if (p.dx, p.dy) == (0, 0)), None)
    if origin is not None and word and origin.letter != word[0].upper():
        errors.append(
            f"« {origin.notation()} » : la case 0,0 est celle de la première lettre du mot "
            f"({word[0].upper()}), pas {origin.letter}."
        )
    return errors


