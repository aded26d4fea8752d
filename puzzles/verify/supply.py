"""Letter-supply rules per game family: where the letters of each move may come from.

Owns :class:`LetterSupply`, the state of what the game still makes available while the
verifier replays a sheet, and the rules that draw on it: the construction stock (Intégral,
Intégral partiel, Superscrabble incomplet), the row (Rangée, RULES §7.3, with its break),
the groups (Série de maximaux, N-Scrabble: one group per word, each once, imposed order),
the announced group of each billet (Anticipation), the announced consonants completed from
the pool (consonant variants, RULES §6.2), the seven letters of a Scrabble exclusif, and the
check of the blind Anticipation's groups. The replay core (:mod:`puzzles.verify.replay`)
calls it for each move; a fault zeroes the :class:`~puzzles.verify.entry.Entry`.
"""

from __future__ import annotations

from collections import Counter

from puzzles.families import Supply
from puzzles.problem import Problem, first_group_size, romanian_group1_errors
from puzzles.settings import Settings
from puzzles.verify.entry import Entry
from puzzles.verify.report import MoveStatus
from scoring.tiles import JOKER, TileSet

_STOCKS: dict[tuple[object, ...], tuple[TileSet, dict[str, int]]] = {}


def _stock(problem: Problem, ts: TileSet, full_bag: bool) -> dict[str, int]:
    """A fresh copy of the stock a stock-based problem starts with (``full_bag``: the
    Superscrabble incomplet built from the whole set); worked out once for what it depends
    on (the game, the tile set, the problem's stock and rack), as a batch judges many
    sheets of the same problem, or of problems with the same stock."""
    key = (problem.game, id(ts), problem.stock, problem.rack, full_bag)
    hit = _STOCKS.get(key)
    if hit is None or hit[0] is not ts:
        stock = problem.construction_stock()
        if problem.game.family.construction_then_answers and full_bag:
            stock = problem.tileset.bag()
        if len(_STOCKS) >= 64:
            _STOCKS.clear()
        hit = _STOCKS[key] = (ts, {c: n for c, n in stock.items() if n > 0})
    return dict(hit[1])


class LetterSupply:
    """What the game still makes available, and the rules of taking from it."""

    def __init__(self, problem: Problem, settings: Settings) -> None:
        self.problem = problem
        self.settings = settings
        self.game = problem.game
        self.fam = fam = problem.game.family
        self.ts = problem.tileset
        # the stock (positive counts only, as Counter's ``-=`` leaves them)
        self.stock: dict[str, int] = {}
        if fam.supply is Supply.STOCK:
            self.stock = _stock(
                problem, self.ts, settings.incomplet_construction_stock == "bag"
            )
        # the pool the consonant variants complete their groups from
        self.pool: Counter[str] = Counter(problem.pool) if fam.consonants_announced else Counter()
        self.row_pos = 0
        self.broken = False
        self.broken_at: int | None = None
        self.used_groups: set[int] = set()
        self.groups: tuple[str, ...] = problem.groups

    def check_blind_groups(self, groups: tuple[str, ...]) -> str | None:
        """Blind Anticipation: the player's own groups become the supply when they are a
        first group of :func:`~puzzles.problem.first_group_size` letters then 14 groups of 7
        making the whole bag; otherwise no group is available and the French error is
        returned."""
        small = first_group_size(self.problem.lang)
        want = [small] + [7] * 14
        problems: list[str] = []
        if [len(x) for x in groups] != want:
            problems.append(
                f"{len(groups)} groupe(s) de tailles {[len(x) for x in groups]} "
                f"(attendu un groupe de {small} puis 14 groupes de 7)"
            )
        elif Counter("".join(groups)) != self.ts.bag():
            diff_plus = Counter("".join(groups)) - self.ts.bag()
            diff_minus = self.ts.bag() - Counter("".join(groups))
            problems.append(
                "les groupes ne forment pas le sac entier (en trop : "
                f"{''.join(sorted(diff_plus.elements())) or 'rien'} ; manquant : "
                f"{''.join(sorted(diff_minus.elements())) or 'rien'})"
            )
        elif self.problem.lang == "ro":
            problems.extend(
                why.rstrip(".") for why in romanian_group1_errors(self.ts, groups[0], False)
            )
        if problems:
            self.groups = ()
            return "Groupes de l'anticipation aveugle invalides : " + "; ".join(problems) + "."
        self.groups = groups
        return None

    def anticipation_group(self, e: Entry, k: int, n_lines: int) -> bool:
        """Anticipation: the group billet ``e.move.number`` plays (its ``k``-th line of
        ``n_lines``; move 1 may play group 1 first). False when the line is zeroed."""
        b = e.move.number
        if not 1 <= b <= 14:
            e.zero(f"Coup {b} : une Anticipation se joue en 14 coups.")
            return False
        announced = self.problem.order[b - 1] if len(self.problem.order) >= b else None
        if announced is None or not 1 <= announced <= len(self.groups):
            e.zero("Aucun groupe disponible pour ce coup.")
            return False
        if b == 1 and n_lines >= 2:
            expected = 1 if k == 0 else announced
            if k > 1:
                e.zero("Au premier coup, deux mots au plus (groupe 1 puis le groupe tiré).")
                return False
        else:
            expected = announced
            if k > 0:
                e.zero(f"Coup {b} : un seul mot par coup.")
                return False
            if b == 1 and e.move.group == 1:
                e.zero(
                    "Au premier coup, un mot seul se joue avec le groupe de 7 lettres "
                    f"(groupe {announced})."
                )
                return False
        if e.move.group is not None and e.move.group != expected:
            e.warnings.append(
                f"numéro de groupe {e.move.group} écrit, le groupe joué à ce coup est le "
                f"{expected}."
            )
        e.group = expected
        return True

    def choose_group(self, e: Entry, index: int) -> bool:
        """Série de maximaux and N-Scrabble: one group per word, each group once; ``index``
        is the number of word lines before this one."""
        n = len(self.groups)
        if self.problem.order:
            if index >= len(self.problem.order):
                e.zero("Plus de coups que de groupes.")
                return False
            expected = self.problem.order[index]
            if not 1 <= expected <= n:
                e.zero(f"L'ordre imposé désigne le groupe {expected}, qui n'existe pas.")
                return False
            if e.move.group is not None and e.move.group != expected:
                e.warnings.append(f"groupe {e.move.group} écrit, l'ordre imposé est le {expected}.")
            e.group = expected
        elif e.move.group is not None:
            if not 1 <= e.move.group <= n:
                e.zero(f"Le groupe {e.move.group} n'existe pas (1 à {n}).")
                return False
            e.group = e.move.group
        else:
            e.group = None  # found from the letters once the move is materialised
        if e.group is not None and e.group in self.used_groups:
            e.zero(f"Le groupe {e.group} a déjà été joué.")
            return False
        return True

    def break_row(self, e: Entry, reason: str) -> None:
        """Rangée: ``e`` breaks the row; it and every later move are annulled."""
        e.zero(reason + " Le coup et toute la suite de la solution sont annulés.",
               MoveStatus.ANNULLED)
        e.status = MoveStatus.ANNULLED  # even after a word error: it is the move that broke
        self.broken = True
        self.broken_at = e.move.number

    def consume_unplaced(self, e: Entry) -> None:
        """A move that could not be put on the grid still uses its letters in a rangée
        (G10) when the written letters are the next ones of the row."""
        if self.fam.supply is not Supply.ROW:
            return
        declared = e.move.letters
        if declared and not self.settings.rangee_word_error_breaks_sequence:
            nxt = self.problem.row[self.row_pos : self.row_pos + len(declared)]
            if Counter(declared) == Counter(nxt):
                self.row_pos += len(declared)
                return
        self.break_row(
            e,
            "Le coup n'a pas pu être placé et ses lettres écrites ne sont pas les suivantes "
            "de la rangée.",
        )

    def check(self, e: Entry, letters: str) -> None:
        """Take the ``letters`` move ``e`` put down (capitals, ``?`` a joker) from what the
        game offers (stock, row, group, pool), zeroing ``e`` (or breaking the row) when they
        are not there."""
        supply = self.fam.supply
        if supply is Supply.STOCK:
            self._take_from_stock(e, letters)
        elif supply is Supply.ROW:
            self._take_from_row(e, Counter(letters))
        else:
            self._take_from_group(e, Counter(letters))

    def _take_from_stock(self, e: Entry, letters: str) -> None:
        """Intégral family, Superscrabble incomplet's construction: the remaining stock.

        What ``Counter(letters) - stock`` is missing, then ``stock -= Counter(letters)``,
        letter by letter (a move puts down a few letters; the stock only ever holds
        positive counts)."""
        stock = self.stock
        missing: list[str] = []
        for c in letters:
            have = stock.get(c, 0)
            if have > 1:
                stock[c] = have - 1
            elif have:
                del stock[c]
            else:
                missing.append(c)
        if missing:
            e.zero(f"Lettres indisponibles dans le stock : {''.join(sorted(missing))}.")

    def _take_from_row(self, e: Entry, letters: Counter[str]) -> None:
        """Rangée (RULES §7.3): exactly the next letters of the row, 2 to 7 at the first
        move, at most 7 after; anything else breaks the row."""
        shown = "".join(sorted(letters.elements()))
        k = sum(letters.values())
        want = Counter(self.problem.row[self.row_pos : self.row_pos + k])
        first = self.row_pos == 0
        if letters != want or k > 7 or (first and k < 2):
            expected = self.problem.row[self.row_pos : self.row_pos + min(k, 7)]
            self.break_row(
                e,
                f"Lettres posées {shown} : ce ne sont pas les {k} premières lettres de la "
                f"rangée restante ({expected}).",
            )
            return
        if e.absent and self.settings.rangee_word_error_breaks_sequence:
            self.break_row(
                e,
                "Erreur de mot ou de placement dans la rangée "
                "(réglage rangee_word_error_breaks_sequence).",
            )
            return
        self.row_pos += k

    def _take_from_group(self, e: Entry, letters: Counter[str]) -> None:
        """Group games: the move's group (found from the letters when the sheet does not
        say it), with the consonant variants' completion from the pool (RULES §6.2) and
        the Scrabble exclusif's seven letters."""
        fam = self.fam
        groups = fam.supply is Supply.GROUPS
        shown = "".join(sorted(letters.elements()))
        if e.group is None and groups:
            e.group = self.find_group(letters)
            if e.group is None:
                e.zero(f"Les lettres {shown} ne viennent d'aucun groupe encore disponible.")
                return
        if e.group is None:
            return
        if groups and not fam.anticipation:
            self.used_groups.add(e.group)
        group_text = self.groups[e.group - 1]
        size = self.problem.group_size(e.group) if fam.consonants_announced else len(group_text)
        group = Counter(self.groups[e.group - 1])
        if fam.consonants_announced:
            mine = Counter({c: n for c, n in letters.items() if self.announced_kind(c)})
            other = letters - mine
            reasons = []
            if mine - group:
                reasons.append(
                    f"consonne(s) {''.join(sorted((mine - group).elements()))} non annoncée(s) "
                    f"dans le groupe {e.group}"
                )
            if other - self.pool:
                reasons.append(
                    f"{''.join(sorted((other - self.pool).elements()))} plus disponible(s) dans "
                    "la réserve"
                )
            room = self.pool_room(e.group)
            if sum(other.values()) > room:
                reasons.append(
                    f"{sum(other.values())} lettre(s) de la réserve "
                    f"({''.join(sorted(other.elements()))}) : le groupe {e.group} annonce "
                    f"{len(group_text)} consonne(s) et se complète à {size} lettres, soit "
                    f"{room} lettre(s) de la réserve au plus"
                )
            self.pool -= other
            if reasons:
                e.zero(f"Lettres {shown} indisponibles : " + " ; ".join(reasons) + ".")
        else:
            missing = letters - group
            if missing:
                e.zero(
                    f"Lettres {''.join(sorted(missing.elements()))} absentes du groupe {e.group} "
                    f"({self.groups[e.group - 1]})."
                )
        if fam.exclusif and e.group != 1 and sum(letters.values()) != 7:
            status = MoveStatus.OUT if fam.exclusif == "resistance" else MoveStatus.ZERO
            e.zero(
                "Scrabble exclusif : les 7 lettres doivent être posées "
                f"({sum(letters.values())} posées).",
                status,
            )

    def pool_room(self, group: int) -> int:
        """Pool letters a move with ``group`` may use (RULES §6.2): S2 completes the groups
        « jusqu'à la concurrence de 7 lettres (respectivement, 4 lettres pour le premier
        groupe) », so the group is all c announced consonants plus 7 − c (4 − c) pool
        letters, whatever number of consonants the move actually places."""
        return max(0, self.problem.group_size(group) - len(self.groups[group - 1]))

    def announced_kind(self, c: str) -> bool:
        """A tile that must come from the announced consonants (not the pool)."""
        return c != JOKER and not self.ts.is_vowel(c) and c not in self.ts.ambiguous

    def find_group(self, letters: Counter[str]) -> int | None:
        for n in range(1, len(self.groups) + 1):
            if n in self.used_groups:
                continue
            group = Counter(self.groups[n - 1])
            if self.fam.consonants_announced:
                mine = Counter({c: k for c, k in letters.items() if self.announced_kind(c)})
                other = letters - mine
                if not (mine - group) and not (other - self.pool) and (
                    sum(other.values()) <= self.pool_room(n)
                ):
                    return n
            elif not (letters - group):
                return n
        return None
