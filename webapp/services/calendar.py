"""Calendars (RFC 5545 ``.ics`` feeds) of a competition and of a player, written with the
``icalendar`` package: Google Calendar, Thunderbird and phones subscribe to their URLs.

Each event has a UID that never changes for the same thing (``problem-<id>-cloture@<host>``,
``duplicate-<id>-coup-<n>@<host>``), so a calendar that reloads the feed updates its events
instead of duplicating them. Every instant is written in UTC (``…Z``); ``icalendar`` folds
long lines at 75 octets and ends every line with CRLF. DTSTAMP is the instant the row was
created (the feed is a published calendar without METHOD: RFC 5545 §3.8.7.2). Every text
(a title, a name) is written on one line (``inputs.one_line``: a line break or control
character stored before names were checked becomes a space), escaped by ``icalendar``, and
codes are percent-encoded in URLs, so no stored value can break the feed.

Events: a problem's publication, its deadline (« Clôture »), and for an Anticipation
announced move by move each move's announcement (to the round's close); a Duplicate game's
start and each of its rounds already drawn (from its opening to its deadline); a
correspondence game in play, its move awaited (from the turn's start to its deadline,
``correspondence-<id>-coup-<n>``; issue 22 §1).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from urllib.parse import quote, urlsplit

from icalendar import Calendar, vText
from icalendar import Event as IcsEvent
from sqlmodel import Session, col, select

from webapp.models import (
    Competition,
    CorrespondenceGame,
    CorrespondenceStatus,
    DuplicateGame,
    DuplicateRound,
    Player,
    Problem,
    ProblemStatus,
    Registration,
    Submission,
)
from webapp.services import inputs, rounds
from webapp.services.timefmt import format_local

#: how long a one-instant event (a publication, a deadline) lasts in a calendar
MARK = timedelta(minutes=15)


def _host(base_url: str) -> str:
    return urlsplit(base_url).hostname or "arbitre.invalid"


def _event(*, uid: str, host: str, summary: str, start: datetime, end: datetime,
           stamp: datetime, description: str = "", url: str = "") -> IcsEvent:
    ev = IcsEvent()
    ev.add("uid", f"{uid}@{host}")
    ev.add("dtstamp", stamp)
    ev.add("dtstart", start)
    ev.add("dtend", max(end, start + timedelta(minutes=1)))
    ev.add("summary", inputs.one_line(summary))
    if description:
        ev.add("description", inputs.one_line(description))
    if url:
        ev.add("url", url)
    return ev


def problem_events(problem: Problem, base_url: str) -> list[IcsEvent]:
    """Publication, deadline and (Anticipation announced move by move) each move."""
    host = _host(base_url)
    url = f"{base_url.rstrip('/')}/problemes/{quote(problem.code, safe='')}"
    label = problem.game.label
    stamp = problem.created_at
    deadline_local = format_local(problem.deadline_at, problem.timezone)
    out = [
        _event(uid=f"problem-{problem.id}-publication", host=host, stamp=stamp,
               summary=f"Publication : {problem.title} ({label})",
               start=problem.publish_at, end=problem.publish_at + MARK, url=url,
               description=f"Le problème {problem.code} est publié ; les feuilles sont "
                           f"reçues jusqu'au {deadline_local}."),
        _event(uid=f"problem-{problem.id}-cloture", host=host, stamp=stamp,
               summary=f"Clôture : {problem.title}",
               start=problem.deadline_at, end=problem.deadline_at + MARK, url=url,
               description=f"Dernier délai pour la feuille de route du problème "
                           f"{problem.code} : {deadline_local}."),
    ]
    if rounds.progressive(problem):
        for k, at in enumerate(rounds.schedule(problem), start=1):
            close, _ = rounds.round_close(problem, k)
            out.append(_event(
                uid=f"problem-{problem.id}-coup-{k}", host=host, stamp=stamp,
                summary=f"{problem.title} : coup {k} annoncé",
                start=at, end=close, url=url,
                description=f"Le groupe du coup {k} est annoncé ; billet jusqu'au "
                            f"{format_local(close, problem.timezone)}."))
    return out


def duplicate_events(session: Session, game: DuplicateGame, base_url: str) -> list[IcsEvent]:
    """The game's start and each round drawn so far (opening to deadline)."""
    host = _host(base_url)
    url = f"{base_url.rstrip('/')}/duplicate/{quote(game.code, safe='')}"
    out = [_event(uid=f"duplicate-{game.id}-debut", host=host, stamp=game.created_at,
                  summary=f"Duplicate : {game.title} — début",
                  start=game.starts_at, end=game.starts_at + MARK, url=url,
                  description="Premier tirage de la partie Duplicate par correspondance.")]
    rounds = session.exec(select(DuplicateRound).where(DuplicateRound.game_id == game.id)
                          .order_by(col(DuplicateRound.number))).all()
    for rnd in rounds:
        out.append(_event(
            uid=f"duplicate-{game.id}-coup-{rnd.number}", host=host, stamp=rnd.opens_at,
            summary=f"Duplicate : {game.title} — coup {rnd.number}",
            start=rnd.opens_at, end=rnd.closes_at, url=url,
            description=f"Coup {rnd.number} ouvert ; bulletin jusqu'au "
                        f"{format_local(rnd.closes_at, game.timezone)}."))
    return out


def correspondence_events(game: CorrespondenceGame, base_url: str) -> list[IcsEvent]:
    """A game in play: the move awaited, from the turn's start to its deadline
    (``turn_started_at`` + ``move_hours``, as ``correspondence.deadline``); nothing once it
    is over."""
    if game.status == CorrespondenceStatus.FINISHED:
        return []
    n = len(game.moves) + 1
    due = game.turn_started_at + timedelta(hours=game.move_hours)
    url = f"{base_url.rstrip('/')}/correspondance/{quote(game.code, safe='')}"
    return [_event(uid=f"correspondence-{game.id}-coup-{n}", host=_host(base_url),
                   stamp=game.turn_started_at,
                   summary=f"Partie par correspondance : {game.title} — coup {n}",
                   start=game.turn_started_at, end=due, url=url,
                   description=f"Coup {n} attendu avant le {format_local(due, 'UTC')}.")]


def _calendar(name: str, events: Iterable[IcsEvent]) -> bytes:
    cal = Calendar()
    cal.add("prodid", "-//Arbitre//Concours de Scrabble par correspondance//FR")
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    # an X- property is written as given (no TEXT escaping): one line, "\\ ; ," escaped
    cal.add("x-wr-calname", vText(inputs.one_line(name)))
    for ev in events:
        cal.add_component(ev)
    return bytes(cal.to_ical())


def _visible_problems(session: Session, competition_ids: Iterable[int]) -> list[Problem]:
    ids = list(competition_ids)
    if not ids:
        return []
    return list(session.exec(
        select(Problem).where(col(Problem.competition_id).in_(ids))
        .where(col(Problem.status) != ProblemStatus.DRAFT)
        .order_by(col(Problem.publish_at), col(Problem.id))).all())


def _games(session: Session, competition_ids: Iterable[int]) -> list[DuplicateGame]:
    ids = list(competition_ids)
    if not ids:
        return []
    return list(session.exec(
        select(DuplicateGame).where(col(DuplicateGame.competition_id).in_(ids))
        .order_by(col(DuplicateGame.starts_at), col(DuplicateGame.id))).all())


def competition_ics(session: Session, competition: Competition, base_url: str) -> bytes:
    """Every published or scheduled problem of ``competition`` and its Duplicate games."""
    assert competition.id is not None
    events: list[IcsEvent] = []
    for prob in _visible_problems(session, [competition.id]):
        events += problem_events(prob, base_url)
    for game in _games(session, [competition.id]):
        events += duplicate_events(session, game, base_url)
    for corr in session.exec(select(CorrespondenceGame).where(
            CorrespondenceGame.competition_id == competition.id)
            .order_by(col(CorrespondenceGame.id))).all():
        events += correspondence_events(corr, base_url)
    return _calendar(competition.name, events)


def player_ics(session: Session, player: Player, base_url: str) -> bytes:
    """The calendar of the competitions ``player`` is registered in, and of every problem
    he sent a sheet to."""
    comp_ids = set(session.exec(select(Registration.competition_id)
                                .where(Registration.player_id == player.id)).all())
    problems = {p.id: p for p in _visible_problems(session, comp_ids)}
    sent = set(session.exec(select(Submission.problem_id)
                            .where(Submission.player_id == player.id)).all())
    for p in session.exec(select(Problem).where(col(Problem.id).in_(sent))).all():
        problems.setdefault(p.id, p)
    events: list[IcsEvent] = []
    for prob in sorted(problems.values(), key=lambda p: (p.publish_at, p.id or 0)):
        events += problem_events(prob, base_url)
    for game in _games(session, comp_ids):
        events += duplicate_events(session, game, base_url)
    for corr in session.exec(select(CorrespondenceGame).where(
            (CorrespondenceGame.red_id == player.id) | (CorrespondenceGame.blue_id == player.id))
            .order_by(col(CorrespondenceGame.id))).all():
        events += correspondence_events(corr, base_url)
    return _calendar(f"Arbitre — {player.name}", events)
