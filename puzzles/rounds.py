"""Anticipation played by correspondence: the announcement schedule of the drawn groups,
and when each billet of a player's sheet was committed.

In live Anticipation (RULES §6.1) the arbitre announces the group of move k only once move
k-1 has been collected, so nobody plays a move knowing the later groups. By correspondence
the group of move k is announced at ``publish_at + (k-1) × interval`` (move 1 announces
group 1 and the first drawn 7-letter group), and round k closes at the announcement of move
k+1; round 14 closes at the problem's deadline. The server keeps every version of a sheet
with its receive time, so it knows since when each billet has stood as it finally does.

A billet is *the same* in two versions when its lines agree on the group written, the letters
used, the reference, the word and the pass; scores and cumuls may be corrected later (they
only cost warnings). The annulments written on billet k (``Annuler coup(s) …``) are timed on
their own: a late annulment is ignored, a late word scores zero (and cascades, RULES §5.2).
docs/PUZZLES.md §"Anticipation par correspondance" documents the rule.

Played live (RULES §6.1, :func:`live_announcement_times`), the groups are displayed at the
start, 60 min of reflection follow, then move k is announced when move k-1's time is over:
10 min for moves 1–4, 8 for 5–8, 6 for 9–12, 4 for 13–14 (the timetable,
:func:`anticipation_schedule` of :class:`LiveSlot`; re-exported by :mod:`puzzles.variants`);
the round of move k closes at the announcement of move k+1, move 14's at the end of its 4
minutes (the problem's deadline). This module imports neither the Duplicate nor its
variants: the one-sheet verifier needs only the timetable.

Pure: no clock, no database; the caller passes the instants.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from puzzles.feuille import Feuille, FeuilleMove
from puzzles.timefmt import format_instant

#: Moves of an Anticipation (RULES §6.1).
MOVES = 14

#: A billet's played content: per line (group, letters, reference, word, pass).
BilletKey = tuple[tuple[int | None, str | None, str | None, str | None, bool], ...]


# --- the live timetable (RULES §6.1) ---------------------------------------------------------
@dataclass(frozen=True)
class LiveSlot:
    """One step of a live Anticipation: ``move`` 0 is the reflection phase."""

    move: int
    start: datetime
    deadline: datetime
    one_minute: datetime
    """When « Une minute ! » is called."""


def anticipation_minutes(move: int) -> int:
    """RULES §6.1: 10 min for moves 1–4, 8 for 5–8, 6 for 9–12, 4 for 13–14."""
    if not 1 <= move <= 14:
        raise ValueError(f"Anticipation : le coup {move} n'existe pas (1 à 14).")
    return (10, 8, 6, 4)[(move - 1) // 4]


def anticipation_schedule(
    start: datetime,
    *,
    reflection_minutes: int = 60,
    moves: int = 14,
    gap_seconds: int = 0,
) -> list[LiveSlot]:
    """The live Anticipation timetable: the reflection phase (60 min, RULES §6.1), then the
    14 moves back to back (``gap_seconds`` between a deadline and the next announcement)."""
    out = [
        LiveSlot(
            0,
            start,
            start + timedelta(minutes=reflection_minutes),
            start + timedelta(minutes=reflection_minutes - 1),
        )
    ]
    t = out[0].deadline
    for k in range(1, moves + 1):
        t = t + timedelta(seconds=gap_seconds)
        end = t + timedelta(minutes=anticipation_minutes(k))
        out.append(LiveSlot(k, t, end, end - timedelta(minutes=1)))
        t = end
    return out


def announcement_times(
    publish_at: datetime, interval: timedelta, moves: int = MOVES
) -> tuple[datetime, ...]:
    """When the group of each move is announced: ``publish_at + (k-1) × interval``."""
    if publish_at.tzinfo is None:
        raise ValueError("publish_at must be timezone-aware")
    if interval < timedelta(0):
        raise ValueError("interval must not be negative")
    return tuple(publish_at + k * interval for k in range(moves))


def live_slots(start: datetime) -> list[LiveSlot]:
    """The live timetable from ``start`` (the groups displayed): slot 0 the 60 min of
    reflection, slot k move k (RULES §6.1)."""
    if start.tzinfo is None:
        raise ValueError("start must be timezone-aware")
    return anticipation_schedule(start, moves=MOVES)


def live_announcement_times(start: datetime) -> tuple[datetime, ...]:
    """When the group of each move is announced in a live Anticipation: the end of the
    reflection, then the end of each move's time (``start`` + 60, 70, 80, 90, 100, 108, …,
    160 min)."""
    return tuple(slot.start for slot in live_slots(start)[1:])


def live_deadline(start: datetime) -> datetime:
    """The end of move 14 in a live Anticipation: ``start`` + 60 + 4×10 + 4×8 + 4×6 + 2×4
    = ``start`` + 164 min."""
    return live_slots(start)[-1].deadline


def announced_moves(announced: Sequence[datetime], now: datetime) -> int:
    """How many moves have had their group announced at ``now``."""
    return sum(1 for t in announced if t <= now)


def _is_annul_only(m: FeuilleMove) -> bool:
    return m.word is None and m.ref is None and not m.passed and bool(m.annul)


def billet_key(feuille: Feuille, number: int) -> BilletKey:
    """What billet ``number`` plays (empty when the sheet has no such move)."""
    return tuple(
        (m.group, m.letters, m.ref, m.word, m.passed)
        for m in feuille.moves
        if m.number == number and not _is_annul_only(m)
    )


def annul_key(feuille: Feuille, number: int) -> frozenset[int]:
    """The moves billet ``number`` cancels."""
    return frozenset(n for m in feuille.moves if m.number == number for n in m.annul)


def _earliest(
    versions: Sequence[tuple[datetime, Feuille]],
    final: Feuille,
    numbers: set[int],
    key: Callable[[Feuille, int], Hashable],
) -> dict[int, datetime]:
    # The start of the last unchanged run, not the first version ever to hold it: a player
    # who sent X, then Y before the round closed, then X again after later groups were
    # announced has chosen between X and Y with that knowledge.
    chain = sorted(versions, key=lambda v: v[0])
    out: dict[int, datetime] = {}
    for number in sorted(numbers):
        want = key(final, number)
        for at, f in reversed(chain):
            if key(f, number) != want:
                break
            out[number] = at
    return out


def move_commit_times(versions: Sequence[tuple[datetime, Feuille]]) -> dict[int, datetime]:
    """For each move of the last version (by receive time), the receive time of the first
    version from which the billet (group, letters, reference, word, pass) stayed the same
    up to the last version."""
    if not versions:
        return {}
    final = max(versions, key=lambda v: v[0])[1]
    numbers = {m.number for m in final.moves if not _is_annul_only(m)}
    return _earliest(versions, final, numbers, billet_key)


def annul_commit_times(versions: Sequence[tuple[datetime, Feuille]]) -> dict[int, datetime]:
    """For each billet of the last version that cancels moves, the receive time of the first
    version from which that billet cancelled exactly the same moves up to the last one."""
    if not versions:
        return {}
    final = max(versions, key=lambda v: v[0])[1]
    numbers = {m.number for m in final.moves if m.annul}
    return _earliest(versions, final, numbers, annul_key)


@dataclass(frozen=True)
class RoundTimes:
    """Everything the verifier needs to judge the timing of an Anticipation sheet.

    ``announced[k-1]``: when the group of move k was announced (14 instants); ``end``: when
    round 14 closes (the deadline; None: move 14 is not timed, e.g. a late sheet the arbitre
    accepted); ``moves`` / ``annulments``: commit time of each billet / of its annulments
    (:func:`move_commit_times`, :func:`annul_commit_times`); ``zone``: for the reasons.
    """

    announced: tuple[datetime, ...]
    end: datetime | None
    moves: Mapping[int, datetime] = field(default_factory=dict)
    annulments: Mapping[int, datetime] = field(default_factory=dict)
    zone: str = "UTC"

    @classmethod
    def from_versions(
        cls,
        versions: Sequence[tuple[datetime, Feuille]],
        *,
        publish_at: datetime,
        interval: timedelta,
        end: datetime | None,
        zone: str = "UTC",
    ) -> RoundTimes:
        return cls(
            announced=announcement_times(publish_at, interval),
            end=end,
            moves=move_commit_times(versions),
            annulments=annul_commit_times(versions),
            zone=zone,
        )

    def closes(self, number: int) -> tuple[datetime, str] | None:
        """When round ``number`` closes and what closes it (None: not timed)."""
        if 1 <= number < len(self.announced):
            return self.announced[number], f"l'annonce du coup {number + 1}"
        if number == len(self.announced) and self.end is not None:
            return self.end, "la clôture"
        return None

    def _late(self, number: int, sent: datetime | None, what: str) -> str | None:
        close = self.closes(number)
        if close is None or sent is None or sent < close[0]:
            return None
        at, event = close
        return (
            f"{what} envoyé le {format_instant(sent, self.zone)}, après {event} "
            f"({format_instant(at, self.zone)})"
        )

    def move_late(self, number: int) -> str | None:
        """Why billet ``number`` does not count (sent when its round was over), or None."""
        why = self._late(number, self.moves.get(number), f"Coup {number}")
        return f"{why} : il ne compte pas." if why else None

    def annulment_late(self, number: int) -> str | None:
        """Why the annulments of billet ``number`` are ignored, or None."""
        why = self._late(
            number, self.annulments.get(number), f"« Annuler coup(s) » du coup {number}"
        )
        return f"{why} : l'annulation est ignorée." if why else None
