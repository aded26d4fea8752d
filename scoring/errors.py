"""Error types raised by the engine on malformed input.

Validation of a *move* never raises (it returns a :class:`scoring.validate.Verdict`); these
errors are for input that cannot even be understood: an unknown letter, a bad reference, a
square off the board, a tile overlapping a different letter, a bad CGP string. Messages are
short French sentences because they reach players.
"""


class EngineError(ValueError):
    """Base class of every engine input error."""


class NotationError(EngineError):
    """A reference (``H4``/``4H``) or a written word could not be read."""


class UnknownLetterError(EngineError):
    """A letter that is not part of the tile set or the A–Z alphabet."""


class OffBoardError(EngineError):
    """A word or square that runs off the 15×15 grid."""


class OverlapError(EngineError):
    """A word that crosses a square already holding a different letter."""


class CGPError(EngineError):
    """A board string in CGP notation that cannot be read."""


class LexiconError(EngineError):
    """A word list that cannot be read or compiled."""
