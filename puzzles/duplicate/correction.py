"""The Duplicate's correction of one bulletin (RULES §4.7, S1 5.3, G5): :class:`Verdict`,
:class:`RoundContext` (the round's legal moves, prepared once by :func:`prepare_round`), and
:func:`correct` — valid, warning, the 5-point penalty, zero, with the French reason — reading
the reference, the raccord and placed letters, the direction written, the extension alone,
and :func:`retain_solution` among several. Imports the settings, state, top and bulletins
modules."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from puzzles.duplicate.bulletins import Bulletin, RaccordLetter
from puzzles.duplicate.settings import AmbiguousReference, DuplicateSettings, VerdictKind
from puzzles.duplicate.state import GameState, minus_tiles, round_config
from puzzles.duplicate.top import word_squares
from puzzles.verdicts import scores_nothing
from scoring import movegen
from scoring.board import Board
from scoring.config import GameConfig
from scoring.errors import EngineError
from scoring.layout import SIZE
from scoring.movegen import GeneratedMove
from scoring.notation import Ref, format_ref, parse_ref, parse_word
from scoring.validate import check_move


@dataclass(frozen=True)
class Verdict:
    """The correction of one bulletin (RULES §4.7).

    ``score``: points credited for the move (after a 5-point penalty); ``solo``: the solo
    bonus (set by :func:`apply_solos`); ``warnings``: 0 or 1 (one per bulletin at most).
    ``ref``/``word``: the placement as credited (None when none is).
    """

    player: str
    score: int
    kind: VerdictKind
    warnings: int = 0
    reason_fr: str = ""
    ref: str | None = None
    word: str | None = None
    solo: int = 0

    def to_text(self) -> str:
        """The verdict's line in ``arbitre duplicate replay``'s text output."""
        place = f" {self.ref or '?'} {self.word}" if self.word else ""
        solo = f" + solo {self.solo}" if self.solo else ""
        return f"  {self.player} : {self.score}{solo} [{self.kind}]{place} — {self.reason_fr}"


@dataclass
class RoundContext:
    """Everything :func:`correct` needs per round, computed once for all bulletins."""

    board: Board
    rack: str
    config: GameConfig
    round_no: int
    top_score: int
    moves_by_word: dict[str, list[GeneratedMove]] = field(default_factory=dict)
    #: ``DuplicateSettings.penalty_points``
    penalty_points: int = 5
    #: the number of letters of the game's first word (``GameState.first_word``); None when
    #: the state does not know it (stored before it was kept)
    first_word_len: int | None = None
    #: ``DuplicateSettings.ambiguous_reference``
    ambiguous_reference: AmbiguousReference = "penalty"
    #: the round's extensions of grid words by the letters they put down (built on first use)
    _extensions: dict[str, list[GeneratedMove]] | None = field(default=None, repr=False)

    def two_letter_first_word(self) -> bool:
        """« sauf si le mot joué au premier coup ne comporte que deux lettres » (S1 5.2):
        :func:`two_letter_first_word`."""
        return two_letter_first_word(self.first_word_len, self.board)

    def extensions(self, letters: str) -> list[GeneratedMove]:
        """The round's moves that extend a word already on the grid (:func:`extension_span`)
        by exactly ``letters`` (case ignored), in word order."""
        if self._extensions is None:
            index: dict[str, list[GeneratedMove]] = {}
            for moves in self.moves_by_word.values():
                for m in moves:
                    if extension_span(m) is not None:
                        index.setdefault(added_letters(m).upper(), []).append(m)
            self._extensions = index
        return self._extensions.get(letters.upper(), [])


def two_letter_first_word(first_word_len: int | None, board: Board) -> bool:
    """« sauf si le mot joué au premier coup ne comporte que deux lettres » (S1 5.2): the
    first word had two letters; a state that does not know it (``first_word_len`` None)
    tells it by a grid of fewer than three letters (then it did)."""
    if first_word_len is not None:
        return first_word_len == 2
    return board.tile_count < 3


def raccord_minimum(state: GameState) -> int | None:
    """The raccord letters a bulletin of the round drawn in ``state`` needs without a
    warning, as :func:`correct` judges it (S1 4.3.1, 5.2): 3, or 2 when the game's first
    word had two letters (a raccord of two is then no fault); None on an empty grid (the
    first round: no raccord). Whatever the round, a raccord of one letter makes the
    bulletin unreadable (:func:`~puzzles.duplicate.bulletins.parse_bulletin`)."""
    return raccord_minimum_on(state.board, state.first_word)


def raccord_minimum_on(board: Board, first_word: str) -> int | None:
    """:func:`raccord_minimum` of a round drawn on ``board`` in a game whose first top was
    ``first_word`` ("" unknown): what a page asks of any round game's stored position
    (:meth:`~puzzles.duplicate.protocol.RoundGame.position_of`)."""
    if board.is_empty():
        return None
    first = len(first_word) if first_word else None
    return 2 if two_letter_first_word(first, board) else 3


def prepare_round(
    state: GameState,
    rack: str,
    config: GameConfig,
    *,
    round_no: int,
    top_score: int,
    settings: DuplicateSettings | None = None,
) -> RoundContext:
    """Generate the round's legal moves once (indexed by word, uppercase) for
    :func:`correct`."""
    board = state.board
    cfg = round_config(config, board, settings) if round_no == 1 or board.is_empty() else config
    by_word: dict[str, list[GeneratedMove]] = {}
    for m in movegen.generate(board, rack, cfg):
        by_word.setdefault(m.word.upper(), []).append(m)
    s = settings or DuplicateSettings()
    return RoundContext(
        board,
        rack,
        cfg,
        round_no,
        top_score,
        by_word,
        penalty_points=s.penalty_points,
        first_word_len=len(state.first_word) if state.first_word else None,
        ambiguous_reference=s.ambiguous_reference,
    )


#: the round's contexts by (grid, rack, round), kept across the bulletins of a round
ContextCache = dict[tuple[str, str, int], RoundContext]


def context_for(
    cache: ContextCache,
    state: GameState,
    rack: str,
    config: GameConfig,
    *,
    top_score: int,
    settings: DuplicateSettings,
) -> RoundContext:
    """The round's context for ``rack`` on ``state``, from ``cache`` or prepared once
    (:func:`prepare_round`): the variants' bulletins play several racks (a letter-choice
    player's own, a Tactique's two groups) and each is generated once per round."""
    key = (state.board_cgp, rack, state.round_no)
    found = cache.get(key)
    if found is None:
        found = prepare_round(state, rack, config, round_no=state.round_no,
                              top_score=top_score, settings=settings)
        cache[key] = found
    return found


def added_letters(move: GeneratedMove) -> str:
    """The letters ``move`` puts down, in word order (a joker as its lowercase letter)."""
    return "".join(ch for i, ch in enumerate(move.word) if move.new_mask >> i & 1)


def extension_span(move: GeneratedMove) -> tuple[int, int] | None:
    """``(i, j)`` when ``move`` extends a word already on the grid (S1 4.2.2, 4.3.2
    « prolongation »): letters ``i`` to ``j − 1`` of its main word were on the grid — two or
    more, a word — and every letter put down is at one end of them or both; None
    otherwise (a word through a single grid letter extends no word)."""
    n = len(move.word)
    new = [bool(move.new_mask >> k & 1) for k in range(n)]
    i = 0
    while i < n and new[i]:
        i += 1
    j = n
    while j > i and new[j - 1]:
        j -= 1
    if j - i < 2 or any(new[i:j]) or (i == 0 and j == n):
        return None
    return i, j


def marks_match(move: GeneratedMove, written: str, board: Board) -> bool:
    """The joker circles of ``written`` are right for ``move``: a lowercase letter exactly
    where the move puts a joker down, uppercase elsewhere (a letter already on the grid,
    joker or not, is written uppercase: circling it is a warning, RULES §4.7.2)."""
    if len(written) != len(move.word):
        return False
    for i, (have, wrote) in enumerate(zip(move.word, written, strict=True)):
        if move.new_mask >> i & 1:
            if have != wrote:
                return False
        elif wrote.islower():
            return False
    return True


def _neighbours(sq: int) -> Iterable[int]:
    r, c = divmod(sq, SIZE)
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE:
            yield (r + dr) * SIZE + c + dc


def placed_raccord_fits(
    board: Board, move: GeneratedMove, letters: Sequence[RaccordLetter]
) -> bool:
    """Each of ``letters`` stands on the grid at its place relative to the first square of
    ``move`` and is a raccord letter (S1 4.3.1): « soit faire partie du mot joué ; soit être
    adjacente par un de ses côtés à une des lettres du mot formé ; soit être adjacente par un
    de ses côtés à une lettre elle-même lettre de raccord »."""
    r0, c0 = divmod(move.start, SIZE)
    squares: set[int] = set()
    for x in letters:
        r, c = r0 + x.dy, c0 + x.dx
        if not (0 <= r < SIZE and 0 <= c < SIZE):
            return False
        on_grid = board[r * SIZE + c]
        if not on_grid or on_grid.upper() != x.letter.upper():
            return False
        squares.add(r * SIZE + c)
    word = set(word_squares(move))
    # the letters in the word or touching it, then those touching one of them, and so on
    reached = {sq for sq in squares if sq in word or any(n in word for n in _neighbours(sq))}
    frontier = list(reached)
    while frontier:
        for n in _neighbours(frontier.pop()):
            if n in squares and n not in reached:
                reached.add(n)
                frontier.append(n)
    return len(reached) == len(squares)


def placed_runs(letters: Sequence[RaccordLetter]) -> list[tuple[RaccordLetter, ...]]:
    """The runs of three or more letters of ``letters`` on consecutive squares of one row or
    column, shorter than the whole (S1 5.2: « le raccord correct doit cependant être composé
    de trois lettres consécutives ou plus »)."""
    at = {(x.dx, x.dy): x for x in letters}
    runs: list[tuple[RaccordLetter, ...]] = []
    for x in letters:
        for ddx, ddy in ((1, 0), (0, 1)):
            run = [x]
            while (run[-1].dx + ddx, run[-1].dy + ddy) in at:
                run.append(at[(run[-1].dx + ddx, run[-1].dy + ddy)])
                if 3 <= len(run) < len(letters):
                    runs.append(tuple(run))
    return runs


def raccord_fits(
    board: Board, move: GeneratedMove, raccord: str | Sequence[RaccordLetter]
) -> bool:
    """``raccord`` is a straight run of letters already on the grid, read left to right or
    top to bottom, one of which is part of the played word or side-adjacent to it (so every
    letter of the run meets RULES §4.3.1 through its neighbour); or letters at their places
    (:func:`placed_raccord_fits`)."""
    if not isinstance(raccord, str):
        return placed_raccord_fits(board, move, raccord)
    n = len(raccord)
    target = raccord.upper()
    zone: set[int] = set()
    for sq in word_squares(move):
        r, c = divmod(sq, SIZE)
        zone.add(sq)
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE:
                zone.add((r + dr) * SIZE + c + dc)
    for horizontal in (True, False):
        step = 1 if horizontal else SIZE
        for sq in zone:
            if not board[sq] or board[sq].upper() not in target:
                continue
            r, c = divmod(sq, SIZE)
            pos = c if horizontal else r
            for back in range(n):
                first = pos - back
                if first < 0 or first + n > SIZE:
                    continue
                start = sq - back * step
                cells = [board[start + i * step] for i in range(n)]
                if all(cells) and "".join(cells).upper() == target:
                    return True
    return False


def raccord_holds(board: Board, raccord: str, squares: Sequence[int]) -> bool:
    """``raccord`` is a straight run of grid letters (left to right or top to bottom) that
    covers every square of ``squares`` (the played word's letters next to its extensions,
    S1 4.3.2 « la lettre du mot joué attenante à la prolongation … doit être écrite »)."""
    n = len(raccord)
    target = raccord.upper()
    if not squares or n == 0:
        return False
    r, c = divmod(squares[0], SIZE)
    for horizontal in (True, False):
        step = 1 if horizontal else SIZE
        pos = c if horizontal else r
        for back in range(n):
            first = pos - back
            if first < 0 or first + n > SIZE:
                continue
            cells = [squares[0] + (k - back) * step for k in range(n)]
            if not all(sq in cells for sq in squares) or not all(board[sq] for sq in cells):
                continue
            if "".join(board[sq] for sq in cells).upper() == target:
                return True
    return False


def _forms_bad_word(board: Board, ref: str, word: str, config: GameConfig) -> str | None:
    """The non-admitted word made by writing ``word`` at ``ref`` (RULES §4.4), if any."""
    verdict = check_move(board, ref, word, config)
    if verdict.geometry_ok and verdict.invalid_words:
        return verdict.invalid_words[0].upper()
    return None


def _zero_reason(ctx: RoundContext, b: Bulletin) -> str:
    word = b.word.upper()
    lex = ctx.config.lexicon
    if lex is not None and word not in lex:
        return f"Nul : le mot {word} n'est pas admis."
    if b.ref is not None:
        verdict = check_move(ctx.board, b.ref, b.word, ctx.config)
        if verdict.invalid_words:
            return (
                f"Nul : {word} en {b.ref} forme le mot non admis "
                f"{verdict.invalid_words[0].upper()}."
            )
        if verdict.placement is not None and verdict.geometry_ok:
            used = "".join("?" if t.joker else t.letter for t in verdict.placement.tiles)
            if minus_tiles(ctx.rack, used) is None:
                return f"Nul : {word} en {b.ref} demande des lettres absentes du tirage {ctx.rack}."
        elif verdict.reasons:
            return f"Nul : {word} en {b.ref} — {verdict.reasons[0]}"
    return f"Nul : le mot {word} ne peut être placé sur la grille avec le tirage {ctx.rack}."


def _describe(m: GeneratedMove) -> tuple[str, str]:
    return format_ref(m.ref), m.word


def correct(
    state: GameState,
    rack: str,
    bulletin: Bulletin | None,
    config: GameConfig,
    *,
    round_no: int,
    top_score: int,
    context: RoundContext | None = None,
    player: str = "",
) -> Verdict:
    """Correct one bulletin (RULES §4.7): validity, then zero causes, then 5-point penalty
    causes (from round 2), then warnings; one sanction, the most severe. None: absent.

    ``state`` is the state in play (board before the top). Pass ``context`` (from
    :func:`prepare_round`) to correct many bulletins of one round."""
    who = bulletin.player if bulletin is not None and bulletin.player else player
    if bulletin is None:
        return Verdict(who, 0, "absent", reason_fr="Pas de bulletin : zéro.")
    ctx = context or prepare_round(state, rack, config, round_no=round_no, top_score=top_score)
    solutions = (bulletin, *bulletin.alternatives)
    return retain_solution([_correct_one(ctx, b, who) for b in solutions],
                           [b.claimed for b in solutions])


def retain_solution(verdicts: Sequence[Verdict], claimed: Sequence[int | None]) -> Verdict:
    """S1 5.6: of several solutions on one bulletin (``verdicts[i]`` the correction of the
    solution whose written score is ``claimed[i]``), the one whose score is exactly the
    claimed one, else the lowest-scoring non-null one; its reason says so."""
    if len(verdicts) == 1:
        return verdicts[0]
    exact = [
        v
        for v, c in zip(verdicts, claimed, strict=True)
        if v.kind == "valide" and v.score == c
    ]
    non_null = [v for v in verdicts if not scores_nothing(v.kind)]
    chosen = (
        exact[0] if exact else min(non_null, key=lambda v: v.score) if non_null else verdicts[0]
    )
    if chosen.kind == "nul":
        note = f"{len(verdicts)} solutions sur le bulletin, aucune n'est valable. "
    else:
        note = f"{len(verdicts)} solutions sur le bulletin ; retenue : {chosen.ref} {chosen.word}. "
    return replace(chosen, reason_fr=note + chosen.reason_fr)


def _normalise(b: Bulletin) -> Bulletin | str:
    """The bulletin in canonical form (word via :func:`parse_word`, reference formatted, an
    unreadable reference dropped: « illisible » counts as absent, S1 5.3.1); a French zero
    reason when the word cannot be read."""
    try:
        word = parse_word(b.word)
    except EngineError:
        return f"Nul : mot illisible « {b.word} »."
    ref: str | None = None
    if b.ref:
        try:
            ref = format_ref(parse_ref(b.ref))
        except EngineError:
            ref = None
    raccord = b.raccord.upper() if b.raccord and b.raccord.isalpha() else None
    placed = tuple(
        RaccordLetter(x.letter.upper(), x.dx, x.dy) for x in b.raccord_at if x.letter.isalpha()
    )
    return replace(b, word=word, ref=ref, raccord=raccord, raccord_at=placed)


def _correct_one(ctx: RoundContext, raw: Bulletin, who: str) -> Verdict:
    """One solution of a bulletin (see :func:`correct`)."""
    norm = _normalise(raw)
    if isinstance(norm, str):
        return Verdict(who, 0, "nul", reason_fr=norm)
    bulletin = norm
    written = bulletin.word
    cands = ctx.moves_by_word.get(written.upper(), [])
    if ctx.round_no == 1 or ctx.board.is_empty():
        return _correct_first(ctx, bulletin, who, cands)
    warnings: list[str] = []
    ref = parse_ref(bulletin.ref) if bulletin.ref else None
    # the raccord in either form: a straight run (str) or letters at their places
    raccord: str | tuple[RaccordLetter, ...] | None = bulletin.raccord_at or bulletin.raccord
    horizontal = written_horizontal(bulletin)
    at_ref = [m for m in cands if ref is not None and m.ref == ref]
    by_raccord = [m for m in cands if raccord and raccord_fits(ctx.board, m, raccord)]
    altered = False
    if raccord and not at_ref and not by_raccord and len(raccord) > 3:
        # S1 5.2: an altered raccord letter is a warning « le raccord correct doit cependant
        # être composé de trois lettres consécutives ou plus »: some run of 3 or more
        # consecutive letters of the written raccord must locate the word by itself
        n = len(raccord)
        runs: Sequence[str | tuple[RaccordLetter, ...]] = (
            list({raccord[i:j] for i in range(n) for j in range(i + 3, n + 1) if j - i < n})
            if isinstance(raccord, str)
            else placed_runs(raccord)
        )
        by_raccord = [m for m in cands if any(raccord_fits(ctx.board, m, r) for r in runs)]
        altered = bool(by_raccord)
    raccord_s = bulletin.raccord_text
    if at_ref:
        confirmed = bool(raccord) and any(m in by_raccord for m in at_ref)
        if raccord and not confirmed:
            warnings.append(
                f"raccord {raccord_s} incorrect (la référence {bulletin.ref} est juste)"
            )
        if not confirmed:
            ambiguous = _ambiguous_reference(ctx, bulletin, who, cands, at_ref, horizontal)
            if ambiguous is not None:
                return ambiguous
        return _score_located(ctx, bulletin, who, at_ref, warnings)
    extension = _extension_reading(ctx, bulletin)
    if by_raccord and extension and bulletin.claimed is not None:
        # the written letters are a word the raccord locates, and also an extension it
        # locates (MENERAI PRO: PRO across the R, or PROMENERAI): the score decides between
        # the two readings (S1 4.3.3), the whole word when it does not
        claimed = bulletin.claimed
        if any(m.score == claimed for m in extension) and not any(
            m.score == claimed for m in by_raccord
        ):
            by_raccord = []
    if by_raccord:
        # S1 4.2.2: a word that extends a grid word is located by its raccord, « il n'est
        # donc pas tenu compte, dans ce cas, de l'indication alphanumérique »
        extends = all(extension_span(m) is not None for m in by_raccord)
        if bulletin.ref is not None and not extends:
            bad = _forms_bad_word(ctx.board, bulletin.ref, written, ctx.config)
            if bad is not None:
                return _bad_word_zero(who, bulletin.ref, bad)
            warnings.append(f"référence {bulletin.ref} erronée (le raccord {raccord_s} est juste)")
        if altered:
            warnings.append(f"lettre de raccord altérée ({raccord_s})")
        warnings.extend(_raccord_length(ctx, raccord))
        return _score_located(ctx, bulletin, who, by_raccord, warnings)
    if extension:
        # S1 4.3.2: the extension written alone, located by its raccord, judged like the
        # whole word; the alphanumeric reference does not count (S1 4.2.2)
        warnings.extend(_raccord_length(ctx, raccord))
        return _score_located(
            ctx, bulletin, who, extension, warnings, marks=lambda m: added_letters(m) == written
        )
    if ref is not None and bulletin.ref is not None:
        inverted = [m for m in cands if m.ref == Ref(ref.row, ref.col, not ref.horizontal)]
        # the reference read in the direction the word is written in: laying the (admitted)
        # word across a non-word there is a zero (S1 4.4), never a fallback to another place
        lex = ctx.config.lexicon
        bad = (
            _forms_bad_word(ctx.board, bulletin.ref, written, ctx.config)
            if ref.horizontal == horizontal and (lex is None or written.upper() in lex)
            else None
        )
        if inverted and bad is None:
            warnings.append(f"sens de la référence {bulletin.ref} inversé")
            return _score_located(ctx, bulletin, who, inverted, warnings)
        if bad is not None:
            return _bad_word_zero(who, bulletin.ref, bad)
    if not cands:
        return _penalty_last_letter(ctx, bulletin, who) or Verdict(
            who, 0, "nul", reason_fr=_zero_reason(ctx, bulletin)
        )
    return _penalty_last_letter(ctx, bulletin, who) or _penalty_or_zero(
        ctx, bulletin, who, cands, horizontal
    )


def written_horizontal(b: Bulletin) -> bool:
    """The direction the word is written in on the bulletin (S1 5.3.1 « dans le même sens
    que celui où il est écrit sur le bulletin »): downwards with ``vertical``; on one line,
    the reference's direction when one is written (a line shows no other), else
    horizontal."""
    if b.vertical:
        return False
    if b.ref:
        try:
            return parse_ref(b.ref).horizontal
        except EngineError:
            return True
    return True


def _bad_word_zero(who: str, ref: str, bad: str) -> Verdict:
    return Verdict(who, 0, "nul", reason_fr=f"Nul : en {ref}, le mot forme le mot non admis {bad}.")


def _raccord_length(
    ctx: RoundContext, raccord: str | tuple[RaccordLetter, ...] | None
) -> list[str]:
    """S1 5.2 « À partir du deuxième coup (sauf si le mot joué au premier coup ne comporte
    que deux lettres), raccord de deux lettres au lieu de trois »: the warning, if due
    (the raccord in either form: a straight run or letters at their places)."""
    if raccord and len(raccord) == 2 and not ctx.two_letter_first_word():
        shown = raccord if isinstance(raccord, str) else " ".join(r.notation() for r in raccord)
        return [f"raccord de deux lettres ({shown}) au lieu de trois"]
    return []


def _extension_reading(ctx: RoundContext, b: Bulletin) -> list[GeneratedMove]:
    """S1 4.3.2 « Les deux seuls cas où le mot joué peut ne pas être écrit en entier » —
    the extension(s) written alone with raccord letters (``AME S``: EXOGAME becomes
    EXOGAMES): the round's moves that extend a grid word by exactly the written letters
    (case ignored: the joker marks are judged later), whose raccord holds the played word's
    letter next to each extension (a straight run, :func:`raccord_holds`)."""
    raccord = b.raccord
    if not raccord or len(raccord) < 2:
        return []
    found: list[GeneratedMove] = []
    for m in ctx.extensions(b.word):
        span = extension_span(m)
        assert span is not None
        i, j = span
        squares = word_squares(m)
        need = ([squares[i]] if i > 0 else []) + ([squares[j - 1]] if j < len(m.word) else [])
        if raccord_holds(ctx.board, raccord, need):
            found.append(m)
    return found


def _score_located(
    ctx: RoundContext,
    b: Bulletin,
    who: str,
    located: list[GeneratedMove],
    warnings: list[str],
    *,
    marks: Callable[[GeneratedMove], bool] | None = None,
) -> Verdict:
    """The reference is settled (``located``: the placements it allows): joker marks and
    score (RULES §4.3.3, §4.7.2, §4.7.6). ``marks``: the joker marks are right for a move
    (default: :func:`marks_match` of the written word)."""
    right = marks or (lambda m: marks_match(m, b.word, ctx.board))
    exact = [m for m in located if right(m)]
    pool = exact or located
    if not exact:
        warnings.append("joker mal entouré ou non entouré")
    matching = [m for m in pool if m.score == b.claimed]
    if matching:
        chosen = min(matching, key=lambda m: (m.ref, m.word))
    else:
        chosen = min(pool, key=lambda m: (m.score, m.ref, m.word))
        if b.claimed is None:
            warnings.append(f"score absent ({chosen.score} points attribués)")
        elif len({m.score for m in pool}) > 1:
            warnings.append(
                f"score {b.claimed} faux et placement incertain : score minimum "
                f"{chosen.score} attribué"
            )
        else:
            warnings.append(f"score {b.claimed} faux, score exact {chosen.score}")
    return _valid(who, chosen, warnings)


def _valid(who: str, m: GeneratedMove, warnings: list[str]) -> Verdict:
    ref, word = _describe(m)
    if warnings:
        text = "Avertissement : " + " ; ".join(dict.fromkeys(warnings)) + "."
        return Verdict(who, m.score, "avertissement", 1, text, ref, word)
    return Verdict(who, m.score, "valide", 0, "Valide.", ref, word)


def _correct_first(ctx: RoundContext, b: Bulletin, who: str, cands: list[GeneratedMove]) -> Verdict:
    """Round 1: no reference needed; the word scores its most advantageous (horizontal)
    placement; with unclear joker marks the score decides, else the least advantageous joker
    position (RULES §4.7.2, §4.7.6)."""
    if not cands:
        return Verdict(who, 0, "nul", reason_fr=_zero_reason(ctx, b))
    warnings: list[str] = []
    # among equally advantageous placements, the one the player wrote (a Tactique's second
    # word is judged on the grid this first word leaves), else the leftmost
    written = parse_ref(b.ref) if b.ref else None

    def preferred(m: GeneratedMove) -> tuple[int, bool, int]:
        return (m.score, m.ref == written, -m.start)

    exact = [m for m in cands if marks_match(m, b.word, ctx.board)]
    if exact:
        chosen = max(exact, key=preferred)
    else:
        warnings.append("joker mal entouré ou non entouré")
        best_by_marks: dict[str, GeneratedMove] = {}
        for m in cands:
            cur = best_by_marks.get(m.word)
            if cur is None or preferred(m) > preferred(cur):
                best_by_marks[m.word] = m
        options = list(best_by_marks.values())
        matching = [m for m in options if m.score == b.claimed]
        chosen = matching[0] if matching else min(options, key=lambda m: (m.score, m.word))
    if b.claimed != chosen.score:
        if b.claimed is None:
            warnings.append(f"score absent ({chosen.score} points attribués)")
        else:
            warnings.append(f"score {b.claimed} faux, score exact {chosen.score}")
    return _valid(who, chosen, warnings)


def _penalty_or_zero(
    ctx: RoundContext, b: Bulletin, who: str, cands: list[GeneratedMove], horizontal: bool
) -> Verdict:
    """No reference mode locates the word: 5-point penalty when the claimed score matches a
    placement in the direction the word is written in (RULES §4.7.3 (a), S1 5.3.1 « et ce
    dans le même sens que celui où il est écrit sur le bulletin », G5), else zero (§4.7.4)."""
    same_dir = [m for m in cands if m.horizontal == horizontal]
    matching = [m for m in same_dir if m.score == b.claimed]
    what = "référence erronée" if (b.ref or b.raccord_text) else "référence absente ou illisible"
    if b.claimed is not None and matching:
        return _penalty(ctx, b, who, matching, what)
    sense = "horizontalement" if horizontal else "verticalement"
    other = [m for m in cands if m.horizontal != horizontal and m.score == b.claimed]
    note = (
        f" (il correspond à un emplacement {'vertical' if horizontal else 'horizontal'}, mais "
        "le mot n'est pas écrit dans ce sens)"
        if b.claimed is not None and other
        else ""
    )
    return Verdict(
        who,
        0,
        "nul",
        reason_fr=f"Nul : {what} et le score {b.claimed if b.claimed is not None else '(absent)'} "
        f"ne correspond à aucun emplacement du mot écrit {sense}{note}.",
    )


def _penalty(
    ctx: RoundContext, b: Bulletin, who: str, matching: list[GeneratedMove], what: str
) -> Verdict:
    """The claimed score (that of ``matching``, the valid places it fits) less the penalty,
    never below 0."""
    assert b.claimed is not None
    penalty = ctx.penalty_points
    places = {m.ref for m in matching}
    m = min(matching, key=lambda x: (x.ref, x.word))
    ref_s, word = _describe(m) if len(places) == 1 else (None, m.word)
    note = "" if len(places) == 1 else f" ({len(places)} emplacements possibles)"
    return Verdict(
        who,
        _less_penalty(b.claimed, penalty),
        "penalite5",
        0,
        f"Pénalité de {penalty} points : {what}, le score {b.claimed} correspond à un "
        f"emplacement valable{note}{_floor_note(b.claimed, penalty)}.",
        ref_s,
        word,
    )


def _less_penalty(score: int, penalty: int) -> int:
    """A penalty never credits a negative score (RULES §4.7.3)."""
    return max(0, score - penalty)


def _floor_note(score: int, penalty: int) -> str:
    return f" ; {score} − {penalty} ramené à 0" if score < penalty else ""


def _ambiguous_reference(
    ctx: RoundContext,
    b: Bulletin,
    who: str,
    cands: list[GeneratedMove],
    at_ref: list[GeneratedMove],
    horizontal: bool,
) -> Verdict | None:
    """S1 5.3.2 « Référence portée sur le bulletin erronée, mais correspondant à un
    placement techniquement possible »: the reference is a legal place of the word, the
    claimed score is none of its scores but is that of another legal place in the direction
    written. With ``ambiguous_reference="penalty"`` (RULES §4.7.3, G5) the claimed score
    less the penalty; None otherwise (``warning``: the score at the reference, S1 5.2)."""
    if ctx.ambiguous_reference != "penalty" or b.claimed is None:
        return None
    if any(m.score == b.claimed for m in at_ref):
        return None
    here = at_ref[0].ref
    elsewhere = [
        m for m in cands if m.ref != here and m.horizontal == horizontal and m.score == b.claimed
    ]
    if not elsewhere:
        return None
    scores = " ou ".join(str(x) for x in sorted({m.score for m in at_ref}))
    what = f"référence {b.ref} ambiguë (le mot s'y place pour {scores} points)"
    return _penalty(ctx, b, who, elsewhere, what)


def _penalty_last_letter(ctx: RoundContext, b: Bulletin, who: str) -> Verdict | None:
    """RULES §4.7.3 (b): the last letter missing or altered while it is already on the grid,
    and the score of the whole word claimed."""
    if b.claimed is None:
        return None
    w = b.word.upper()
    options: list[GeneratedMove] = []
    for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        for full in (w + letter, w[:-1] + letter if len(w) > 1 and letter != w[-1] else ""):
            if not full:
                continue
            for m in ctx.moves_by_word.get(full, []):
                last_on_grid = not (m.new_mask >> (len(m.word) - 1) & 1)
                ref_ok = b.ref is None or format_ref(m.ref) == b.ref
                if last_on_grid and m.score == b.claimed and ref_ok:
                    options.append(m)
    if not options:
        return None
    m = min(options, key=lambda x: (x.ref, x.word))
    ref_s, word = _describe(m)
    return Verdict(
        who,
        _less_penalty(m.score, ctx.penalty_points),
        "penalite5",
        0,
        f"Pénalité de {ctx.penalty_points} points : dernière lettre du mot {word.upper()} "
        "absente ou modifiée alors qu'elle est déjà sur la grille"
        f"{_floor_note(m.score, ctx.penalty_points)}.",
        ref_s,
        word,
    )


