"""The one service layer the web pages, the mail intake and the scheduler all call.

Services take a ``session`` keyword and never commit it: the caller owns the transaction, so
that a sheet and its receipt (for instance) are written together or not at all.
"""
