"""The game-rules registry: one entry per game type, keyed by its string value.

Every one-sheet game (:class:`puzzles.problem.GameType`) gets a :class:`SheetGameRules` that
only delegates to today's modules (``Problem.check``, :func:`puzzles.generate.new_problem`,
:func:`puzzles.verify.verify_text`, :func:`puzzles.solver.solve`); the FISF Duplicate, which is
played round by round and has no problem sheet, gets :class:`DuplicateRules` over
:mod:`puzzles.duplicate`. Callers (pages, scheduler) ask :func:`rules_for` what a game is —
its French label, whether it is round-based, which statement fields it shows — instead of
testing game types one by one.

``duplicate`` is deliberately not a :class:`GameType` member: GameType names problem
sheets, and everything built on it (problem files, the verifier, the solver) assumes one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from puzzles.problem import GameType, Problem

if TYPE_CHECKING:
    from puzzles.duplicate import DuplicateSettings, GameState
    from puzzles.generate import WordSource
    from puzzles.settings import Settings
    from puzzles.solver import Solution
    from puzzles.verify import Report
    from scoring.config import WordList
    from scoring.lexicon import Lexicon

DUPLICATE = "duplicate"


@runtime_checkable
class GameRules(Protocol):
    """What every game type tells the rest of the system."""

    @property
    def key(self) -> str: ...

    @property
    def label(self) -> str: ...

    @property
    def round_based(self) -> bool:
        """Played round by round (a result per round), rather than on one sheet."""
        ...

    @property
    def statement_fields(self) -> tuple[str, ...]:
        """The fields of the statement shown to players."""
        ...

    def check(self, statement: Any) -> list[str]:
        """French errors of a statement (a Problem, or Duplicate settings); empty when fine."""
        ...


@dataclass(frozen=True)
class SheetGameRules:
    """A one-sheet FRSc game: delegates to the existing problem, generator, verifier and
    solver modules (their behaviour is unchanged)."""

    game: GameType

    @property
    def key(self) -> str:
        return self.game.value

    @property
    def label(self) -> str:
        return self.game.label

    @property
    def round_based(self) -> bool:
        # Anticipation groups are announced move by move in correspondence play
        # (puzzles.rounds), but the answer is still one feuille de route.
        return False

    @property
    def statement_fields(self) -> tuple[str, ...]:
        return self.game.family.statement_fields

    def check(self, statement: Any) -> list[str]:
        if not isinstance(statement, Problem):
            return ["Un énoncé de problème est attendu."]
        if statement.game is not self.game:
            return [f"Le problème est de type {statement.game.label}, pas {self.label}."]
        return list(statement.check())

    def generate(
        self, *, seed: int, lang: str = "fr", lexicon: WordSource | None = None
    ) -> Problem:
        from puzzles.generate import new_problem

        return new_problem(self.game, seed=seed, lang=lang, lexicon=lexicon)

    def verify(
        self, problem: Problem, text: str, lexicon: WordList, settings: Settings | None = None
    ) -> Report:
        from puzzles.verify import verify_text

        return verify_text(problem, text, lexicon, settings)

    def solve(
        self, problem: Problem, lexicon: Lexicon, *, seconds: float, seed: int = 0
    ) -> Solution:
        from puzzles.solver import solve

        return solve(problem, lexicon, seconds=seconds, seed=seed)


@dataclass(frozen=True)
class DuplicateRules:
    """The FISF Duplicate by correspondence (:mod:`puzzles.duplicate`)."""

    @property
    def key(self) -> str:
        return DUPLICATE

    @property
    def label(self) -> str:
        return "Duplicate (FISF)"

    @property
    def round_based(self) -> bool:
        return True

    @property
    def statement_fields(self) -> tuple[str, ...]:
        # per round: the draw (notation), the master grid before the round, the round number
        return ("draw", "board", "round_no")

    def check(self, statement: Any) -> list[str]:
        from puzzles.duplicate import DuplicateError, DuplicateSettings

        if isinstance(statement, DuplicateSettings):
            return []
        if isinstance(statement, (str, Mapping)):
            try:
                DuplicateSettings.from_json(statement)
            except DuplicateError as exc:
                return [str(exc)]
            return []
        return ["Des réglages de Duplicate sont attendus."]

    def new_game(self, settings: DuplicateSettings, *, seed: int) -> GameState:
        """A new game: an empty grid and the full bag in a reproducible order."""
        from puzzles.duplicate import GameState, shuffled_bag

        return GameState.initial(settings, shuffled_bag(settings.lang, seed))


@dataclass(frozen=True)
class VariantRules:
    """A Duplicate variant (:mod:`puzzles.variants`, docs/VARIANTS.md): ``variant`` is the
    :class:`puzzles.variants.VariantSettings` value (``tactique``, ``top``, ``completif``,
    ``superjoker``, ``metagramme``, ``elliptique``) or ``superscrabble`` (the Partie de
    Superscrabble, RULES §7.7)."""

    variant: str

    @property
    def key(self) -> str:
        return PARTIE_SUPERSCRABBLE if self.variant == "superscrabble" else (
            f"duplicate_{self.variant}"
        )

    @property
    def label(self) -> str:
        from puzzles.variants import VARIANTS

        return VARIANTS.get(self.variant, "Partie de Superscrabble")

    @property
    def round_based(self) -> bool:
        return True

    @property
    def statement_fields(self) -> tuple[str, ...]:
        if self.variant == "tactique":
            return ("groups", "board", "round_no")
        if self.variant == "superscrabble":
            return ("rack", "board", "round_no")
        return ("draw", "board", "round_no")

    def check(self, statement: Any) -> list[str]:
        from puzzles.duplicate import DuplicateError
        from puzzles.variants import VariantSettings

        if isinstance(statement, VariantSettings):
            return [] if statement.variant == self.variant or self.variant == "superscrabble" else [
                f"Réglages de la variante {statement.variant}, pas {self.variant}."
            ]
        if isinstance(statement, (str, Mapping)):
            try:
                if isinstance(statement, str):
                    import json

                    raw: Any = json.loads(statement) if statement.strip() else {}
                else:
                    raw = statement
                if not isinstance(raw, Mapping):
                    return ["Réglages : un objet JSON est attendu."]
                variant = "top" if self.variant == "superscrabble" else self.variant
                VariantSettings.from_json({**raw, "variant": variant})
            except DuplicateError as exc:
                return [str(exc)]
            except ValueError as exc:
                return [f"Réglages : JSON illisible ({exc})."]
            return []
        return ["Des réglages de variante sont attendus."]


@dataclass(frozen=True)
class CorrespondenceRules:
    """The FRSc correspondence game (:mod:`puzzles.correspondence`, RULES §8.1): a two-player
    free game on a letter row shared by a series."""

    @property
    def key(self) -> str:
        return CORRESPONDENCE

    @property
    def label(self) -> str:
        return "Partie par correspondance (FRSc)"

    @property
    def round_based(self) -> bool:
        return True

    @property
    def statement_fields(self) -> tuple[str, ...]:
        return ("row", "board", "racks")

    def check(self, statement: Any) -> list[str]:
        from puzzles.correspondence import new_game
        from puzzles.duplicate import DuplicateError

        if not isinstance(statement, str):
            return ["Une rangée de lettres est attendue."]
        try:
            new_game(statement)
        except DuplicateError as exc:
            return [str(exc)]
        return []


CORRESPONDENCE = "correspondance"
PARTIE_SUPERSCRABBLE = "partie_superscrabble"
VARIANT_KEYS = (
    "tactique", "top", "completif", "superjoker", "metagramme", "elliptique", "superscrabble"
)

REGISTRY: dict[str, GameRules] = {g.value: SheetGameRules(g) for g in GameType}
REGISTRY[DUPLICATE] = DuplicateRules()
for _variant in VARIANT_KEYS:
    _rules = VariantRules(_variant)
    REGISTRY[_rules.key] = _rules
REGISTRY[CORRESPONDENCE] = CorrespondenceRules()
#: the keys of the Duplicate variants and the correspondence game (docs/VARIANTS.md)
VARIANT_GAMES = tuple(k for k in REGISTRY if k not in {g.value for g in GameType} | {DUPLICATE})


def rules_for(key: str | GameType) -> GameRules:
    """The rules of a game type (a :class:`GameType` or its value, or ``"duplicate"``)."""
    name = key.value if isinstance(key, GameType) else key
    try:
        return REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(REGISTRY))
        raise KeyError(f"Type de partie inconnu : « {name} » (connus : {known}).") from None
