"""The Duplicate's vocabulary and settings: the setting types (``Lang``, ``SoloRule``,
``VerdictKind``…), :class:`DuplicateError` (every French refusal of the package),
:func:`check_choice` and :func:`read_object` (settings and GAME.json read as JSON objects), and
:class:`DuplicateSettings`, every rule the sources leave open as a named field (docs/RULES.md
§4, docs/DUPLICATE.md « Settings »), and the variants' own, :class:`VariantSettings` (RULES
§9, §11; docs/VARIANTS.md) with :func:`ranking_point_penalty` (§5.3, through
:mod:`puzzles.penalties`). Imports nothing of the package."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal, get_args

from puzzles.penalties import ranking_points_lost
from puzzles.verdicts import VerdictKind as VerdictKind

Lang = Literal["fr", "ro"]
SoloRule = Literal["auto", "n_minus_6", "none"]
RejectionReturns = Literal["all", "new_only"]
Openness = Literal["adjacent_empty", "none"]
AmbiguousReference = Literal["penalty", "warning"]

RACK_SIZE = 7
STATE_HEADER = "arbitre-duplicate-etat 1"


class DuplicateError(ValueError):
    """A game file, draw list or state that cannot be used (French message)."""


def check_choice(key: str, value: object, allowed: Sequence[object]) -> None:
    """A setting that takes one of ``allowed``: anything else raises :class:`DuplicateError`
    naming the setting and the values it takes."""
    if value not in allowed:
        listed = ", ".join(str(c) for c in allowed)
        raise DuplicateError(f"Réglage {key} : valeur {value!r} refusée (attendu : {listed}).")


def read_object(
    source: str | Mapping[str, Any], label: str, *, blank_is_empty: bool = False,
    with_line: bool = False,
) -> dict[str, Any]:
    """A JSON object from text or a mapping (settings, a GAME.json); French errors named by
    ``label`` (« Réglages », « Partie ») raise :class:`DuplicateError`. ``blank_is_empty``:
    blank text reads as ``{}``; ``with_line``: the error names the line."""
    if isinstance(source, str):
        try:
            data = json.loads(source) if source.strip() or not blank_is_empty else {}
        except json.JSONDecodeError as exc:
            where = f", ligne {exc.lineno}" if with_line else ""
            raise DuplicateError(f"{label} : JSON illisible ({exc.msg}{where}).") from None
    else:
        data = dict(source)
    if not isinstance(data, dict):
        raise DuplicateError(f"{label} : un objet JSON est attendu.")
    return data


# --- settings -----------------------------------------------------------------------------
@dataclass(frozen=True)
class DuplicateSettings:
    """Every Duplicate rule the sources leave open, with the docs/RULES.md default."""

    #: tile set: ``fr`` (102 tiles) or ``ro`` (100 tiles) (RULES §2, §10)
    lang: Lang = "fr"
    #: number of rounds; None plays to the end of the bag (RULES §4.9)
    rounds: int | None = None
    #: solo bonus for fields under ``solo_min_players`` (G2): ``auto`` = the RULES default
    #: (n − 6), ``n_minus_6`` (RECALLED FFSc), ``none`` (Eliot: no solo below 16)
    solo_rule: SoloRule = "auto"
    #: solo bonus for a field of ``solo_min_players`` or more (RULES §4.8)
    solo_points: int = 10
    solo_min_players: int = 16
    #: warnings cost ``warning_penalty_points`` each from this one on: 4 (FISF), 6 (blitz and
    #: original games) (RULES §4.7.7)
    warning_conversion_from: int = 4
    warning_penalty_points: int = 5
    #: points taken by a 5-point penalty (RULES §4.7.3)
    penalty_points: int = 5
    #: on a rejection, ``all`` the tiles go back (FISF) or only the ``new_only`` ones (an FRSc
    #: online rule set, RULES §10)
    rejection_returns: RejectionReturns = "all"
    #: ≥2 vowels and ≥2 consonants up to this round inclusive, then ≥1 + ≥1 (RULES §4.3, E13)
    min_split_rounds: int = 15
    #: the first top (and the players' first words) must be horizontal (RULES §4.5, S1 3.4)
    first_move_horizontal: bool = True
    #: the arbiter's free choice among equal tops (G1): more empty squares next to the move
    #: first (``adjacent_empty``), or skip that step (``none``)
    top_openness: Openness = "adjacent_empty"
    #: seconds per move (RULES §4.4): 180, 150, 120 or 60
    time_per_move: int = 180
    #: an interrupted game stands when at least this many rounds were played (G4)
    interruption_min_rounds: int = 15
    #: S1 5.3.2 (text incomplete, G5): a reference that is a legal place of the word for
    #: another score while the claimed score matches another legal place in the direction
    #: written — ``penalty``: the claimed score − ``penalty_points`` (RULES §4.7.3);
    #: ``warning``: the score at the reference, with a warning (S1 5.2)
    ambiguous_reference: AmbiguousReference = "penalty"

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | Mapping[str, Any]) -> DuplicateSettings:
        """Read settings from JSON text or a mapping (missing keys take their default);
        unknown keys or bad values raise :class:`DuplicateError` with a French message."""
        data = read_object(text, "Réglages", blank_is_empty=True)
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise DuplicateError(f"Réglages inconnus : {', '.join(unknown)}.")
        choices: dict[str, tuple[object, ...]] = {
            "lang": get_args(Lang),
            "solo_rule": get_args(SoloRule),
            "rejection_returns": get_args(RejectionReturns),
            "top_openness": get_args(Openness),
            "warning_conversion_from": (4, 6),
            "time_per_move": (180, 150, 120, 60),
            "ambiguous_reference": get_args(AmbiguousReference),
        }
        for key, value in data.items():
            if key in choices:
                check_choice(key, value, choices[key])
            elif key == "first_move_horizontal":
                if not isinstance(value, bool):
                    raise DuplicateError("Réglage first_move_horizontal : vrai ou faux attendu.")
            elif key == "rounds" and value is None:
                continue
            elif not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise DuplicateError(f"Réglage {key} : un entier positif est attendu.")
        if data.get("rounds") == 0:
            raise DuplicateError("Réglage rounds : au moins un coup.")
        return cls(**data)


# --- the variants' settings ------------------------------------------------------------
#: a variant's key (``VariantSettings.variant``): the key of its round game, which the
#: registry checks (:func:`puzzles.duplicate.registry.round_game`) — no list here, so that a
#: new variant is its game module and nothing more
Variant = str
TactiqueOrder = Literal["free", "group1_first", "group2_first"]
FreeJokerRule = Literal["none", "ro_online"]
Companions = Literal["sum", "distinct"]
TactiqueRefill = Literal["per_group", "pooled"]
TactiqueRejection = Literal["group", "both"]
FreeUnused = Literal["stock", "reliquat"]

# --- settings -----------------------------------------------------------------------------
@dataclass(frozen=True)
class VariantSettings:
    """A variant and the rules the sources leave open (RULES §9, §11), over the Duplicate's
    own :class:`DuplicateSettings`."""

    variant: Variant = "completif"
    duplicate: DuplicateSettings = field(default_factory=DuplicateSettings)
    #: Tactique: the order of the two groups — free (the seed's « au choix des joueurs »,
    #: the default) or imposed by the arbitre (group 1 or group 2 first) (RULES §9.1)
    tactique_order: TactiqueOrder = "free"
    #: Complétif / Superjoker: the Romanian online joker rules (RULES §9.3, E12), or none (a
    #: chosen letter must be a letter of the stock)
    free_joker_rule: FreeJokerRule = "none"
    #: Duplicate Top: a room top must score at least this much (RULES §9.2: > 0, INFERRED)
    top_min_score: int = 1
    #: Duplicate Top companions (G13): Σ (toppers − 1) over the topped rounds (``sum``), or
    #: the number of distinct players who topped with him (``distinct``)
    top_companions: Companions = "sum"
    #: Duplicate Top / Superscrabble warnings (RULES §5.3): the first conversion at this
    #: many warnings, then one more every ``warning_step`` (4, 7, 10, …)
    warning_first: int = 4
    warning_step: int = 3
    #: G14 (INFERRED) Tactique refill: each group keeps its own reliquat and is completed in
    #: display order (``per_group``), or the two reliquats are pooled, group 1's first, and
    #: shared out again in order — the first 7 letters to group 1 (``pooled``)
    tactique_refill: TactiqueRefill = "per_group"
    #: G14 (INFERRED) Tactique rejection: a group without a vowel or a consonant is redrawn
    #: alone (``group``), or both groups are rejected and redrawn together (``both``)
    tactique_rejection: TactiqueRejection = "group"
    #: G15 (INFERRED) Complétif / Superjoker: a chosen letter the retained top does not
    #: place returns to the stock (``stock``), or stays on the rack with the reliquat
    #: (``reliquat``: it leaves the stock). The engine's own top names only the letters it
    #: places; the difference shows when a top names more (the arbitre's choice,
    #: ``RESTAIT +TE``)
    free_unused: FreeUnused = "stock"

    def to_json(self) -> str:
        data = asdict(self)
        return json.dumps(data, ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | Mapping[str, Any]) -> VariantSettings:
        """Read settings from JSON (or a mapping): the variant keys of this class, the
        Duplicate keys either flat or under ``duplicate``. French errors raise
        :class:`~puzzles.duplicate.DuplicateError`."""
        data = read_object(text, "Réglages", blank_is_empty=True)
        mine = {f.name for f in fields(cls)} - {"duplicate"}
        dup_keys = {f.name for f in fields(DuplicateSettings)}
        nested = data.pop("duplicate", None) or {}
        if not isinstance(nested, dict):
            raise DuplicateError("Réglages : « duplicate » est un objet JSON.")
        flat_dup = {k: v for k, v in data.items() if k in dup_keys}
        unknown = sorted(set(data) - mine - dup_keys)
        if unknown:
            raise DuplicateError(f"Réglages inconnus : {', '.join(unknown)}.")
        dup = DuplicateSettings.from_json({**nested, **flat_dup})
        choices: dict[str, tuple[object, ...]] = {
            "tactique_order": get_args(TactiqueOrder),
            "free_joker_rule": get_args(FreeJokerRule),
            "top_companions": get_args(Companions),
            "tactique_refill": get_args(TactiqueRefill),
            "tactique_rejection": get_args(TactiqueRejection),
            "free_unused": get_args(FreeUnused),
        }
        own = {k: v for k, v in data.items() if k in mine}
        for key, value in own.items():
            if key == "variant":  # its game's key: the registry checks it
                if not isinstance(value, str) or not value:
                    raise DuplicateError("Réglage variant : le nom d'une variante est attendu.")
            elif key in choices:
                check_choice(key, value, choices[key])
            elif not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise DuplicateError(f"Réglage {key} : un entier strictement positif est attendu.")
        return cls(duplicate=dup, **own)


def ranking_point_penalty(warnings: int, settings: VariantSettings | None = None) -> int:
    """RULES §5.3 (Superscrabble family, Duplicate Top): « pour 4 avertissements techniques le
    joueur perd un point de classement (un top); pour 7 … 2 tops; pour 10 … 3 tops »."""
    s = settings or VariantSettings()
    return ranking_points_lost(warnings, first=s.warning_first, every=s.warning_step)

