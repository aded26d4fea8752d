"""Problems: the game types of the FRSc originals (composition, anticipation and their
variants) and the :class:`Problem` value that describes one instance, with its JSON file form.

A problem names its tile set (``fr``/``ro``), the lexicon it is judged with (name, and once
published its sha256 and word count), its time limit, its deadline (an instant with its IANA
time zone) and the letters the game needs (stock, row, groups, pool, board, rack). The file
format is documented in docs/PUZZLES.md; :func:`load_problem` reads it with French errors.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from puzzles.families import FAMILIES
from puzzles.families import GameType as GameType  # defined there, known by this name
from puzzles.settings import DEFAULT_WARNING_PENALTY_FROM
from scoring.board import Board
from scoring.errors import CGPError
from scoring.tiles import JOKER, TileSet, tileset

FORMAT_NAME = "arbitre-probleme"
FORMAT_VERSION = 1


GAME_LABELS: dict[GameType, str] = {g: f.label for g, f in FAMILIES.items()}

ANTICIPATION_FAMILY = frozenset(g for g, f in FAMILIES.items() if f.anticipation)


def partiel_minutes(n: int) -> int:
    """Time for an Intégral partiel of ``n`` letters (RULES §7.2)."""
    if n <= 25:
        return 60
    if n <= 30:
        return 75
    return 90


def rangee_minutes(n: int) -> int:
    """Time for a rangée of ``n`` letters (RULES §7.3)."""
    if n <= 35:
        return 60
    if n <= 40:
        return 75
    return 90


def first_group_size(lang: str) -> int:
    """Anticipation group 1: 4 letters in French, 2 in Romanian (RULES §6.1, §10)."""
    return 2 if lang == "ro" else 4


@dataclass(frozen=True)
class LexiconRef:
    """Which word list judges a problem. ``sha256``/``word_count`` are optional until the
    problem is published; when given, the verifier checks them against the list it uses."""

    name: str
    sha256: str | None = None
    word_count: int | None = None


class ProblemError(ValueError):
    """A problem file that cannot be read or is inconsistent (French message)."""


_DEADLINE_RE = re.compile(r"^\s*(?P<instant>[^\[\s]+(?:[ T][^\[\s]+)?)\s*\[(?P<zone>[^\]]+)\]\s*$")


def parse_deadline(text: str) -> datetime:
    """Read ``2000-05-12T19:00:00+03:00[Europe/Bucharest]`` (RFC 9557 style) or the same
    without the offset. The result is an aware datetime in the named zone."""
    m = _DEADLINE_RE.match(text)
    if not m:
        raise ProblemError(
            f"Échéance « {text} » illisible : attendu par exemple "
            "2000-05-12T19:00:00+03:00[Europe/Bucharest]."
        )
    try:
        zone = ZoneInfo(m.group("zone"))
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a name too long
        raise ProblemError(f"Fuseau horaire inconnu : « {m.group('zone')} ».") from None
    try:
        instant = datetime.fromisoformat(m.group("instant"))
    except ValueError:
        raise ProblemError(f"Date de l'échéance illisible : « {m.group('instant')} ».") from None
    if instant.tzinfo is None:
        return instant.replace(tzinfo=zone)
    local = instant.astimezone(zone)
    if local.utcoffset() != instant.utcoffset():
        raise ProblemError(
            f"Échéance « {text} » : le décalage ne correspond pas au fuseau {zone.key}."
        )
    return local


def format_deadline(instant: datetime) -> str:
    """The inverse of :func:`parse_deadline` (the zone must be a :class:`ZoneInfo`)."""
    if not isinstance(instant.tzinfo, ZoneInfo):
        raise ProblemError("L'échéance doit porter un fuseau horaire IANA (ZoneInfo).")
    return f"{instant.isoformat()}[{instant.tzinfo.key}]"


@dataclass(frozen=True)
class Problem:
    """One problem. Which letter fields are used depends on ``game``:

    - ``stock``: Intégral (the whole set) and Intégral partiel (the N letters drawn);
    - ``row``: the rangée, in draw order;
    - ``groups``: Anticipation (``groups[0]`` is group 1), Série de maximaux, N-Scrabble.
      In the consonant variants they hold the announced consonants only, ``group_sizes``
      says how many letters each group is completed to and ``pool`` the letters players
      complete them from;
    - ``order``: Anticipation — the 7-letter group drawn by lot for each of the 14 moves
      (move 1 also offers group 1); N-Scrabble — an imposed order (empty: free order);
    - ``board`` (CGP) and ``rack``: Superscrabble; ``rack`` alone for Superscrabble
      incomplet, built from the full set minus the rack (G12).

    Letters are uppercase, the joker is ``?``.
    """

    id: str
    game: GameType
    lang: str = "fr"
    title: str = ""
    lexicon: LexiconRef | None = None
    time_limit_minutes: int | None = None
    deadline: datetime | None = None
    stock: str = ""
    row: str = ""
    groups: tuple[str, ...] = ()
    group_sizes: tuple[int, ...] = ()
    pool: str = ""
    order: tuple[int, ...] = ()
    board: str = ""
    rack: str = ""
    seed: int | None = None
    notes: str = field(default="", compare=False)
    # G6, RULES §5.3: points games lose 5 points per technical warning from this one (FISF
    # 5.7: « Au quatrième (sixième en blitz et partie originale) »). The arbitre may treat a
    # problem as a "partie originale" and set 6.
    warning_penalty_from: int = DEFAULT_WARNING_PENALTY_FROM

    # --- derived ------------------------------------------------------------------------
    @property
    def tileset(self) -> TileSet:
        return tileset(self.lang)

    def construction_stock(self) -> Counter[str]:
        """Letters the player may place in the stock-based games (Intégral family and the
        construction of a Superscrabble incomplet)."""
        fam = self.game.family
        if fam.construction_then_answers:  # Superscrabble incomplet: the bag but the rack
            bag = self.tileset.bag()
            bag.subtract(Counter(self.rack))
            return +bag
        if not self.stock and fam.letters_range is None:  # Intégral: the whole bag
            return self.tileset.bag()
        return Counter(self.stock)

    def initial_board(self) -> Board:
        return Board.from_cgp(self.board) if self.board else Board()

    def group_size(self, number: int) -> int:
        """Letters group ``number`` (1-based) holds or is completed to."""
        if 0 < number <= len(self.group_sizes):
            return self.group_sizes[number - 1]
        if 0 < number <= len(self.groups):
            return len(self.groups[number - 1])
        return 0

    def warning_rule(self, penalty_from: int | None = None, points: int = 5) -> str:
        """How technical warnings are converted for this problem, in French (RULES §5.3),
        as shown on the problem page. ``penalty_from``: an arbitre's override of
        :attr:`warning_penalty_from` (``Settings.warning_penalty_from``)."""
        if self.game.family.ranking_penalty:
            rule = (
                "un point de classement au 4e avertissement technique, puis un de plus "
                "tous les 3 avertissements"
            )
            if self.game.ranking_points:
                return rule[0].upper() + rule[1:] + "."
            return "Départage : " + rule + "."
        start = penalty_from if penalty_from is not None else self.warning_penalty_from
        original = " (partie originale)" if start == 6 else ""
        return (
            f"{points} points de pénalité par avertissement technique à partir du "
            f"{start}e{original}."
        )

    def with_deadline(self, instant: datetime | None) -> Problem:
        return replace(self, deadline=instant)

    # --- consistency --------------------------------------------------------------------
    def check(self) -> list[str]:
        """French descriptions of every inconsistency (empty when the problem is sound)."""
        errs: list[str] = []
        if self.lang not in ("fr", "ro"):
            return [f"Langue inconnue « {self.lang} » (attendu fr ou ro)."]
        ts = self.tileset
        bag = ts.bag()

        def letters_ok(what: str, letters: str) -> None:
            bad = sorted({c for c in letters if c != JOKER and c not in ts.points})
            if bad:
                errs.append(f"{what} : lettre(s) hors du jeu {ts.name} : {', '.join(bad)}.")
                return
            over = Counter(letters) - bag
            if over:
                extra = ", ".join(f"{k}×{v}" for k, v in sorted(over.items()))
                errs.append(f"{what} : plus de lettres que le sac n'en contient ({extra}).")

        g = self.game
        fam = g.family
        span = fam.letters_range
        if "stock" in fam.statement_fields:
            letters_ok("Stock", self.stock)
            if span and not span[0] <= len(self.stock) <= span[1]:
                errs.append(
                    f"{fam.label} : {len(self.stock)} lettres (attendu {span[0]} à {span[1]})."
                )
        if "row" in fam.statement_fields:
            letters_ok("Rangée", self.row)
            if span and not span[0] <= len(self.row) <= span[1]:
                errs.append(f"Rangée de {len(self.row)} lettres (attendu {span[0]} à {span[1]}).")
        if fam.groups_announced:
            letters_ok("Groupes", "".join(self.groups) + self.pool)
            if fam.anticipation:
                want = [first_group_size(self.lang)] + [7] * 14
                sizes = list(self.group_sizes) if self.group_sizes else [
                    len(x) for x in self.groups
                ]
                if sizes != want:
                    errs.append(
                        f"Anticipation : tailles des groupes {sizes} (attendu {want[0]} puis "
                        "14 groupes de 7)."
                    )
                if not fam.consonants_announced and Counter("".join(self.groups)) != bag:
                    errs.append("Anticipation : les 15 groupes doivent former le sac entier.")
                if self.lang == "ro" and self.groups:
                    errs.extend(
                        romanian_group1_errors(ts, self.groups[0], fam.consonants_announced)
                    )
            elif not fam.consonants_announced and any(len(x) != 7 for x in self.groups):
                errs.append("Chaque groupe doit avoir 7 lettres.")
            if fam.consonants_announced:
                if any(ts.is_vowel(c) or c == JOKER for c in "".join(self.groups)):
                    errs.append("Variante avocalique : les groupes ne portent que des consonnes.")
                if len(self.group_sizes) != len(self.groups):
                    errs.append("Variante avocalique : une taille par groupe est nécessaire.")
        if fam.anticipation:
            if sorted(self.order) != list(range(2, 16)):
                errs.append("Anticipation : l'ordre doit tirer chacun des groupes 2 à 15 une fois.")
        elif self.order and sorted(self.order) != list(range(1, len(self.groups) + 1)):
            errs.append("Ordre imposé : chaque groupe une fois.")
        if self.warning_penalty_from < 1:
            errs.append(
                f"Conversion des avertissements : à partir du {self.warning_penalty_from}e "
                "(attendu 1 ou plus, 4 par défaut, 6 en partie originale)."
            )
        if "rack" in fam.statement_fields:
            letters_ok("Tirage", self.rack)
            if len(self.rack) != 7:
                errs.append(f"Superscrabble : tirage de {len(self.rack)} lettres (attendu 7).")
        if "board" in fam.statement_fields:
            try:
                board = Board.from_cgp(self.board)
            except CGPError as exc:
                errs.append(str(exc))
            else:
                on_board = Counter("?" if c.islower() else c for c in board.cells if c)
                letters_ok("Grille et tirage", "".join(on_board.elements()) + self.rack)
        return errs

    # --- file form ----------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "id": self.id,
            "type": self.game.value,
            "lang": self.lang,
            "title": self.title,
        }
        if self.lexicon is not None:
            lex: dict[str, Any] = {"name": self.lexicon.name}
            if self.lexicon.sha256 is not None:
                lex["sha256"] = self.lexicon.sha256
            if self.lexicon.word_count is not None:
                lex["word_count"] = self.lexicon.word_count
            d["lexicon"] = lex
        if self.time_limit_minutes is not None:
            d["time_limit_minutes"] = self.time_limit_minutes
        if self.deadline is not None:
            d["deadline"] = format_deadline(self.deadline)
        for key in ("stock", "row", "pool", "board", "rack", "notes"):
            value = getattr(self, key)
            if value:
                d[key] = value
        if self.groups:
            d["groups"] = list(self.groups)
        if self.group_sizes:
            d["group_sizes"] = list(self.group_sizes)
        if self.order:
            d["order"] = list(self.order)
        if self.seed is not None:
            d["seed"] = self.seed
        if self.warning_penalty_from != DEFAULT_WARNING_PENALTY_FROM:
            d["warning_penalty_from"] = self.warning_penalty_from
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Problem:
        if d.get("format", FORMAT_NAME) != FORMAT_NAME:
            raise ProblemError(f"Ce fichier n'est pas un problème Arbitre ({d.get('format')!r}).")
        try:
            game = GameType(d["type"])
        except KeyError:
            raise ProblemError("Champ « type » manquant.") from None
        except ValueError:
            known = ", ".join(t.value for t in GameType)
            raise ProblemError(
                f"Type de partie inconnu « {d['type']} » (connus : {known})."
            ) from None
        if "id" not in d:
            raise ProblemError("Champ « id » manquant.")
        lex = d.get("lexicon")
        deadline = d.get("deadline")
        if lex is not None and not (isinstance(lex, dict) and isinstance(lex.get("name"), str)):
            raise ProblemError("Champ « lexicon » : objet attendu avec un « name » texte.")
        if deadline is not None and not isinstance(deadline, str):
            raise ProblemError("Champ « deadline » : texte attendu.")
        try:
            return cls(
                id=str(d["id"]),
                game=game,
                lang=str(d.get("lang", "fr")),
                title=str(d.get("title", "")),
                lexicon=LexiconRef(
                    str(lex["name"]), lex.get("sha256"), lex.get("word_count")
                ) if lex else None,
                time_limit_minutes=_opt_int(d.get("time_limit_minutes"), "time_limit_minutes"),
                deadline=parse_deadline(deadline) if deadline else None,
                stock=_letters(d.get("stock", "")),
                row=_letters(d.get("row", "")),
                groups=tuple(_letters(x) for x in _list(d.get("groups", ()), "groups")),
                group_sizes=tuple(
                    _int(x, "group_sizes") for x in _list(d.get("group_sizes", ()), "group_sizes")
                ),
                pool=_letters(d.get("pool", "")),
                order=tuple(_int(x, "order") for x in _list(d.get("order", ()), "order")),
                board=str(d.get("board", "")),
                rack=_letters(d.get("rack", "")),
                seed=_opt_int(d.get("seed"), "seed"),
                notes=str(d.get("notes", "")),
                warning_penalty_from=_int(
                    d.get("warning_penalty_from", DEFAULT_WARNING_PENALTY_FROM),
                    "warning_penalty_from",
                ),
            )
        except (TypeError, KeyError) as exc:
            raise ProblemError(f"Problème mal formé : {exc}.") from None

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Problem:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ProblemError(
                f"Ligne {exc.lineno} : JSON illisible ({french_json_error(exc)}), colonne "
                f"{exc.colno}."
            ) from None
        except (RecursionError, ValueError):
            raise ProblemError("JSON illisible (trop imbriqué ou nombre trop long).") from None
        if not isinstance(data, dict):
            raise ProblemError("Un problème est un objet JSON.")
        return cls.from_dict(data)


_JSON_MESSAGES = (
    ("Expecting value", "valeur attendue"),
    ("Expecting property name enclosed in double quotes", "nom de champ entre guillemets attendu"),
    ("Expecting ',' delimiter", "virgule attendue"),
    ("Expecting ':' delimiter", "deux-points attendu"),
    ("Unterminated string", "texte entre guillemets non terminé"),
    ("Extra data", "texte en trop après la valeur JSON"),
    ("Invalid control character", "caractère de contrôle dans un texte"),
    ("Invalid \\escape", "séquence d'échappement invalide"),
    ("Invalid \\uXXXX escape", "séquence \\u invalide"),
    ("Illegal trailing comma", "virgule en trop avant la fermeture"),
)


def french_json_error(exc: json.JSONDecodeError) -> str:
    """The JSON decoder's message in French (its own is English)."""
    for english, french in _JSON_MESSAGES:
        if exc.msg.startswith(english):
            return french
    return "syntaxe JSON invalide"


def os_error_message(exc: OSError) -> str:
    """An operating-system error in French (``strerror`` is English)."""
    import errno

    where = f" {exc.filename}" if exc.filename else ""
    why = {
        errno.ENOENT: "fichier introuvable",
        errno.EACCES: "accès refusé",
        errno.EISDIR: "c'est un dossier, pas un fichier",
        errno.ENOTDIR: "un élément du chemin n'est pas un dossier",
        errno.ENOSPC: "plus de place sur le disque",
    }.get(exc.errno or 0, f"erreur du système (errno {exc.errno})")
    return f"Impossible de lire{where} : {why}."


def _int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"« {what} » : nombre entier attendu, reçu {value!r}")
    return value


def _opt_int(value: object, what: str) -> int | None:
    return None if value is None else _int(value, what)


def _list(value: object, what: str) -> list[Any]:
    if not isinstance(value, list | tuple):
        raise TypeError(f"« {what} » : liste attendue, reçu {value!r}")
    return list(value)


def romanian_group1_errors(ts: TileSet, group: str, consonants_only: bool) -> list[str]:
    """RULES §6.1–6.2 [E7]: Romanian group 1 is 2 letters, one vowel and one consonant; in
    avocalique only its consonant is announced, and it is not G or J."""
    vowels = [c for c in group if c != JOKER and ts.is_vowel(c)]
    cons = [c for c in group if c != JOKER and not ts.is_vowel(c) and c not in ts.ambiguous]
    if consonants_only:
        if len(cons) != 1 or len(group) != 1:
            return [
                f"Anticipation avocalique roumaine : le groupe 1 annonce une seule consonne "
                f"(reçu « {group} »)."
            ]
        if cons[0] in "GJ":
            return [
                f"Anticipation avocalique roumaine : la consonne du groupe 1 ne peut pas être "
                f"G ni J (reçu « {group} »)."
            ]
        return []
    if len(group) != 2 or len(vowels) != 1 or len(cons) != 1:
        return [
            f"Anticipation roumaine : le groupe 1 doit avoir une voyelle et une consonne "
            f"(reçu « {group} »)."
        ]
    return []


def _letters(value: object) -> str:
    """Letters as stored: uppercase, joker ``?``; spaces ignored."""
    if not isinstance(value, str):
        raise TypeError(f"lettres attendues (texte), reçu {value!r}")
    return "".join(value.split()).upper()


def load_problem(path: str | Path) -> Problem:
    """Read a problem file; raises :class:`ProblemError` with a French message, including
    the inconsistencies :meth:`Problem.check` finds."""
    p = Path(path)
    try:
        text = p.read_text("utf-8")
    except OSError as exc:
        raise ProblemError(os_error_message(exc)) from None
    except UnicodeDecodeError:
        raise ProblemError(f"{p} : le fichier n'est pas en UTF-8.") from None
    problem = Problem.from_json(text)
    errs = problem.check()
    if errs:
        raise ProblemError(f"{p} : " + " ".join(errs))
    return problem


def dump_problem(problem: Problem, path: str | Path | None = None) -> str:
    """The problem's JSON text; also written to ``path`` when given."""
    text = problem.to_json()
    if path is not None:
        Path(path).write_text(text, "utf-8")
    return text
