"""Side effects of a committed command: wake long-polls of the table, schedule the timeout of a new wait."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from django.conf import settings

from tables.rules import TableState

log = logging.getLogger(__name__)


def table_changed(table_id: int, state: TableState) -> None:
    """Called after commit. Never raises: the command is committed whatever happens here."""
    try:
        from tables import notify

        notify.publish(table_id, state.version)
    except Exception:  # a lost wake-up only delays a long-poll until its next check
        log.exception("could not notify table %s", table_id)
    awaiting = state.awaiting
    if awaiting is None or not getattr(settings, "TABLE_TIMERS", True):
        return
    try:
        from tables.tasks import fire_timeout

        eta = datetime.fromtimestamp(awaiting.deadline_ms / 1000, tz=UTC)
        fire_timeout.apply_async(args=[table_id, state.version], eta=eta, queue=settings.TABLE_TIMER_QUEUE)
    except Exception:  # the sweeper fires a missed deadline anyway
        log.exception("could not schedule the timeout of table %s at version %s", table_id, state.version)
