"""Celery tasks of the ledger: thin, over its services."""

from __future__ import annotations

from celery import shared_task

from kit import requestlog
from ledger.sweeps import sweep_table_bankrolls


@shared_task(name="ledger.sweep_table_bankrolls", ignore_result=True)
def sweep_bankrolls() -> int:
    """Move every table's house bankroll into ``house:bankroll`` (ledger/sweeps.py), one transaction a table."""
    swept = sweep_table_bankrolls()
    requestlog.note(swept=swept, outcome="swept" if swept else "idle", quiet=not swept)
    return swept
