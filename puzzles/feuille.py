"""The feuille de route: a player's sheet (header fields and ordered moves), its tolerant
text format, its JSON form for programs, and the parser that never loses what it can read.

Text format (docs/PUZZLES.md has the full description)::

    Problème: frsc-2000-05
    Joueur: Ion Popescu
    Envoyé: 2000-05-12T18:55:00+03:00
    Coup | Lettres | Réf. | Mot | Score | Cumul
    1 ACEFHIR h8 FICHERA 82 82
    2 SUW 15f WUS 84 166

Fields may be separated by spaces, ``|``, ``;`` or tabs. A move line is: move number,
optional group (``G5``), letters used (``?`` for a joker), reference, word (joker as
lowercase, ``(X)`` or ``X0``), score, cumul — any of them may be missing; a reference may
also follow the word. ``Passe`` plays nothing; ``Annuler coup(s) 3, 5`` cancels earlier moves
before the next move's word. After a ``Scrabbles:`` line, lines are Superscrabble answers.

:func:`parse_feuille` returns a :class:`ParsedFeuille` (everything readable plus
line-numbered French errors); :func:`format_feuille` writes the canonical text, which parses
back to the same :class:`Feuille`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from scoring.errors import EngineError
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
            letters=_read_letters(d["letters"]) if d.get("letters") else None,
            score=_opt_int(d.get("score")),
            cumul=_opt_int(d.get("cumul")),
            group=_opt_int(d.get("group")),
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
            row=_read_letters(d["row"]) if d.get("row") is not None else None,
            groups=tuple(_read_letters(g) for g in d.get("groups", ())),
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


# --- helpers ----------------------------------------------------------------------------


def _opt_int(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise TypeError(f"nombre attendu, reçu {value!r}")
    return int(value)


def _fold(text: str) -> str:
    return "".join(fold_letter(c) for c in text).lower()


_LETTERS_RE = re.compile(r"^[A-Za-z?*]+$")


def _read_letters(text: str) -> str:
    """Letters used: uppercase, joker ``?`` (``*`` also accepted). An all-lowercase field is
    read as uppercase; in a mixed field a lowercase letter marks a joker."""
    s = "".join(fold_letter(c) for c in "".join(text.split()))
    if not _LETTERS_RE.match(s):
        raise ValueError(f"lettres illisibles « {text} »")
    mixed = any(c.isupper() for c in s) and any(c.islower() for c in s)
    return "".join("?" if c in "?*" or (mixed and c.islower()) else c.upper() for c in s)


_HEADER_RE = re.compile(r"^\s*([^\W\d_][^\W\d_ .'’-]*(?:[ .'’-]+[^\W\d_]+)*)\.?\s*[:=]\s*(.*)$")
_ANNUL_RE = re.compile(
    r"\bannul\w*(?:\s+(?:le|les))?\s+coups?(?:\(s\))?\s*(?:n[o°]s?\.?\s*)?:?\s*"
    r"(?P<nums>\d[\d\s,;&+.-]*(?:\s*et\s*\d+)*)\s*$"
)
_NUM_RE = re.compile(r"^[+-]?\d+$")
_GROUP_RE = re.compile(r"^(?:gr|gp|groupe|#)\.?\s*(\d{1,2})$", re.IGNORECASE)
# ``G5`` is also the reference G5: it is a group only right after the move number and when
# another reference follows on the line (or the line is a pass).
_G_GROUP_RE = re.compile(r"^[Gg](\d{1,2})$")
_UNITS = {"p", "p.", "pt", "pts", "pts.", "point", "points", "puncte", "="}
_PASS_WORDS = {"passe", "pass", "passé", "paso"}
_HEADER_KEYS = {
    "probleme": "problem",
    "problem": "problem",
    "enonce": "problem",
    "joueur": "player",
    "nom": "player",
    "player": "player",
    "jucator": "player",
    "envoye": "sent",
    "envoi": "sent",
    "envoye le": "sent",
    "date d'envoi": "sent",
    "rangee": "row",
    "groupes": "groups",
    "scrabbles": "scrabbles",
    "solutions": "scrabbles",
    "construction": "construction",
    "coups": "construction",
}
_SUMMARY_WORDS = {"total", "cumul", "score", "resultat", "points", "totaux"}
_COLUMN_WORDS = ("coup", "lettre", "ref", "mot", "score", "cumul", "groupe", "tirage")
_SPLIT_RE = re.compile(r"\s*[|;\t]\s*")


def _is_ref(token: str) -> bool:
    if not re.search(r"\d", token) or not re.search(r"[A-Oa-o]", token):
        return False
    try:
        parse_ref(token)
    except EngineError:
        return False
    return True


def _parse_groups(value: str) -> tuple[str, ...]:
    """``ABCD EFGHIJK ...``, ``1=ABCD 2=EFGHIJK`` or ``ABCD / EFGHIJK / ...``."""
    parts = [p for p in re.split(r"[\s/,;|]+", value.strip()) if p]
    numbered: dict[int, str] = {}
    plain: list[str] = []
    for p in parts:
        m = re.match(r"^(\d{1,2})\s*[=:.)]\s*(.+)$", p)
        if m:
            numbered[int(m.group(1))] = _read_letters(m.group(2))
        else:
            plain.append(_read_letters(p))
    if numbered and plain:
        raise ValueError("mélange de groupes numérotés et non numérotés")
    if numbered:
        if sorted(numbered) != list(range(1, len(numbered) + 1)):
            raise ValueError("les groupes doivent être numérotés à partir de 1 sans trou")
        return tuple(numbered[i] for i in range(1, len(numbered) + 1))
    return tuple(plain)


def _parse_sent(value: str) -> datetime:
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


def _merge_spaced_refs(tokens: list[str]) -> list[str]:
    """``H 8`` / ``8 H`` written with a space become one reference token, when a word
    follows (so that ``H`` alone is not read as letters)."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if i + 2 < len(tokens) and not any(
            _is_ref(x) and not _G_GROUP_RE.match(x) for x in tokens
        ):
            nxt = tokens[i + 1]
            joined = t + nxt
            later_alpha = any(re.search(r"[A-Za-z]{2}", x) for x in tokens[i + 2 :])
            single = (re.fullmatch(r"[A-Oa-o]", t) and re.fullmatch(r"\d{1,2}", nxt)) or (
                re.fullmatch(r"\d{1,2}", t) and re.fullmatch(r"[A-Oa-o]", nxt)
            )
            if single and later_alpha and _is_ref(joined):
                out.append(joined)
                i += 2
                continue
        out.append(t)
        i += 1
    return out


class _LineParser:
    """Reads one move line into a :class:`FeuilleMove` plus French error messages."""

    def __init__(self, line_no: int, text: str) -> None:
        self.line_no = line_no
        self.text = text
        self.errors: list[str] = []

    def parse(self, fallback_number: int, number_optional: bool = False) -> FeuilleMove | None:
        raw = self.text.strip()
        cells = [c for c in _SPLIT_RE.split(raw) if c] if _SPLIT_RE.search(raw) else None
        tokens = cells if cells is not None else _merge_spaced_refs(raw.split())
        if not tokens:
            return None
        number: int | None = None
        first = tokens[0].rstrip(".)")
        explicit_number = bool(re.fullmatch(r"\d{1,3}", first))
        if explicit_number:
            number = int(first)
            tokens = tokens[1:]
        group: int | None = None
        if tokens and _G_GROUP_RE.match(tokens[0].strip()) and any(
            _is_ref(t) or _fold(t.strip()) in _PASS_WORDS for t in tokens[1:]
        ):
            group = int(tokens[0].strip()[1:])
            tokens = tokens[1:]
        numbers: list[int | None] = []
        has_ref = any(_is_ref(t.strip()) for t in tokens)
        alphas_before: list[str] = []
        alphas_after: list[str] = []
        ref: str | None = None
        passed = False
        seen_text = False
        for pos, tok in enumerate(tokens):
            t = tok.strip()
            low = _fold(t)
            gm = _GROUP_RE.match(t.replace(" ", ""))
            if gm and not seen_text:
                if group is not None:
                    self.errors.append(f"deux numéros de groupe ({group} et {gm.group(1)}).")
                group = int(gm.group(1))
                continue
            if _NUM_RE.match(t):
                if seen_text:
                    numbers.append(int(t))
                elif group is None:
                    group = int(t)
                else:
                    self.errors.append(f"nombre inattendu « {t} » avant le mot.")
                continue
            if t in ("-", "–", "—"):
                rest = [x.strip() for x in tokens[pos + 1 :]]
                if seen_text and not numbers and len(rest) == 1 and _NUM_RE.match(rest[0]):
                    numbers.append(None)  # a score left blank before a written cumul
                continue  # otherwise a dash is a separator
            if (numbers and low in _UNITS) or (seen_text and t in ("=", "+")):
                continue
            if low in _PASS_WORDS and not has_ref:
                passed = True
                seen_text = True
                continue
            if ref is None and _is_ref(t):
                ref = format_ref(parse_ref(t))
                seen_text = True
                continue
            seen_text = True
            (alphas_after if ref is not None else alphas_before).append(t)
        if number is None:
            number = fallback_number
            if not number_optional and (ref is not None or alphas_before or alphas_after or passed):
                self.errors.append(f"numéro de coup manquant (lu comme le coup {number}).")
        letters_tok: str | None = None
        word_tok: str | None = None
        if passed:
            if alphas_before or alphas_after:
                self.errors.append("« Passe » ne s'accompagne d'aucun mot.")
        elif ref is not None:
            if len(alphas_before) > 2 or len(alphas_after) > 1 or (
                len(alphas_before) == 2 and alphas_after
            ):
                self.errors.append(
                    "trop de champs : attendu lettres, référence, mot, score, cumul."
                )
            if alphas_before and alphas_after:
                letters_tok, word_tok = alphas_before[0], alphas_after[-1]
            elif alphas_after:
                word_tok = alphas_after[0]
            elif len(alphas_before) >= 2:
                letters_tok, word_tok = alphas_before[0], alphas_before[1]
            elif alphas_before:
                word_tok = alphas_before[0]
            else:
                self.errors.append("mot manquant après la référence.")
        else:
            if len(alphas_before) >= 2:
                letters_tok, word_tok = alphas_before[0], alphas_before[1]
            elif alphas_before:
                word_tok = alphas_before[0]
            if word_tok is None and not numbers:
                self.errors.append(
                    "coup illisible : attendu numéro, lettres, référence (H8 ou 8H), mot, "
                    "score, cumul."
                )
            else:
                self.errors.append("référence manquante ou illisible (attendu par exemple H8 "
                                   "pour un mot horizontal, 8H pour un mot vertical).")
        letters: str | None = None
        if letters_tok is not None:
            try:
                letters = _read_letters(letters_tok)
            except ValueError:
                self.errors.append(
                    f"lettres utilisées « {letters_tok} » illisibles (attendu des lettres, "
                    "? pour un joker)."
                )
        word: str | None = None
        if word_tok is not None:
            if word_tok.isalpha() and word_tok.islower():
                word_tok = word_tok.upper()  # all lowercase is handwriting, not 7 jokers
            try:
                word = parse_word(word_tok)
            except EngineError as exc:
                self.errors.append(str(exc))
        score = numbers[0] if numbers else None
        cumul = numbers[1] if len(numbers) > 1 else None
        if len(numbers) > 2:
            self.errors.append(
                f"nombres en trop ({', '.join(str(n) for n in numbers[2:])}) : "
                "attendu seulement score et cumul."
            )
        if word is None and ref is None and not passed and not explicit_number:
            # nothing of a move could be read: one message says what a line should be
            self.errors = [
                f"ligne illisible « {self.text.strip()[:40]} » : attendu un coup (numéro, "
                "lettres, référence, mot, score, cumul) ou un en-tête (Joueur: …)."
            ]
            return None
        return FeuilleMove(
            number=number,
            ref=ref,
            word=word,
            letters=letters,
            score=score,
            cumul=cumul,
            group=group,
            passed=passed,
            line=self.line_no,
        )


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (RecursionError, ValueError):
        return False
    return True


def _annul_numbers(nums: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", nums))


def parse_feuille(text: str, *, superscrabble: bool = False) -> ParsedFeuille:
    """Read a sheet (text, or the JSON form when it starts with ``{``). Never raises.

    ``superscrabble``: every line is an answer of the Scrabbles list (a Superscrabble
    sheet is nothing else), so lines need no number."""
    head = text.lstrip()[:1]
    if head == "{" or (head == "[" and _is_json(text)):
        return parse_feuille_json(text)
    errors: list[LineError] = []
    moves: list[FeuilleMove] = []
    scrabbles: list[FeuilleMove] = []
    problem_id = player = row = None
    submitted: datetime | None = None
    groups: tuple[str, ...] = ()
    numbered_groups: dict[int, str] = {}
    extra: list[tuple[str, str]] = []
    in_scrabbles = superscrabble
    # An "Annuler coup(s)" line waits for the billet it belongs to: (line, number, moves).
    pending: list[tuple[int, int | None, tuple[int, ...]]] = []

    def err(line: int, message: str, raw: str) -> None:
        errors.append(LineError(line, message, raw))

    def add_move(m: FeuilleMove) -> None:
        nonlocal pending
        target = scrabbles if in_scrabbles else moves
        annul: list[int] = list(m.annul)
        keep: list[tuple[int, int | None, tuple[int, ...]]] = []
        for item in pending:
            if item[1] is None or item[1] == m.number:
                annul.extend(item[2])
            else:
                keep.append(item)
        for line, number, nums in keep:
            moves.append(FeuilleMove(number or m.number, annul=nums, line=line))
        pending = []
        if annul:
            m = FeuilleMove(
                m.number, m.ref, m.word, m.letters, m.score, m.cumul, m.group,
                tuple(annul), m.passed, m.line,
            )
        target.append(m)

    for line_no, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip().lstrip("\ufeff")
        if not line or line.startswith("#") or re.fullmatch(r"[-=_*|+ ]+", line):
            continue
        folded = _fold(line)
        am = _ANNUL_RE.search(folded)
        if am:
            nums = _annul_numbers(am.group("nums"))
            before = line[: am.start()].strip(" |;\t")
            if before and not re.fullmatch(r"\d{1,3}[.)]?", before):
                # a move written on the same line as its annulment
                lp = _LineParser(line_no, before)
                mv = lp.parse(len(moves) + 1)
                for msg in lp.errors:
                    err(line_no, msg, raw)
                if mv is not None:
                    pending.append((line_no, mv.number, nums))
                    add_move(mv)
                continue
            number = int(before.rstrip(".)")) if before else None
            pending.append((line_no, number, nums))
            continue
        gm = re.match(r"^\s*groupe\s*(\d{1,2})\s*[:=]\s*(.*)$", folded)
        if gm:
            value = re.split(r"[:=]", line, maxsplit=1)[1]
            try:
                numbered_groups[int(gm.group(1))] = _read_letters(value)
            except ValueError:
                err(line_no, f"groupe {gm.group(1)} illisible (attendu des lettres).", raw)
            continue
        hm = _HEADER_RE.match(line)
        if hm and not re.search(r"\d", hm.group(1)):
            key = _fold(hm.group(1)).strip()
            value = hm.group(2).strip()
            kind = _HEADER_KEYS.get(key)
            if kind == "problem":
                problem_id = value
            elif kind == "player":
                player = value
            elif kind == "sent":
                try:
                    submitted = _parse_sent(value)
                except ValueError:
                    err(
                        line_no,
                        f"date d'envoi « {value} » illisible (attendu par exemple "
                        "2000-05-12T18:55:00+03:00).",
                        raw,
                    )
            elif kind == "row":
                try:
                    row = _read_letters(value)
                except ValueError:
                    err(line_no, "rangée illisible (attendu des lettres, ? pour un joker).", raw)
            elif kind == "groups":
                try:
                    groups = _parse_groups(value)
                except ValueError as exc:
                    err(line_no, f"groupes illisibles : {exc}.", raw)
            elif kind == "scrabbles":
                in_scrabbles = True
            elif kind == "construction":
                in_scrabbles = False
            else:
                extra.append((hm.group(1).strip(), value))
            continue
        words = re.findall(r"[a-z]+", folded)
        if words and not re.search(r"\d", folded) and sum(
            any(w.startswith(c) for c in _COLUMN_WORDS) for w in words
        ) >= 2:
            continue  # the column titles: Coup | Lettres | Réf. | Mot | Score | Cumul
        first_word = folded.split()[0].strip(":.") if folded.split() else ""
        if first_word in _SUMMARY_WORDS and not any(_is_ref(t) for t in line.split()):
            extra.append((line.split()[0].strip(":."), line.split(None, 1)[1].strip(" :")
                          if len(line.split()) > 1 else ""))
            continue  # "TOTAL 166", "Cumul final 980": a summary, not a move
        lp = _LineParser(line_no, line)
        target = scrabbles if in_scrabbles else moves
        fallback = (target[-1].number + 1) if target else 1
        mv = lp.parse(fallback, number_optional=in_scrabbles)
        for msg in lp.errors:
            err(line_no, msg, raw)
        if mv is not None:
            add_move(mv)
    if pending:
        for line_no, number, nums in pending:
            if number is None and moves:
                last = moves[-1]
                moves[-1] = FeuilleMove(
                    last.number, last.ref, last.word, last.letters, last.score, last.cumul,
                    last.group, last.annul + nums, last.passed, last.line,
                )
            else:
                moves.append(FeuilleMove(number or 1, annul=nums, line=line_no))
    if numbered_groups:
        if groups:
            errors.append(LineError(0, "groupes donnés deux fois (« Groupes: » et « Groupe N: »)."))
        elif sorted(numbered_groups) != list(range(1, len(numbered_groups) + 1)):
            errors.append(LineError(0, "les groupes doivent être numérotés de 1 à 15 sans trou."))
        else:
            groups = tuple(numbered_groups[i] for i in range(1, len(numbered_groups) + 1))
    if not moves and not scrabbles:
        errors.append(LineError(0, "La feuille ne contient aucun coup lisible."))
    feuille = Feuille(
        moves=tuple(moves),
        scrabbles=tuple(scrabbles),
        problem_id=problem_id,
        player=player,
        submitted_at=submitted,
        row=row,
        groups=groups,
        extra=tuple(extra),
    )
    return ParsedFeuille(feuille, tuple(errors))


def _kind(value: object) -> str:
    """What a JSON value is, in French, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "vrai" if value else "faux"
    if isinstance(value, int | float):
        return f"le nombre {value}"
    if isinstance(value, str):
        return f"le texte « {value[:30]} »"
    if isinstance(value, list):
        return "une liste"
    return "un objet"


def _element_lines(text: str) -> dict[str, list[int]]:
    """The line of every element of the top-level ``moves`` and ``scrabbles`` arrays (the
    JSON decoder gives values, not positions). Empty when the text is not an object."""
    dec = json.JSONDecoder()
    ws = re.compile(r"\s*")
    out: dict[str, list[int]] = {}

    def line_of(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    def skip(pos: int) -> int:
        m = ws.match(text, pos)
        return m.end() if m else pos

    try:
        i = skip(0)
        if text[i] != "{":
            return {}
        i += 1
        while True:
            i = skip(i)
            if text[i] == "}":
                return out
            key, i = dec.raw_decode(text, i)
            i = skip(i)
            i += 1  # the colon
            i = skip(i)
            if key in ("moves", "scrabbles") and text[i] == "[":
                starts: list[int] = []
                i += 1
                while True:
                    i = skip(i)
                    if text[i] == "]":
                        i += 1
                        break
                    starts.append(line_of(i))
                    _, i = dec.raw_decode(text, i)
                    i = skip(i)
                    if text[i] == ",":
                        i += 1
                out[str(key)] = starts
            else:
                _, i = dec.raw_decode(text, i)
            i = skip(i)
            if text[i] == ",":
                i += 1
    except (IndexError, ValueError, RecursionError):
        return out


class _JsonReader:
    """Reads the JSON form field by field: a wrong value is a French error on its line and
    the field is left empty, as an unreadable cell of the text form."""

    MOVE_KEYS = frozenset(
        {"number", "group", "letters", "ref", "word", "score", "cumul", "passed", "annul", "line"}
    )
    HEAD_KEYS = frozenset(
        {"format", "version", "problem", "player", "submitted_at", "row", "groups", "extra",
         "moves", "scrabbles"}
    )

    def __init__(self) -> None:
        self.errors: list[LineError] = []

    def err(self, line: int, message: str) -> None:
        self.errors.append(LineError(line, message))

    def integer(self, value: object, line: int, where: str) -> int | None:
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
            return int(value)
        if isinstance(value, int) and not isinstance(value, bool):
            if abs(value) < 10**15:
                return value
        elif isinstance(value, str) and _NUM_RE.match(value.strip()) and len(value) < 16:
            return int(value.strip())
        self.err(line, f"{where} : nombre entier attendu, reçu {_kind(value)}.")
        return None

    def text_field(self, value: object, line: int, where: str) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str):
            self.err(line, f"{where} : texte attendu, reçu {_kind(value)}.")
            return None
        return value.strip() or None

    def move(self, item: object, line: int, where: str, fallback: int,
             number_optional: bool) -> FeuilleMove | None:
        if not isinstance(item, dict):
            self.err(line, f"{where} : un coup est un objet JSON ({{\"number\": 1, …}}), reçu "
                           f"{_kind(item)} ; coup ignoré.")
            return None
        for key in sorted(set(map(str, item)) - self.MOVE_KEYS):
            self.err(line, f"{where} : champ inconnu « {key[:30]} » ignoré.")
        number = self.integer(item.get("number"), line, f"{where}, numéro")
        letters_text = self.text_field(item.get("letters"), line, f"{where}, lettres")
        letters: str | None = None
        if letters_text is not None:
            try:
                letters = _read_letters(letters_text)
            except ValueError:
                self.err(line, f"{where} : lettres utilisées « {letters_text[:30]} » illisibles "
                               "(attendu des lettres, ? pour un joker).")
        ref: str | None = None
        ref_text = self.text_field(item.get("ref"), line, f"{where}, référence")
        if ref_text is not None:
            try:
                ref = format_ref(parse_ref(ref_text))
            except EngineError as exc:
                self.err(line, f"{where} : {exc}")
        word: str | None = None
        word_text = self.text_field(item.get("word"), line, f"{where}, mot")
        if word_text is not None:
            try:
                word = parse_word(word_text)
            except EngineError as exc:
                self.err(line, f"{where} : {exc}")
        score = self.integer(item.get("score"), line, f"{where}, score")
        cumul = self.integer(item.get("cumul"), line, f"{where}, cumul")
        group = self.integer(item.get("group"), line, f"{where}, groupe")
        passed_value = item.get("passed", False)
        passed = passed_value is True
        if not isinstance(passed_value, bool) and passed_value is not None:
            self.err(line, f"{where}, passe : vrai ou faux attendu, reçu {_kind(passed_value)}.")
        annul: list[int] = []
        raw_annul = item.get("annul")
        if raw_annul is not None:
            if not isinstance(raw_annul, list):
                self.err(line, f"{where}, annulation : liste de numéros de coups attendue, reçu "
                               f"{_kind(raw_annul)}.")
            else:
                for x in raw_annul:
                    n = self.integer(x, line, f"{where}, annulation")
                    if n is not None:
                        annul.append(n)
        line_value = item.get("line")
        own_line = line_value if isinstance(line_value, int) and not isinstance(
            line_value, bool) and 0 < line_value < 10**9 else line
        readable = any(v is not None for v in (word, ref, letters, score)) or passed or annul
        if number is None:
            if not readable:
                self.err(line, f"{where} : coup vide (ni numéro, ni mot, ni référence) ; ignoré.")
                return None
            if not number_optional:
                self.err(line, f"{where} : numéro de coup manquant (lu comme le coup {fallback}).")
            number = fallback
        return FeuilleMove(
            number=number, ref=ref, word=word, letters=letters, score=score, cumul=cumul,
            group=group, annul=tuple(annul), passed=passed, line=own_line,
        )

    def moves(self, data: dict[str, Any], key: str, lines: list[int]) -> list[FeuilleMove]:
        items = data.get(key, [])
        label = "coups" if key == "moves" else "scrabbles"
        if items is None:
            return []
        if not isinstance(items, list):
            self.err(1, f"« {key} » : la liste des {label} est attendue ([…]), reçu "
                        f"{_kind(items)}.")
            return []
        out: list[FeuilleMove] = []
        for i, item in enumerate(items, start=1):
            line = lines[i - 1] if i - 1 < len(lines) else 0
            fallback = (out[-1].number + 1) if out else 1
            mv = self.move(item, line, f"{key}[{i}]", fallback, key == "scrabbles")
            if mv is not None:
                out.append(mv)
        return out

    def head(self, data: dict[str, Any]) -> Feuille:
        line = 1  # header fields are reported on the sheet's first line
        fmt = data.get("format")
        if fmt is not None and fmt != FORMAT_NAME:
            self.err(line, f"format {_kind(fmt)} inconnu (attendu « {FORMAT_NAME} »).")
        for key in sorted(set(map(str, data)) - self.HEAD_KEYS):
            self.err(line, f"champ inconnu « {key[:30]} » ignoré.")
        raw_problem = data.get("problem")
        problem_id = (str(raw_problem) if isinstance(raw_problem, int | str)
                      and not isinstance(raw_problem, bool) else
                      self.text_field(raw_problem, line, "problème"))
        player = self.text_field(data.get("player"), line, "joueur")
        submitted: datetime | None = None
        sent = self.text_field(data.get("submitted_at"), line, "date d'envoi")
        if sent is not None:
            try:
                submitted = _parse_sent(sent)
            except (ValueError, OverflowError):
                self.err(line, f"date d'envoi « {sent[:40]} » illisible (attendu par exemple "
                               "2000-05-12T18:55:00+03:00).")
        row: str | None = None
        row_text = self.text_field(data.get("row"), line, "rangée")
        if row_text is not None:
            try:
                row = _read_letters(row_text)
            except ValueError:
                self.err(line, "rangée illisible (attendu des lettres, ? pour un joker).")
        groups: tuple[str, ...] = ()
        raw_groups = data.get("groups")
        if isinstance(raw_groups, str):
            try:
                groups = _parse_groups(raw_groups)
            except ValueError as exc:
                self.err(line, f"groupes illisibles : {exc}.")
        elif isinstance(raw_groups, list):
            try:
                if not all(isinstance(g, str) for g in raw_groups):
                    raise ValueError("chaque groupe est un texte de lettres")
                groups = tuple(_read_letters(g) for g in raw_groups)
            except ValueError as exc:
                self.err(line, f"groupes illisibles : {exc}.")
        elif raw_groups is not None:
            self.err(line, f"groupes : liste de textes attendue, reçu {_kind(raw_groups)}.")
        extra: list[tuple[str, str]] = []
        raw_extra = data.get("extra")
        if isinstance(raw_extra, list):
            for pair in raw_extra:
                if isinstance(pair, list) and len(pair) == 2 and all(
                    isinstance(x, str | int | float) for x in pair
                ):
                    extra.append((str(pair[0]), str(pair[1])))
                else:
                    self.err(line, f"extra : paire [clé, valeur] attendue, reçu {_kind(pair)}.")
        elif raw_extra is not None:
            self.err(line, f"extra : liste de paires attendue, reçu {_kind(raw_extra)}.")
        return Feuille(problem_id=problem_id, player=player, submitted_at=submitted, row=row,
                       groups=groups, extra=tuple(extra))


def parse_feuille_json(text: str) -> ParsedFeuille:
    """Read the JSON form (never raises). Wrong types anywhere give line-numbered French
    errors, as in the text form, and the field is read as empty: an empty ``letters`` is an
    empty cell, and the move is still judged."""
    from puzzles.problem import french_json_error

    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return ParsedFeuille(Feuille(), (LineError(
            exc.lineno, f"JSON illisible ({french_json_error(exc)}), colonne {exc.colno}."),))
    except (RecursionError, ValueError):
        return ParsedFeuille(Feuille(), (LineError(
            0, "JSON illisible (trop imbriqué ou nombre trop long)."),))
    if not isinstance(data, dict):
        return ParsedFeuille(Feuille(), (LineError(
            1, f"Une feuille JSON est un objet ({{\"moves\": […]}}), reçu {_kind(data)}."),))
    reader = _JsonReader()
    lines = _element_lines(text)
    moves = reader.moves(data, "moves", lines.get("moves", []))
    scrabbles = reader.moves(data, "scrabbles", lines.get("scrabbles", []))
    head = reader.head(data)
    feuille = Feuille(
        tuple(moves), tuple(scrabbles), head.problem_id, head.player, head.submitted_at,
        head.row, head.groups, head.extra,
    )
    errors = reader.errors
    if not moves and not scrabbles:
        errors.append(LineError(0, "La feuille ne contient aucun coup lisible."))
    return ParsedFeuille(feuille, tuple(errors))


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
