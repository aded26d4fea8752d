"""Correcting a Duplicate round: the results of every player's counting bulletin (plain,
Tactique, letter-choice variants, Superscrabble); the arbitre's other top and re-correction,
and their preview (computed in a rolled-back savepoint, applied only by its digest)."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from sqlmodel import Session

import puzzles.duplicate as dup_rules
import puzzles.variants as variant_rules
from scoring.board import Board
from scoring.movegen import generate
from scoring.notation import format_ref, parse_ref
from webapp.models import (
    DuplicateEntry,
    DuplicateGame,
    DuplicateRound,
    DuplicateVariant,
    Player,
    RoundStatus,
)
from webapp.services import audit
from webapp.services.duplicate.game import (
    SUPERSCRABBLE,
    DuplicateError,
    bulletin_of,
    config_of,
    counting_entries,
    entries_of,
    first_line,
    free_of,
    is_free,
    move_dict,
    players_of,
    schedule_changed,
    scrabble_top_dict,
    standings,
    tactique_of,
    tactique_top_dict,
    variant_label,
)
from webapp.services.duplicate.notices import corrected_notices
from webapp.services.stored import duplicate_settings_of, variant_settings_of


def compute_results(s: Session, game: DuplicateGame, rnd: DuplicateRound) -> list[dict[str, Any]]:
    """Correct the counting bulletin of every registered player (``correct_all``: none is
    absent, an unreadable one is zero with its errors), then the solos; one mapping per
    player, by player id."""
    assert rnd.top is not None
    counting = counting_entries(entries_of(s, rnd))
    players = players_of(s, game)
    if game.variant == DuplicateVariant.TACTIQUE:
        return _tactique_results(s, game, rnd, counting, players)
    if game.variant == SUPERSCRABBLE:
        return _superscrabble_results(game, rnd, counting, players)
    state = dup_rules.GameState.from_text(rnd.state_before)
    bulletins: dict[str, Any] = {}
    for p in players:
        entry = counting.get(p.id or 0)
        if entry is None:
            bulletins[str(p.id)] = None
        elif entry.bulletin is None:
            bulletins[str(p.id)] = first_line(entry.raw_text)  # read again: its errors
        else:
            # every solution written (S1 5.6); the free variants with the letters taken
            bulletins[str(p.id)] = (free_of if is_free(game) else bulletin_of)(
                entry.bulletin, str(p.id), entry.received_at)
    if is_free(game):
        verdicts = variant_rules.correct_free_round(
            state, rnd.draw["rack"], bulletins,
            config_of(game), top_score=int(rnd.top["score"]),
            settings=variant_settings_of(game), n_players=len(players))
    else:
        verdicts = dup_rules.correct_all(state, rnd.draw["rack"], bulletins, config_of(game),
                                   round_no=rnd.number, top_score=int(rnd.top["score"]),
                                   settings=duplicate_settings_of(game), n_players=len(players))
    if game.variant == DuplicateVariant.TOP:  # Duplicate Top: ranked by tops, no solo (RULES §9.2)
        verdicts = [replace(v, solo=0) for v in verdicts]
    by_player = {v.player: v for v in verdicts}
    return [result_dict(p, counting.get(p.id or 0), by_player[str(p.id)]) for p in players]


def _tactique_results(s: Session, game: DuplicateGame, rnd: DuplicateRound,
                      counting: dict[int, DuplicateEntry],
                      players: list[Player]) -> list[dict[str, Any]]:
    """Each counting billet corrected (``correct_tactique``: both words, both orders when
    free, the sum checked), then the solos as in the Duplicate."""
    ts = tactique_of(rnd.state_before)
    vs = variant_settings_of(game)
    config = config_of(game)
    assert rnd.top is not None
    contexts: dict[Any, Any] = {}
    verdicts = []
    for p in players:
        who = str(p.id)
        entry = counting.get(p.id or 0)
        if entry is None:
            billet = None
        elif entry.bulletin is None:
            errors = entry.parse_errors or ["billet illisible"]
            verdicts.append(dup_rules.Verdict(who, 0, "nul", reason_fr="Nul : billet illisible — "
                                        + " ".join(errors)))
            continue
        else:
            d = entry.bulletin
            second = d.get("second")
            billet = variant_rules.TactiqueBillet(
                who, bulletin_of(d["first"], who, entry.received_at),
                bulletin_of(second, who, entry.received_at) if second else None, d.get("total"))
        verdicts.append(variant_rules.correct_tactique(
            ts, billet, config, top_score=int(rnd.top["score"]), settings=vs, player=who,
            contexts=contexts))
    verdicts = dup_rules.apply_solos(verdicts, len(players), vs.duplicate)
    by_player = {x.player: x for x in verdicts}
    return [result_dict(p, counting.get(p.id or 0), by_player[str(p.id)]) for p in players]


def round_scrabbles(game: DuplicateGame, rnd: DuplicateRound) -> list[Any]:
    """Every distinct scrabble of a Superscrabble round (``list_scrabbles``)."""
    return list(variant_rules.list_scrabbles(Board.from_cgp(rnd.grid_before), rnd.draw["rack"],
                                          config_of(game)))


def _superscrabble_results(game: DuplicateGame, rnd: DuplicateRound,
                           counting: dict[int, DuplicateEntry],
                           players: list[Player]) -> list[dict[str, Any]]:
    """One point per distinct valid scrabble of each counting sheet; a count missing or
    wrong is a warning (``correct_scrabble_sheet``)."""
    answers = round_scrabbles(game, rnd)
    out = []
    for p in players:
        who = str(p.id)
        entry = counting.get(p.id or 0)
        if entry is not None and entry.bulletin is None:
            sv = variant_rules.SheetVerdict(who, 0, 0, 0, 0, "Feuille illisible — "
                                + " ".join(entry.parse_errors or []))
            kind = "nul"
        else:
            sheet = None if entry is None else variant_rules.ScrabbleSheet(
                who, tuple((r, w) for r, w in (entry.bulletin or {})["entries"]),
                (entry.bulletin or {}).get("count"))
            sv = variant_rules.correct_scrabble_sheet(sheet, answers, who)
            kind = "absent" if entry is None else ("avertissement" if sv.warnings
                                                   else "valide")
        out.append({"player_id": p.id, "name": p.name, "entry_id": entry.id if entry else None,
                    "score": int(sv.valid), "kind": kind, "warnings": int(sv.warnings),
                    "solo": 0, "reason": sv.reason_fr, "ref": None, "word": None,
                    "invalid": int(sv.invalid), "duplicates": int(sv.duplicates)})
    return out


def result_dict(p: Player, entry: DuplicateEntry | None, v: Any) -> dict[str, Any]:
    return {"player_id": p.id, "name": p.name, "entry_id": entry.id if entry else None,
            "score": int(v.score), "kind": str(v.kind), "warnings": int(v.warnings),
            "solo": int(v.solo), "reason": v.reason_fr, "ref": v.ref, "word": v.word}


def override_top(*, session: Session, game: DuplicateGame, rnd: DuplicateRound, ref: str,
                 word: str, actor: str, reason: str) -> dict[str, Any]:
    """Retain another legal move of this round as its top (before its results are out);
    the bulletins are corrected again against it if the round is already corrected."""
    if rnd.status == RoundStatus.PUBLISHED:
        raise DuplicateError("Les résultats de ce tour sont publiés : son top ne peut plus "
                             "changer.")
    if game.variant == DuplicateVariant.TACTIQUE:
        return _choose_sequence(session=session, game=game, rnd=rnd, ref=ref, word=word,
                                actor=actor, reason=reason)
    if game.variant == SUPERSCRABBLE:
        return _choose_scrabble(session=session, game=game, rnd=rnd, ref=ref, word=word,
                                actor=actor, reason=reason)
    if not reason.strip():
        raise DuplicateError("Indiquez le motif du changement de top.")
    state = dup_rules.GameState.from_text(rnd.state_before)
    config = config_of(game)
    letters: dict[str, str] = {}
    if is_free(game):
        rack, word, letters = free_rack(game, state, rnd.draw["rack"], word)
        move = legal_move(state, rack, config, ref, word)
        if game.variant == DuplicateVariant.ELLIPTIQUE and bin(move.new_mask).count("1") > 7:
            raise DuplicateError("En Elliptique, un coup pose au plus 7 lettres.")

        base = rack[:len(rack) - len(letters["chosen"])]
        used = "".join(sorted((Counter(move.letters) - Counter(base)).elements()))
        # G15: a named letter the move does not place returns to the stock (it is no
        # choice), unless the game keeps it on the rack (free_unused="reliquat")
        kept = letters["chosen"] if variant_settings_of(game).free_unused == "reliquat" \
            else used
        letters = {"chosen": kept, "swapped": letters["swapped"] if used else ""}
    else:
        move = legal_move(state, rnd.draw["rack"], config, ref, word)
    assert rnd.top is not None
    return _retain_top(session, game, rnd, actor, reason, {
        **move_dict(move), "ties": [], **letters,
        "reason": f"Top choisi par l'arbitre ({actor}) : {reason.strip()}"})


def _retain_top(session: Session, game: DuplicateGame, rnd: DuplicateRound, actor: str,
                reason: str, top: dict[str, Any], *, recorrect: bool = True) -> dict[str, Any]:
    """Store the arbitre's ``top`` for the round (the bulletins corrected again when the
    round already is and ``recorrect``), wake the scheduler, audit the change."""
    old = rnd.top
    rnd.top = top
    rnd.top_overridden_by = actor
    if recorrect and rnd.status == RoundStatus.CORRECTED:
        rnd.results = compute_results(session, game, rnd)
    session.add(rnd)
    schedule_changed(session)
    audit.record(session=session, actor=actor, action="duplicate.override_top",
                 target=game.code, round=rnd.number, old=old, new=rnd.top,
                 reason=reason.strip())
    return top


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


def _choose_sequence(*, session: Session, game: DuplicateGame, rnd: DuplicateRound, ref: str,
                     word: str, actor: str, reason: str) -> dict[str, Any]:
    """Tactique (RULES §9.1): the arbitre retains another legal two-word sequence of the
    round (``puzzles.variants.tactique_sequence``: the first word legal with one group, the
    second, on the grid it leaves, with the other; the order allowed by the game). The
    bulletins are corrected again when the round is; its publication places both words
    and the game goes on from that grid, each group keeping its unused letters."""
    if not reason.strip():
        raise DuplicateError("Indiquez le motif du changement de top.")
    ts = tactique_of(rnd.state_before)
    try:
        top = variant_rules.tactique_sequence(ts.game.board, ts.reliquats,
                                           tactique_text_of(ref, word), config_of(game),
                                           variant_settings_of(game))
    except ValueError as exc:
        raise DuplicateError(str(exc)) from None
    return _retain_top(session, game, rnd, actor, reason, {
        **tactique_top_dict(top),
        "reason": f"Suite choisie par l'arbitre ({actor}) : {reason.strip()}"})


def _choose_scrabble(*, session: Session, game: DuplicateGame, rnd: DuplicateRound, ref: str,
                     word: str, actor: str, reason: str) -> dict[str, Any]:
    """RULES §7.7 « l'arbitre choisit le scrabble que tous placent »: one of the round's
    scrabbles (or the engine's choice again: ``ref`` « moteur »)."""
    if not reason.strip():
        raise DuplicateError("Indiquez le motif du choix du scrabble.")
    answers = round_scrabbles(game, rnd)
    if ref.strip().lower() == "moteur":
        chosen = variant_rules.choose_scrabble(Board.from_cgp(rnd.grid_before), answers,
                                            config_of(game))
    else:
        wanted = (ref.strip().upper(), word.strip().upper())

        chosen = next((m for m in answers
                       if (format_ref(m.ref).upper(), m.word.upper()) == wanted), None)
        if chosen is None:
            raise DuplicateError(f"« {ref.strip()} {word.strip()} » n'est pas un scrabble du "
                                 f"tirage {rnd.draw['rack']} sur cette grille.")
    return _retain_top(session, game, rnd, actor, reason, scrabble_top_dict(
        chosen, answers, f"Scrabble choisi par l'arbitre ({actor}) : {reason.strip()}"),
        recorrect=False)


def free_rack(game: DuplicateGame, state: Any, drawn: str,
              text: str) -> tuple[str, str, dict[str, str]]:
    """A letter-choice variant's move as the arbitre writes it (``RESTAIT +T``,
    ``KETAMINE -N +K``): the rack (the drawn letters less the given-back one, plus the
    chosen ones, which must be in the stock), the word, the letters."""
    vs = variant_settings_of(game)
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
    metagramme = game.variant == DuplicateVariant.METAGRAMME
    limit = 1 if metagramme else vs.free
    if len(chosen) > limit or len(swapped) > (1 if metagramme else 0):
        raise DuplicateError(f"{variant_label(game)} : {limit} lettre(s) choisie(s) au plus.")
    if game.variant == DuplicateVariant.METAGRAMME and bool(chosen) != bool(swapped):
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
    return base + chosen, word_parts[0], {"chosen": chosen, "swapped": swapped}


def legal_move(state: Any, rack: str, config: Any, ref: str, word: str) -> Any:
    """The legal move of this round written ``ref word`` (a joker in lower case); French
    :class:`DuplicateError` when there is none."""
    try:
        wanted = parse_ref(ref.strip())
    except Exception:
        raise DuplicateError(f"Référence illisible : « {ref} ».") from None
    word = word.strip()
    moves = [m for m in generate(state.board, rack, config) if m.ref == wanted]
    exact = [m for m in moves if m.word == word]
    folded = [m for m in moves if m.word.upper() == word.upper()]
    found = exact or (folded if len(folded) == 1 else [])
    if not found:
        raise DuplicateError(f"« {ref.strip()} {word} » n'est pas un coup jouable avec le "
                             f"tirage {rack} sur cette grille.")
    return found[0]


def recorrect(*, session: Session, game: DuplicateGame, rnd: DuplicateRound, actor: str,
              reason: str) -> list[dict[str, Any]]:
    """Correct every bulletin of a closed round again (audited, with the differences). When
    the round's results are already out, each player whose score (or solo) changed gets a
    corrected-results mail (one per re-correction: its dedupe key names the audit entry)."""
    if rnd.status == RoundStatus.OPEN:
        raise DuplicateError("Ce tour est encore ouvert : il sera corrigé à sa clôture.")
    if not reason.strip():
        raise DuplicateError("Indiquez le motif de la nouvelle correction.")
    before = {r["player_id"]: r for r in rnd.results}
    old = {pid: r["score"] for pid, r in before.items()}
    rnd.results = compute_results(session, game, rnd)
    session.add(rnd)
    changed = {r["player_id"]: [old.get(r["player_id"]), r["score"]] for r in rnd.results
               if old.get(r["player_id"]) != r["score"]
               or (before.get(r["player_id"]) or {}).get("solo", 0) != r.get("solo", 0)}
    record = audit.record(session=session, actor=actor, action="duplicate.recorrect",
                          target=game.code, round=rnd.number, reason=reason.strip(),
                          changed={str(k): v for k, v in changed.items()})
    if rnd.status == RoundStatus.PUBLISHED and changed:
        session.flush()
        corrected_notices(session, game, rnd, before, set(changed), reason.strip(),
                          key=f"{record.id}")
    return rnd.results


@dataclass(frozen=True)
class ChangePreview:
    """What a re-correction (``action`` « recorriger ») or another top (« top ») would change
    in a round, computed in a savepoint rolled back: nothing is stored. ``digest`` names the
    exact change (old and new results, tops, ranking); :func:`apply_change` refuses to store
    anything else."""
    action: str
    ref: str
    word: str
    reason: str
    old_top: dict[str, Any] | None
    new_top: dict[str, Any] | None
    rows: list[dict[str, Any]]
    rank_changes: list[dict[str, Any]]
    digest: str


def _ranks(session: Session, game: DuplicateGame) -> dict[int, dict[str, Any]]:
    return {r["player_id"]: {"rank": r["rank"], "total": r["total"], "name": r["name"]}
            for r in standings(session, game)}


def _run_change(session: Session, game: DuplicateGame, rnd: DuplicateRound, action: str,
                ref: str, word: str, reason: str, actor: str) -> None:
    if action == "top":
        override_top(session=session, game=game, rnd=rnd, ref=ref, word=word, actor=actor,
                     reason=reason)
    elif action == "recorriger":
        recorrect(session=session, game=game, rnd=rnd, actor=actor, reason=reason)
    else:
        raise DuplicateError(f"Action inconnue : « {action} ».")


def preview_change(*, session: Session, game: DuplicateGame, rnd: DuplicateRound, action: str,
                   ref: str = "", word: str = "", reason: str, actor: str) -> ChangePreview:
    """Per player the old and new verdict (kind, score, reason) and solo of the round, and
    the ranking changes (only the players whose rank moves). French :class:`DuplicateError`
    when the change itself is refused."""
    session.flush()
    old_top = rnd.top
    old_results = {r["player_id"]: dict(r) for r in rnd.results or []}
    old_ranks = _ranks(session, game)
    sp = session.begin_nested()
    try:
        _run_change(session, game, rnd, action, ref, word, reason, actor)
        session.flush()
        new_top = dict(rnd.top) if rnd.top is not None else None
        new_results = {r["player_id"]: dict(r) for r in rnd.results or []}
        new_ranks = _ranks(session, game)
    finally:
        sp.rollback()
    session.expire_all()
    rows = []
    for pid in sorted(set(old_results) | set(new_results),
                      key=lambda p: ((new_results.get(p) or old_results.get(p) or {})
                                     .get("name", ""), p)):
        o, n = old_results.get(pid) or {}, new_results.get(pid) or {}
        rows.append({
            "player_id": pid, "name": n.get("name") or o.get("name", ""),
            "old_kind": o.get("kind"), "new_kind": n.get("kind"),
            "old_score": o.get("score"), "new_score": n.get("score"),
            "old_solo": o.get("solo", 0) if o else None,
            "new_solo": n.get("solo", 0) if n else None,
            "old_reason": o.get("reason"), "new_reason": n.get("reason"),
            "changed": (o.get("kind"), o.get("score"), o.get("solo", 0), o.get("reason"))
            != (n.get("kind"), n.get("score"), n.get("solo", 0), n.get("reason")),
        })
    rank_changes = [
        {"player_id": pid, "name": new_ranks[pid]["name"],
         "old_rank": old_ranks[pid]["rank"], "new_rank": new_ranks[pid]["rank"],
         "old_total": old_ranks[pid]["total"], "new_total": new_ranks[pid]["total"]}
        for pid in sorted(new_ranks, key=lambda p: (new_ranks[p]["rank"], new_ranks[p]["name"]))
        if pid in old_ranks and old_ranks[pid]["rank"] != new_ranks[pid]["rank"]]
    what = {"action": action, "ref": ref.strip(), "word": word.strip(),
            "reason": reason.strip(), "round": rnd.number, "game": game.code,
            "old_top": old_top, "new_top": new_top,
            "old": [old_results[k] for k in sorted(old_results)],
            "new": [new_results[k] for k in sorted(new_results)],
            "ranks": rank_changes}
    digest = hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()
    return ChangePreview(action=action, ref=ref.strip(), word=word.strip(),
                         reason=reason.strip(), old_top=old_top, new_top=new_top, rows=rows,
                         rank_changes=rank_changes, digest=digest)


def apply_change(*, session: Session, game: DuplicateGame, rnd: DuplicateRound, action: str,
                 ref: str = "", word: str = "", reason: str, actor: str,
                 digest: str) -> ChangePreview:
    """Store the change shown by the preview whose ``digest`` is given: computed again and
    refused (French :class:`DuplicateError`, nothing stored) when anything moved in between
    (a bulletin, another arbitre's change, a publication). Audited by the change itself
    (``duplicate.override_top`` / ``duplicate.recorrect``) and ``duplicate.change_applied``
    with the digest."""
    now = preview_change(session=session, game=game, rnd=rnd, action=action, ref=ref,
                         word=word, reason=reason, actor=actor)
    if now.digest != digest.strip():
        raise DuplicateError("Le tour a changé depuis l'aperçu (bulletin, correction ou "
                             "publication) : rien n'a été enregistré. Relancez l'aperçu.")
    _run_change(session, game, rnd, action, ref, word, reason, actor)
    audit.record(session=session, actor=actor, action="duplicate.change_applied",
                 target=game.code, round=rnd.number, change=action, digest=digest,
                 changed={str(r["player_id"]): [r["old_score"], r["new_score"]]
                          for r in now.rows if r["changed"]})
    return now
