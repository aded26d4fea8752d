"""The round games, one module each (issue 21): :mod:`.classic` (the plain Duplicate),
:mod:`.top` (Duplicate Top), :mod:`.free` (one letter-choice game parameterised by drawn /
free / swap / max-tiles: Complétif, Superjoker, Métagramme, Elliptique), :mod:`.tactique`,
:mod:`.superscrabble`. Each implements :class:`puzzles.duplicate.protocol.RoundGame`;
:mod:`puzzles.duplicate.registry` lists them."""
