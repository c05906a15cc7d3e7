"""The cashier's database role (issue #43, DESIGN.md principle 17): deposits, withdrawals and corrections are
written under a role of its own, never the game's.

The application's role (web, live, workers, beat) may not insert a ledger transaction or posting at all: the game's
entries are the database's own derivations from its stored events (``ledger_hand_entry``), the sweep is
``ledger_sweep_bankroll``. The cashier's role (``CASHIER_DATABASE_URL``'s user; ``make run``, ``make test`` and
compose create it) may insert balanced transactions and nothing of the game. :func:`cashier_session` is where its
writes run:

- with a ``cashier`` connection (settings ``DATABASES["cashier"]``: the web server and the management commands get
  its URL, no other process does), in a transaction of that connection, committed when the block ends;
- in the test suite (settings ``DATABASE_CASHIER_SET_ROLE``), on the test's own connection switched to the cashier's
  role for a savepoint and back, so the entry shares the test's transaction (the suite's login role may become either
  role; the application's role cannot become the cashier's);
- with neither (a ``DATABASE_URL`` given as is, without roles), on the default connection: whatever that role may do.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, transaction

CASHIER_ALIAS = "cashier"


@contextmanager
def cashier_session() -> Iterator[str]:
    """The alias of the connection to write the cashier's entry on, inside an atomic block of that connection."""
    switch = getattr(settings, "DATABASE_CASHIER_SET_ROLE", None)
    if switch:
        cashier, app = switch
        with transaction.atomic():  # a failure rolls the savepoint back, and the SET ROLE with it
            with connection.cursor() as cursor:
                cursor.execute(f"SET ROLE {connection.ops.quote_name(cashier)}")
            yield DEFAULT_DB_ALIAS
            with connection.cursor() as cursor:
                cursor.execute(f"SET ROLE {connection.ops.quote_name(app)}")
        return
    alias = CASHIER_ALIAS if CASHIER_ALIAS in settings.DATABASES else DEFAULT_DB_ALIAS
    with transaction.atomic(using=alias):
        yield alias
