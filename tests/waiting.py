"""Waiting on a condition, never on a fixed sleep (the team rule): :func:`wait_for` polls
until the condition holds, with a bound generous enough for a heavily loaded machine. The
assertions that follow measure what the server recorded, not this wait."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


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
