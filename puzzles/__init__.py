"""Problems, feuilles de route, the batch verifier, rankings and reference solutions for the
FRSc composition and anticipation games. Pure Python on top of :mod:`scoring`."""
