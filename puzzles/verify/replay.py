"""The verifier's replay and cascade core.

Owns :class:`Verifier`: the sheet replayed move by move on the player's *physical* board
(RULES §5.2) — each word materialised at its reference (placement and word errors, the G17
relocation), its letters taken from the game's :class:`~puzzles.verify.supply.LetterSupply`,
its true score computed; then the cascade (a later move resting on a zeroed or annulled one,
or illegal on the *effective* board without them, is zeroed too, to any depth); then scores,
warnings, cumuls, Anticipation annulments, the Exclusif résistance elimination, the
Superscrabble answers, and the totals and penalties of the :class:`~puzzles.verify.report.Report`
(RULES §5.3). The public entry points are in :mod:`puzzles.verify`.

Speed (issue 23: a batch judges thousands of sheets): a move that is entirely legal is
judged by the compiled fast path (:func:`scoring.validate.quick_checker`), whose answer is
the one of :func:`~scoring.validate.check_move` as plain values; every other move, and every
move without the extension, goes through ``check_move`` itself, the pure-Python reference
(tests/puzzles/test_verify_fast.py checks that both give the same reports). In a stock game
(Intégral family) the leading legal lines of a sheet are judged in one compiled call (the
sheet loop, :meth:`Verifier._replay_fast`), the rest line by line; a sheet judged whole that
way is finished without building its entries (:meth:`Verifier._finish_fast`). The grid before
each move is not copied unless an annulment has taken tiles off (the cascade rebuilds it
from the earlier moves), and what is the same for every sheet of a batch (the game
configuration, the starting stock, the parsed references) is worked out once.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Any

from puzzles.families import RankBy, Supply
from puzzles.feuille import Feuille, FeuilleMove
from puzzles.problem import Problem
from puzzles.rounds import RoundTimes
from puzzles.settings import Settings
from puzzles.verify.entry import ABSENT, Entry
from puzzles.verify.report import MoveReport, MoveStatus, Report, new_move_report
from puzzles.verify.supply import LetterSupply
from scoring.board import Board
from scoring.config import GameConfig, WordList
from scoring.errors import EngineError
from scoring.layout import SIZE
from scoring.move import Placement
from scoring.notation import Ref, format_ref, parse_ref
from scoring.score import FormedWord
from scoring.tiles import JOKER, TileSet
from scoring.validate import (
    QuickChecker,
    QuickResult,
    Verdict,
    check_move,
    geometry_reasons,
    quick_checker,
    quick_current,
)

#: Statuses whose score counts (MoveStatus.counts as a set, read once per line).
_COUNTS = frozenset(m for m in MoveStatus if m.counts)

# --- the replay ---------------------------------------------------------------------------


def _letters_of(p: Placement) -> str:
    return "".join(sorted(p.letters, key=lambda c: (c == JOKER, c)))


def _sorted_letters(letters: str) -> str:
    """``letters`` (capitals, ``?`` a joker) sorted as :func:`_letters_of` writes them:
    alphabetical, the jokers last."""
    s = "".join(sorted(letters))
    k = s.count(JOKER)  # "?" sorts before the capitals
    return s[k:] + s[:k] if k else s


_REFS: dict[str, tuple[Ref, str, int, bool]] = {}


def _read_ref(text: str) -> tuple[Ref, str, int, bool]:
    """``parse_ref`` and ``format_ref`` of a sheet's reference, its start square and
    direction, remembered (a sheet writes a few dozen distinct references; raises as
    :func:`parse_ref`; the compiled sheet loop reads it too)."""
    hit = _REFS.get(text)
    if hit is None:
        ref = parse_ref(text)
        hit = (ref, format_ref(ref), ref.square, ref.horizontal)
        if len(_REFS) < 4096:
            _REFS[text] = hit
    return hit


def _word_squares(w: FormedWord) -> list[int]:
    return w.ref.squares(len(w.text))


def _sentence(why: str) -> str:
    """``why`` continued after a colon: a capitalised first word is lowered (not a word
    written in capitals, such as RATS)."""
    if len(why) > 1 and why[0].isupper() and why[1].islower():
        return why[0].lower() + why[1:]
    return why


def _placement_error(why: str) -> str:
    return "Erreur de placement : " + _sentence(why)


def _fit_reasons(v: Verdict) -> list[str]:
    """Why a word that fits at its reference is zero, as S2 names the faults: « erreur de
    mot (principal ou de raccord) ou de placement »."""
    main = v.main_word
    invalid = set(v.invalid_words)
    out: list[str] = []
    for w in v.words:
        if w.text not in invalid:
            continue
        if w.main:
            out.append(f"Erreur de mot : {w.text.upper()} n'est pas admis.")
        else:
            formed = f" (formé par {main.text.upper()} en {format_ref(main.ref)})" if main else ""
            out.append(
                f"Erreur de mot de raccord : {w.text.upper()}{formed} n'est pas admis."
            )
    word_reasons = _word_reasons(v)
    out.extend(_placement_error(r) for r in v.reasons if r not in word_reasons)
    return out


def _word_reasons(v: Verdict) -> set[str]:
    """The engine's reasons that are word errors (scoring.validate), not placement ones."""
    return {f"Le mot {t.upper()} n'est pas admis." for t in v.invalid_words} | {
        f"Le mot secondaire {t.upper()} n'est pas admis." for t in v.invalid_words
    }


_CONFIGS: dict[tuple[int, int, bool], tuple[TileSet, WordList, GameConfig, QuickChecker]] = {}


def score_warning(score: int | None, true_score: int, words_only: bool) -> str | None:
    """The warning of a line whose written score is not ``true_score`` (RULES §4.7): left
    blank (none where the family asks for words only), or wrong."""
    if score is None:
        return None if words_only else "score non indiqué."
    if score != true_score:
        return f"score écrit {score}, score exact {true_score}."
    return None


def cumul_warning_text(
    cumul: int | None, *, score: int | None, claimed: int, prev_claimed: int, exact: int,
    cancelled: int, asked: bool, arithmetic: bool,
) -> str | None:
    """The warning of a move's last line for its written ``cumul``, or ``None``.

    Left blank: a warning when the cumul is ``asked`` (not on a pass, nor where the family
    asks for words only). With ``arithmetic`` (``Settings.cumul_check``) the cumul must be
    the previous written cumul ``prev_claimed`` plus the written score ``claimed`` (minus
    ``cancelled``, the written scores of the moves this line annuls, is accepted too), and
    cannot be checked when the score is blank; otherwise it must be the ``exact`` running
    total. The one rule of :meth:`Verifier._finish_moves` and :meth:`Verifier._finish_fast`.
    """
    if cumul is None:
        return "cumul non indiqué." if asked else None
    if arithmetic:
        expected = prev_claimed + claimed
        if score is not None and cumul not in (expected, expected - cancelled):
            return (f"cumul écrit {cumul}, attendu {expected} (cumul précédent "
                    f"{prev_claimed} + score écrit {claimed}).")
        return None
    if cumul != exact:
        return f"cumul écrit {cumul}, cumul exact {exact}."
    return None


def _config_for(
    ts: TileSet, lexicon: WordList, first_move_horizontal: bool
) -> tuple[GameConfig, QuickChecker]:
    """The game configuration of a sheet and its compiled checker, made once for a tile set,
    a word list and the one setting they depend on (a batch judges many sheets with the
    same), and again whenever the compiled core is turned on or off."""
    key = (id(ts), id(lexicon), first_move_horizontal)
    hit = _CONFIGS.get(key)
    if hit is not None and hit[0] is ts and hit[1] is lexicon and quick_current(hit[3]):
        return hit[2], hit[3]
    config = GameConfig(tileset=ts, lexicon=lexicon, first_move_horizontal=first_move_horizontal)
    quick = quick_checker(config, detail=False)
    if len(_CONFIGS) >= 16:
        _CONFIGS.clear()
    _CONFIGS[key] = (ts, lexicon, config, quick)
    return config, quick


class Verifier:
    """One sheet judged against one problem (use once: :meth:`run`)."""

    def __init__(
        self,
        problem: Problem,
        feuille: Feuille,
        lexicon: WordList,
        settings: Settings,
        round_times: RoundTimes | None = None,
    ) -> None:
        self.problem = problem
        # correspondence Anticipation: each billet must have been sent within its round
        timed = problem.game.family.anticipation and settings.anticipation_round_timing
        self.rounds = round_times if timed else None
        self.feuille = feuille
        self.lexicon = lexicon
        self.settings = settings
        self.game = problem.game
        self.fam = problem.game.family
        self.ts = problem.tileset
        self.config, self.quick = _config_for(self.ts, lexicon, settings.first_move_horizontal)
        self.errors: list[str] = []
        self.board = problem.initial_board() if self.fam.answers_only else Board()
        self.owner: dict[int, int] = {}
        # the grid before the first move (None: empty), and whether an annulment has taken
        # tiles off it since (then each move keeps a copy of the grid before it, see Entry)
        self.initial = self.board.copy() if self.board.tile_count else None
        self.removed = False
        self.entries: list[Entry] = []
        self.supply = LetterSupply(problem, settings)
        self.eliminated_at: int | None = None
        self.warned_billets: set[int] = set()
        # the sheet loop (:meth:`_replay_fast`): a game whose letters come from the stock
        # alone, one line a move, no rounds, no answers, and a compiled checker
        fam = self.fam
        sheet = getattr(self.quick, "sheet", None)
        simple = fam.supply is Supply.STOCK and not (
            fam.anticipation or fam.answers_only or fam.construction_then_answers
            or fam.exclusif or self.rounds is not None or self.initial is not None
        )
        self.fast: tuple[Any, tuple[Any, ...]] | None = sheet if simple else None

    # -- entry points -------------------------------------------------------------------
    def run(self) -> Report:
        fam = self.fam
        self._check_header()
        if fam.blind:
            error = self.supply.check_blind_groups(self.feuille.groups)
            if error:
                self.errors.append(error)
        if fam.answers_only:
            lines = self.feuille.moves + self.feuille.scrabbles
            return self._report((), self._scrabbles(lines, self.problem.initial_board(), ()))
        moves = list(self.feuille.moves)
        if fam.anticipation:
            moves.sort(key=lambda m: m.number)
        done = self._replay_fast(moves) if self.fast is not None else []
        if done and len(done) == len(moves):
            # every line legal on the sheet loop: nothing to cascade, no entry to build
            move_reports = self._finish_fast(moves, done)
            if fam.rank_by is RankBy.CONSTRUCTION:  # the report counts the tiles' owners
                for i, (_, res) in enumerate(done):
                    for sq in res[2]:
                        self.owner[sq] = i
        else:
            self._adopt(moves, done)
            self._replay(moves, len(done))
            self._cascade()
            move_reports = self._finish_moves()
        scrabbles: tuple[MoveReport, ...] = ()
        if fam.construction_then_answers:  # Superscrabble incomplet: the answers after it
            scrabbles = self._scrabbles(self.feuille.scrabbles, self.board, tuple(self.entries))
        elif self.feuille.scrabbles:
            self.errors.append(
                "La liste « Scrabbles » ne sert que dans les Superscrabble ; ignorée."
            )
        return self._report(move_reports, scrabbles)

    def _check_header(self) -> None:
        f, p = self.feuille, self.problem
        if f.problem_id and f.problem_id.strip().lower() != p.id.lower():
            self.errors.append(
                f"La feuille annonce le problème « {f.problem_id} », vérifiée contre « {p.id} »."
            )
        identity = getattr(self.lexicon, "identity", None)
        if p.lexicon is not None and p.lexicon.sha256 and identity is not None and (
            identity.sha256 != p.lexicon.sha256
        ):
            self.errors.append(
                f"Le lexique utilisé ({identity.name}, {identity.word_count} mots) n'est pas "
                f"celui du problème ({p.lexicon.name}, {p.lexicon.word_count} mots)."
            )
        if self.fam.supply is Supply.ROW and f.row is not None and f.row != p.row:
            self.errors.append(
                "La rangée recopiée sur la feuille diffère de la rangée affichée ; "
                "la rangée affichée fait foi."
            )

    # -- replay -------------------------------------------------------------------------
    def _replay_fast(self, moves: list[FeuilleMove]) -> list[tuple[str, QuickResult]]:
        """The sheet loop: the leading lines that are entirely legal moves, judged by the
        compiled core (``scoring._movegen.sheet``: each as the checker judges it, its
        letters taken from the stock, its tiles put on the grid); stops before the first
        line that asks for anything else (an annulment, a pass, a missing or unreadable
        reference or word, a move the checker declines, more than 7 tiles, letters written
        otherwise than put down, letters the stock lacks), which :meth:`_replay` judges as
        it judges every line. Returns the reference as written back (``format_ref``) and the
        checker's answer of each line judged; :meth:`_adopt` makes their entries and the
        owners of their tiles when the sheet goes on in :meth:`_replay`. The grid and the
        stock are left as :meth:`_replay` leaves them after those lines."""
        assert self.fast is not None
        sheet, (tables, center, min_tiles, first_h, bingo_tiles, bingo_bonus, edges) = self.fast
        board, stock = self.board, self.supply.stock
        done: list[tuple[str, QuickResult]] = []
        i, n = 0, len(moves)
        while True:
            before = board.tile_count
            i, tiles = sheet(board.cells, moves, i, before, _REFS, stock, self.owner, done,
                             tables, center, min_tiles, first_h, bingo_tiles, bingo_bonus,
                             edges)
            board.added(tiles - before)
            text = moves[i].ref if i < n else None
            if text is None or text in _REFS:
                return done
            try:  # a reference not read yet: read, then the loop goes on from it
                _read_ref(text)
            except EngineError:
                return done
            if text not in _REFS:
                return done

    def _adopt(self, moves: list[FeuilleMove], done: list[tuple[str, QuickResult]]) -> None:
        """The entries of the lines :meth:`_replay_fast` judged, and the owners of their
        tiles, as :meth:`_replay` would have left them."""
        owner = self.owner
        for i, (_, res) in enumerate(done):
            mv = moves[i]
            e = Entry(i, mv)
            self.entries.append(e)
            assert mv.ref is not None
            e.ref, e.ref_text, _, _ = _read_ref(mv.ref)
            e.word = mv.word
            (e.true_score, _, e.squares, e.cells, e.letters, _, e.rests_on, e.words,
             e.rack) = res
            e.played = True
            for sq in e.squares:
                owner[sq] = i
            for sq in e.rests_on:
                o = owner.get(sq)
                if o is not None and o != i:
                    e.deps.add(o)

    def _replay(self, moves: list[FeuilleMove], start: int = 0) -> None:
        """Judge ``moves`` from the ``start``-th (the earlier ones are entries already)."""
        fam = self.fam
        anticipation = fam.anticipation
        if anticipation:  # lines per billet, and how many of them were seen
            lines_per_billet = Counter(m.number for m in moves if not self._annul_only(m))
            seen_in_billet: Counter[int] = Counter()
        entries, supply, rounds = self.entries, self.supply, self.rounds
        groups = fam.supply is Supply.GROUPS
        for i in range(start, len(moves)):
            mv = moves[i]
            e = Entry(i, mv)
            entries.append(e)
            annul_only = False
            annul_later = False
            if mv.annul:
                annul_only = self._annul_only(mv)
                annul_later = not (self.settings.annulment_before_move or annul_only)
                late_annul = rounds.annulment_late(mv.number) if rounds else None
                if late_annul:
                    e.reasons.append(late_annul)
                    annul_later = False
                elif not annul_later:
                    self._annul(e)
                if annul_only:
                    e.status = MoveStatus.PASSED
                    continue
            if supply.broken:
                e.zero(
                    f"Coup non joué : la rangée a été rompue au coup {supply.broken_at}.",
                    MoveStatus.NOT_PLAYED,
                )
                if anticipation:
                    seen_in_billet[mv.number] += 1
                continue
            if anticipation:
                k = seen_in_billet[mv.number]  # the k-th line of its billet
                seen_in_billet[mv.number] += 1
                if not supply.anticipation_group(e, k, lines_per_billet[mv.number]):
                    continue
            elif groups and not supply.choose_group(e, self._word_lines_before()):
                continue
            if mv.passed:
                if fam.anticipation and not self.settings.anticipation_pass_allowed:
                    e.zero("Passer n'est pas permis dans cette partie.")
                else:
                    e.status = MoveStatus.PASSED
                if fam.exclusif == "resistance":
                    e.zero("Pas de scrabble à ce coup : le joueur sort du jeu.", MoveStatus.OUT)
                continue
            late = rounds.move_late(mv.number) if rounds else None
            if late:
                # zero, but still on the player's grid: later moves resting on it cascade
                e.zero(late)
            self._play(e)
            if annul_later:
                self._annul(e)

    @staticmethod
    def _annul_only(m: FeuilleMove) -> bool:
        return m.word is None and not m.passed and m.ref is None and bool(m.annul)

    def _word_lines_before(self) -> int:
        """Lines before the current one that play a word (not a lone annulment)."""
        return sum(1 for x in self.entries[:-1] if not self._annul_only(x.move))

    def _annul(self, e: Entry) -> None:
        if not self.fam.anticipation:
            e.reasons.append(
                "« Annuler coup(s) » n'existe qu'en Anticipation : l'annulation est ignorée."
            )
            return
        done: list[int] = []
        for number in e.move.annul:
            targets = [x for x in self.entries[:-1] if x.move.number == number]
            if not targets or number >= e.move.number:
                e.reasons.append(f"Le coup {number} ne peut pas être annulé (pas encore joué).")
                continue
            for t in targets:
                if t.status is MoveStatus.ANNULLED:
                    continue
                if t.squares is not None and t.played:
                    for sq in t.squares:
                        if self.owner.get(sq) == t.idx:
                            self.board.remove(sq)
                            del self.owner[sq]
                            self.removed = True
                t.status = MoveStatus.ANNULLED
                t.reasons.append(f"Annulé par le joueur au coup {e.move.number}.")
            done.append(number)
        e.annul_done = tuple(done)

    def _materialise(self, e: Entry) -> bool:
        """Put the word where its reference says (RULES §5.2 steps 1, 3 and 6).

        S2: « Est punie d'un zéro toute erreur de mot (principal ou de raccord) ou de
        placement ». A word that is not where its reference puts it is a placement error
        (zero); one that fits there but forms a word the list refuses is a word error (zero).
        Only with ``ref_mismatch_relocate`` is a word that does not fit at its reference
        looked for elsewhere (G17); a word that fits is never moved."""
        mv = e.move
        if mv.word is None:
            e.zero("Mot manquant ou illisible.")
            return False
        ref: Ref | None = None
        if mv.ref is not None:
            try:
                ref, e.ref_text, _, _ = _read_ref(mv.ref)
            except EngineError as exc:
                e.reasons.append(str(exc))
        verdict: Verdict | None = None
        if ref is not None:
            # an entirely legal move: the compiled fast path, the same verdict as
            # check_move's (tests/puzzles/test_verify_fast.py compares whole reports)
            quick = self.quick(self.board, ref, mv.word)
            if quick is not None:
                e.ref, e.word = ref, mv.word
                (e.true_score, _, e.squares, e.cells, e.letters, _, e.rests_on, e.words,
                 e.rack) = quick
                return True
            verdict = check_move(self.board, ref, mv.word, self.config)
        if verdict is not None and verdict.ok and verdict.placement is not None:
            e.ref, e.word = ref, mv.word
            self._record_verdict(e, verdict)
            return True
        # "fits": the word as written lies legally at its reference; only a word it forms
        # may be invalid (a word error, never moved)
        fits = verdict is not None and verdict.placement is not None and verdict.geometry_ok \
            and set(verdict.reasons) <= _word_reasons(verdict)
        if not fits and self.settings.ref_mismatch_relocate and mv.score is not None:
            found = self._relocate(mv.word, mv.score, ref.horizontal if ref else None)
            if found is not None:
                r, v = found
                e.ref, e.word, e.ref_text = r, mv.word, format_ref(r)
                where = f"en {mv.ref}" if mv.ref else "sans référence"
                msg = (
                    f"{mv.word.upper()} écrit {where} ne s'y place pas ; le mot et son score "
                    f"désignent une seule place, {format_ref(r)} (réglage "
                    "ref_mismatch_relocate)."
                )
                if self.fam.ranking_points:
                    e.warnings.append(msg)
                else:
                    e.penalty = self.settings.ref_mismatch_penalty
                    e.reasons.append(msg + f" Pénalité de {e.penalty} points.")
                self._record_verdict(e, v)
                return True
        if verdict is None:
            e.zero(
                f"Erreur de placement : {mv.word.upper()} n'a pas de référence lisible, "
                "sa place sur la grille n'est pas indiquée."
            )
            return False
        if verdict.placement is None or not verdict.geometry_ok:
            # could not be put on the grid, or illegal geometry (left on the grid if placed)
            for why in verdict.reasons:
                e.zero(_placement_error(why))
            p = verdict.placement
            if p is not None and ref is not None and self._can_put(p):
                e.ref, e.word = ref, mv.word
                self._record_verdict(e, verdict)
                return True
            return False
        e.ref, e.word = ref, mv.word
        self._record_verdict(e, verdict)
        for why in _fit_reasons(verdict):
            e.zero(why)
        return True

    def _can_put(self, p: Placement) -> bool:
        return bool(p.tiles) and all(not self.board[t.square] for t in p.tiles) and len(
            {t.square for t in p.tiles}
        ) == len(p.tiles)

    @staticmethod
    def _record_verdict(e: Entry, v: Verdict) -> None:
        if v.placement is not None:
            e.set_placement(v.placement)
        e.words = tuple(f"{w.text} {w.points}" for w in v.words)
        e.rests_on = tuple(sq for w in v.words for sq in _word_squares(w))
        e.true_score = v.score if v.geometry_ok else None

    def _relocate(
        self, word: str, score: int, horizontal: bool | None
    ) -> tuple[Ref, Verdict] | None:
        """The one legal placement of ``word`` worth ``score`` in the written direction
        (either direction without a reference), as in FISF 5.3 (a); None if none or several."""
        found: list[tuple[Ref, Verdict]] = []
        directions = (True, False) if horizontal is None else (horizontal,)
        for sq in range(SIZE * SIZE):
            for h in directions:
                r = Ref.at(sq, h)
                v = check_move(self.board, r, word, self.config)
                if v.ok and v.score == score and v.placement is not None:
                    found.append((r, v))
                    if len(found) > 1:
                        return None
        return found[0] if found else None

    def _play(self, e: Entry) -> None:
        placed = self._materialise(e)
        squares = e.squares
        if not placed or squares is None:
            self.supply.consume_unplaced(e)
            return
        if self.removed:  # the cascade can no longer rebuild the grid before this move
            e.board_before = self.board.copy()
            e.owner_before = dict(self.owner)
        e.played = True
        n = len(squares)
        if n > 7:
            e.zero(f"{n} lettres posées : 7 au plus par coup.")
        supply = self.supply
        supply.check(e, e.letters)
        if supply.broken and e.status is MoveStatus.ANNULLED:
            return
        # put the tiles on the physical board
        self.board.put_all(squares, e.cells)
        owner, idx = self.owner, e.idx
        for sq in squares:
            owner[sq] = idx
        deps = e.deps
        for sq in e.rests_on:
            o = owner.get(sq)
            if o is not None and o != idx:
                deps.add(o)
        if e.move.letters != e.letters:  # as written (the usual case): nothing to say
            self._check_declared_letters(e)

    def _check_declared_letters(self, e: Entry) -> None:
        if e.squares is None:
            return
        declared = e.move.letters
        if declared is None:
            if self.settings.missing_letters_warning and not self.fam.words_only_moves:
                e.warnings.append("lettres utilisées non indiquées.")
            return
        if declared != e.letters and sorted(declared) != sorted(e.letters) and (
            self.settings.letters_mismatch_warning
        ):
            e.warnings.append(
                f"lettres écrites {declared}, lettres posées sur la grille "
                f"{_sorted_letters(e.letters)}."
            )

    # -- cascade ------------------------------------------------------------------------
    def _cascade(self) -> None:
        gone: set[int] = set()  # the earlier entries that do not count
        for e in self.entries:
            if e.status in ABSENT:
                gone.add(e.idx)
                continue
            if e.squares is None or not e.played or not gone:
                continue  # no earlier move is missing: the physical grid is the effective one
            hit = sorted(e.deps & gone)
            if hit:
                numbers = sorted({self.entries[i].move.number for i in hit})
                e.zero(
                    "Zéro en cascade : le coup s'appuie sur le coup "
                    + ", ".join(map(str, numbers))
                    + " qui ne compte pas.",
                    MoveStatus.CASCADE_ZERO,
                )
                gone.add(e.idx)
                continue
            placement = e.placement
            assert placement is not None
            reasons = geometry_reasons(self._effective_before(e, gone), placement, self.config)
            if reasons:
                e.zero(
                    "Zéro en cascade : sans les coups qui ne comptent pas, ce coup n'aurait pas "
                    "pu être placé (" + " ".join(reasons) + ")",
                    MoveStatus.CASCADE_ZERO,
                )
                gone.add(e.idx)

    def _effective_before(self, e: Entry, gone: set[int]) -> Board:
        """The grid before ``e`` without the tiles of the moves in ``gone``: from the copies
        ``e`` kept, or (no annulment had taken tiles off before it) rebuilt from the grid
        before the first move and the tiles each earlier move put on it."""
        if e.board_before is not None and e.owner_before is not None:
            effective = e.board_before.copy()
            for sq, owner in e.owner_before.items():
                if owner in gone:
                    effective.remove(sq)
            return effective
        effective = self.initial.copy() if self.initial is not None else Board()
        for x in self.entries[: e.idx]:
            # a played move's tiles are on the grid unless its letters broke the rangée
            # (ANNULLED, so in gone)
            if x.played and x.idx not in gone and x.squares is not None:
                for sq, cell in zip(x.squares, x.cells, strict=True):
                    effective.put(sq, cell)
        return effective

    # -- scores, warnings, cumul -------------------------------------------------------
    def _finish_moves(self) -> tuple[MoveReport, ...]:
        s = self.settings
        fam = self.fam
        resistance = fam.exclusif == "resistance"
        if resistance:
            self._eliminate()
        words_only = fam.words_only_moves
        anticipation = fam.anticipation
        cumul_warning = s.cumul_warning
        arithmetic = s.cumul_check == "arithmetic"
        prev_claimed = 0  # the player's previous written cumul (or what it should have been)
        running = 0
        claimed_by_number: dict[int, int] = {}
        last_line_of = {e.move.number: e.idx for e in self.entries} if cumul_warning else {}
        # Anticipation move 1 with two words: S2, « il inscrira sur le billet les deux scores
        # obtenus, dans l'ordre des mots placés, ainsi que le cumul de ces deux scores ».
        first_billet = [
            e for e in self.entries
            if e.move.number == 1 and not self._annul_only(e.move) and not e.move.passed
        ] if anticipation else []
        two_words = anticipation and len(first_billet) == 2
        reports: list[MoveReport] = []
        valid, warning, penalty = MoveStatus.VALID, MoveStatus.WARNING, MoveStatus.PENALTY
        for e in self.entries:
            mv = e.move
            score = mv.score
            annul_only = mv.word is None and not mv.passed and mv.ref is None and bool(mv.annul)
            true_score = e.true_score
            counts = e.status in _COUNTS
            counted = 0
            if counts and true_score is not None:
                if not resistance:
                    if score != true_score:
                        warned = score_warning(score, true_score, words_only)
                        if warned:
                            e.warnings.append(warned)
                    counted = max(0, true_score - e.penalty)  # INFERRED: never below zero
                else:
                    counted = 0 if e.group == 1 else 1
            if not annul_only and not resistance:
                claimed = score or 0
                expected = prev_claimed + claimed
                if cumul_warning:
                    claimed_by_number[mv.number] = claimed_by_number.get(mv.number, 0) + claimed
                if cumul_warning and last_line_of[mv.number] == e.idx:
                    cancelled = (sum(claimed_by_number.get(k, 0) for k in e.annul_done)
                                 if arithmetic and e.annul_done else 0)
                    warned = cumul_warning_text(
                        mv.cumul, score=score, claimed=claimed, prev_claimed=prev_claimed,
                        exact=running + counted, cancelled=cancelled,
                        asked=not mv.passed and not words_only, arithmetic=arithmetic)
                    if warned:
                        e.warnings.append(warned)
                prev_claimed = mv.cumul if mv.cumul is not None else expected
            if two_words and not cumul_warning and e is first_billet[1]:
                self._check_first_sum(e, first_billet[0])
            running += counted
            status = e.status
            if e.warnings and (status in ABSENT or (e.penalty and counts)):
                e.warnings.clear()  # RULES §4.7.5: a warning adds to neither a zero nor a penalty
            if e.warnings:
                # one billet is one move number in Anticipation, one line elsewhere
                self.warned_billets.add(mv.number if anticipation else -1 - e.idx)
            if status is valid and e.penalty:
                status = e.status = penalty
            elif status is valid and e.warnings:
                status = e.status = warning
            placed = e.squares is not None
            reports.append(
                new_move_report(  # MoveReport's fields, in order
                    mv.number,
                    mv.line,
                    status,
                    e.ref_text if e.ref is not None else mv.ref,
                    e.word if e.word is not None else mv.word,
                    e.group,
                    (e.rack or _sorted_letters(e.letters)) if placed else None,
                    mv.letters,
                    score,
                    true_score,
                    counted,
                    mv.cumul,
                    running,
                    e.penalty if status in _COUNTS else 0,
                    tuple(e.reasons),
                    tuple(e.warnings),
                    e.words,
                    mv.annul,
                )
            )
        return tuple(reports)

    def _finish_fast(
        self, moves: list[FeuilleMove], done: list[tuple[str, QuickResult]]
    ) -> tuple[MoveReport, ...]:
        """:meth:`_finish_moves` for a sheet the sheet loop judged whole (every line a legal
        move of a stock game, no annulment, no pass, no penalty, no reason): the same
        reports, with only the score and cumul warnings left to find."""
        s = self.settings
        words_only = self.fam.words_only_moves
        cumul_warning = s.cumul_warning
        arithmetic = s.cumul_check == "arithmetic"
        last_line_of = {mv.number: i for i, mv in enumerate(moves)} if cumul_warning else {}
        prev_claimed = running = 0
        reports: list[MoveReport] = []
        valid, warning = MoveStatus.VALID, MoveStatus.WARNING
        for i, mv in enumerate(moves):
            ref_text, res = done[i]
            score, cumul = mv.score, mv.cumul
            true_score = res[0]
            warnings: list[str] = []
            if score != true_score:
                warned = score_warning(score, true_score, words_only)
                if warned:
                    warnings.append(warned)
            counted = max(0, true_score)
            claimed = score or 0
            expected = prev_claimed + claimed
            if cumul_warning and last_line_of[mv.number] == i and (
                    cumul != (expected if arithmetic else running + counted)):
                # the rules of _finish_moves, with nothing cancelled (no annulment here)
                warned = cumul_warning_text(
                    cumul, score=score, claimed=claimed, prev_claimed=prev_claimed,
                    exact=running + counted, cancelled=0, asked=not words_only,
                    arithmetic=arithmetic)
                if warned:
                    warnings.append(warned)
            prev_claimed = cumul if cumul is not None else expected
            running += counted
            if warnings:
                self.warned_billets.add(-1 - i)
            reports.append(
                new_move_report(  # MoveReport's fields, in order
                    mv.number, mv.line, warning if warnings else valid, ref_text, mv.word,
                    None, res[8], mv.letters, score, true_score, counted, cumul, running, 0,
                    (), tuple(warnings), res[7], mv.annul,
                )
            )
        return tuple(reports)

    @staticmethod
    def _check_first_sum(e: Entry, first: Entry) -> None:
        """The sum of the two scores on the billet of Anticipation move 1, written in the
        cumul column of its second line: an error or an absence is a score error of the
        billet (S2: « Est punie d'un avertissement technique toute erreur ou absence de
        score sur les billets »)."""
        a, b = first.move.score, e.move.score
        if e.move.cumul is None:
            e.warnings.append("somme des deux scores du coup 1 non indiquée.")
        elif a is not None and b is not None and e.move.cumul != a + b:
            e.warnings.append(
                f"somme des deux scores du coup 1 écrite {e.move.cumul}, attendu {a + b} "
                f"({a} + {b})."
            )

    def _eliminate(self) -> None:
        """Exclusif résistance: the first 7-letter group without a valid scrabble puts the
        player out (RULES §6.3); what he wrote afterwards does not count."""
        out_at: int | None = None
        for e in self.entries:
            if self._annul_only(e.move) or e.group == 1:
                continue
            if out_at is not None:
                e.status = MoveStatus.OUT
                e.reasons.append(f"Le joueur est sorti du jeu au coup {out_at}.")
                continue
            if not e.status.counts:
                out_at = e.move.number
                if e.status is not MoveStatus.OUT:
                    e.status = MoveStatus.OUT
                    e.reasons.append("Pas de scrabble valable : le joueur sort du jeu.")
        if out_at is None:
            # a move the sheet does not play at all also puts the player out
            played = {e.move.number for e in self.entries if e.status.counts and e.group != 1}
            out_at = next((b for b in range(1, 15) if b not in played), None)
        self.eliminated_at = out_at

    # -- Superscrabble ------------------------------------------------------------------
    def _scrabbles(
        self, lines: tuple[FeuilleMove, ...], board: Board, construction: tuple[Entry, ...]
    ) -> tuple[MoveReport, ...]:
        rack = Counter(self.problem.rack)
        gone = {e.idx for e in construction if e.absent}
        owner = dict(self.owner)
        effective = board.copy()
        for sq, o in owner.items():
            if o in gone:
                effective.remove(sq)
        seen: dict[tuple[int, bool, str], int] = {}
        out: list[MoveReport] = []
        for i, mv in enumerate(lines, start=1):
            reasons: list[str] = []
            warnings: list[str] = []
            status = MoveStatus.VALID
            ref_text = mv.ref
            words: tuple[str, ...] = ()
            letters: str | None = None
            if mv.word is None or mv.ref is None:
                reasons.append("Référence ou mot manquant.")
                status = MoveStatus.ZERO
            else:
                v = check_move(board, mv.ref, mv.word, self.config)
                if v.placement is not None:
                    letters = _letters_of(v.placement)
                words = tuple(f"{w.text} {w.points}" for w in v.words)
                if not v.ok or v.placement is None:
                    reasons.extend(v.reasons or ("Placement impossible.",))
                    status = MoveStatus.ZERO
                elif Counter(v.placement.letters) != rack:
                    reasons.append(
                        f"Le scrabble doit poser les 7 lettres {self.problem.rack} (posées : "
                        f"{letters})."
                    )
                    status = MoveStatus.ZERO
                else:
                    main = v.main_word
                    assert main is not None
                    deps = {
                        owner[sq] for w in v.words for sq in _word_squares(w) if sq in owner
                    }
                    strict = self.settings.incomplet_scrabble_needs_valid_construction
                    if strict and (deps & gone):
                        reasons.append(
                            "Le scrabble s'appuie sur un mot de construction qui ne compte pas."
                        )
                        status = MoveStatus.CASCADE_ZERO
                    elif strict and geometry_reasons(effective, v.placement, self.config):
                        reasons.append(
                            "Sans les mots de construction qui ne comptent pas, ce scrabble "
                            "n'aurait pas pu être placé."
                        )
                        status = MoveStatus.CASCADE_ZERO
                    else:
                        key = (main.ref.square, main.ref.horizontal, main.text.upper())
                        if key in seen:
                            reasons.append(
                                f"Même scrabble que la ligne {seen[key]} ({format_ref(main.ref)} "
                                f"{main.text.upper()}) : compté une seule fois."
                            )
                            status = MoveStatus.DUPLICATE
                        else:
                            seen[key] = mv.line or i
                            ref_text = format_ref(main.ref)
            if not status.counts and self.settings.superscrabble_invalid_entry_warning:
                warnings.append("scrabble non valable.")
            counted = 1 if status.counts else 0
            out.append(
                MoveReport(
                    number=mv.number,
                    line=mv.line,
                    status=status,
                    ref=ref_text,
                    word=mv.word,
                    letters=letters,
                    declared_letters=mv.letters,
                    claimed_score=mv.score,
                    score=counted,
                    cumul=sum(x.score for x in out) + counted,
                    reasons=tuple(reasons),
                    warnings=tuple(warnings),
                    words=words,
                )
            )
        return tuple(out)

    # -- totals -------------------------------------------------------------------------
    def _report(
        self, moves: tuple[MoveReport, ...], scrabbles: tuple[MoveReport, ...]
    ) -> Report:
        s = self.settings
        if s.one_warning_per_move:
            warnings = len(self.warned_billets) + sum(1 for m in scrabbles if m.warnings)
        else:
            warnings = sum(len(m.warnings) for m in moves + scrabbles)
        score_vector: tuple[int, ...] = ()
        eliminated: int | None = None
        construction: int | None = None
        fam = self.fam
        # the Superscrabbles count their answers, every other game its moves
        total = sum([m.score for m in (scrabbles if fam.has_answers else moves)])
        unit = fam.unit.value
        if fam.rank_by is RankBy.CONSTRUCTION:
            construction = len(self.owner)
        elif fam.rank_by is RankBy.ELIMINATION:
            eliminated = self.eliminated_at
        if fam.ranking_penalty:
            penalty = s.ranking_penalty(warnings)
        else:
            penalty = s.points_penalty(warnings, self.problem.warning_penalty_from)
        if fam.rank_by is RankBy.SCORE_VECTOR:
            per_move = [m.score for m in moves if m.status is not MoveStatus.PASSED]
            n = len(self.problem.groups)
            # a move not played counts 0, or (setting off) below any played move, even a zero
            pad = 0 if s.serie_missing_moves_zero else -1
            score_vector = tuple(per_move[:n]) + (pad,) * max(0, n - len(per_move))
            final = total  # G18: the penalty only demotes among equal score vectors
        else:
            final = total - penalty
        identity = getattr(self.lexicon, "identity", None)
        return Report(  # positional, in Report's field order
            self.problem.id,  # problem_id
            self.game,  # game
            self.feuille.player,  # player
            self.feuille.submitted_at,  # submitted_at
            moves,
            scrabbles,
            total,
            warnings,
            penalty,
            final,  # final_score
            unit,
            identity.name if identity else None,  # lexicon_name
            identity.sha256 if identity else None,  # lexicon_sha256
            identity.word_count if identity else None,  # lexicon_word_count
            tuple(self.errors),  # errors
            score_vector,
            construction,  # construction_letters
            eliminated,  # eliminated_at
            _changed_settings(s),  # settings_changed
        )


#: The default settings (frozen): :func:`puzzles.verify.verify` passes this very instance.
DEFAULT_SETTINGS = Settings()


@cache
def _default_settings() -> dict[str, Any]:
    return Settings().to_dict()


def _changed_settings(s: Settings) -> tuple[str, ...]:
    """``name=value`` for every setting that differs from its default (recorded in reports).

    The defaults are computed once: this runs for every sheet of a batch."""
    if s is DEFAULT_SETTINGS or s == DEFAULT_SETTINGS:
        return ()
    defaults = _default_settings()
    return tuple(f"{k}={v}" for k, v in s.to_dict().items() if defaults[k] != v)
