"""The Duplicate's mails: the draw, the results of a round, a published round corrected again,
the final ranking — each through ``notify.fan_out`` (one per player, by ``dedupe_key``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import cast

from sqlmodel import Session

from puzzles.duplicate.codecs import RoundTopJSON, ScrabbleTopJSON, top_letters
from webapp.models import (
    DuplicateGame,
    DuplicateRound,
    OutboxKind,
    Player,
    RoundStatus,
)
from webapp.services import notify
from webapp.services.duplicate.game import (
    KIND_CORRECTED,
    KIND_DRAW,
    KIND_FINAL,
    KIND_RESULTS,
    game_of,
    game_url,
    players_of,
    round_mails,
    rounds_of,
    standings,
    text_grid,
)
from webapp.services.stored import (
    PlayerResultJSON,
    round_draw_of,
    round_results_of,
    round_top_of,
)
from webapp.services.timefmt import format_local

#: a mail template's context
Context = dict[str, object]
#: what else waits for a player (``player_space.waiting_games``: one mapping per game)
WaitingGames = Sequence[Mapping[str, object]]


def variant_notice(game: DuplicateGame, rnd: DuplicateRound) -> Context:
    """What a draw notice adds for a game with a rule of its own (a variant): its name, its
    rule, the stock when the game shows it, its bulletin example."""
    rules = game_of(game)
    if rules.rules_fr is None:
        return {}
    out: Context = {"variant_label": rules.label, "variant_rule": rules.rules_fr}
    if rules.shows_stock:
        out["stock"] = round_draw_of(rnd).get("stock", "")
    out["bulletin_example"] = rules.bulletin_example
    return out


def draw_notices(s: Session, game: DuplicateGame, rnd: DuplicateRound) -> int:
    if not round_mails(game):
        return 0
    shared = {
        "game_title": f"{game.title} ({game.code})", "round_no": rnd.number,
        "rack": round_draw_of(rnd)["rack"],
        "draw_notation": round_draw_of(rnd).get("notation", round_draw_of(rnd)["rack"]),
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
                     waiting: Callable[[Player], WaitingGames]) -> int:
    """The round's reminder (``duplicate_reminder``, kind ``reminder``) to ``players`` (those
    without a readable bulletin), with the other round games ``waiting`` for each;
    idempotent per game, round and player."""
    if not round_mails(game):
        return 0
    shared = {
        "game_title": f"{game.title} ({game.code})", "round_no": rnd.number,
        "rack": round_draw_of(rnd)["rack"],
        "deadline": format_local(rnd.closes_at, game.timezone),
        "game_url": game_url(game), "subject_hint": game.code,
    }
    return notify.fan_out(
        session=s, players=players,
        key=lambda p: f"duplicate_reminder:{game.code}:{rnd.number}:{p.id}",
        kind=OutboxKind.REMINDER, template="duplicate_reminder",
        context=lambda p: {**shared, "player_name": p.name,
                           "submission_address": notify.submission_address(p),
                           "waiting_games": [g for g in waiting(p) if g["code"] != game.code]})


def top_words(game: DuplicateGame, top: RoundTopJSON) -> dict[str, str]:
    """``top_ref`` and ``top_word`` of the mails, as the game writes its top (a Tactique
    reads « H7 ZA 22 + » « H7 ZAS 12 »: both words in placement order with their scores)."""
    ref, word = game_of(game).top_words(top)
    return {"top_ref": ref, "top_word": word}


def scrabble_notice(game: DuplicateGame, rnd: DuplicateRound) -> Context:
    """A round whose sheets list every scrabble (a Superscrabble): out of the number of
    scrabbles of the round, and the scrabble placed (not a « top »)."""
    top = round_top_of(rnd)
    if not game_of(game).scrabble_sheet or top is None:
        return {}
    return {"out_of": len(cast(ScrabbleTopJSON, top)["scrabbles"]), "top_label": "Scrabble posé"}


def total_label(game: DuplicateGame) -> str:
    return game_of(game).total_label


def _result_context(game: DuplicateGame, rnd: DuplicateRound, top: RoundTopJSON,
                    p: Player, res: PlayerResultJSON, mine: Mapping[str, object] | None,
                    participants: int) -> Context:
    """A round result's mail (the results, a correction): the player, the top, his score
    and his place in the ranking (``mine``: his row, None when he is not ranked)."""
    mine = mine or {}
    return {"player_name": p.name, "game_title": f"{game.title} ({game.code})",
            "round_no": rnd.number, **top_words(game, top), "top_score": top["score"],
            "top_letters": top_letters(top), "total_label": total_label(game),
            "score": res["score"], "solo": res.get("solo", 0), "reason": res["reason"],
            "total": mine.get("total"), "rank": mine.get("rank"),
            "tied": mine.get("tied", False),
            "warning_deduction": mine.get("warning_deduction", 0),
            "participants": participants, "game_url": game_url(game)}


def results_notices(s: Session, game: DuplicateGame, rnd: DuplicateRound) -> int:
    if not round_mails(game):
        return 0
    players = {p.id: p for p in players_of(s, game)}
    ranking = standings(s, game)
    rank_of = {r["player_id"]: r for r in ranking}
    result_of = {res["player_id"]: res for res in round_results_of(rnd)}
    top = round_top_of(rnd)
    assert top is not None

    def context(p: Player) -> Context:
        return {**_result_context(game, rnd, top, p, result_of[p.id or 0],
                                  rank_of.get(p.id or 0), len(ranking)),
                **scrabble_notice(game, rnd)}

    return notify.fan_out(  # in the order of the round's results
        session=s, players=[players[pid] for pid in result_of if pid in players],
        key=lambda p: f"duplicate_results:{game.code}:{rnd.number}:{p.id}",
        kind=KIND_RESULTS, template="duplicate_results", context=context)


def corrected_notices(s: Session, game: DuplicateGame, rnd: DuplicateRound,
                      before: Mapping[int, PlayerResultJSON], changed: set[int], reason: str, *,
                      key: str) -> int:
    """A published round corrected again: its new result (and the old score, the new total
    and rank) to each player in ``changed``."""
    players = {p.id: p for p in players_of(s, game)}
    rank_of = {r["player_id"]: r for r in standings(s, game)}
    result_of = {res["player_id"]: res for res in round_results_of(rnd)}
    top = round_top_of(rnd)
    assert top is not None

    def context(p: Player) -> Context:
        was = before.get(p.id or 0)
        return {**_result_context(game, rnd, top, p, result_of[p.id or 0],
                                  rank_of.get(p.id or 0), len(rank_of)),
                "old_score": (int(was.get("score", 0)) + int(was.get("solo", 0))
                              if was else 0),
                "why": reason}

    return notify.fan_out(  # in the order of the round's results
        session=s, players=[players[pid] for pid in result_of
                            if pid in players and pid in changed],
        key=lambda p: f"{KIND_CORRECTED}:{game.code}:{rnd.number}:{p.id}:{key}",
        kind=KIND_CORRECTED, template="duplicate_corrected", context=context)


def final_notices(s: Session, game: DuplicateGame) -> int:
    ranking = standings(s, game)
    players = {p.id: p for p in players_of(s, game)}
    rounds = [r for r in rounds_of(s, game) if r.status == RoundStatus.PUBLISHED]
    tops = sum(int(top["score"]) for top in map(round_top_of, rounds) if top)
    row_of = {row["player_id"]: row for row in ranking}
    excerpt_rows = [{"rank": r["rank"], "name": r["name"], "score": r["total"],
                     "percent": r["percent"], "warning_deduction": r.get("warning_deduction", 0),
                     "tied": r["tied"]}
                    for r in ranking]
    positions = notify.rank_positions(excerpt_rows)

    def context(p: Player) -> Context:
        row = row_of[p.id or 0]
        return {"player_name": p.name, "game_title": f"{game.title} ({game.code})",
                "rounds": len(rounds), "tops_total": tops, "total": row["total"],
                "rank": row["rank"], "tied": row["tied"], "percent": row["percent"],
                "warning_deduction": row.get("warning_deduction", 0),
                "total_label": total_label(game),
                "ranking": notify.ranking_excerpt(excerpt_rows, row["rank"],
                                                       positions=positions),
                "game_url": game_url(game)}

    return notify.fan_out(  # in the order of the ranking
        session=s, players=[players[pid] for pid in row_of if pid in players],
        key=lambda p: f"duplicate_final:{game.code}:{p.id}", kind=KIND_FINAL,
        template="duplicate_final", context=context)
