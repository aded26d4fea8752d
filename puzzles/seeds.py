"""Secret seeds: what the Duplicate's bag and the correspondence game's row are drawn from.

Owns the one generator of fresh secret seeds (the operating system's cryptographic source,
``secrets``: no clock, no counter, no game id in it) and their bound, so that every game that
draws from a seed draws from the same kind of seed.
"""

from __future__ import annotations

import secrets

#: bits of a fresh secret seed (:func:`new_secret_seed`)
SECRET_SEED_BITS = 128
#: the largest seed an arbitre may give (a seed of :data:`SECRET_SEED_BITS` bits)
MAX_SEED = (1 << SECRET_SEED_BITS) - 1


def new_secret_seed() -> int:
    """A fresh secret seed of :data:`SECRET_SEED_BITS` bits from the operating system's
    cryptographic generator (``secrets``): no clock, no counter, no game id in it."""
    return secrets.randbits(SECRET_SEED_BITS)
