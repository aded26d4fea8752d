"""The one French number format of percentages (« 49,40 »: two decimals, decimal comma), for
every ranking of the server — problems, championships, Duplicate games — on the pages, in the
CSV files and in the mails (``webapp`` and ``mailer.compose`` register it as the ``pourcent``
template filter)."""

from __future__ import annotations


def percent(value: float | int | None, decimals: int = 2) -> str:
    """``49.4`` → ``"49,40"``; ``None`` (no percentage: a game without tops) → ``""``."""
    if value is None or isinstance(value, bool):
        return ""
    return f"{float(value):.{decimals}f}".replace(".", ",")
