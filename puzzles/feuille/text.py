"""The tolerant text parser of the feuille de route (the format is described in
:mod:`puzzles.feuille` and docs/PUZZLES.md).

Owns :func:`parse_feuille_text`: header fields, move lines in any column order and
separator, passes, annulments, the Superscrabble answers, summary lines; everything readable
is kept and every unreadable line becomes a line-numbered French :class:`LineError`.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime

from puzzles.feuille.model import (
    NUM_RE,
    Feuille,
    FeuilleMove,
    LineError,
    ParsedFeuille,
    parse_groups,
    parse_sent,
    read_letters,
)
from scoring.errors import EngineError
from scoring.notation import fold_letter, format_ref, is_ref, parse_ref, parse_word


def _fold(text: str) -> str:
    if text.isascii():  # fold_letter leaves ASCII as it is
        return text.lower()
    return "".join(fold_letter(c) for c in text).lower()


_HEADER_RE = re.compile(r"^\s*([^\W\d_][^\W\d_ .'’-]*(?:[ .'’-]+[^\W\d_]+)*)\.?\s*[:=]\s*(.*)$")
# French « Annuler coup(s) 3, 5 » or Romanian « Anulez mutarea 3 » / « Anulez mutările 3 și 5 »
# (folded: no diacritics)
_ANNUL_RE = re.compile(
    r"\b(?:annul\w*(?:\s+(?:le|les))?\s+coups?(?:\(s\))?|anul\w*\s+mutar\w*)"
    r"\s*(?:n[o°r]s?\.?\s*)?:?\s*"
    r"(?P<nums>\d[\d\s,;&+.-]*(?:\s*(?:et|si)\s*\d+)*)\s*$"
)
_GROUP_RE = re.compile(r"^(?:gr|gp|groupe|#)\.?\s*(\d{1,2})$", re.IGNORECASE)
# ``G5`` is also the reference G5: it is a group only right after the move number and when
# another reference follows on the line (or the line is a pass).
_G_GROUP_RE = re.compile(r"^[Gg](\d{1,2})$")
_UNITS = {"p", "p.", "pt", "pts", "pts.", "point", "points", "puncte", "="}
# « Pas » is the Romanian sheet's pass
_PASS_WORDS = {"passe", "pass", "passé", "paso", "pas"}
_HEADER_KEYS = {
    "probleme": "problem",
    "problem": "problem",
    "enonce": "problem",
    "joueur": "player",
    "nom": "player",
    "player": "player",
    "jucator": "player",
    "problema": "problem",
    "grupuri": "groups",
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
# column titles, French and Romanian (« Mutarea | Litere | Ref. | Cuvânt | Scor | Cumul »)
_COLUMN_WORDS = ("coup", "lettre", "ref", "mot", "score", "cumul", "groupe", "tirage",
                 "mutar", "liter", "cuvant", "scor", "grup")
_SPLIT_RE = re.compile(r"\s*[|;\t]\s*")


def _merge_spaced_refs(tokens: list[str]) -> list[str]:
    """``H 8`` / ``8 H`` written with a space become one reference token, when a word
    follows (so that ``H`` alone is not read as letters)."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if i + 2 < len(tokens) and not any(
            is_ref(x) and not _G_GROUP_RE.match(x) for x in tokens
        ):
            nxt = tokens[i + 1]
            joined = t + nxt
            later_alpha = any(re.search(r"[A-Za-z]{2}", x) for x in tokens[i + 2 :])
            single = (re.fullmatch(r"[A-Oa-o]", t) and re.fullmatch(r"\d{1,2}", nxt)) or (
                re.fullmatch(r"\d{1,2}", t) and re.fullmatch(r"[A-Oa-o]", nxt)
            )
            if single and later_alpha and is_ref(joined):
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
            is_ref(t) or _fold(t.strip()) in _PASS_WORDS for t in tokens[1:]
        ):
            group = int(tokens[0].strip()[1:])
            tokens = tokens[1:]
        numbers: list[int | None] = []
        has_ref = any(is_ref(t.strip()) for t in tokens)
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
            if NUM_RE.match(t):
                if seen_text:
                    numbers.append(int(t))
                elif group is None:
                    group = int(t)
                else:
                    self.errors.append(f"nombre inattendu « {t} » avant le mot.")
                continue
            if t in ("-", "–", "—"):
                rest = [x.strip() for x in tokens[pos + 1 :]]
                if seen_text and not numbers and len(rest) == 1 and NUM_RE.match(rest[0]):
                    numbers.append(None)  # a score left blank before a written cumul
                continue  # otherwise a dash is a separator
            if (numbers and low in _UNITS) or (seen_text and t in ("=", "+")):
                continue
            if low in _PASS_WORDS and not has_ref:
                passed = True
                seen_text = True
                continue
            if ref is None and is_ref(t):
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
                letters = read_letters(letters_tok)
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


def _annul_numbers(nums: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", nums))


def parse_feuille_text(text: str, *, superscrabble: bool = False) -> ParsedFeuille:
    """Read a sheet in the text form. Never raises.

    ``superscrabble``: every line is an answer of the Scrabbles list (a Superscrabble
    sheet is nothing else), so lines need no number."""
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
            m = replace(m, annul=tuple(annul))
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
                numbered_groups[int(gm.group(1))] = read_letters(value)
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
                    submitted = parse_sent(value)
                except ValueError:
                    err(
                        line_no,
                        f"date d'envoi « {value} » illisible (attendu par exemple "
                        "2000-05-12T18:55:00+03:00).",
                        raw,
                    )
            elif kind == "row":
                try:
                    row = read_letters(value)
                except ValueError:
                    err(line_no, "rangée illisible (attendu des lettres, ? pour un joker).", raw)
            elif kind == "groups":
                try:
                    groups = parse_groups(value)
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
        if first_word in _SUMMARY_WORDS and not any(is_ref(t) for t in line.split()):
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
                moves[-1] = replace(last, annul=last.annul + nums)
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
