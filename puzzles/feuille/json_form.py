"""The JSON form of the feuille de route, read for programs.

Owns :func:`parse_feuille_json`: field by field, a wrong type is a line-numbered French
:class:`LineError` and the field is read as empty, as an unreadable cell of the text form
(the lines of the ``moves`` and ``scrabbles`` elements are found in the raw text).
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from puzzles.feuille.model import (
    FORMAT_NAME,
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
from scoring.notation import format_ref, parse_ref, parse_word


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
        elif isinstance(value, str) and NUM_RE.match(value.strip()) and len(value) < 16:
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
                letters = read_letters(letters_text)
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
                submitted = parse_sent(sent)
            except (ValueError, OverflowError):
                self.err(line, f"date d'envoi « {sent[:40]} » illisible (attendu par exemple "
                               "2000-05-12T18:55:00+03:00).")
        row: str | None = None
        row_text = self.text_field(data.get("row"), line, "rangée")
        if row_text is not None:
            try:
                row = read_letters(row_text)
            except ValueError:
                self.err(line, "rangée illisible (attendu des lettres, ? pour un joker).")
        groups: tuple[str, ...] = ()
        raw_groups = data.get("groups")
        if isinstance(raw_groups, str):
            try:
                groups = parse_groups(raw_groups)
            except ValueError as exc:
                self.err(line, f"groupes illisibles : {exc}.")
        elif isinstance(raw_groups, list):
            try:
                if not all(isinstance(g, str) for g in raw_groups):
                    raise ValueError("chaque groupe est un texte de lettres")
                groups = tuple(read_letters(g) for g in raw_groups)
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
