"""Sweeping each table's house bankroll into ``house:bankroll`` (API.md: the per-table sub-accounts
``house:bankroll:table:<table id>``, swept into it; docs/ledger.md, "No hot rows").

A house bank stakes and collects at table N through ``house:bankroll:table:N`` only, so a hand touches no row that
another table touches. Now and then (beat, ``LEDGER_SWEEP_INTERVAL_S``) each table's balance is moved into
``house:bankroll`` by a ``bankroll_sweep`` entry of its own, in a transaction of its own: the only entries that
touch both a table's rows and the shared one, each holding the two balance rows for one statement's time.

The sweep changes no total: the house bankroll is the sum of every ``bankroll`` account before and after. It is
the database function ``ledger_sweep_bankroll`` (migration 0007), which reads the amount under the locks: the
application's role inserts no transaction itself (issue #43).
"""

from __future__ import annotations

from django.db import connection, transaction

from ledger.accounts import BANKROLL, TABLE_BANKROLL_PREFIX, AccountKey, create_missing
from ledger.models import Transaction


@transaction.atomic
def sweep_table_bankroll(table_id: int) -> Transaction | None:
    """Move the whole balance of table ``table_id``'s house bankroll into ``house:bankroll`` (either sign); None
    if it holds nothing. Idempotent: the cause names the sub-account and its last posting swept
    (``sweep:house:bankroll:table:<id>:<posting id>``), and a second sweep finds nothing left."""
    create_missing([AccountKey.table_bankroll(table_id), AccountKey.house(BANKROLL)])
    with connection.cursor() as cursor:
        cursor.execute("SELECT ledger_sweep_bankroll(%s)", [table_id])
        (transaction_id,) = cursor.fetchone()
    if transaction_id is None:
        return None
    swept = Transaction.objects.get(pk=transaction_id)
    swept.posted = list(swept.postings.order_by("id"))
    return swept


def tables_to_sweep() -> list[int]:
    """The tables whose house bankroll holds anything (one query over the balance rows of kind ``bankroll``)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT a.code FROM ledger_balance b JOIN ledger_account a ON a.id = b.account_id "
            "WHERE b.kind = 'bankroll' AND b.balance <> 0 AND a.code LIKE %s ORDER BY a.id",
            [TABLE_BANKROLL_PREFIX + "%"],
        )
        return [int(code.removeprefix(TABLE_BANKROLL_PREFIX)) for (code,) in cursor.fetchall()]


def sweep_table_bankrolls() -> int:
    """Sweep every table's house bankroll that holds anything, each in its own transaction (a refusal or a
    failure of one leaves the others swept); how many were swept."""
    return sum(sweep_table_bankroll(table_id) is not None for table_id in tables_to_sweep())
