"""Every rule the puzzles use that the sources leave open (INFERRED in docs/RULES.md), as one
frozen :class:`Settings` value with the documented defaults.

Each field names its gap tag (G6, G8, ...) or RULES section. docs/PUZZLES.md lists them all.
Changing a setting never changes the file formats, only how the verifier judges and how the
generator draws.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Literal


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
    # RULES §6.1 (INFERRED): an "Annuler coup(s)" on a billet takes effect before that
    # billet's word; off, after it (the word may then rely on what it cancels and cascades).
    annulment_before_move: bool = True
    # G10 (RULES §7.3): a word/placement error in a rangée still consumes its letters; when
    # True it is treated like skipping a letter (the rest of the solution is annulled).
    rangee_word_error_breaks_sequence: bool = False
    # G6 (RULES §5.3, §4.7.7): in points games each warning from the Nth costs
    # ``warning_penalty_points``; 4 is FISF standard, 6 is the "original game" reading.
    warning_penalty_from: int = 4
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
    # G17 (RULES §5.2 step 6): when the written reference does not fit the word but the word
    # and its claimed score fit exactly one legal placement, play it there with a penalty
    # (points games) or a warning (ranking-point games); otherwise zero.
    ref_mismatch_relocate: bool = True
    ref_mismatch_penalty: int = 5
    # RULES §5.2 step 5 (INFERRED): a missing or wrong cumul is a technical warning.
    cumul_warning: bool = True
    # INFERRED: the cumul is checked as the player's own arithmetic (previous written cumul
    # plus the written score), so one zeroed move does not make every later cumul "wrong".
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
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"Réglage(s) inconnu(s) : {', '.join(unknown)}.")
        return cls(**data)

    def points_penalty(self, warnings: int) -> int:
        """Points deducted for ``warnings`` technical warnings (RULES §4.7.7, G6)."""
        return self.warning_penalty_points * max(0, warnings - (self.warning_penalty_from - 1))

    def ranking_penalty(self, warnings: int) -> int:
        """Ranking points lost for ``warnings`` warnings (RULES §5.3: at W = 4, 7, 10, ...)."""
        if warnings < self.ranking_warning_from:
            return 0
        return 1 + (warnings - self.ranking_warning_from) // self.ranking_warning_every
