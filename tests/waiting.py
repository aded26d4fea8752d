"""Waiting on a condition, never on a fixed sleep (the team rule): :func:`wait_for` polls
until the condition holds, with a bound generous enough for a heavily loaded machine. The
assertions that follow measure what the server recorded, not this wait."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from flask import Flask


def wait_for(cond: Callable[[], Any], timeout: float = 60.0, step: float = 0.05) -> Any:
    """Poll ``cond`` until it is truthy and return its value; AssertionError after
    ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout}s")
        time.sleep(step)


def steps_in_thread(app: Flask, run_due: Callable[[], list[str]]) -> tuple[threading.Thread,
                                                                          list[str]]:
    """``run_due()`` (a scheduled run) in a thread of its own inside ``app``'s context, so a
    test can act while the run waits; the thread, started, and the list its steps fill."""
    done: list[str] = []

    def run() -> None:
        with app.app_context():
            done.extend(run_due())

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    return worker, done
