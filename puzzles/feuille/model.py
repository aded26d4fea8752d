"""The feuille de route's types and canonical forms.

Owns :class:`FeuilleMove` (one line), :class:`Feuille` (a whole sheet), :class:`LineError`
and :class:`ParsedFeuille` (what a parser returns), the JSON form of the types
(``to_dict``/``from_dict``/``to_json``, format ``arbitre-feuille`` version 1), the canonical
text (:func:`format_feuille`, read back identically by :func:`puzzles.feuille.parse_feuille`)
and the cell readers both parsers share (letters, numbers, groups, the sending time).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from scoring.notation import fold_letter, format_ref, format_word, parse_ref, parse_word

FORMAT_NAME = "arbitre-feuille"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class FeuilleMove:
    """One line of the sheet (one word, or a pass, or an annulment alone).

    ``ref`` is canonical (``H8``/``8H``); ``word`` canonical (uppercase, joker lowercase);
    ``letters`` the letters the player says he used (uppercase, joker ``?``). ``annul`` lists
    the earlier moves this billet cancels, before its word is placed. In Anticipation, move 1
    may have two lines with the same number (group 1 first). ``line`` is where it was read.
    """

    number: int
    ref: str | None = None
    word: str | None = None
    letters: str | None = None
    score: int | None = None
    cumul: int | None = None
    group: int | None = None
    annul: tuple[int, ...] = ()
    passed: bool = False
    line: int = field(default=0, compare=False)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"number": self.number}
        for key in ("group", "letters", "ref", "word", "score", "cumul"):
            value = getattr(self, key)
            if value is not None:
                d[key] = value
        if self.passed:
            d["passed"] = True
        if self.annul:
            d["annul"] = list(self.annul)
        if self.line:
            d["line"] = self.line
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FeuilleMove:
        return cls(
            number=int(d["number"]),
            ref=format_ref(parse_ref(d["ref"])) if d.get("ref") is not None else None,
            word=parse_word(d["word"]) if d.get("word") is not None else None,
            letters=read_letters(d["letters"]) if d.get("letters") else None,
            score=opt_int(d.get("score")),
            cumul=opt_int(d.get("cumul")),
            group=opt_int(d.get("group")),
            annul=tuple(int(x) for x in d.get("annul", ())),
            passed=bool(d.get("passed", False)),
            line=int(d.get("line", 0)),
        )


@dataclass(frozen=True)
class Feuille:
    """A whole sheet. ``groups`` is an Anticipation aveugle player's own 15 groups
    (``groups[0]`` is group 1); ``row`` the rangée he copied; ``scrabbles`` the Superscrabble
    answers (and, in Superscrabble incomplet, ``moves`` is the construction)."""

    moves: tuple[FeuilleMove, ...] = ()
    scrabbles: tuple[FeuilleMove, ...] = ()
    problem_id: str | None = None
    player: str | None = None
    submitted_at: datetime | None = None
    row: str | None = None
    groups: tuple[str, ...] = ()
    extra: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"format": FORMAT_NAME, "version": FORMAT_VERSION}
        if self.problem_id is not None:
            d["problem"] = self.problem_id
        if self.player is not None:
            d["player"] = self.player
        if self.submitted_at is not None:
            d["submitted_at"] = self.submitted_at.isoformat()
        if self.row is not None:
            d["row"] = self.row
        if self.groups:
            d["groups"] = list(self.groups)
        if self.extra:
            d["extra"] = [list(kv) for kv in self.extra]
        d["moves"] = [m.to_dict() for m in self.moves]
        if self.scrabbles:
            d["scrabbles"] = [m.to_dict() for m in self.scrabbles]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Feuille:
        sub = d.get("submitted_at")
        return cls(
            moves=tuple(FeuilleMove.from_dict(m) for m in d.get("moves", ())),
            scrabbles=tuple(FeuilleMove.from_dict(m) for m in d.get("scrabbles", ())),
            problem_id=d.get("problem"),
            player=d.get("player"),
            submitted_at=datetime.fromisoformat(sub) if sub else None,
            row=read_letters(d["row"]) if d.get("row") is not None else None,
            groups=tuple(read_letters(g) for g in d.get("groups", ())),
            extra=tuple((str(k), str(v)) for k, v in d.get("extra", ())),
        )

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2) + "\n"

    def to_text(self) -> str:
        return format_feuille(self)


@dataclass(frozen=True)
class LineError:
    """A problem found on one line (1-based; 0 for the sheet as a whole)."""

    line: int
    message: str
    text: str = ""

    def __str__(self) -> str:
        return f"Ligne {self.line} : {self.message}" if self.line else self.message


@dataclass(frozen=True)
class ParsedFeuille:
    """Everything readable in a sheet, and the errors (the caller keeps the raw text)."""

    feuille: Feuille
    errors: tuple[LineError, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.errors


# --- cell readers shared by the text and JSON forms ---------------------------------


def opt_int(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise TypeError(f"nombre attendu, reçu {value!r}")
    return int(value)


_LETTERS_RE = re.compile(r"^[A-Za-z?*]+$")


def read_letters(text: str) -> str:
    """Letters used: uppercase, joker ``?`` (``*`` also accepted). An all-lowercase field is
    read as uppercase; in a mixed field a lowercase letter marks a joker."""
    s = "".join(fold_letter(c) for c in "".join(text.split()))
    if not _LETTERS_RE.match(s):
        raise ValueError(f"lettres illisibles « {text} »")
    mixed = any(c.isupper() for c in s) and any(c.islower() for c in s)
    return "".join("?" if c in "?*" or (mixed and c.islower()) else c.upper() for c in s)


NUM_RE = re.compile(r"^[+-]?\d+$")


def parse_groups(value: str) -> tuple[str, ...]:
    """``ABCD EFGHIJK ...``, ``1=ABCD 2=EFGHIJK`` or ``ABCD / EFGHIJK / ...``."""
    parts = [p for p in re.split(r"[\s/,;|]+", value.strip()) if p]
    numbered: dict[int, str] = {}
    plain: list[str] = []
    for p in parts:
        m = re.match(r"^(\d{1,2})\s*[=:.)]\s*(.+)$", p)
        if m:
            numbered[int(m.group(1))] = read_letters(m.group(2))
        else:
            plain.append(read_letters(p))
    if numbered and plain:
        raise ValueError("mélange de groupes numérotés et non numérotés")
    if numbered:
        if sorted(numbered) != list(range(1, len(numbered) + 1)):
            raise ValueError("les groupes doivent être numérotés à partir de 1 sans trou")
        return tuple(numbered[i] for i in range(1, len(numbered) + 1))
    return tuple(plain)


def parse_sent(value: str) -> datetime:
    v = value.strip()
    if "[" in v:
        from puzzles.problem import ProblemError, parse_deadline

        try:
            return parse_deadline(v)
        except ProblemError as exc:
            raise ValueError(str(exc)) from None
    fr = re.fullmatch(
        r"(\d{1,2})[/.](\d{1,2})[/.](\d{4})(?:[ ,à]+(\d{1,2})[:h](\d{2})(?::(\d{2}))?)?", v
    )
    if fr:
        # French handwriting, 12/05/2000 18h55: no zone, read like any naive time
        d, mo, y, h, mi, sec = (int(x) if x else 0 for x in fr.groups())
        return datetime(y, mo, d, h, mi, sec)
    return datetime.fromisoformat(v.replace("Z", "+00:00"))


# --- the canonical text ----------------------------------------------------------------


def _format_move(m: FeuilleMove) -> list[str]:
    lines: list[str] = []
    if m.annul:
        lines.append(f"{m.number} Annuler coups {', '.join(map(str, m.annul))}")
    if m.word is None and not m.passed and m.ref is None:
        if not m.annul:
            lines.append(f"{m.number}")
        return lines
    cells = [str(m.number)]
    if m.group is not None:
        cells.append(f"G{m.group}")
    if m.passed:
        cells.append("Passe")
    else:
        if m.letters:
            cells.append(m.letters)
        if m.ref is not None:
            cells.append(m.ref)
        if m.word is not None:
            # an all-joker word would read back as lowercase handwriting
            mixed = any(c.isupper() for c in m.word)
            cells.append(m.word if mixed else format_word(m.word, "paren"))
    if m.score is not None:
        cells.append(str(m.score))
        if m.cumul is not None:
            cells.append(str(m.cumul))
    elif m.cumul is not None:
        cells.append("-")
        cells.append(str(m.cumul))
    lines.append(" | ".join(cells))
    return lines


def format_feuille(feuille: Feuille) -> str:
    """The canonical text of a sheet (what :func:`parse_feuille` reads back identically)."""
    out: list[str] = []
    if feuille.problem_id is not None:
        out.append(f"Problème: {feuille.problem_id}")
    if feuille.player is not None:
        out.append(f"Joueur: {feuille.player}")
    if feuille.submitted_at is not None:
        out.append(f"Envoyé: {feuille.submitted_at.isoformat()}")
    if feuille.row is not None:
        out.append(f"Rangée: {feuille.row}")
    if feuille.groups:
        out.append(
            "Groupes: " + " ".join(f"{i}={g}" for i, g in enumerate(feuille.groups, start=1))
        )
    for key, value in feuille.extra:
        out.append(f"{key}: {value}")
    has_groups = any(m.group is not None for m in (*feuille.moves, *feuille.scrabbles))
    out.append("Coup | Groupe | Lettres | Réf. | Mot | Score | Cumul" if has_groups
               else "Coup | Lettres | Réf. | Mot | Score | Cumul")
    for m in feuille.moves:
        out.extend(_format_move(m))
    if feuille.scrabbles:
        out.append("Scrabbles:")
        for m in feuille.scrabbles:
            out.extend(_format_move(m))
    return "\n".join(out) + "\n"
