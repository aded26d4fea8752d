"""Anticipation by correspondence: the announcement schedule, when each billet was committed
in a player's chain of versions, and the verifier judging moves against the rounds.

Schedule used throughout: publication 10/05/2026 10:00 UTC (13:00 in Bucharest, UTC+3 in
May), one announcement every 24 h: the group of move k is announced on day 10 + (k-1) at
10:00 UTC, and round k closes at the announcement of move k+1. The sheets replay the
scenarios of test_verify.py, whose scores are worked out there by hand:
RAT at H7 = 6, ZA at 8G = 11, OZA at 8F = 12, RATS at H7 = 4.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from puzzles.feuille import Feuille, parse_feuille
from puzzles.rounds import (
    RoundTimes,
    announced_moves,
    announcement_times,
    annul_commit_times,
    move_commit_times,
)
from puzzles.settings import Settings
from puzzles.verify import MoveStatus, Report, verify
from tests.puzzles.conftest import anticipation_problem, lex

V, Z, C, A, W = (
    MoveStatus.VALID, MoveStatus.ZERO, MoveStatus.CASCADE_ZERO, MoveStatus.ANNULLED,
    MoveStatus.WARNING,
)
PUBLISH = datetime(2026, 5, 10, 10, 0, tzinfo=UTC)
DAY = timedelta(hours=24)
END = PUBLISH + 14 * DAY  # the deadline: end of round 14
ZONE = "Europe/Bucharest"

PROBLEM = anticipation_problem({2: "RATBCDE", 3: "ZLLMMNN", 4: "OOPPUUI", 5: "SGGHHFF"})
WORDS = lex("RAT", "RATS", "ZA", "OZA")

L1 = "1 G2 ART H7 RAT 6 6\n"
L2 = "2 G3 Z 8G ZA 11 17\n"
L3 = "3 G4 O 8F OZA 12 29\n"
L4 = "4 G5 S H7 RATS 4 33\n"


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 5, day, hour, minute, tzinfo=UTC)


def sheet(text: str) -> Feuille:
    parsed = parse_feuille(text)
    assert parsed.errors == (), parsed.errors
    return parsed.feuille


def judge(versions: list[tuple[datetime, str]], settings: Settings | None = None) -> Report:
    chain = [(t, sheet(text)) for t, text in versions]
    rounds = RoundTimes.from_versions(chain, publish_at=PUBLISH, interval=DAY, end=END, zone=ZONE)
    final = max(chain, key=lambda v: v[0])[1]
    return verify(PROBLEM, final, WORDS, settings, round_times=rounds)


def test_announcement_schedule() -> None:
    times = announcement_times(PUBLISH, DAY)
    assert len(times) == 14
    assert times[0] == PUBLISH and times[1] == at(11, 10) and times[13] == at(23, 10)
    assert announced_moves(times, at(12, 9, 59)) == 2
    assert announced_moves(times, at(12, 10)) == 3
    # interval 0: everything is announced at publication (the whole order published at once)
    assert announced_moves(announcement_times(PUBLISH, timedelta(0)), PUBLISH) == 14
    with pytest.raises(ValueError):
        announcement_times(PUBLISH, -DAY)


def test_commit_time_is_the_start_of_the_last_unchanged_run() -> None:
    chain = [
        (at(10, 12), sheet("1 G2 ART H7 RAT 7 7\n")),  # score typo, corrected later
        (at(11, 12), sheet("1 G2 ART H7 RAT 6 6\n2 G3 Z 8G ZA 11 17\n")),
        (at(12, 12), sheet("1 G2 ART H7 RAT 6 6\n2 G3 Z 9G ZA 11 17\n3 G4 O 8F OZA 12 29\n")),
        (at(13, 12), sheet(L1 + L2 + L3 + "4 Annuler coup 2\n" + L4)),
    ]
    # move 1: only its score changed, so it stands since day 10. Move 2 was ZA at 8G on day
    # 11, moved to 9G on day 12 and put back on day 13: it stands as finally sent since day
    # 13 only (the player chose between 8G and 9G knowing the groups of moves 3 and 4)
    assert move_commit_times(chain) == {1: at(10, 12), 2: at(13, 12), 3: at(12, 12), 4: at(13, 12)}
    assert annul_commit_times(chain) == {4: at(13, 12)}
    # the order of the list does not matter, the receive times do
    assert move_commit_times(list(reversed(chain))) == move_commit_times(chain)


def test_moves_sent_in_their_rounds_count() -> None:
    r = judge([
        (at(10, 12), L1),
        (at(11, 12), L1 + L2),
        (at(12, 9, 59), L1 + L2 + L3),  # one minute before the announcement of move 4
        (at(13, 12), L1 + L2 + L3 + "4 Annuler coup 2\n4 G5 S H7 RATS 4 22\n"),
    ])
    # the annulment was sent in round 4: move 2 is cancelled, OZA relied on it
    assert [m.status for m in r.moves] == [V, A, C, V]
    assert [m.score for m in r.moves] == [6, 0, 0, 4]
    assert r.moves[3].annul == (2,)
    assert (r.final_score, r.warnings) == (10, 0)


def test_move_first_sent_after_the_next_announcement_is_zero_and_cascades() -> None:
    # Move 2 is first sent at 10:30 UTC on day 12, half an hour after the group of move 3
    # was announced. Move 3 (OZA) rests on its Z: zero in cascade. Move 4 does not: counts.
    r = judge([
        (at(10, 12), L1),
        (at(12, 10, 30), L1 + L2 + L3),
        (at(13, 12), L1 + L2 + L3 + L4),
    ])
    assert [m.status for m in r.moves] == [V, Z, C, V]
    assert [m.score for m in r.moves] == [6, 0, 0, 4]
    assert r.moves[1].reasons == (
        "Coup 2 envoyé le 12/05/2026 à 13:30:00 (Europe/Bucharest ; 10:30:00 UTC), après "
        "l'annonce du coup 3 (12/05/2026 à 13:00:00 (Europe/Bucharest ; 10:00:00 UTC)) : "
        "il ne compte pas.",
    )
    assert r.moves[2].reasons == (
        "Zéro en cascade : le coup s'appuie sur le coup 2 qui ne compte pas.",
    )
    assert r.final_score == 10
    # without round times (the whole order published at once) the same sheet scores in full
    plain = verify(PROBLEM, sheet(L1 + L2 + L3 + L4), WORDS)
    assert [m.status for m in plain.moves] == [V, V, V, V]
    assert plain.final_score == 6 + 11 + 12 + 4


def test_a_move_changed_after_the_next_announcement_counts_from_the_change() -> None:
    # Move 1 is sent in time at H7, then moved to H6 after the group of move 2 was known:
    # the billet as finally sent dates from day 11, 11:00 UTC -> zero.
    r = judge([
        (at(10, 12), "1 G2 ART H7 RAT 6 6\n"),
        (at(11, 11), "1 G2 ART H6 RAT 3 3\n"),
    ])
    assert [m.status for m in r.moves] == [Z]
    assert r.moves[0].reasons[0].startswith(
        "Coup 1 envoyé le 11/05/2026 à 14:00:00 (Europe/Bucharest ; 11:00:00 UTC), après "
        "l'annonce du coup 2"
    )
    assert r.final_score == 0


def test_a_score_typo_fixed_later_does_not_zero_the_move() -> None:
    # The score and cumul of move 1 are corrected on day 12, after the announcement of
    # move 2 (and 3): the billet itself (group, letters, reference, word) dates from day 10.
    r = judge([
        (at(10, 12), "1 G2 ART H7 RAT 7 7\n"),
        (at(11, 12), "1 G2 ART H7 RAT 7 7\n2 G3 Z 8G ZA 11 18\n"),
        (at(12, 11), L1 + L2),
    ])
    assert [m.status for m in r.moves] == [V, V]
    assert (r.final_score, r.warnings) == (17, 0)


LATE_ANNULMENT = [
    (at(10, 12), L1),
    (at(11, 12), L1 + L2),
    (at(12, 12), L1 + L2 + L3),
    (at(13, 12), L1 + L2 + L3 + "4 G5 S H7 RATS 4 33\n"),
    (at(14, 11), L1 + L2 + L3 + "4 Annuler coup 2\n4 G5 S H7 RATS 4 22\n"),
]


def test_a_late_annulment_is_ignored() -> None:
    """« Est punie d'un avertissement technique toute erreur ou absence de score sur les
    billets. » (S2) — the score, not the cumul.

    "4 Annuler coup 2" is added on day 14 at 11:00 UTC, after the announcement of move 5;
    the word of billet 4 (RATS) was sent on day 13. The annulment does not take effect:
    ZA and OZA stay and count; RATS (S on H10) counts. 6 + 11 + 12 + 4 = 33. The cumul 22
    written after the annulment no longer adds up (29 + 4 = 33), but a cumul is not a fault:
    the arbitre corrects it to 33, no warning."""
    r = judge(LATE_ANNULMENT)
    # the parser carries the annulment line onto the billet's word line
    assert [m.status for m in r.moves] == [V, V, V, V]
    assert [m.score for m in r.moves] == [6, 11, 12, 4]
    assert r.moves[3].reasons == (
        "« Annuler coup(s) » du coup 4 envoyé le 14/05/2026 à 14:00:00 (Europe/Bucharest ; "
        "11:00:00 UTC), après l'annonce du coup 5 (14/05/2026 à 13:00:00 (Europe/Bucharest ; "
        "10:00:00 UTC)) : l'annulation est ignorée.",
    )
    assert (r.moves[3].claimed_cumul, r.moves[3].cumul, r.moves[3].warnings) == (22, 33, ())
    assert (r.total, r.warnings, r.penalty, r.final_score) == (33, 0, 0, 33)


def test_a_late_annulment_with_the_cumul_setting_warns_on_the_cumul() -> None:
    # The former reading, kept as a setting: 29 + 4 = 33, not 22 -> one warning (W = 1,
    # below the 4th: no penalty), final 33.
    r = judge(LATE_ANNULMENT, Settings(cumul_warning=True))
    assert [m.status for m in r.moves] == [V, V, V, W]
    assert r.moves[3].warnings == ("cumul écrit 22, attendu 33 (cumul précédent 29 + score "
                                   "écrit 4).",)
    assert (r.total, r.warnings, r.penalty, r.final_score) == (33, 1, 0, 33)


def test_round_14_closes_at_the_deadline() -> None:
    rounds = RoundTimes(
        announced=announcement_times(PUBLISH, DAY), end=END,
        moves={13: at(23, 9), 14: END}, zone=ZONE,
    )
    assert rounds.closes(13) == (at(23, 10), "l'annonce du coup 14")
    assert rounds.closes(14) == (END, "la clôture")
    assert rounds.move_late(13) is None
    assert rounds.move_late(14) == (
        "Coup 14 envoyé le 24/05/2026 à 13:00:00 (Europe/Bucharest ; 10:00:00 UTC), après la "
        "clôture (24/05/2026 à 13:00:00 (Europe/Bucharest ; 10:00:00 UTC)) : il ne compte pas."
    )
    # a late sheet the arbitre accepted: the last round is not timed
    assert RoundTimes(rounds.announced, None, {14: END}).move_late(14) is None


def test_timing_can_be_switched_off_by_the_setting() -> None:
    from puzzles.settings import Settings

    chain = [(at(10, 12), sheet(L1)), (at(12, 10, 30), sheet(L1 + L2 + L3))]
    rounds = RoundTimes.from_versions(chain, publish_at=PUBLISH, interval=DAY, end=END, zone=ZONE)
    r = verify(PROBLEM, chain[-1][1], WORDS, Settings(anticipation_round_timing=False),
               round_times=rounds)
    assert [m.status for m in r.moves] == [V, V, V]
    assert r.final_score == 6 + 11 + 12
    assert r.settings_changed == ("anticipation_round_timing=False",)


def test_two_candidates_sent_in_time_cannot_be_chosen_between_afterwards() -> None:
    # RAT at H7 (day 10), then at H6 (day 11, 09:00, still in round 1), then back at H7 on
    # day 11 at 11:00, after the group of move 2 was announced: when round 1 closed the
    # sheet said H6, so the H7 finally sent dates from 11:00 -> zero.
    r = judge([
        (at(10, 12), "1 G2 ART H7 RAT 6 6\n"),
        (at(11, 9), "1 G2 ART H6 RAT 6 6\n"),
        (at(11, 11), "1 G2 ART H7 RAT 6 6\n"),
    ])
    assert [m.status for m in r.moves] == [Z]
    assert r.moves[0].reasons == (
        "Coup 1 envoyé le 11/05/2026 à 14:00:00 (Europe/Bucharest ; 11:00:00 UTC), après "
        "l'annonce du coup 2 (11/05/2026 à 13:00:00 (Europe/Bucharest ; 10:00:00 UTC)) : "
        "il ne compte pas.",
    )
    # had he stopped at H6 (the version in force at the close), move 1 would count
    # (R H6, A H7, T on the H8 double word: 3 × 2 = 6)
    r = judge([(at(10, 12), "1 G2 ART H7 RAT 6 6\n"), (at(11, 9), "1 G2 ART H6 RAT 6 6\n")])
    assert [m.status for m in r.moves] == [V]
    assert r.moves[0].ref == "H6" and r.final_score == 6


# --- the live timetable lives here (issue 21) ---------------------------------------------------
def test_the_verifier_imports_neither_the_duplicate_nor_its_variants() -> None:
    """« The one-sheet verifier imports the whole variants engine for a 45-line timetable »
    (issue 21): the timetable is puzzles.rounds'; a fresh interpreter importing the
    verifier loads no module of puzzles.duplicate or puzzles.variants."""
    import subprocess
    import sys

    code = ("import sys, puzzles.verify; print(sorted(m for m in sys.modules if "
            "m.startswith(('puzzles.duplicate', 'puzzles.variants'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_the_variants_re_export_the_live_timetable() -> None:
    """puzzles.variants' callers keep their names: the same objects as puzzles.rounds'.
    Move 0 (the reflection) 60 min from 14:00, then 10, 10, 10, 10, 8, … (RULES §6.1): move
    1 from 15:00 to 15:10, « Une minute ! » at 15:09; move 14 ends at 14:00 + 60 + 4 × 10 +
    4 × 8 + 4 × 6 + 2 × 4 = 164 min, 16:44."""
    from puzzles import rounds, variants

    assert variants.LiveSlot is rounds.LiveSlot
    assert variants.anticipation_schedule is rounds.anticipation_schedule
    assert variants.anticipation_minutes is rounds.anticipation_minutes
    start = datetime(2026, 5, 10, 14, 0, tzinfo=UTC)
    slots = rounds.anticipation_schedule(start)
    assert (slots[1].start, slots[1].deadline, slots[1].one_minute) == (
        start + timedelta(minutes=60), start + timedelta(minutes=70),
        start + timedelta(minutes=69))
    assert slots[-1].deadline == start + timedelta(minutes=164) == rounds.live_deadline(start)
    with pytest.raises(ValueError, match="le coup 15 n'existe pas \\(1 à 14\\)"):
        rounds.anticipation_minutes(15)
