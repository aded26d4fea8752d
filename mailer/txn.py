"""Write transactions for the mail threads.

SQLite has one writer at a time, and its busy handler waits by sleeping in steps of up to
100 ms: with the store, process and outbox threads all writing, that polling — not the work —
would set the pace. On SQLite the mail threads of one process therefore take turns on an
in-process lock, granted in arrival order (a hand-over, no sleeping); other backends get
plain transactions.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

from flask import Flask
from sqlmodel import Session

from webapp.db import get_engine, session_scope


class FifoLock:
    """A lock granted in arrival order: the processing thread, which writes again as soon as
    it has written, cannot starve the intake thread waiting to commit raw messages."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._next_ticket = 0
        self._serving = 0

    def __enter__(self) -> None:
        with self._cond:
            ticket = self._next_ticket
            self._next_ticket += 1
            self._cond.wait_for(lambda: self._serving == ticket)

    def __exit__(self, *exc: object) -> None:
        with self._cond:
            self._serving += 1
            self._cond.notify_all()


_sqlite_writer = FifoLock()


@contextmanager
def write_scope(app: Flask) -> Iterator[Session]:
    """``session_scope`` for a transaction that writes (serialised on SQLite)."""
    lock = _sqlite_writer if get_engine(app).dialect.name == "sqlite" else nullcontext()
    with lock, session_scope(app) as session:
        yield session
