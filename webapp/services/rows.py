"""One row by its id, for the pages: the console's URLs and forms name a problem, a sheet, a
player… by id, and the view asks here for the row instead of reading the session itself
(docs/ARCHITECTURE.md: views do not query).

A row that must exist (it is in the URL) is ``problem(session, id)`` and so on: a missing one
raises :class:`NotFound`, which the pages answer with their 404 page (``webapp.views.public``
registers the handler for the whole application). A row a form may leave unchosen is
``competition_or_none(session, id)``: no id (``None`` or 0) or no such row is ``None``, and
the service the view calls next says what is missing.
"""

from __future__ import annotations

from typing import TypeVar

from sqlmodel import Session, SQLModel

from webapp.models import (
    Appeal,
    Arbitre,
    Competition,
    InboundMessage,
    Player,
    Problem,
    Stage,
    Submission,
)

T = TypeVar("T", bound=SQLModel)


class NotFound(LookupError):
    """No row with this id: the pages answer 404."""


def _row(session: Session, model: type[T], ident: int) -> T:
    row = session.get(model, ident)
    if row is None:
        raise NotFound(f"{model.__name__} {ident}")
    return row


def _row_or_none(session: Session, model: type[T], ident: int | None) -> T | None:
    return session.get(model, ident) if ident else None


def appeal(session: Session, ident: int) -> Appeal:
    return _row(session, Appeal, ident)


def arbitre(session: Session, ident: int) -> Arbitre:
    return _row(session, Arbitre, ident)


def competition(session: Session, ident: int) -> Competition:
    return _row(session, Competition, ident)


def inbound_message(session: Session, ident: int) -> InboundMessage:
    return _row(session, InboundMessage, ident)


def player(session: Session, ident: int) -> Player:
    return _row(session, Player, ident)


def problem(session: Session, ident: int) -> Problem:
    return _row(session, Problem, ident)


def submission(session: Session, ident: int) -> Submission:
    return _row(session, Submission, ident)


def competition_or_none(session: Session, ident: int | None) -> Competition | None:
    return _row_or_none(session, Competition, ident)


def player_or_none(session: Session, ident: int | None) -> Player | None:
    return _row_or_none(session, Player, ident)


def problem_or_none(session: Session, ident: int | None) -> Problem | None:
    return _row_or_none(session, Problem, ident)


def stage_or_none(session: Session, ident: int | None) -> Stage | None:
    return _row_or_none(session, Stage, ident)
