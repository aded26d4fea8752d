"""The Duplicate's mails: the draw, the results of a round, a published round corrected again,
the final ranking — each through ``notify.fan_out`` (one per player, by ``dedupe_key``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlmodel import Session

from webapp.models import (
    DuplicateGame,
    DuplicateRound,
    DuplicateVariant,
    OutboxKind,
    Player,
    RoundStatus,
)
from webapp.services import notify
from webapp.services.duplicate.game import (
    BULLETIN_EXAMPLES,
    KIND_CORRECTED,
    KIND_DRAW,
    KIND_FINAL,
    KIND_RESULTS,
    SUPERSCRABBLE,
    VARIANT_RULES_FR,
    game_url,
    players_of,
    round_mails,
    rounds_of,
    standings,
    text_grid,
    top_letters,
    variant_label,
)
from webapp.services.timefmt import format_local


def variant_notice(game: DuplicateGame, rnd: DuplicateRound) -> dict[str, Any]:
    """What a draw notice adds for a variant: its name, its rule, the stock."""
    if not game.variant:
        return {}
    out: dict[str, Any] = {"variant_label": variant_label(game),
                           "variant_rule": VARIANT_RULES_FR.get(game.variant)}
    if game.variant in (DuplicateVariant.COMPLETIF, DuplicateVariant.SUPERJOKER,
                        DuplicateVariant.METAGRAMME):
        out["stock"] = rnd.draw.get("stock", "")
    if game.variant in BULLETIN_EXAMPLES:
        out["bulletin_example"] = BULLETIN_EXAMPLES[game.variant]
    return out


def draw_notices(s: Session, game: DuplicateGame, rnd: DuplicateRound) -> int:
    if not round_mails(game):
        return 0
    shared = {
        "game_title": f"{game.title} ({game.code})", "round_no": rnd.number,
        "rack": rnd.draw["rack"], "draw_notation": rnd.draw.get("notation", rnd.draw["rack"]),
        "deadline": format_local(rnd.closes_at, game.timezone),
        "grid": text_grid(rnd.grid_before), "game_url": game_url(game),
        "subject_hint": game.code, **variant_notice(game, rnd),
    }
    return notify.fan_out(
        session=s, players=players_of(s, game),
        key=lambda p: f"duplicate_draw:{game.code}:{rnd.number}:{p.id}", kind=KIND_DRAW,
        template="duplicate_draw",
        context=lambda p: {**shared, "player_name": p.name,
                           "submission_address": notify.submission_address(p)})


def reminder_notices(s: Session, game: DuplicateGame, rnd: DuplicateRound,
                     players: list[Player],
                     waiting: Callable[[Player], list[dict[str, Any]]]) -> int:
    """The round's reminder (``duplicate_reminder``, kind ``reminder``) to ``players`` (those
    without a readable bulletin), with the other round games ``waiting`` for each;
    idempotent per game, round and player."""
    if not round_mails(game):
        return 0
    shared = {
        "game_title": f"{game.title} ({game.code})", "round_no": rnd.number,
        "rack": rnd.draw["rack"], "deadline": format_local(rnd.closes_at, game.timezone),
        "game_url": game_url(game), "subject_hint": game.code,
    }
    return notify.fan_out(
        session=s, players=players,
        key=lambda p: f"duplicate_reminder:{game.code}:{rnd.number}:{p.id}",
        kind=OutboxKind.REMINDER, template="duplicate_reminder",
        context=lambda p: {**shared, "player_name": p.name,
                           "submission_address": notify.submission_address(p),
                           "waiting_games": [g for g in waiting(p) if g["code"] != game.code]})


def top_words(top: dict[str, Any]) -> dict[str, str]:
    """``top_ref`` and ``top_word`` of the mails; a Tactique reads « H7 ZA 22 + » « H7 ZAS
    12 » (both words in placement order with their scores, the sum after)."""
    if "first_group" in top:
        words = [f"{m['ref']} {m['word']} {m['score']}" for m in (top["first"], top["second"])
                 if m]
        return {"top_ref": words[0] + (" +" if len(words) > 1 else ""),
                "top_word": words[1] if len(words) > 1 else ""}
    return {"top_ref": top["ref"], "top_word": top["word"]}


def scrabble_notice(game: DuplicateGame, rnd: DuplicateRound) -> dict[str, Any]:
    """A Superscrabble round's results: out of the number of scrabbles of the round, and the
    scrabble placed (not a « top »)."""
    if game.variant != SUPERSCRABBLE or rnd.top is None:
        return {}
    return {"out_of": len(rnd.top.get("scrabbles", [])), "top_label": "Scrabble posé"}


def total_label(game: DuplicateGame) -> str:
    if game.variant == SUPERSCRABBLE:
        return "Vos scrabbles valables (total)"
    if game.variant == DuplicateVariant.TOP:
        return "Vos points de classement (tours topés)"
    return "Votre total"


def results_notices(s: Session, game: DuplicateGame, rnd: DuplicateRound) -> int:
    if not round_mails(game):
        return 0
    players = {p.id: p for p in players_of(s, game)}
    ranking = standings(s, game)
    rank_of = {r["player_id"]: r for r in ranking}
    result_of = {res["player_id"]: res for res in rnd.results}
    top = rnd.top
    assert top is not None

    def context(p: Player) -> dict[str, Any]:
        res, mine = result_of[p.id], rank_of.get(p.id, {})
        return {"player_name": p.name, "game_title": f"{game.title} ({game.code})",
                "round_no": rnd.number, **top_words(top), "top_score": top["score"],
                "top_letters": top_letters(top), "total_label": total_label(game),
                **scrabble_notice(game, rnd),
                "score": res["score"], "solo": res.get("solo", 0), "reason": res["reason"],
                "total": mine.get("total"), "rank": mine.get("rank"),
                "tied": mine.get("tied", False),
                "warning_deduction": mine.get("warning_deduction", 0),
                "participants": len(ranking), "game_url": game_url(game)}

    return notify.fan_out(  # in the order of the round's results
        session=s, players=[players[pid] for pid in result_of if pid in players],
        key=lambda p: f"duplicate_results:{game.code}:{rnd.number}:{p.id}",
        kind=KIND_RESULTS, template="duplicate_results", context=context)


def corrected_notices(s: Session, game: DuplicateGame, rnd: DuplicateRound,
                      before: dict[int, dict[str, Any]], changed: set[int], reason: str, *,
                      key: str) -> int:
    """A published round corrected again: its new result (and the old score, the new total
    and rank) to each player in ``changed``."""
    players = {p.id: p for p in players_of(s, game)}
    rank_of = {r["player_id"]: r for r in standings(s, game)}
    result_of = {res["player_id"]: res for res in rnd.results}
    top = rnd.top
    assert top is not None

    def context(p: Player) -> dict[str, Any]:
        res, mine = result_of[p.id], rank_of.get(p.id, {})
        was = before.get(p.id or 0) or {}
        return {"player_name": p.name, "game_title": f"{game.title} ({game.code})",
                "round_no": rnd.number, **top_words(top), "top_score": top["score"],
                "top_letters": top_letters(top), "score": res["score"],
                "solo": res.get("solo", 0), "reason": res["reason"],
                "old_score": int(was.get("score", 0)) + int(was.get("solo", 0)),
                "why": reason, "total": mine.get("total"), "rank": mine.get("rank"),
                "tied": mine.get("tied", False),
                "warning_deduction": mine.get("warning_deduction", 0),
                "participants": len(rank_of), "total_label": total_label(game),
                "game_url": game_url(game)}

    return notify.fan_out(  # in the order of the round's results
        session=s, players=[players[pid] for pid in result_of
                            if pid in players and pid in changed],
        key=lambda p: f"{KIND_CORRECTED}:{game.code}:{rnd.number}:{p.id}:{key}",
        kind=KIND_CORRECTED, template="duplicate_corrected", context=context)


def final_notices(s: Session, game: DuplicateGame) -> int:
    ranking = standings(s, game)
    players = {p.id: p for p in players_of(s, game)}
    rounds = [r for r in rounds_of(s, game) if r.status == RoundStatus.PUBLISHED]
    tops = sum(int(r.top["score"]) for r in rounds if r.top)
    row_of = {row["player_id"]: row for row in ranking}
    excerpt_rows = [{"rank": r["rank"], "name": r["name"], "score": r["total"],
                     "percent": r["percent"], "warning_deduction": r.get("warning_deduction", 0),
                     "tied": r["tied"]}
                    for r in ranking]

    def context(p: Player) -> dict[str, Any]:
        row = row_of[p.id]
        return {"player_name": p.name, "game_title": f"{game.title} ({game.code})",
                "rounds": len(rounds), "tops_total": tops, "total": row["total"],
                "rank": row["rank"], "tied": row["tied"], "percent": row["percent"],
                "warning_deduction": row.get("warning_deduction", 0),
                "total_label": total_label(game),
                "ranking": notify.ranking_excerpt(excerpt_rows, row["rank"]),
                "game_url": game_url(game)}

    return notify.fan_out(  # in the order of the ranking
        session=s, players=[players[pid] for pid in row_of if pid in players],
        key=lambda p: f"duplicate_final:{game.code}:{p.id}", kind=KIND_FINAL,
        template="duplicate_final", context=context)
