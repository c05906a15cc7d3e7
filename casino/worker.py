"""The Celery worker's consumer, with fixes for surviving a lost broker (issue 16).

Celery 5.7.0 closes the broken broker connection after ``collect()`` has already released its transport. With
the Redis transport, anything that then touches the old channel asks the released transport for its address and
raises ``AttributeError: 'NoneType' object has no attribute 'hostname'``, which Celery does not expect, and the
worker stops with "Unrecoverable error" instead of reconnecting. The soak (soak/faults.py, ``redis_restart``)
found two such paths, both because our timers are ``acks_late`` ETA tasks held reserved until their deadline:

1. closing the broken channel restores its unacknowledged messages through the released transport;
2. a task that was running during the outage finishes after the reconnect and acknowledges its message on the
   old channel.

Here (1) is logged and the consumer carries on into its normal reconnect, and ``AttributeError`` is one of the
consumer's connection errors, so for (2) Celery logs "Couldn't ack" and carries on, as it does when an ack
fails for a lost connection. Tasks run in the pool's processes, so their own errors never reach these paths.
What is skipped is harmless: the messages are not restored or acknowledged, so Redis redelivers them after its
visibility timeout, and a timer delivered again changes nothing (the core ignores a timeout for a version the
table has left; the sweeper fires any missed deadline meanwhile). Selected by ``CELERY_WORKER_CONSUMER``.
"""

from __future__ import annotations

import logging
from typing import Any

from celery.worker.consumer import Consumer as CeleryConsumer

log = logging.getLogger(__name__)


class Consumer(CeleryConsumer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.connection_errors = (*self.connection_errors, AttributeError)

    def on_connection_error_after_connected(self, exc: Exception) -> None:
        try:
            super().on_connection_error_after_connected(exc)
        except AttributeError:
            log.warning("broker connection lost; its channel could not be closed cleanly, reconnecting", exc_info=True)
