"""Golden snapshots (issue 21: « pin today's behaviour first, then move code »): an output
compared byte for byte with a file under ``tests/data/snapshots/``; a deliberate change is
recorded by running the test with ``ARBITRE_UPDATE_SNAPSHOTS=1`` (then review the diff)."""

from __future__ import annotations

import os
from pathlib import Path

SNAPSHOTS = Path(__file__).resolve().parent / "data" / "snapshots"


def updating() -> bool:
    return os.environ.get("ARBITRE_UPDATE_SNAPSHOTS") == "1"


def check_snapshot(path: Path, actual: str) -> None:
    """``actual`` equals ``path``'s bytes (UTF-8); under ARBITRE_UPDATE_SNAPSHOTS=1 it is
    written there instead. A missing or different snapshot fails."""
    if updating():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(actual.encode("utf-8"))
        return
    assert path.exists(), f"{path} missing: run with ARBITRE_UPDATE_SNAPSHOTS=1 to record it"
    expected = path.read_bytes().decode("utf-8")
    assert actual == expected, (
        f"{path} differs from the output (a deliberate change: ARBITRE_UPDATE_SNAPSHOTS=1)")
