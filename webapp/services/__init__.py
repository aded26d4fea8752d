"""The one service layer the web pages, the mail intake and the scheduler all call.

Services take a ``session`` keyword and never commit it: the caller owns the transaction, so
that a sheet and its receipt (for instance) are written together or not at all.
"""

# Every commit that changes a problem's or round's times signals the scheduler, whichever
# channel made it (webapp.services.changes); the hooks are installed with the services.
from webapp.services import changes as _changes  # noqa: E402

_changes.install()
