"""The FISF Duplicate by correspondence: games stored round by round, driven by the scheduler.

A :class:`~webapp.models.DuplicateGame` is played by the players registered in its
competition. Each round is one :class:`~webapp.models.DuplicateRound` row: the draw, the master
grid before and after, the retained top, the corrected results. Bulletins are
:class:`~webapp.models.DuplicateEntry` rows (every version kept; the one that counts is the
last received on time; late ones are kept and flagged).

:func:`advance` moves one game forward, one step per transaction, each step guarded by the
round's (or game's) status under the game row lock, every mail through the outbox's
``dedupe_key``; so running it twice, in two processes, or after a long downtime is safe:

    scheduled ──starts_at──► draw round 1 (open) ──deadline──► closed ──► corrected
        ──review_minutes──► published (top placed, results mailed) ──► draw round n+1 …
        ──last round──► finished (final ranking mailed)

The game rules (draws, top, correction, solos, ranking) are the round game's: every step
asks ``game_of(game)``, the :class:`puzzles.duplicate.protocol.RoundGame` of
``DuplicateGame.variant`` in ``puzzles.duplicate.registry`` — the plain Duplicate, Duplicate
Top, the letter-choice games (Complétif, Superjoker, Métagramme, Elliptique: one game, four
parameter sets), Tactique, the Partie de Superscrabble (docs/VARIANTS.md) — for its
operations over the stored JSON (``puzzles.duplicate.codecs``, read typed by
``webapp.services.stored``) and the pages and mails for its facts. This package stores,
schedules and mails; it never tests which game it runs (tests/test_architecture_games.py).

A package, one module per concern, each importing only those before it: ``game`` (the
game a row plays, rhythm, creation, queries, a bulletin read, the ranking) →
``notices`` (the mails) → ``correction`` (results, the arbitre's other top and
re-correction with their preview) → ``replay`` (« rejouer ce tour »: a stored round replayed
alone from its stored position) → ``bulletins`` (a player's bulletin) → ``steps`` (the
scheduled steps). Callers use the package's names: ``duplicate.create_game``,
``duplicate.submit_bulletin``, ``duplicate.run_due``, ``duplicate.preview_change``…
"""

from __future__ import annotations

# the stored settings' readers, as callers found them here before the split
from puzzles.duplicate.codecs import top_letters
from webapp.services.duplicate.bulletins import (
    BulletinOutcome,
    claim_mail,
    form_text,
    submit_bulletin,
)
from webapp.services.duplicate.correction import (
    ChangePreview,
    apply_change,
    compute_results,
    override_top,
    player_bulletin,
    preview_change,
    recorrect,
)
from webapp.services.duplicate.game import (
    KIND_CORRECTED,
    KIND_DRAW,
    KIND_FINAL,
    KIND_RESULTS,
    MAX_GIVEN_SEED,
    RHYTHM_KINDS,
    SERVER_VARIANTS,
    WEEKDAYS_FR,
    BulletinRefused,
    DuplicateError,
    StandingRow,
    all_answered,
    answered_players,
    check_rhythm,
    config_of,
    counting_entries,
    create_game,
    current_round,
    deadline_after,
    describe_rhythm,
    draw_bag_order,
    entries_of,
    first_line,
    game_of,
    game_url,
    is_answer,
    is_live,
    label_of,
    live_minutes,
    lock_game,
    parse_text,
    players_of,
    round_mails,
    rounds_of,
    schedule_changed,
    secret_bag_order,
    standings,
    text_grid,
    variant_label,
)
from webapp.services.duplicate.notices import (
    corrected_notices,
    draw_notices,
    final_notices,
    results_notices,
    scrabble_notice,
    top_words,
    total_label,
    variant_notice,
)
from webapp.services.duplicate.replay import ReplayedRound, replay_round
from webapp.services.duplicate.steps import (
    CloseNow,
    advance,
    close_now_preview,
    close_round,
    close_round_now,
    correct_round,
    draw_next,
    finish,
    next_step,
    publish_round,
    run_due,
    upcoming_instants,
)
from webapp.services.stored import duplicate_settings_of, game_settings_of, variant_settings_of

__all__ = [
    "BulletinOutcome",
    "BulletinRefused",
    "ChangePreview",
    "CloseNow",
    "DuplicateError",
    "StandingRow",
    "KIND_CORRECTED",
    "KIND_DRAW",
    "KIND_FINAL",
    "KIND_RESULTS",
    "RHYTHM_KINDS",
    "SERVER_VARIANTS",
    "WEEKDAYS_FR",
    "advance",
    "all_answered",
    "answered_players",
    "apply_change",
    "form_text",
    "check_rhythm",
    "claim_mail",
    "close_now_preview",
    "close_round",
    "close_round_now",
    "compute_results",
    "config_of",
    "correct_round",
    "corrected_notices",
    "counting_entries",
    "create_game",
    "current_round",
    "deadline_after",
    "describe_rhythm",
    "draw_bag_order",
    "MAX_GIVEN_SEED",
    "secret_bag_order",
    "duplicate_settings_of",
    "draw_next",
    "draw_notices",
    "entries_of",
    "final_notices",
    "finish",
    "first_line",
    "game_of",
    "game_settings_of",
    "game_url",
    "is_answer",
    "is_live",
    "label_of",
    "live_minutes",
    "lock_game",
    "next_step",
    "override_top",
    "parse_text",
    "players_of",
    "player_bulletin",
    "preview_change",
    "publish_round",
    "recorrect",
    "ReplayedRound",
    "replay_round",
    "results_notices",
    "round_mails",
    "rounds_of",
    "run_due",
    "schedule_changed",
    "scrabble_notice",
    "standings",
    "submit_bulletin",
    "text_grid",
    "top_letters",
    "top_words",
    "total_label",
    "upcoming_instants",
    "variant_label",
    "variant_notice",
    "variant_settings_of",
]
