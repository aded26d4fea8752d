"""The round games behind one protocol (issue 21): :class:`RoundGame` — the facts a page, the
console or a notice needs (key, label, rules text, bulletin example, live minutes, whether the
stock is shown…) and the operations of a round (initial state, draw and top, parse a
bulletin, correct a round, the arbitre's other top, apply the top, rank) over the typed
stored JSON of :mod:`puzzles.duplicate.codecs`. One :class:`GameSettings` per game: the
Duplicate's settings, a variant's own, and a game's extras (the Superscrabble's start and
racks), read from what the server stores or from a GAME.json.

The game modules (:mod:`puzzles.duplicate.games`) implement it, one per game;
:mod:`puzzles.duplicate.registry` holds one instance per key. Outside them no code tests
which game it runs. Pure: no Flask, SQL or mail."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Protocol, TypedDict, cast

from puzzles.duplicate.records import AnyBulletinJSON, ResultJSON, RoundDrawJSON, RoundTopJSON
from puzzles.duplicate.settings import DuplicateError, DuplicateSettings, Variant, VariantSettings
from scoring.config import GameConfig

#: the stored key of a Partie de Superscrabble's start and racks in its settings
SUPERSCRABBLE_KEY = "superscrabble"


@dataclass(frozen=True)
class SuperscrabbleSpec:
    """A Partie de Superscrabble's own data: the arbitre's 2-letter word through the centre
    (``H7 LA``) and one 7-letter rack per round."""

    start: str
    racks: tuple[str, ...]

    def to_dict(self) -> dict[str, object]:
        return {"start": self.start, "racks": list(self.racks)}


@dataclass(frozen=True)
class GameSettings:
    """Every setting of one round game: ``duplicate`` (the Duplicate's rules, every game
    has them), ``variant`` (a variant's own rules; None for the plain Duplicate; the Partie
    de Superscrabble is played on the Duplicate Top's), ``superscrabble`` (that game's
    start and racks)."""

    key: str
    duplicate: DuplicateSettings = field(default_factory=DuplicateSettings)
    variant: VariantSettings | None = None
    superscrabble: SuperscrabbleSpec | None = None

    @property
    def rules(self) -> VariantSettings:
        """The variant's own rules (:class:`DuplicateError` for a game without them)."""
        if self.variant is None:
            raise DuplicateError("Le Duplicate n'a pas de réglages de variante.")
        return self.variant

    @classmethod
    def build(cls, key: str, settings: DuplicateSettings | VariantSettings,
              superscrabble: SuperscrabbleSpec | None = None) -> GameSettings:
        """The settings of a new game of ``key`` from the console's: a variant given only
        Duplicate settings plays them with its own defaults (the Superscrabble: the
        Duplicate Top's); ``superscrabble`` is kept for the game that plays it only (the
        console's form gives its fields for every game)."""
        if key != SUPERSCRABBLE_KEY:
            superscrabble = None
        if not key:
            dup = settings.duplicate if isinstance(settings, VariantSettings) else settings
            return cls(key, dup)
        own: Variant = "top" if key == SUPERSCRABBLE_KEY else key
        if not isinstance(settings, VariantSettings):
            vs = VariantSettings(variant=own, duplicate=settings)
        elif settings.variant != own:
            vs = replace(settings, variant=own)
        else:
            vs = settings
        return cls(key, vs.duplicate, vs, superscrabble)

    @classmethod
    def from_stored(cls, key: str, stored: Mapping[str, object]) -> GameSettings:
        """The settings a game row stores (``DuplicateGame.settings``): the Duplicate's for
        the plain game, a ``VariantSettings`` JSON for a variant (the Superscrabble's with
        ``variant: top`` and its ``superscrabble`` key)."""
        if not key:
            return cls(key, DuplicateSettings.from_json(stored))
        data = {k: v for k, v in stored.items() if k != SUPERSCRABBLE_KEY}
        own = "top" if key == SUPERSCRABBLE_KEY else key
        vs = VariantSettings.from_json({**data, "variant": own})
        spec = stored.get(SUPERSCRABBLE_KEY)
        extra = None
        if isinstance(spec, Mapping):
            racks = spec.get("racks") or []
            extra = SuperscrabbleSpec(str(spec.get("start", "")),
                                      tuple(str(r) for r in cast(Sequence[object], racks)))
        return cls(key, vs.duplicate, vs, extra)

    def to_stored(self) -> dict[str, object]:
        """What the server stores (the inverse of :meth:`from_stored`)."""
        source = self.variant if self.variant is not None else self.duplicate
        out = cast(dict[str, object], json.loads(source.to_json()))
        if self.superscrabble is not None:
            out[SUPERSCRABBLE_KEY] = self.superscrabble.to_dict()
        return out

    def with_superscrabble(self, spec: SuperscrabbleSpec) -> GameSettings:
        return replace(self, superscrabble=spec)


@dataclass(frozen=True)
class RoundRecord:
    """A round as stored (``DuplicateRound``): its number, draw, the master state and grid
    before its top, its top, and (for the ranking) the results by player key."""

    number: int
    draw: RoundDrawJSON
    state_before: str
    grid_before: str
    top: RoundTopJSON
    grid_after: str = ""
    results: Mapping[str, ResultJSON] = field(default_factory=dict)


@dataclass(frozen=True)
class PlayerBulletin:
    """A player's bulletin of a round, as the correction reads it: ``bulletin`` the stored
    parsed form; ``text`` the line received when it could not be read (its errors in
    ``parse_errors``); neither: no bulletin (absent)."""

    player: str
    bulletin: AnyBulletinJSON | None = None
    text: str | None = None
    parse_errors: tuple[str, ...] = ()
    received_at: datetime | None = None

    @property
    def absent(self) -> bool:
        return self.bulletin is None and self.text is None


@dataclass(frozen=True)
class DrawnRound:
    """A round drawn and topped: what the server stores for it."""

    draw: RoundDrawJSON
    state_before: str
    grid_before: str
    top: RoundTopJSON


@dataclass(frozen=True)
class Finished:
    """No round could be drawn (or topped): the game is over; ``state_text`` its last state
    (what the server stores: a round drawn with no move keeps the drawn state, as it always
    has), ``end_reason`` the French reason the replay prints."""

    state_text: str
    end_reason: str = ""


@dataclass(frozen=True)
class StartPosition:
    """A position a game can start from (docs/DUPLICATE.md « Partir d'une position », the
    GAME.json ``start`` object; a stored round's, :meth:`RoundGame.position_of`): the grid
    (CGP), the tiles still to draw in drawing order (the stock of a letter-choice game),
    the letters kept from the last top (a Tactique's two groups « ABC/DE »), the round
    about to be drawn, the tops so far, the first top's word (the two-letter raccord rule,
    S1 5.2; "" unknown)."""

    grid: str = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15"
    bag: str = ""
    reliquat: str = ""
    round: int = 1
    tops: int = 0
    first_word: str = ""

    def to_dict(self) -> dict[str, object]:
        return {"grid": self.grid, "bag": self.bag, "reliquat": self.reliquat,
                "round": self.round, "tops": self.tops, "first_word": self.first_word}

    @classmethod
    def from_dict(cls, data: object) -> StartPosition:
        """A GAME.json ``start`` object; French :class:`DuplicateError`."""
        if not isinstance(data, Mapping):
            raise DuplicateError("Partie : start est un objet (grid, bag, reliquat, round, "
                                 "tops, first_word).")
        known = {"grid", "bag", "reliquat", "round", "tops", "first_word"}
        unknown = sorted(str(k) for k in data if k not in known)
        if unknown:
            raise DuplicateError(f"Partie : clés inconnues dans start : {', '.join(unknown)}.")
        out = cls()
        texts = {k: data.get(k, getattr(out, k)) for k in ("grid", "bag", "reliquat",
                                                          "first_word")}
        numbers = {k: data.get(k, getattr(out, k)) for k in ("round", "tops")}
        for key, value in texts.items():
            if not isinstance(value, str):
                raise DuplicateError(f"Partie : start.{key} est une chaîne de lettres.")
        for key, value in numbers.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < (
                    1 if key == "round" else 0):
                raise DuplicateError(f"Partie : start.{key} est un entier"
                                     f"{' (1 au moins)' if key == 'round' else ' positif'}.")
        return cls(str(texts["grid"]), str(texts["bag"]).replace(" ", ""),
                   str(texts["reliquat"]).replace(" ", ""), int(numbers["round"]),
                   int(numbers["tops"]), str(texts["first_word"]))


@dataclass(frozen=True)
class Loaded:
    """A GAME.json read by its game (:meth:`RoundGame.load`): the settings, the master
    state to start from, the draws listed (None: drawn from the bag), the field's size for
    the solos (None: the players), the arbitre's choices per round (the Superscrabble's
    ``choices``), the first round (a ``start`` position's)."""

    settings: GameSettings
    state_text: str
    listed: tuple[str, ...] | None = None
    n_players: int | None = None
    choices: tuple[object, ...] = ()
    first_round: int = 1


class ReplayReport(Protocol):
    """What ``arbitre duplicate replay`` prints (:mod:`puzzles.duplicate.report`)."""

    def to_json(self) -> str: ...

    def to_text(self) -> str: ...


class StandingJSON(TypedDict, total=False):
    """A ranking row by player key (the server adds the name and club, and sorts equal
    ranks by name): ``total`` the points that rank (the Duplicate's score, the Top's
    ranking points, the Superscrabble's valid scrabbles), ``percent`` of the tops (None
    where it means nothing), ``scores`` per round; the Top adds ``tops``, ``companions``,
    ``topped_total``."""

    player: str
    rank: int
    total: int
    percent: float | None
    tops: int
    companions: int
    topped_total: int
    warnings: int
    warning_deduction: int
    solos: int
    scores: list[int]


class RoundGame(Protocol):
    """One round game (docs/VARIANTS.md « Adding a variant »): its facts, then its
    operations over the stored JSON. Every French text a page, notice or console shows
    for a game comes from here."""

    # --- facts ---------------------------------------------------------------------------
    @property
    def key(self) -> str:
        """``DuplicateGame.variant`` ("" the plain Duplicate)."""
        ...

    @property
    def label(self) -> str:
        """The French name (« Duplicate Complétif »)."""
        ...

    @property
    def rules_page(self) -> str:
        """The key of the game's rules page (``/regles/<key>``, webapp.game_rules)."""
        ...

    @property
    def rules_fr(self) -> str | None:
        """The rule the pages and draw mails show (None: the plain Duplicate's, known)."""
        ...

    @property
    def bulletin_example(self) -> str:
        """A bulletin written right (« H4 RESTAIT 70 +T »)."""
        ...

    @property
    def live_minutes(self) -> int:
        """Minutes per round played live (RULES §9.1: 6 for the Tactique, else 3)."""
        ...

    @property
    def shows_stock(self) -> bool:
        """The page and the draw mail show the stock (the players choose from it)."""
        ...

    @property
    def free_letters(self) -> bool:
        """The players take letters from the stock (Complétif, Superjoker, Métagramme)."""
        ...

    @property
    def names_letters(self) -> bool:
        """A top or bulletin is written with its letters (« RESTAIT +T », « -N +K »): the
        console's other top says so."""
        ...

    @property
    def ranked_by_tops(self) -> bool:
        """Ranked by rounds topped, companions, cumul (Duplicate Top)."""
        ...

    @property
    def has_solos(self) -> bool:
        """The ranking shows solos."""
        ...

    @property
    def total_label(self) -> str:
        """The results mail's total line."""
        ...

    @property
    def result_unit(self) -> str:
        """What a player's total counts (« points », « points de classement »,
        « scrabbles »)."""
        ...

    @property
    def scrabble_sheet(self) -> bool:
        """A bulletin lists every scrabble (long sheets; the round's result is out of its
        number of scrabbles; the console's « Scrabble à poser »)."""
        ...

    @property
    def two_words(self) -> bool:
        """A top is a sequence of two words (the console's « Autre suite de deux mots »)."""
        ...

    @property
    def form_settings(self) -> bool:
        """The console's form gives the game rules of its own (``VariantSettings``: the
        Tactique's order, refill and rejection; the Complétif's and Superjoker's jokers and
        unused chosen letter); the others play their defaults."""
        ...

    @property
    def other_top_recorrects(self) -> bool:
        """The arbitre's other top corrects the bulletins again (not for a Superscrabble:
        the scrabble placed changes no sheet's score)."""
        ...

    # --- operations ----------------------------------------------------------------------
    def prepare(self, settings: GameSettings, config: GameConfig) -> GameSettings:
        """The settings of a new game checked and normalised (the Superscrabble's start and
        racks); French :class:`DuplicateError`."""
        ...

    def initial(self, settings: GameSettings, bag: str, config: GameConfig) -> str:
        """The master state text of a new game with this bag order (checked against the
        tile set)."""
        ...

    def draw(self, state_text: str, settings: GameSettings, config: GameConfig,
             round_no: int, *, listed: str | None = None) -> DrawnRound | Finished:
        """Round ``round_no``'s draw and top from the master state, or the end; ``listed``:
        the draw as a game record writes it (« RU+ZXTEU », a Tactique's « … / … »), checked
        against the letters left, instead of drawing from the bag."""
        ...

    def finish(self, state_text: str, reason: str) -> str:
        """The master state ended for ``reason`` (the replay's listed draws used up)."""
        ...

    def parse(self, text: str, *, player: str = "") -> AnyBulletinJSON | list[str]:
        """One bulletin line read, or its French errors."""
        ...

    def correct(self, round: RoundRecord, bulletins: Sequence[PlayerBulletin],
                settings: GameSettings, config: GameConfig,
                n_players: int) -> list[ResultJSON]:
        """Every player's result of the round, in ``bulletins`` order (solos included)."""
        ...

    def other_top(self, round: RoundRecord, ref: str, word: str, settings: GameSettings,
                  config: GameConfig, *, actor: str, reason: str) -> RoundTopJSON:
        """The arbitre's other top of the round; French :class:`DuplicateError`."""
        ...

    def apply(self, round: RoundRecord, settings: GameSettings,
              config: GameConfig) -> tuple[str, str]:
        """The master state text and grid (CGP) once the round's top is placed."""
        ...

    def rank(self, rounds: Sequence[RoundRecord], settings: GameSettings) -> list[StandingJSON]:
        """The ranking after ``rounds`` (their ``results``), best first."""
        ...

    def rack_letters(self, draw: RoundDrawJSON) -> str:
        """Every letter a player may place this round, in the draw's order (a Tactique's
        two groups together): what the page's scoring helper is given."""
        ...

    def choose(self, round: RoundRecord, text: str, settings: GameSettings,
               config: GameConfig) -> RoundTopJSON:
        """The top a GAME.json's ``choices`` names for the round (the Superscrabble's
        scrabble to place); French :class:`DuplicateError`."""
        ...

    # --- the replay and positions --------------------------------------------------------
    def load(self, data: Mapping[str, object], config: GameConfig | None) -> Loaded:
        """A GAME.json of this game (docs/DUPLICATE.md, docs/VARIANTS.md) checked and read;
        French :class:`DuplicateError`."""
        ...

    def position(self, start: StartPosition, settings: GameSettings) -> str:
        """The master state of a game starting from ``start``."""
        ...

    def position_of(self, round: RoundRecord) -> StartPosition:
        """The position a stored round was drawn from."""
        ...

    def listed_draw(self, round: RoundRecord) -> str | None:
        """A stored round's draw as a game record writes it (None: the game draws it
        itself from its settings, the Superscrabble's racks)."""
        ...

    def report(self, settings: GameSettings, rounds: Sequence[RoundRecord], end: Finished,
               players: Sequence[str]) -> ReplayReport:
        """The replay's report of the rounds played (their ``results`` by player)."""
        ...

    def bulletin_line(self, bulletin: AnyBulletinJSON | None) -> str | None:
        """A stored bulletin as the player wrote it (None: none)."""
        ...

    def solution_count(self, bulletin: AnyBulletinJSON | None) -> int:
        """How many solutions a stored bulletin holds."""
        ...

    def top_words(self, top: RoundTopJSON) -> tuple[str, str]:
        """The mails' ``top_ref`` and ``top_word``."""
        ...
