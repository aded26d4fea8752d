"""Duplicate Tactique (RULES §9.1) as a round game: two groups drawn
(:func:`puzzles.variants.draw_tactique`), the best two-word sequence
(:func:`puzzles.variants.tactique_top`), the billet « H4 RESTAIT 70 + 8C MOTS 25 = 95 »
corrected word by word (:func:`puzzles.variants.correct_tactique`) then the solos, both words
placed, the ranking as the Duplicate's on the sums. The master state is the JSON of
:func:`puzzles.duplicate.codecs.tactique_text` (the Duplicate state and each group's
reliquat)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import cast

from puzzles.duplicate.codecs import (
    AnyBulletinJSON,
    BilletJSON,
    RoundDrawJSON,
    RoundTopJSON,
    TactiqueDrawJSON,
    TactiqueTopJSON,
    billet_dict,
    billet_line,
    billet_of,
    draw_dict,
    draw_of,
    move_of,
    solutions_of,
    tactique_of,
    tactique_text,
    tactique_top_dict,
    tactique_top_of,
)
from puzzles.duplicate.correction import RoundContext, Verdict
from puzzles.duplicate.games.classic import ClassicGame
from puzzles.duplicate.protocol import (
    DrawnRound,
    Finished,
    GameSettings,
    PlayerBulletin,
    RoundRecord,
)
from puzzles.duplicate.ranking import apply_solos
from puzzles.duplicate.settings import DuplicateError
from puzzles.duplicate.state import Draw, GameState
from puzzles.duplicate.top import TopChoice
from puzzles.variants import (
    TactiqueState,
    apply_tactique_top,
    correct_tactique,
    draw_tactique,
    parse_tactique_billet,
    tactique_sequence,
    tactique_top,
)
from scoring.config import GameConfig


def tactique_text_of(ref: str, word: str) -> str:
    """The arbitre's Tactique sequence from the console's two fields: ``ref`` « H4 + 8C »
    and ``word`` « RESTAIT + MOTS » (paired in order), or the whole sequence in either
    field (« H4 RESTAIT + 8C MOTS »)."""
    m = re.match(r"\s*(groupe\s*[12])\s*:?\s*", ref, re.IGNORECASE)
    lead = f"groupe {m.group(1)[-1]} : " if m else ""
    rest = ref[m.end():] if m else ref
    refs = [r.strip() for r in rest.split("+")]
    words = [w.strip() for w in word.split("+")]
    if len(refs) == len(words) == 2 and all(len(x.split()) == 1 for x in refs + words):
        return f"{lead}{refs[0]} {words[0]} + {refs[1]} {words[1]}"
    return f"{lead}{rest.strip()} {word.strip()}".strip()


class TactiqueGame(ClassicGame):
    """Duplicate Tactique: two groups, two words, in the order of the player's choice."""

    key = "tactique"
    label = "Duplicate Tactique"
    rules_fr = ("Tactique : deux groupes de lettres ; jouez un mot avec chacun, dans l'ordre "
                "de votre choix, et écrivez les deux mots dans l'ordre où vous les posez, "
                "chacun avec son score, puis leur somme.")
    bulletin_example = "H4 RESTAIT 70 + 8C MOTS 25 = 95"
    # RULES §9.1 « Temps de réflexion: 6 minutes par coup »
    live_minutes = 6
    two_words = True
    form_settings = True

    def initial(self, settings: GameSettings, bag: str, config: GameConfig) -> str:
        return tactique_text(TactiqueState(GameState.initial(settings.duplicate, bag)))

    def draw(self, state_text: str, settings: GameSettings, config: GameConfig,
             round_no: int) -> DrawnRound | Finished:
        vs = settings.rules
        drawn, ts = draw_tactique(tactique_of(state_text), vs)
        top = None if drawn is None else tactique_top(ts.game.board, drawn.racks, config, vs)
        if drawn is None or top is None or (top.first is None and top.second is None):
            return Finished(tactique_text(ts))
        d1, d2 = drawn.groups
        draw: TactiqueDrawJSON = {"groups": [draw_dict(d1), draw_dict(d2)],
                                  "rack": f"{d1.rack}/{d2.rack}", "notation": drawn.notation}
        return DrawnRound(draw, tactique_text(ts), ts.game.board_cgp, tactique_top_dict(top))

    def parse(self, text: str, *, player: str = "") -> AnyBulletinJSON | list[str]:
        parsed = parse_tactique_billet(text, player=player)
        return parsed if isinstance(parsed, list) else billet_dict(parsed)

    def verdicts(self, round: RoundRecord, bulletins: Sequence[PlayerBulletin],
                 settings: GameSettings, config: GameConfig,
                 n_players: int) -> list[Verdict]:
        ts = tactique_of(round.state_before)
        vs = settings.rules
        contexts: dict[tuple[str, str, int], RoundContext] = {}
        verdicts = []
        for pb in bulletins:
            if not pb.absent and pb.bulletin is None:
                errors = list(pb.parse_errors) or ["billet illisible"]
                verdicts.append(Verdict(pb.player, 0, "nul", reason_fr="Nul : billet "
                                        "illisible — " + " ".join(errors)))
                continue
            billet = None if pb.bulletin is None else billet_of(
                cast(BilletJSON, pb.bulletin), pb.player, pb.received_at)
            verdicts.append(correct_tactique(ts, billet, config, top_score=int(round.top["score"]),
                                             settings=vs, player=pb.player, contexts=contexts))
        return apply_solos(verdicts, n_players, vs.duplicate)

    def other_top(self, round: RoundRecord, ref: str, word: str, settings: GameSettings,
                  config: GameConfig, *, actor: str, reason: str) -> RoundTopJSON:
        """RULES §9.1: another legal two-word sequence of the round
        (:func:`puzzles.variants.tactique_sequence`)."""
        if not reason.strip():
            raise DuplicateError("Indiquez le motif du changement de top.")
        ts = tactique_of(round.state_before)
        try:
            top = tactique_sequence(ts.game.board, ts.reliquats, tactique_text_of(ref, word),
                                    config, settings.rules)
        except ValueError as exc:
            raise DuplicateError(str(exc)) from None
        out = tactique_top_dict(top)
        out["reason"] = f"Suite choisie par l'arbitre ({actor}) : {reason.strip()}"
        return out

    def apply(self, round: RoundRecord, settings: GameSettings,
              config: GameConfig) -> tuple[str, str]:
        ts = apply_tactique_top(tactique_of(round.state_before),
                                tactique_top_of(cast(TactiqueTopJSON, round.top)))
        return tactique_text(ts), ts.game.board_cgp

    def round_draw(self, r: RoundRecord) -> Draw:
        return draw_of(cast(TactiqueDrawJSON, r.draw)["groups"][0])

    def round_top(self, r: RoundRecord) -> TopChoice:
        """The round's top as the ranking reads it: the sum, its first word."""
        d = cast(TactiqueTopJSON, r.top)
        first = d["first"] or d["second"]
        assert first is not None
        return TopChoice(move=move_of(first), ref=d["ref"], word=d["word"],
                         score=int(d["score"]))

    def rack_letters(self, draw: RoundDrawJSON) -> str:
        return "".join(g["rack"] for g in cast(TactiqueDrawJSON, draw)["groups"])

    def bulletin_line(self, bulletin: AnyBulletinJSON | None) -> str | None:
        return billet_line(cast(BilletJSON, bulletin)) if bulletin else None

    def solution_count(self, bulletin: AnyBulletinJSON | None) -> int:
        """A billet: its word with the most solutions."""
        if not bulletin:
            return 0
        b = cast(BilletJSON, bulletin)
        return max(solutions_of(b["first"]), solutions_of(b.get("second")))

    def top_words(self, top: RoundTopJSON) -> tuple[str, str]:
        """« H7 ZA 22 + » and « H7 ZAS 12 » (both words in placement order with their
        scores)."""
        t = cast(TactiqueTopJSON, top)
        words = [f"{m['ref']} {m['word']} {m['score']}" for m in (t["first"], t["second"]) if m]
        return words[0] + (" +" if len(words) > 1 else ""), words[1] if len(words) > 1 else ""



