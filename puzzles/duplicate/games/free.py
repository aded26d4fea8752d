"""The letter-choice games (RULES §9.3–9.6) as ONE round game parameterised as Eliot's game
modes are: ``drawn`` letters drawn by the arbitre, ``free`` letters the player takes from the
stock, ``swap`` (one drawn letter may be given back for a stock letter), ``max_tiles`` the
most tiles a move places — Complétif (6 + 1), Superjoker (5 + 2), Métagramme (7, one swap),
Elliptique (8 drawn, 7 among them: a parameter, not a branch). The draw stores the stock
(the bag, sorted); the top is searched over every choice
(:func:`puzzles.variants.variant_top`); a bulletin names its letters (« +T », « -N +K »)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from puzzles.duplicate.codecs import (
    AnyBulletinJSON,
    BulletinJSON,
    DrawJSON,
    RoundTopJSON,
    TopJSON,
    draw_dict,
    free_dict,
    free_of,
    variant_top_dict,
    variant_top_of,
)
from puzzles.duplicate.correction import Verdict
from puzzles.duplicate.games.classic import ClassicGame, arbitre_top, legal_move
from puzzles.duplicate.protocol import GameSettings, PlayerBulletin, RoundRecord
from puzzles.duplicate.settings import RACK_SIZE, DuplicateError
from puzzles.duplicate.state import Draw, GameState
from puzzles.variants import (
    FreeBulletin,
    apply_variant_top,
    correct_free_round,
    draw_variant,
    parse_free_bulletin,
    variant_top,
)
from scoring.config import GameConfig


@dataclass(frozen=True)
class FreeLetters:
    """The parameters of a letter-choice game."""

    #: letters the arbitre draws
    drawn: int
    #: letters the player takes from the stock
    free: int = 0
    #: one drawn letter may be given back for one stock letter (Métagramme)
    swap: bool = False
    #: the most tiles one move places (Elliptique: 7 of the 8 drawn)
    max_tiles: int = RACK_SIZE


class FreeGame(ClassicGame):
    """One letter-choice game: its key, names, rule text, example and :class:`FreeLetters`."""

    names_letters = True

    def __init__(self, key: str, label: str, short: str, rules_fr: str, bulletin_example: str,
                 letters: FreeLetters) -> None:
        self.key = key
        self.label = label
        #: the name in a sentence (« En Métagramme, … »)
        self.short = short
        self.rules_fr = rules_fr
        self.bulletin_example = bulletin_example
        self.letters = letters
        # the players choose from the stock: the page and the draw mail show it
        self.free_letters = self.shows_stock = letters.free > 0 or letters.swap
        # the jokers' rule and the unused chosen letter are set where letters are chosen
        self.form_settings = letters.free > 0

    def draw_from(self, state: GameState, settings: GameSettings,
                  config: GameConfig) -> tuple[Draw | None, GameState]:
        return draw_variant(state, settings.rules)

    def top_of_round(self, state: GameState, draw: Draw, settings: GameSettings,
                     config: GameConfig, round_no: int) -> TopJSON | None:
        top = variant_top(state, draw.rack, config, settings.rules)
        return None if top is None else variant_top_dict(top)

    def draw_json(self, draw: Draw, state: GameState) -> DrawJSON:
        # what the players choose from (stored for every letter-choice game)
        return {**draw_dict(draw), "stock": "".join(sorted(state.bag))}

    def parse(self, text: str, *, player: str = "") -> AnyBulletinJSON | list[str]:
        parsed = parse_free_bulletin(text, player=player)
        return parsed if isinstance(parsed, list) else free_dict(parsed)

    def free_sheet_of(self, pb: PlayerBulletin) -> FreeBulletin | str | None:
        if pb.absent:
            return None
        if pb.bulletin is None:
            return pb.text or ""
        return free_of(cast(BulletinJSON, pb.bulletin), pb.player, pb.received_at)

    def verdicts(self, round: RoundRecord, bulletins: Sequence[PlayerBulletin],
                 settings: GameSettings, config: GameConfig,
                 n_players: int) -> list[Verdict]:
        state = GameState.from_text(round.state_before)
        sheets = {pb.player: self.free_sheet_of(pb) for pb in bulletins}
        return correct_free_round(state, round.draw["rack"], sheets, config,
                                  top_score=int(round.top["score"]), settings=settings.rules,
                                  n_players=n_players)

    def other_top(self, round: RoundRecord, ref: str, word: str, settings: GameSettings,
                  config: GameConfig, *, actor: str, reason: str) -> RoundTopJSON:
        if not reason.strip():
            raise DuplicateError("Indiquez le motif du changement de top.")
        state = GameState.from_text(round.state_before)
        rack, written, chosen, swapped = self.free_rack(state, round.draw["rack"], word,
                                                        settings)
        move = legal_move(state, rack, config, ref, written)
        if bin(move.new_mask).count("1") > self.letters.max_tiles:
            raise DuplicateError(f"En {self.short}, un coup pose au plus "
                                 f"{self.letters.max_tiles} lettres.")
        base = rack[:len(rack) - len(chosen)]
        used = "".join(sorted((Counter(move.letters) - Counter(base)).elements()))
        # G15: a named letter the move does not place returns to the stock (it is no
        # choice), unless the game keeps it on the rack (free_unused="reliquat")
        kept = chosen if settings.rules.free_unused == "reliquat" else used
        return arbitre_top(move, actor, reason, (kept, swapped if used else ""))

    def free_rack(self, state: GameState, drawn: str, text: str,
                  settings: GameSettings) -> tuple[str, str, str, str]:
        """The arbitre's move written with its letters (``RESTAIT +T``, ``KETAMINE -N
        +K``): the rack (the drawn letters less the given-back one, plus the chosen ones,
        which must be in the stock), the word, the chosen and the given-back letters."""
        word_parts, chosen, swapped = [], "", ""
        for tok in text.split():
            if tok.startswith("+") and len(tok) > 1:
                chosen += tok[1:].upper()
            elif tok.startswith("-") and len(tok) > 1:
                swapped += tok[1:].upper()
            else:
                word_parts.append(tok)
        if len(word_parts) != 1:
            raise DuplicateError("Écrivez le mot puis les lettres choisies, par exemple "
                                 "« RESTAIT +T » (Métagramme : « KETAMINE -N +K »).")
        swap = self.letters.swap
        limit = 1 if swap else settings.rules.free
        if len(chosen) > limit or len(swapped) > (1 if swap else 0):
            raise DuplicateError(f"{self.label} : {limit} lettre(s) choisie(s) au plus.")
        if swap and bool(chosen) != bool(swapped):
            raise DuplicateError("En Métagramme, la lettre rendue et la lettre choisie vont "
                                 "ensemble (« -N +K »).")
        stock = Counter(state.bag)
        if Counter(chosen) - stock:
            raise DuplicateError(f"Lettre(s) choisie(s) « {chosen} » absente(s) du stock.")
        base = drawn
        if swapped:
            if swapped not in drawn:
                raise DuplicateError(f"La lettre rendue {swapped} n'est pas dans le tirage "
                                     f"{drawn}.")
            base = drawn.replace(swapped, "", 1)
        return base + chosen, word_parts[0], chosen, swapped

    def apply(self, round: RoundRecord, settings: GameSettings,
              config: GameConfig) -> tuple[str, str]:
        state = apply_variant_top(GameState.from_text(round.state_before), round.draw["rack"],
                                  variant_top_of(cast(TopJSON, round.top)), settings.rules)
        return state.to_text(), state.board_cgp


COMPLETIF = FreeGame(
    "completif", "Duplicate Complétif", "Complétif",
    "Complétif : complétez le tirage de 6 lettres par 1 lettre choisie dans le stock et "
    "nommez-la après le score (« +T »).", "H4 RESTAIT 70 +T", FreeLetters(drawn=6, free=1))
SUPERJOKER = FreeGame(
    "superjoker", "Duplicate Superjoker", "Superjoker",
    "Superjoker : complétez le tirage de 5 lettres par 2 lettres choisies dans le stock et "
    "nommez-les après le score (« +ST »).", "H4 RESTAIT 70 +ST", FreeLetters(drawn=5, free=2))
METAGRAMME = FreeGame(
    "metagramme", "Duplicate Métagramme", "Métagramme",
    "Métagramme : vous pouvez échanger une lettre du tirage contre une lettre du stock ; "
    "nommez la lettre rendue puis la lettre prise (« -N +K »).", "H4 KETAMINE 92 -N +K",
    FreeLetters(drawn=RACK_SIZE, swap=True))
ELLIPTIQUE = FreeGame(
    "elliptique", "Duplicate Elliptique", "Elliptique",
    "Elliptique : 8 lettres sont tirées ; jouez un mot d'au plus 7 d'entre elles.",
    "H4 RESTAIt 70", FreeLetters(drawn=8, max_tiles=RACK_SIZE))
