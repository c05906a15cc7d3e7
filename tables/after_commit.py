"""Side effects of a committed command: wake long-polls of the table, schedule the timeout of a new wait.

The timer is sent by task name through the current Celery app (the project's, casino/celery.py): the pipeline
(and so the services) never imports the tasks module, which imports the services, nor the project's wiring (the
layers in pyproject.toml's import contracts).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from celery import current_app as celery_app
from django.conf import settings

from rules import TableState
from tables import notify
from tables.queues import table_queue

log = logging.getLogger(__name__)

FIRE_TIMEOUT = "tables.fire_timeout"  # the task's name (tables.tasks.fire_timeout): (table id, version)
SIGN_CHECKPOINTS = "tables.sign_checkpoints"  # tables.tasks.sign_checkpoints: (table id)


def hand_ended(table_id: int) -> None:
    """Called after commit of a command that ended a hand, when the signer signs (``CHECKPOINT_SIGNER``): ask it
    to replay and sign. Never raises: beat's sweep asks again for anything missed."""
    try:
        celery_app.send_task(SIGN_CHECKPOINTS, args=[table_id], queue=settings.CHECKPOINT_SIGNER_QUEUE)
    except Exception:
        log.exception("could not ask the signer to sign table %s", table_id)


def table_changed(table_id: int, state: TableState) -> None:
    """Called after commit. Never raises: the command is committed whatever happens here."""
    try:
        notify.publish(table_id, state.version)
    except Exception:  # a lost wake-up only delays a long-poll until its next check
        log.exception("could not notify table %s", table_id)
    awaiting = state.awaiting
    if awaiting is None or not getattr(settings, "TABLE_TIMERS", True):
        return
    try:
        eta = datetime.fromtimestamp(awaiting.deadline_ms / 1000, tz=UTC)
        celery_app.send_task(FIRE_TIMEOUT, args=[table_id, state.version], eta=eta, queue=table_queue(table_id))
    except Exception:  # the sweeper fires a missed deadline anyway
        log.exception("could not schedule the timeout of table %s at version %s", table_id, state.version)
