"""Correcting a Duplicate round: the results of every player's counting bulletin (by the
game's ``correct``: plain, Tactique, letter-choice games, Superscrabble); the arbitre's other
top (the game's ``other_top``) and re-correction, and their preview (computed in a rolled-back
savepoint, applied only by its digest)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TypedDict

from sqlmodel import Session

from puzzles.duplicate.codecs import RoundTopJSON
from puzzles.duplicate.protocol import PlayerBulletin
from webapp.models import (
    DuplicateEntry,
    DuplicateGame,
    DuplicateRound,
    Player,
    RoundStatus,
)
from webapp.services import audit
from webapp.services.duplicate.game import (
    DuplicateError,
    config_of,
    counting_entries,
    entries_of,
    first_line,
    game_of,
    players_of,
    schedule_changed,
    standings,
)
from webapp.services.duplicate.notices import corrected_notices
from webapp.services.stored import (
    PlayerResultJSON,
    bulletin_json_of,
    game_settings_of,
    player_result,
    round_record_of,
    round_results_of,
    round_top_of,
)


def player_bulletin(player: Player, entry: DuplicateEntry | None) -> PlayerBulletin:
    """A player's counting bulletin as the correction reads it: none (absent), the stored
    parsed form, or the line received with its errors when it could not be read."""
    who = str(player.id)
    if entry is None:
        return PlayerBulletin(who)
    return PlayerBulletin(who, bulletin_json_of(entry), first_line(entry.raw_text),
                          tuple(entry.parse_errors or ()), entry.received_at)


def compute_results(s: Session, game: DuplicateGame,
                    rnd: DuplicateRound) -> list[PlayerResultJSON]:
    """Correct the counting bulletin of every registered player (the game's ``correct``:
    none is absent, an unreadable one is zero with its errors; the solos where the game
    has them); one mapping per player, in the players' order."""
    assert rnd.top is not None
    counting = counting_entries(entries_of(s, rnd))
    players = players_of(s, game)
    entries = [counting.get(p.id or 0) for p in players]
    bulletins = [player_bulletin(p, e) for p, e in zip(players, entries, strict=True)]
    results = game_of(game).correct(round_record_of(rnd), bulletins, game_settings_of(game),
                                    config_of(game), len(players))
    return [player_result(p.id or 0, p.name, e.id if e else None, r)
            for p, e, r in zip(players, entries, results, strict=True)]


def override_top(*, session: Session, game: DuplicateGame, rnd: DuplicateRound, ref: str,
                 word: str, actor: str, reason: str) -> RoundTopJSON:
    """Retain another top of this round, the game's ``other_top`` (a legal move, the
    letters taken in a letter-choice game, a Tactique's two-word sequence, a
    Superscrabble's scrabble or « moteur »), before its results are out; the bulletins are
    corrected again against it if the round is already corrected (and the game says so)."""
    if rnd.status == RoundStatus.PUBLISHED:
        raise DuplicateError("Les résultats de ce tour sont publiés : son top ne peut plus "
                             "changer.")
    rules = game_of(game)
    try:
        top = rules.other_top(round_record_of(rnd), ref, word, game_settings_of(game),
                              config_of(game), actor=actor, reason=reason)
    except ValueError as exc:  # puzzles.duplicate.DuplicateError, in French
        raise DuplicateError(str(exc)) from None
    return _retain_top(session, game, rnd, actor, reason, top,
                       recorrect=rules.other_top_recorrects)


def _retain_top(session: Session, game: DuplicateGame, rnd: DuplicateRound, actor: str,
                reason: str, top: RoundTopJSON, *, recorrect: bool = True) -> RoundTopJSON:
    """Store the arbitre's ``top`` for the round (the bulletins corrected again when the
    round already is and ``recorrect``), wake the scheduler, audit the change."""
    old = rnd.top
    rnd.top = dict(top)
    rnd.top_overridden_by = actor
    if recorrect and rnd.status == RoundStatus.CORRECTED:
        rnd.results = [dict(r) for r in compute_results(session, game, rnd)]
    session.add(rnd)
    schedule_changed(session)
    audit.record(session=session, actor=actor, action="duplicate.override_top",
                 target=game.code, round=rnd.number, old=old, new=rnd.top,
                 reason=reason.strip())
    return top


def recorrect(*, session: Session, game: DuplicateGame, rnd: DuplicateRound, actor: str,
              reason: str) -> list[PlayerResultJSON]:
    """Correct every bulletin of a closed round again (audited, with the differences). When
    the round's results are already out, each player whose score (or solo) changed gets a
    corrected-results mail (one per re-correction: its dedupe key names the audit entry)."""
    if rnd.status == RoundStatus.OPEN:
        raise DuplicateError("Ce tour est encore ouvert : il sera corrigé à sa clôture.")
    if not reason.strip():
        raise DuplicateError("Indiquez le motif de la nouvelle correction.")
    before = {r["player_id"]: r for r in round_results_of(rnd)}
    old = {pid: r["score"] for pid, r in before.items()}
    results = compute_results(session, game, rnd)
    rnd.results = [dict(r) for r in results]
    session.add(rnd)
    changed = {r["player_id"]: [old.get(r["player_id"]), r["score"]] for r in results
               if old.get(r["player_id"]) != r["score"]
               or _solo(before.get(r["player_id"])) != _solo(r)}
    record = audit.record(session=session, actor=actor, action="duplicate.recorrect",
                          target=game.code, round=rnd.number, reason=reason.strip(),
                          changed={str(k): v for k, v in changed.items()})
    if rnd.status == RoundStatus.PUBLISHED and changed:
        session.flush()
        corrected_notices(session, game, rnd, before, set(changed), reason.strip(),
                          key=f"{record.id}")
    return results


def _solo(result: PlayerResultJSON | None) -> int:
    return result.get("solo", 0) if result else 0


class PreviewRow(TypedDict):
    """A player's old and new verdict of the round (None: no result on that side)."""

    player_id: int
    name: str
    old_kind: str | None
    new_kind: str | None
    old_score: int | None
    new_score: int | None
    old_solo: int | None
    new_solo: int | None
    old_reason: str | None
    new_reason: str | None
    changed: bool


class RankChange(TypedDict):
    """A player whose rank the change moves."""

    player_id: int
    name: str
    old_rank: int
    new_rank: int
    old_total: int
    new_total: int


class RankOf(TypedDict):
    rank: int
    total: int
    name: str


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
    old_top: RoundTopJSON | None
    new_top: RoundTopJSON | None
    rows: list[PreviewRow]
    rank_changes: list[RankChange]
    digest: str


def _name(result: PlayerResultJSON | None) -> str:
    return result["name"] if result else ""


def _verdict(result: PlayerResultJSON | None) -> tuple[str | None, int | None, int, str | None]:
    """Kind, score, solo, reason of a result (None, None, 0, None without one)."""
    if result is None:
        return None, None, 0, None
    return result["kind"], result["score"], result.get("solo", 0), result["reason"]


def _ranks(session: Session, game: DuplicateGame) -> dict[int, RankOf]:
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
    old_top = round_top_of(rnd)
    old_results = {r["player_id"]: r for r in round_results_of(rnd)}
    old_ranks = _ranks(session, game)
    sp = session.begin_nested()
    try:
        _run_change(session, game, rnd, action, ref, word, reason, actor)
        session.flush()
        new_top = round_top_of(rnd)
        new_results = {r["player_id"]: r for r in round_results_of(rnd)}
        new_ranks = _ranks(session, game)
    finally:
        sp.rollback()
    session.expire_all()
    rows: list[PreviewRow] = []
    for pid in sorted(set(old_results) | set(new_results),
                      key=lambda p: (_name(new_results.get(p) or old_results.get(p)), p)):
        o, n = old_results.get(pid), new_results.get(pid)
        (old_kind, old_score, old_solo, old_reason), (new_kind, new_score, new_solo,
                                                      new_reason) = _verdict(o), _verdict(n)
        rows.append({
            "player_id": pid, "name": _name(n) or _name(o),
            "old_kind": old_kind, "new_kind": new_kind,
            "old_score": old_score, "new_score": new_score,
            "old_solo": old_solo if o else None,
            "new_solo": new_solo if n else None,
            "old_reason": old_reason, "new_reason": new_reason,
            "changed": _verdict(o) != _verdict(n),
        })
    rank_changes: list[RankChange] = [
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
