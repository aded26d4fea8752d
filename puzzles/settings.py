"""Every rule the puzzles use that the sources leave open (INFERRED in docs/RULES.md), as one
frozen :class:`Settings` value with the documented defaults.

Each field names its gap tag (G6, G8, ...) or RULES section. docs/PUZZLES.md lists them all.
Changing a setting never changes the file formats, only how the verifier judges and how the
generator draws.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

from puzzles.penalties import points_deduction, ranking_points_lost

#: FISF 5.7: « Au quatrième (sixième en blitz et partie originale) » avertissement.
DEFAULT_WARNING_PENALTY_FROM = 4


@dataclass(frozen=True)
class Settings:
    """The verifier's and generator's configurable rules (defaults = docs/RULES.md)."""

    # G11 (RULES §3.1 rule 3): FISF wants a horizontal first word; FRSc games do not say.
    first_move_horizontal: bool = False
    # G8 (RULES §6.1): a player may play nothing with an Anticipation group ("Passe", 0 pts).
    anticipation_pass_allowed: bool = True
    # G7 (RULES §6.1): the generator makes group 1 hold at least a vowel and a consonant.
    anticipation_group1_vowel_and_consonant: bool = True
    # RULES §6.1 adapted to correspondence (INFERRED, puzzles.rounds): when the groups are
    # announced move by move, a billet first sent (or changed) after the announcement of the
    # next move scores zero, and a late annulment is ignored. Off: timing is not judged.
    anticipation_round_timing: bool = True
    # RULES §6.1 played live (« Rythme : en direct » on the console): the server applies the
    # rules' times, 60 min of reflection from the publication, then 10 min for moves 1–4, 8
    # for 5–8, 6 for 9–12, 4 for 13–14 (puzzles.rounds.live_announcement_times; the deadline
    # is the end of move 14, publication + 164 min). Off (the default): by correspondence,
    # one announcement every ``round_interval_minutes`` of the problem.
    anticipation_live: bool = False
    # RULES §6.1 (INFERRED): an "Annuler coup(s)" on a billet takes effect before that
    # billet's word; off, after it (the word may then rely on what it cancels and cascades).
    annulment_before_move: bool = True
    # G10 (RULES §7.3): a word/placement error in a rangée still consumes its letters; when
    # True it is treated like skipping a letter (the rest of the solution is annulled).
    rangee_word_error_breaks_sequence: bool = False
    # G6 (RULES §5.3, §4.7.7): in points games each warning from the Nth costs
    # ``warning_penalty_points``; 4 is FISF standard, 6 is FISF 5.7's « sixième en blitz et
    # partie originale ». None: the problem's own ``warning_penalty_from`` (a per-problem
    # setting, 4 unless the problem file says otherwise); a number overrides it.
    warning_penalty_from: int | None = None
    warning_penalty_points: int = 5
    # RULES §5.3: ranking-point games (Superscrabble family, Exclusif résistance) lose
    # 1 + (W - from) // every ranking points once W >= from.
    ranking_warning_from: int = 4
    ranking_warning_every: int = 3
    # G18 (RULES §7.4): Série de maximaux sanctions are applied as a tie-break demotion
    # (the penalty in ranking points breaks ties on the score vector).
    serie_sanction: Literal["tie_break_demotion"] = "tie_break_demotion"
    # RULES §7.4 (INFERRED): moves a Série sheet does not play count 0 in the score vector
    # (off: they rank below any played move, even a zero).
    serie_missing_moves_zero: bool = True
    # G12 (RULES §7.6): Superscrabble incomplet builds from the full set minus the 7 letters
    # (``"bag"``: from the full set).
    incomplet_construction_stock: Literal["bag_minus_rack", "bag"] = "bag_minus_rack"
    # RULES §7.6 (INFERRED): a scrabble relying on a zeroed construction word is invalid.
    incomplet_scrabble_needs_valid_construction: bool = True
    # RULES §7.5 (INFERRED): an invalid or repeated scrabble earns nothing; when True it also
    # costs a technical warning.
    superscrabble_invalid_entry_warning: bool = False
    # G17 (RULES §5.2 step 6): « Est punie d'un zéro toute erreur de mot (principal ou de
    # raccord) ou de placement ». A word that is not where its reference puts it is a
    # placement error: zero, with the cascade. True (not the rule, an explicit choice of the
    # arbitre): when the word does not fit at its reference at all but the word and its
    # claimed score fit exactly one legal placement, play it there with a penalty (points
    # games) or a warning (ranking-point games), as the FISF 5-point rule does for Duplicate
    # bulletins. A word that fits at its reference is never moved, even with this on.
    ref_mismatch_relocate: bool = False
    ref_mismatch_penalty: int = 5
    # RULES §5.2 step 5: the seeds fault « toute erreur ou absence de score », not the cumul;
    # the arbitre corrects a wrong or missing cumul silently. True restores the former
    # reading (a missing or wrong cumul is a technical warning). Anticipation's move 1 sum
    # of two words is a score of the billet and is checked whatever this says.
    cumul_warning: bool = False
    # With ``cumul_warning``: the cumul is checked as the player's own arithmetic (previous
    # written cumul plus the written score), so one zeroed move does not make every later
    # cumul "wrong"; ``"true"``: against the corrected cumul.
    cumul_check: Literal["arithmetic", "true"] = "arithmetic"
    # RULES §5.1 (INFERRED): written letters that differ from those the word puts on the grid
    # are a technical warning (the grid decides what was played).
    letters_mismatch_warning: bool = True
    # INFERRED: a line without its letters column is a minor omission, not a warning.
    missing_letters_warning: bool = False
    # RULES §4.7.5: warnings on one billet (one move number) do not add up.
    one_warning_per_move: bool = True

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Settings:
        """Read settings; an unknown key is refused so that a typo cannot pass silently."""
        if not isinstance(data, dict):
            raise ValueError("Les réglages sont un objet JSON ({\"nom\": valeur, …}).")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"Réglage(s) inconnu(s) : {', '.join(unknown)}.")
        bad = [_type_error(name, value) for name, value in data.items()]
        wrong = [b for b in bad if b]
        if wrong:
            raise ValueError("Réglage(s) invalide(s) : " + " ; ".join(wrong) + ".")
        return cls(**data)

    def penalty_from(self, problem_default: int = DEFAULT_WARNING_PENALTY_FROM) -> int:
        """The warning from which points are deducted: this setting when given, else the
        problem's (``Problem.warning_penalty_from``)."""
        if self.warning_penalty_from is not None:
            return self.warning_penalty_from
        return problem_default

    def points_penalty(
        self, warnings: int, problem_default: int = DEFAULT_WARNING_PENALTY_FROM
    ) -> int:
        """Points deducted for ``warnings`` technical warnings (RULES §4.7.7, G6)."""
        return points_deduction(warnings, first=self.penalty_from(problem_default),
                                points=self.warning_penalty_points)

    def ranking_penalty(self, warnings: int) -> int:
        """Ranking points lost for ``warnings`` warnings (RULES §5.3: at W = 4, 7, 10, ...)."""
        return ranking_points_lost(warnings, first=self.ranking_warning_from,
                                   every=self.ranking_warning_every)


_CHOICES: dict[str, tuple[str, ...]] = {
    "serie_sanction": ("tie_break_demotion",),
    "incomplet_construction_stock": ("bag_minus_rack", "bag"),
    "cumul_check": ("arithmetic", "true"),
}


def _type_error(name: str, value: object) -> str | None:
    """What is wrong with ``value`` for setting ``name`` (French), or None."""
    default = getattr(Settings(), name)
    if name in _CHOICES:
        if value not in _CHOICES[name]:
            return f"{name} : une des valeurs {', '.join(_CHOICES[name])}, reçu {value!r}"
        return None
    if isinstance(default, bool):
        return None if isinstance(value, bool) else f"{name} : vrai ou faux, reçu {value!r}"
    is_int = isinstance(value, int) and not isinstance(value, bool)
    if name == "warning_penalty_from":
        if value is None or (isinstance(value, int) and is_int and value >= 1):
            return None
        return f"{name} : un entier ≥ 1 ou null, reçu {value!r}"
    if isinstance(default, int):
        return None if is_int else f"{name} : un nombre entier, reçu {value!r}"
    return None
